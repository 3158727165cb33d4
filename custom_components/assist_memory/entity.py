"""What every Assist Memory entity shares.

A name from its translation key, the entry's service device, and a unique id made of
the entry and the entity's key.
"""

from __future__ import annotations

from homeassistant.helpers.device_registry import DeviceEntryType, DeviceInfo
from homeassistant.helpers.entity import Entity

from .const import DOMAIN
from .runtime_data import AssistMemoryConfigEntry


class AssistMemoryEntity(Entity):
    """An entity of the entry's service device (the memory agent, sensor, switch)."""

    _attr_has_entity_name = True

    def __init__(self, entry: AssistMemoryConfigEntry, key: str) -> None:
        self._attr_unique_id = f"{entry.entry_id}_{key}"
        self._attr_device_info = DeviceInfo(
            identifiers={(DOMAIN, entry.entry_id)},
            name=entry.title,
            manufacturer="Assist Memory",
            entry_type=DeviceEntryType.SERVICE,
        )
