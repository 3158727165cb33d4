"""The voice devices a person can be given in "Who is speaking".

Offered: every device with an `assist_satellite` entity (Voice PE, ESPHome and
Wyoming satellites), and any device that has talked to the memory agent (kept in
Home Assistant's storage, device ids only, so a device is offered after a restart).
"""

from __future__ import annotations

from typing import Final

from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers import (
    area_registry as ar,
    device_registry as dr,
    entity_registry as er,
)
from homeassistant.helpers.storage import Store
from homeassistant.util.hass_dict import HassKey

from .const import DOMAIN

SATELLITE_DOMAIN: Final = "assist_satellite"
_STORAGE_VERSION: Final = 1
_SAVE_DELAY: Final = 10.0


class HeardDevices:
    """The ids of the devices that have talked to the memory agent."""

    def __init__(self, hass: HomeAssistant) -> None:
        self._store: Store[list[str]] = Store(
            hass, _STORAGE_VERSION, f"{DOMAIN}.heard_devices"
        )
        self.ids: set[str] = set()

    async def async_load(self) -> None:
        """Read the ids kept before a restart."""
        stored = await self._store.async_load()
        self.ids = {item for item in stored or () if isinstance(item, str)}

    @callback
    def async_heard(self, device_id: str) -> None:
        """Note a device that talked (saved a few seconds later)."""
        if device_id not in self.ids:
            self.ids.add(device_id)
            self._store.async_delay_save(lambda: sorted(self.ids), _SAVE_DELAY)


_HEARD: HassKey[HeardDevices] = HassKey(f"{DOMAIN}_heard_devices")


async def async_heard_devices(hass: HomeAssistant) -> HeardDevices:
    """The heard devices, loaded once."""
    if (heard := hass.data.get(_HEARD)) is None:
        heard = hass.data[_HEARD] = HeardDevices(hass)
        await heard.async_load()
    return heard


async def async_voice_devices(hass: HomeAssistant) -> dict[str, str]:
    """Device id -> its name (with its area) for the voice devices to offer."""
    heard = await async_heard_devices(hass)
    satellites = {
        entry.device_id
        for entry in er.async_get(hass).entities.values()
        if entry.domain == SATELLITE_DOMAIN and entry.device_id
    }
    devices = dr.async_get(hass)
    areas = ar.async_get(hass)
    offered: dict[str, str] = {}
    for device_id in satellites | heard.ids:
        if (device := devices.async_get(device_id)) is None:
            continue
        name = device.name_by_user or device.name or device_id
        area = areas.async_get_area(device.area_id) if device.area_id else None
        offered[device_id] = f"{name} ({area.name})" if area else name
    return dict(sorted(offered.items(), key=lambda item: item[1].casefold()))


def device_name(hass: HomeAssistant, device_id: str | None) -> str | None:
    """A device's name as people call it (None for none or an unknown device)."""
    if device_id is None or (device := dr.async_get(hass).async_get(device_id)) is None:
        return None
    return device.name_by_user or device.name
