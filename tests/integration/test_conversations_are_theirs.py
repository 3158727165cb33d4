"""A person's conversations are theirs; an administrator sees that they exist.

Anna (not an administrator) and Dev (the owner) talk to the memory agent. Dev, on every
way in (the websocket commands, the memory manager's request command, the REST API,
the `get_working_memory` action), sees whose each conversation is, when and how many
turns, and may delete Anna's; never its title, last answer, topic or messages.
"""

from __future__ import annotations

from typing import Any

from homeassistant.core import Context, HomeAssistant
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry, MockUser
from pytest_homeassistant_custom_component.typing import (
    ClientSessionGenerator,
    WebSocketGenerator,
)

from custom_components.assist_memory.const import DOMAIN

from .conversing import say
from .people import Person, person

PREFIX = "/api/assist_memory"
SECRETLY = "Where did I hide the birthday present for Dev"


@pytest.fixture
async def talk(
    hass: HomeAssistant,
    loaded_entry: MockConfigEntry,
    hass_ws_client: WebSocketGenerator,
    hass_admin_user: MockUser,
) -> tuple[Person, Person, str, str]:
    """Anna's conversation (two turns) and Dev's; Anna, Dev and their ids."""
    anna = await person(hass, hass_ws_client, "Anna")
    dev = Person(hass_admin_user, await hass_ws_client(hass))
    annas = await say(hass, SECRETLY, user_id=anna.user.id)
    await say(hass, "Is it in the attic", annas.conversation_id, user_id=anna.user.id)
    devs = await say(hass, "Is the garage door shut", user_id=dev.user.id)
    assert annas.conversation_id
    assert devs.conversation_id
    return anna, dev, annas.conversation_id, devs.conversation_id


def by_id(items: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {item["session_id"]: item for item in items}


async def test_an_administrator_sees_that_it_exists_and_not_what_was_said(
    talk: tuple[Person, Person, str, str],
) -> None:
    anna, dev, annas, devs = talk
    listed = await dev.ask("conversations/list")
    assert listed["success"], listed
    items = by_id(listed["result"]["items"])
    hers, his = items[annas], items[devs]
    assert (hers["user_id"], hers["turn_count"], hers["private"]) == (
        anna.user.id,
        2,
        True,
    )
    assert hers["first_message_at"]
    assert (hers["title"], hers["snippet"], hers["reply"]) == (None, None, None)
    assert his["title"]
    assert his["reply"]
    assert "private" not in his
    working = by_id((await dev.ask("working/list"))["result"]["items"])
    assert working[annas]["private"] is True
    assert working[annas]["current_topic"] is None
    assert working[annas]["turn_count"] == 2
    assert working[devs]["current_topic"]
    refused = await dev.ask("conversations/get", conversation_id=annas)
    assert refused["error"]["code"] == "not_found"
    assert "birthday" not in str(listed) + str(working)
    # Anna reads hers.
    shown = await anna.ask("conversations/get", conversation_id=annas)
    assert shown["result"]["messages"][0]["content"] == SECRETLY
    # Dev deletes it: gone for Anna too.
    deleted = await dev.ask("conversations/delete", conversation_id=annas)
    assert deleted["result"] == {"deleted": annas, "messages": 4}
    assert (await anna.ask("conversations/list"))["result"]["items"] == []


async def test_the_memory_manager_and_the_rest_api_withhold_it_too(
    hass: HomeAssistant,
    talk: tuple[Person, Person, str, str],
    hass_client: ClientSessionGenerator,
) -> None:
    anna, dev, annas, devs = talk

    async def request(method: str, path: str) -> dict[str, Any]:
        answer = await dev.send(
            {"type": "assist_memory/request", "method": method, "path": path}
        )
        assert answer["success"], answer
        result: dict[str, Any] = answer["result"]
        return result

    client = await hass_client()
    for read in (request, None):

        async def get(path: str, read: Any = read) -> tuple[int, Any]:
            if read is not None:
                answer = await read("GET", path)
                return answer["status"], answer["body"]
            response = await client.get(PREFIX + path)
            return response.status, await response.json()

        status, conversations = await get("/memory/conversations")
        assert status == 200
        hers = by_id(conversations["items"])[annas]
        assert (hers["private"], hers["title"], hers["turn_count"]) == (True, None, 2)
        status, sessions = await get("/memory/sessions")
        assert by_id(sessions["items"])[annas]["title"] == ""
        status, working = await get("/memory/working")
        assert by_id(working["items"])[annas]["current_topic"] is None
        status, one = await get(f"/memory/working/{annas}")
        assert (status, one["private"]) == (200, True)
        status, _ = await get(f"/memory/sessions/{annas}")
        assert status == 404
        status, _ = await get(f"/memory/sessions/{annas}?user={anna.user.id}")
        assert status == 404
        status, own = await get(f"/memory/sessions/{devs}")
        assert (status, own["messages"][0]["content"]) == (
            200,
            "Is the garage door shut",
        )
        assert "birthday" not in str([conversations, sessions, working, one])
    deleted = await request("DELETE", f"/memory/sessions/{annas}")
    assert deleted["status"] == 200

    # The action, called by the administrator: hers withheld; his whole.
    response = await hass.services.async_call(
        DOMAIN,
        "get_working_memory",
        {"session_id": devs},
        blocking=True,
        return_response=True,
        context=dev_context(dev),
    )
    assert response is not None
    assert "private" not in response["working_memory"]  # type: ignore[operator]


def dev_context(dev: Person) -> Context:
    """A call by the administrator."""
    return Context(user_id=dev.user.id)


async def test_the_action_withholds_another_persons_working_memory(
    hass: HomeAssistant, talk: tuple[Person, Person, str, str]
) -> None:
    _anna, dev, annas, _ = talk
    response = await hass.services.async_call(
        DOMAIN,
        "get_working_memory",
        {"session_id": annas},
        blocking=True,
        return_response=True,
        context=dev_context(dev),
    )
    assert response is not None
    working = response["working_memory"]
    assert working["private"] is True  # type: ignore[index]
    assert working["current_topic"] is None  # type: ignore[index]
