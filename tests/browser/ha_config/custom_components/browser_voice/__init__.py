"""Two voice devices for the browser test's Home Assistant ("Who is speaking").

Linked into the test's config folder by tests/browser/test_voice_devices.py. Devices
in the device registry, and a `browser_voice.say` action that talks to Assist at one
of them as a satellite does: with the device's id and a context without a user (the
REST API's turns always carry the caller's user).
"""

from __future__ import annotations

from homeassistant.components import conversation
from homeassistant.config_entries import ConfigEntry
from homeassistant.core import (
    Context,
    HomeAssistant,
    ServiceCall,
    ServiceResponse,
    SupportsResponse,
)
from homeassistant.helpers import area_registry as ar, device_registry as dr

DOMAIN = "browser_voice"
DEVICES = (
    ("kitchen", "Kitchen voice", "Kitchen"),
    ("bedroom", "Bedroom voice", "Bedroom"),
)


async def async_setup_entry(hass: HomeAssistant, entry: ConfigEntry) -> bool:
    """Register the devices, each in its area."""
    areas = ar.async_get(hass)
    for key, name, area in DEVICES:
        area_id = (areas.async_get_area_by_name(area) or areas.async_create(area)).id
        device = dr.async_get(hass).async_get_or_create(
            config_entry_id=entry.entry_id, identifiers={(DOMAIN, key)}, name=name
        )
        dr.async_get(hass).async_update_device(device.id, area_id=area_id)

    async def say(call: ServiceCall) -> ServiceResponse:
        result = await conversation.async_converse(
            hass,
            call.data["text"],
            None,
            Context(),
            language="en",
            agent_id=call.data["agent_id"],
            device_id=call.data["device_id"],
        )
        return {"speech": result.response.speech["plain"]["speech"]}

    hass.services.async_register(
        DOMAIN, "say", say, supports_response=SupportsResponse.ONLY
    )
    return True


async def async_unload_entry(hass: HomeAssistant, entry: ConfigEntry) -> bool:
    """Nothing to unload."""
    return True
