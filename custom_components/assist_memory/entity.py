"""What every Assist Memory entity shares: the entry's service device."""

from __future__ import annotations

from homeassistant.helpers.device_registry import DeviceEntryType, DeviceInfo

from .const import DOMAIN
from .data import AssistMemoryConfigEntry


def service_device(entry: AssistMemoryConfigEntry) -> DeviceInfo:
    """The device the memory agent, the sensor and the switch belong to."""
    return DeviceInfo(
        identifiers={(DOMAIN, entry.entry_id)},
        name=entry.title,
        manufacturer="Assist Memory",
        entry_type=DeviceEntryType.SERVICE,
    )
