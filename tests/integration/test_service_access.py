"""Who may call the services: administrators, and automations and scripts without a user.

A person who is not an administrator is refused every service that reads or changes
the household's memories (they have the websocket commands for their own); only
`delete_conversation`, which is scoped to its caller, stays open to them. Real Home
Assistant users calling over the websocket API, as the frontend does.
"""

from __future__ import annotations

from typing import Any

from homeassistant.core import HomeAssistant
import pytest
from pytest_homeassistant_custom_component.typing import WebSocketGenerator

from custom_components.assist_memory.const import DOMAIN

from .conversing import add, contents, say
from .people import Person, person

HOUSEHOLD_NOTE = "The Brondavel safe is behind the painting"


def call(service: str, data: dict[str, Any]) -> dict[str, Any]:
    """A websocket `call_service` message for one of our services."""
    return {
        "type": "call_service",
        "domain": DOMAIN,
        "service": service,
        "service_data": data,
        "return_response": True,
    }


def valid_calls(memory_id: str) -> dict[str, dict[str, Any]]:
    """Data each administrator's service accepts (what it does with it is not asked)."""
    return {
        "add": {"content": "Tom was here"},
        "get": {"id": memory_id},
        "list": {},
        "update": {"id": memory_id, "content": "Tom was here"},
        "delete": {"id": memory_id},
        "clear": {"confirm": True},
        "search": {"query": "Brondavel"},
        "build_prompt": {"prompt": "Where is the safe?", "query": "Brondavel"},
        "reindex": {},
        "get_working_memory": {"session_id": "kitchen"},
        "compact": {},
        "undo_compaction": {},
        "set_pipeline_agent": {},
    }


async def memory_id(hass: HomeAssistant) -> str:
    response = await hass.services.async_call(
        DOMAIN, "list", {}, blocking=True, return_response=True
    )
    assert response is not None
    return str(response["items"][0]["id"])  # type: ignore[index]


@pytest.fixture
async def tom(hass: HomeAssistant, hass_ws_client: WebSocketGenerator) -> Person:
    return await person(hass, hass_ws_client, "Tom")


@pytest.mark.usefixtures("loaded_entry")
async def test_a_person_who_is_not_an_administrator_is_refused(
    hass: HomeAssistant, tom: Person
) -> None:
    await add(hass, HOUSEHOLD_NOTE)
    calls = valid_calls(await memory_id(hass))
    registered = set(hass.services.async_services_for_domain(DOMAIN))
    # Every service but the one scoped to its caller is for administrators.
    assert registered - {"delete_conversation"} == set(calls)

    for service in sorted(registered - {"delete_conversation"}):
        refused = await tom.send(call(service, calls[service]))
        assert not refused["success"], service
        assert refused["error"]["message"] == "Unauthorized", service
        assert "Brondavel" not in str(refused)
    # Nothing was read, changed or deleted.
    assert await contents(hass) == [HOUSEHOLD_NOTE]


@pytest.mark.usefixtures("loaded_entry")
async def test_administrators_and_automations_keep_every_service(
    hass: HomeAssistant, hass_ws_client: WebSocketGenerator
) -> None:
    await add(hass, HOUSEHOLD_NOTE)  # an automation: no user
    admin = await hass_ws_client(hass)
    await admin.send_json_auto_id(call("search", {"query": "Brondavel"}))
    found = await admin.receive_json()
    assert found["success"]
    (result,) = found["result"]["response"]["results"]
    assert result["content"] == HOUSEHOLD_NOTE
    await admin.send_json_auto_id(call("clear", {"confirm": True}))
    assert (await admin.receive_json())["result"]["response"] == {"removed": 1}
    assert await contents(hass) == []


@pytest.mark.usefixtures("loaded_entry")
async def test_a_person_still_deletes_their_own_conversation(
    hass: HomeAssistant, tom: Person
) -> None:
    await say(hass, "Plan the Quorvath party", "tom-1", user_id=tom.user.id)
    deleted = await tom.send(call("delete_conversation", {"conversation_id": "tom-1"}))
    assert deleted["success"]
    assert deleted["result"]["response"] == {"deleted": "tom-1", "messages": 2}
