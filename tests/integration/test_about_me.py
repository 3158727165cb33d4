""" "About me" over the websocket: the viewer's own, whoever views it, named by name.

An administrator (the test's owner, Dev) and a person who is not one (Anna), on real
websocket connections; their conversations are real turns with the memory agent.
"""

from __future__ import annotations

from typing import Any

from homeassistant.core import HomeAssistant
from homeassistant.setup import async_setup_component
import pytest
from pytest_homeassistant_custom_component.common import MockUser
from pytest_homeassistant_custom_component.typing import WebSocketGenerator

from custom_components.assist_memory.engine import HOUSEHOLD_SCOPE

from .conversing import contents, say
from .people import Person, connect, person, user_named


@pytest.fixture
async def anna(hass: HomeAssistant, hass_ws_client: WebSocketGenerator) -> Person:
    return await person(hass, hass_ws_client, "Anna")


@pytest.fixture
async def dev(
    hass: HomeAssistant, hass_ws_client: WebSocketGenerator, hass_admin_user: MockUser
) -> Person:
    """The administrator, on a websocket of their own."""
    return Person(hass_admin_user, await hass_ws_client(hass))


def ids(answer: dict[str, Any]) -> list[str]:
    assert answer["success"], answer
    return sorted(item["session_id"] for item in answer["result"]["items"])


@pytest.mark.usefixtures("loaded_entry")
async def test_about_me_is_the_viewers_own_conversations_even_an_administrators(
    hass: HomeAssistant, anna: Person, dev: Person
) -> None:
    annas = await say(hass, "Is the spare key in the shed", user_id=anna.user.id)
    devs = await say(hass, "Is the garage door shut", user_id=dev.user.id)
    everyone = sorted([annas.conversation_id, devs.conversation_id])

    # The Memory panel's view: an administrator sees everyone's.
    assert ids(await dev.ask("conversations/list")) == everyone
    # About me: the viewer's own, administrators included.
    assert ids(await dev.ask("conversations/list", mine=True)) == [devs.conversation_id]
    assert ids(await anna.ask("conversations/list", mine=True)) == [
        annas.conversation_id
    ]
    hidden = await dev.ask(
        "conversations/get", conversation_id=annas.conversation_id, mine=True
    )
    assert hidden["error"]["code"] == "not_found"
    kept = await dev.ask(
        "conversations/delete", conversation_id=annas.conversation_id, mine=True
    )
    assert kept["error"]["code"] == "not_found"
    assert ids(await anna.ask("conversations/list")) == [annas.conversation_id]

    # Each listed conversation says what Assist answered last.
    (item,) = (await anna.ask("conversations/list"))["result"]["items"]
    assert item["reply"]
    assert item["reply"] == annas.response.speech["plain"]["speech"]


@pytest.mark.usefixtures("loaded_entry")
async def test_working_memory_is_read_for_its_owner(
    hass: HomeAssistant, anna: Person, dev: Person
) -> None:
    annas = await say(hass, "Where is the spare key", user_id=anna.user.id)
    devs = await say(hass, "Where is the spare key", user_id=dev.user.id)

    mine = await anna.ask("working/list")
    assert mine["success"], mine
    (working,) = mine["result"]["items"]
    assert working["session_id"] == annas.conversation_id
    assert working["user_id"] == anna.user.id
    assert working["turn_count"] == 1
    assert ids(await dev.ask("working/list", mine=True)) == [devs.conversation_id]
    everyone = await dev.ask("working/list")
    assert {item["user_id"] for item in everyone["result"]["items"]} == {
        anna.user.id,
        dev.user.id,
    }


@pytest.mark.usefixtures("loaded_entry")
async def test_people_are_named_by_their_person_or_their_user(
    hass: HomeAssistant, hass_ws_client: WebSocketGenerator, hass_admin_user: MockUser
) -> None:
    # Anna has a person entity with a picture; Tom is a user without one.
    anna_user, tom = await user_named(hass, "Anna"), await user_named(hass, "Tom")
    assert await async_setup_component(
        hass,
        "person",
        {
            "person": [
                {
                    "id": "anna",
                    "name": "Anna Smith",
                    "user_id": anna_user.id,
                    "picture": "/local/anna.png",
                }
            ]
        },
    )
    await hass.async_block_till_done()
    anna = await connect(hass, hass_ws_client, anna_user)
    dev = Person(hass_admin_user, await hass_ws_client(hass))

    seen = await dev.send({"type": "assist_memory/people"})
    assert seen["success"], seen
    named = {p["id"]: (p["name"], p["picture"]) for p in seen["result"]["people"]}
    assert named[anna.user.id] == ("Anna Smith", "/local/anna.png")
    assert named[tom.id] == ("Tom", None)
    assert named[dev.user.id][0] == dev.user.name
    assert seen["result"]["me"] == dev.user.id
    # Someone who is not an administrator is told only about themselves.
    theirs = await anna.send({"type": "assist_memory/people"})
    assert theirs["result"]["people"] == [
        {
            "id": anna.user.id,
            "name": "Anna Smith",
            "picture": "/local/anna.png",
            "is_admin": False,
        }
    ]


@pytest.mark.usefixtures("loaded_entry")
async def test_about_me_hears_of_its_own_turns_and_the_memories_changes(
    hass: HomeAssistant, anna: Person, dev: Person
) -> None:
    subscribed = await anna.send({"type": "assist_memory/me/subscribe"})
    assert subscribed["success"], subscribed

    # Someone else's conversation: nothing for Anna.
    await say(hass, "Is the garage door shut", user_id=dev.user.id)
    # Her own: an event without content (the page asks for what it shows).
    await say(hass, "Is the back door locked", user_id=anna.user.id)
    event = await anna.client.receive_json()
    assert event == {
        "id": subscribed["id"],
        "type": "event",
        "event": {"changed": True},
    }

    await anna.client.send_json_auto_id(
        {"type": "assist_memory/memories/add", "content": "I park on the left side"}
    )
    answers = [await anna.client.receive_json() for _ in range(2)]
    assert {"changed": True} in [answer.get("event") for answer in answers]
    assert any(answer.get("success") for answer in answers), answers


@pytest.mark.usefixtures("loaded_entry")
async def test_why_did_assist_say_that_shows_a_household_memory_to_its_listener(
    hass: HomeAssistant, hass_ws_client: WebSocketGenerator, anna: Person
) -> None:
    """Household memories are everyone's to hear, so a person who is not an
    administrator reads the one their answer was given (not where it came from:
    that is someone else's conversation); changing or forgetting it stays the
    administrators'; another person's own memory stays unknown to them."""
    tom = await person(hass, hass_ws_client, "Tom")
    await say(
        hass,
        "Remember that our spare key is under the blue flowerpot",
        user_id=tom.user.id,
    )
    await say(hass, "Remember that my bike is in the shed", user_id=tom.user.id)
    (bike,) = (await tom.ask("memories/list"))["result"]["items"]

    turn = await say(hass, "Where is the spare key", user_id=anna.user.id)
    shown = await anna.ask(
        "conversations/get", conversation_id=turn.conversation_id, mine=True
    )
    (given,) = shown["result"]["messages"][0]["memory_ids"]

    got = await anna.ask("memories/get", memory_id=given)
    assert got["success"], got
    household = got["result"]["memory"]
    assert household["content"] == "our spare key is under the blue flowerpot"
    assert household["scope"] == HOUSEHOLD_SCOPE
    # Tom's sentence, his conversation and that he said it are his.
    assert (household["metadata"], household["session_id"]) == ({}, None)
    for command, data in (
        ("memories/update", {"content": "Anna was here"}),
        ("memories/delete", {}),
    ):
        refused = await anna.ask(command, memory_id=given, **data)
        assert refused["error"]["code"] == "unauthorized", refused
    assert await contents(hass) == [
        "my bike is in the shed",
        "our spare key is under the blue flowerpot",
    ]

    # Tom's own memory: as if it did not exist.
    hidden = await anna.ask("memories/get", memory_id=bike["id"])
    assert hidden["error"]["code"] == "not_found"

    # Forgotten by an administrator: "a memory since deleted" again.
    await hass.services.async_call(
        "assist_memory", "delete", {"id": given}, blocking=True
    )
    gone = await anna.ask("memories/get", memory_id=given)
    assert gone["error"]["code"] == "not_found"
