"""A household for "Who is speaking" tests: people, their phones, voice devices.

Real Home Assistant pieces: users, person entities (set up from YAML, their state
following device trackers), devices in the device registry with an
`assist_satellite` entity, as an ESPHome or Wyoming satellite has.
"""

from __future__ import annotations

from dataclasses import dataclass

from homeassistant.core import HomeAssistant
from homeassistant.helpers import device_registry as dr, entity_registry as er
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import MockConfigEntry, MockUser

ANNA = "person.anna"
BOB = "person.bob"
# Leo has no Home Assistant user: his memories are kept under his person entity.
LEO = "person.leo"


@dataclass(frozen=True)
class Household:
    """Two people with users, one without, and two voice devices."""

    anna_user: str
    bob_user: str
    kitchen: str
    bedroom: str


async def async_household(hass: HomeAssistant) -> Household:
    """Set the household up: users, person entities (away), voice devices."""
    anna = MockUser(name="Anna").add_to_hass(hass)
    bob = MockUser(name="Bob").add_to_hass(hass)
    assert await async_setup_component(
        hass,
        "person",
        {
            "person": [
                {
                    "id": "anna",
                    "name": "Anna",
                    "user_id": anna.id,
                    "device_trackers": ["device_tracker.anna_phone"],
                },
                {
                    "id": "bob",
                    "name": "Bob",
                    "user_id": bob.id,
                    "device_trackers": ["device_tracker.bob_phone"],
                },
                {
                    "id": "leo",
                    "name": "Leo",
                    "device_trackers": ["device_tracker.leo_phone"],
                },
            ]
        },
    )
    for phone in ("anna_phone", "bob_phone", "leo_phone"):
        hass.states.async_set(f"device_tracker.{phone}", "not_home")
    await hass.async_block_till_done()
    return Household(
        anna_user=anna.id,
        bob_user=bob.id,
        kitchen=voice_device(hass, "kitchen", "Kitchen voice"),
        bedroom=voice_device(hass, "bedroom", "Bedroom voice"),
    )


def voice_device(hass: HomeAssistant, key: str, name: str) -> str:
    """A satellite's device with its assist_satellite entity; its id."""
    entry = MockConfigEntry(domain="esphome", title=name)
    entry.add_to_hass(hass)
    device = dr.async_get(hass).async_get_or_create(
        config_entry_id=entry.entry_id, identifiers={("esphome", key)}, name=name
    )
    er.async_get(hass).async_get_or_create(
        "assist_satellite",
        "esphome",
        f"{key}-satellite",
        config_entry=entry,
        device_id=device.id,
    )
    return device.id


async def async_home(hass: HomeAssistant, *people: str) -> None:
    """Exactly these people are home (their phones say so); the others away."""
    for person in (ANNA, BOB, LEO):
        name = person.removeprefix("person.")
        state = "home" if person in people else "not_home"
        hass.states.async_set(f"device_tracker.{name}_phone", state)
    await hass.async_block_till_done()
    for person in (ANNA, BOB, LEO):
        expected = "home" if person in people else "not_home"
        state = hass.states.get(person)
        assert state is not None
        assert state.state == expected
