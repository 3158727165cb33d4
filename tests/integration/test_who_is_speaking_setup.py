"""Who is speaking: the options step, the devices it offers, and the memory server.

A real Home Assistant; the memory server is a real process on 127.0.0.1.
"""

from __future__ import annotations

import json
from typing import Any
import urllib.request

from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.helpers import device_registry as dr
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry
from pytest_homeassistant_custom_component.typing import WebSocketGenerator

from custom_components.assist_memory.const import CONF_AGENT_ID
from custom_components.assist_memory.engine import HOUSEHOLD_SCOPE
from custom_components.assist_memory.speaker import (
    CONF_GUEST_DEVICES,
    CONF_PRESENCE,
    devices_option_key,
)
from custom_components.assist_memory.voice_devices import async_voice_devices
from tests.support.memory_server import MemoryServer

from .agents import AGENT_ENTITY_ID
from .conftest import assert_placeholders_supplied, remote_config_entry
from .conversing import EAGER, options, say, speech
from .household import ANNA, BOB, LEO, Household, async_household

LLM_AGENT = options(**{CONF_AGENT_ID: AGENT_ENTITY_ID, **EAGER})


@pytest.fixture
async def household(hass: HomeAssistant) -> Household:
    """Anna and Bob (users), Leo (a person only), a kitchen and a bedroom device."""
    return await async_household(hass)


async def open_step(hass: HomeAssistant, entry: MockConfigEntry) -> Any:
    """The options' "Who is speaking": its first page."""
    result = await hass.config_entries.options.async_init(entry.entry_id)
    assert "speakers" in result["menu_options"]
    return await hass.config_entries.options.async_configure(
        result["flow_id"], {"next_step_id": "speakers"}
    )


async def walk_through(
    hass: HomeAssistant,
    entry: MockConfigEntry,
    people: dict[str, list[str]],
    last: dict[str, Any],
) -> Any:
    """Go through the pages: each person's devices by name, then `last` (the guest
    devices and presence); the last page's result."""
    page = await open_step(hass, entry)
    while page["step_id"] == "person_devices":
        name = page["description_placeholders"]["person"]
        page = await hass.config_entries.options.async_configure(
            page["flow_id"], {"devices": people.get(name, [])}
        )
    assert page["step_id"] == "guests"
    done = await hass.config_entries.options.async_configure(page["flow_id"], last)
    await hass.async_block_till_done()
    return done


def device_labels(page: Any, field: str) -> dict[str, str]:
    """A page's device field: device id -> the name it is offered by."""
    options = page["data_schema"].schema[field].config["options"]
    return {option["value"]: option["label"] for option in options}


@pytest.mark.usefixtures("household")
async def test_each_person_has_a_page_named_after_them(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    page = await open_step(hass, loaded_entry)
    seen = []
    while page["step_id"] == "person_devices":
        assert page["type"] is FlowResultType.FORM
        assert_placeholders_supplied(page, "options")
        # One field, whose label names the person ("{person}'s voice devices").
        assert [str(key) for key in page["data_schema"].schema] == ["devices"]
        placeholders = page["description_placeholders"]
        seen.append((placeholders["person"], placeholders["number"]))
        assert placeholders["count"] == "3"
        page = await hass.config_entries.options.async_configure(page["flow_id"], {})
    assert seen == [("Anna", "1"), ("Bob", "2"), ("Leo", "3")]
    assert page["step_id"] == "guests"
    assert_placeholders_supplied(page, "options")
    assert [str(key) for key in page["data_schema"].schema] == [
        CONF_GUEST_DEVICES,
        CONF_PRESENCE,
    ]
    # Presence is off by default.
    assert loaded_entry.options.get(CONF_PRESENCE) is None
    assert not page["data_schema"]({})[CONF_PRESENCE]


async def test_saving_the_pages_assigns_devices(
    hass: HomeAssistant, household: Household, loaded_entry: MockConfigEntry
) -> None:
    done = await walk_through(
        hass,
        loaded_entry,
        {"Anna": [household.kitchen], "Leo": [household.bedroom]},
        {CONF_PRESENCE: True},
    )
    assert done["type"] is FlowResultType.CREATE_ENTRY
    assert loaded_entry.options[devices_option_key(ANNA)] == [household.kitchen]
    assert loaded_entry.options[devices_option_key(LEO)] == [household.bedroom]
    assert devices_option_key(BOB) not in loaded_entry.options
    assert loaded_entry.options[CONF_PRESENCE] is True
    assert loaded_entry.options[CONF_GUEST_DEVICES] == []
    # The other options are untouched, and the memory works on.
    answer = await say(
        hass,
        "Remember that my bike is in the shed",
        user_id=None,
        device_id=household.kitchen,
    )
    assert speech(answer) == "OK, I'll remember that."
    page = await loaded_entry.runtime_data.backend.list()
    assert [m.scope for m in page.items] == [household.anna_user]


async def test_a_device_given_to_a_second_person_is_theirs_alone(
    hass: HomeAssistant, household: Household, loaded_entry: MockConfigEntry
) -> None:
    await walk_through(hass, loaded_entry, {"Anna": [household.kitchen]}, {})
    # Bob's page gives him the kitchen: Anna's page, shown again, no longer has it.
    page = await open_step(hass, loaded_entry)
    assert page["description_placeholders"]["person"] == "Anna"
    (field,) = page["data_schema"].schema
    assert field.description == {"suggested_value": [household.kitchen]}
    page = await hass.config_entries.options.async_configure(
        page["flow_id"], {"devices": [household.kitchen]}
    )
    page = await hass.config_entries.options.async_configure(
        page["flow_id"], {"devices": [household.kitchen, household.bedroom]}
    )
    assert page["description_placeholders"]["person"] == "Leo"
    page = await hass.config_entries.options.async_configure(page["flow_id"], {})
    # The guest page offers no person's device.
    assert CONF_GUEST_DEVICES not in {str(k) for k in page["data_schema"].schema}
    done = await hass.config_entries.options.async_configure(page["flow_id"], {})
    assert done["type"] is FlowResultType.CREATE_ENTRY
    assert devices_option_key(ANNA) not in loaded_entry.options
    assert loaded_entry.options[devices_option_key(BOB)] == [
        household.kitchen,
        household.bedroom,
    ]


async def test_a_guest_device_given_to_a_person_is_no_longer_a_guests(
    hass: HomeAssistant, household: Household, loaded_entry: MockConfigEntry
) -> None:
    await walk_through(
        hass, loaded_entry, {}, {CONF_GUEST_DEVICES: [household.kitchen]}
    )
    assert loaded_entry.options[CONF_GUEST_DEVICES] == [household.kitchen]
    done = await walk_through(hass, loaded_entry, {"Leo": [household.kitchen]}, {})
    assert done["type"] is FlowResultType.CREATE_ENTRY
    assert loaded_entry.options[CONF_GUEST_DEVICES] == []
    assert loaded_entry.options[devices_option_key(LEO)] == [household.kitchen]


async def test_with_no_voice_device_the_page_says_none_has_talked_yet(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    page = await open_step(hass, loaded_entry)
    assert page["step_id"] == "no_voice_devices"
    assert [str(key) for key in page["data_schema"].schema] == [CONF_PRESENCE]
    done = await hass.config_entries.options.async_configure(
        page["flow_id"], {CONF_PRESENCE: True}
    )
    assert done["type"] is FlowResultType.CREATE_ENTRY
    assert loaded_entry.options[CONF_PRESENCE] is True


async def test_devices_offered_are_satellites_and_devices_that_talked(
    hass: HomeAssistant, household: Household, loaded_entry: MockConfigEntry
) -> None:
    other = MockConfigEntry(domain="zha")
    other.add_to_hass(hass)
    lamp = dr.async_get(hass).async_get_or_create(
        config_entry_id=other.entry_id, identifiers={("zha", "lamp")}, name="Lamp"
    )
    offered = await async_voice_devices(hass)
    assert offered == {
        household.bedroom: "Bedroom voice",
        household.kitchen: "Kitchen voice",
    }
    # A device that talked to Assist is offered from then on, after a restart too.
    await say(hass, "Hello", user_id=None, device_id=lamp.id)
    assert lamp.id in await async_voice_devices(hass)
    assert await hass.config_entries.async_reload(loaded_entry.entry_id)
    form = await open_step(hass, loaded_entry)
    assert device_labels(form, "devices")[lamp.id] == "Lamp"


@pytest.mark.usefixtures("socket_enabled", "llm")
@pytest.mark.parametrize("entry_options", [LLM_AGENT])
async def test_the_memory_server_holds_and_settles_the_same(
    hass: HomeAssistant,
    household: Household,
    memory_server: MemoryServer,
    entry_options: dict[str, Any],
    hass_ws_client: WebSocketGenerator,
) -> None:
    entry = remote_config_entry(
        memory_server,
        {**entry_options, devices_option_key(BOB): [household.bedroom]},
    )
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    await say(
        hass, "I'm allergic to hazelnuts.", user_id=None, device_id=household.kitchen
    )
    await say(hass, "Leo plays football", user_id=None, device_id=household.kitchen)
    await say(
        hass, "My dentist is Dr. Quill.", user_id=None, device_id=household.bedroom
    )

    def server(path: str) -> Any:
        request = urllib.request.Request(  # noqa: S310 (127.0.0.1)
            f"{memory_server.url}{path}",
            headers={"Authorization": f"Bearer {memory_server.token}"},
        )
        with urllib.request.urlopen(request, timeout=10) as answer:  # noqa: S310
            return json.load(answer)

    stored = await hass.async_add_executor_job(server, "/memory/long-term")
    assert {m["content"]: m["scope"] for m in stored["items"]} == {
        "Leo plays football": HOUSEHOLD_SCOPE,
        "Bob's dentist is Dr. Quill": household.bob_user,
    }
    held = (await hass.async_add_executor_job(server, "/api/held"))["held"]
    assert [(h["content"], h["device_id"]) for h in held] == [
        ("The user is allergic to hazelnuts", household.kitchen)
    ]
    client = await hass_ws_client(hass)
    await client.send_json_auto_id(
        {"type": "assist_memory/held/assign", "held_id": held[0]["id"], "to": ANNA}
    )
    assert (await client.receive_json())["result"]["memory"]["scope"] == (
        household.anna_user
    )
    assert (await hass.async_add_executor_job(server, "/api/held"))["held"] == []
