"""A person's own memories over the websocket: each user sees and changes only theirs.

Real Home Assistant users (two people who are not administrators, and the owner) on
real websocket connections; the memories are made by the memory agent from what each
person said.
"""

from __future__ import annotations

from typing import Any

from homeassistant.core import HomeAssistant
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry
from pytest_homeassistant_custom_component.typing import WebSocketGenerator

from custom_components.assist_memory.engine import HOUSEHOLD_SCOPE

from .conversing import add, contents, say
from .people import Person, person


@pytest.fixture
async def anna(hass: HomeAssistant, hass_ws_client: WebSocketGenerator) -> Person:
    return await person(hass, hass_ws_client, "Anna")


@pytest.fixture
async def tom(hass: HomeAssistant, hass_ws_client: WebSocketGenerator) -> Person:
    return await person(hass, hass_ws_client, "Tom")


@pytest.mark.usefixtures("loaded_entry")
async def test_people_see_and_change_only_their_own_memories(
    hass: HomeAssistant, anna: Person, tom: Person
) -> None:
    await say(hass, "Remember that my bike is in the shed", user_id=anna.user.id)
    await say(hass, "Remember that my dentist is Dr. Chen", user_id=tom.user.id)
    await add(hass, "The bins go out on Tuesday")  # the household's

    mine = await anna.ask("memories/list")
    assert mine["success"]
    (bike,) = mine["result"]["items"]
    assert (bike["content"], bike["scope"]) == ("my bike is in the shed", anna.user.id)
    assert mine["result"]["total"] == 1
    (dentist,) = (await tom.ask("memories/list"))["result"]["items"]

    # Tom cannot read, change, delete or list Anna's: as if it did not exist.
    for command, data in (
        ("memories/get", {}),
        ("memories/update", {"content": "Tom was here"}),
        ("memories/delete", {}),
    ):
        refused = await tom.ask(command, memory_id=bike["id"], **data)
        assert refused["error"]["code"] == "not_found"
        assert refused["error"]["translation_key"] == "not_found"
    refused = await tom.ask("memories/list", scope=anna.user.id)
    assert refused["error"]["code"] == "unauthorized"
    # The household's he may read (Assist tells it to anyone), not change.
    bins = await household_id(hass)
    household = await tom.ask("memories/get", memory_id=bins)
    assert household["result"]["memory"]["content"] == "The bins go out on Tuesday"
    refused = await tom.ask("memories/update", memory_id=bins, content="Tom was here")
    assert refused["error"]["code"] == "unauthorized"

    # Anna changes and forgets her own.
    got = await anna.ask("memories/get", memory_id=bike["id"])
    assert got["result"]["memory"]["content"] == "my bike is in the shed"
    changed = await anna.ask(
        "memories/update",
        memory_id=bike["id"],
        content="my bike is in the garage",
        tags=["bike"],
    )
    assert changed["result"]["memory"]["content"] == "my bike is in the garage"
    assert changed["result"]["memory"]["scope"] == anna.user.id
    deleted = await anna.ask("memories/delete", memory_id=bike["id"])
    assert deleted["result"] == {"deleted": bike["id"]}
    assert await contents(hass) == ["The bins go out on Tuesday", dentist["content"]]


async def household_id(hass: HomeAssistant) -> str:
    response = await hass.services.async_call(
        "assist_memory",
        "list",
        {"scope": HOUSEHOLD_SCOPE},
        return_response=True,
        blocking=True,
    )
    assert response is not None
    items: list[dict[str, Any]] = response["items"]  # type: ignore[assignment]
    return str(next(m["id"] for m in items if m["scope"] == HOUSEHOLD_SCOPE))


@pytest.mark.usefixtures("loaded_entry")
async def test_an_administrator_sees_every_memory(
    hass: HomeAssistant, hass_ws_client: WebSocketGenerator, anna: Person
) -> None:
    await say(hass, "Remember that my bike is in the shed", user_id=anna.user.id)
    await add(hass, "The bins go out on Tuesday")
    admin = await hass_ws_client(hass)
    await admin.send_json_auto_id({"type": "assist_memory/memories/list"})
    everything = await admin.receive_json()
    assert everything["result"]["total"] == 2
    await admin.send_json_auto_id(
        {"type": "assist_memory/memories/list", "scope": anna.user.id}
    )
    (bike,) = (await admin.receive_json())["result"]["items"]
    await admin.send_json_auto_id(
        {"type": "assist_memory/memories/delete", "memory_id": bike["id"]}
    )
    assert (await admin.receive_json())["success"]
    assert await contents(hass) == ["The bins go out on Tuesday"]


@pytest.mark.usefixtures("loaded_entry")
async def test_bad_requests_get_clear_errors(hass: HomeAssistant, anna: Person) -> None:
    await say(hass, "Remember that my bike is in the shed", user_id=anna.user.id)
    (bike,) = (await anna.ask("memories/list"))["result"]["items"]
    empty = await anna.ask("memories/update", memory_id=bike["id"], content="")
    assert empty["error"]["code"] == "invalid_format"
    assert empty["error"]["translation_key"] == "empty_content"
    nothing = await anna.ask("memories/update", memory_id=bike["id"])
    assert nothing["error"]["translation_key"] == "nothing_to_update"
    paging = await anna.ask("memories/list", limit=0)
    assert paging["error"]["code"] == "invalid_format"
    unknown = await anna.ask("memories/get", memory_id="no-such-memory")
    assert unknown["error"]["code"] == "not_found"
    assert await contents(hass) == ["my bike is in the shed"]


async def test_commands_while_not_loaded(
    hass: HomeAssistant, loaded_entry: MockConfigEntry, anna: Person
) -> None:
    assert await hass.config_entries.async_unload(loaded_entry.entry_id)
    answer = await anna.ask("memories/list")
    assert answer["error"]["code"] == "not_loaded"


async def test_own_memories_by_origin_and_last_use(
    hass: HomeAssistant, loaded_entry: MockConfigEntry, anna: Person
) -> None:
    await say(hass, "Remember that my bike is in the shed", user_id=anna.user.id)
    backend = loaded_entry.runtime_data.backend
    await backend.add("Anna likes green tea", scope=anna.user.id, source="inferred")
    await add(hass, "The bins go out on Tuesday")  # the household's: never Anna's

    async def listed(**filters: str) -> tuple[list[str], int]:
        answer = await anna.ask("memories/list", **filters)
        page = answer["result"]
        return [m["content"] for m in page["items"]], page["total"]

    assert await listed(origin="stated") == (["my bike is in the shed"], 1)
    assert await listed(origin="learned") == (["Anna likes green tea"], 1)
    assert (await listed(last_used="never"))[1] == 2
    assert await listed(last_used="recent") == ([], 0)
    refused = await anna.ask("memories/list", origin="guessed")
    assert refused["error"]["code"] == "invalid_format"


async def test_people_add_memories_to_their_own_scope_only(
    hass: HomeAssistant,
    loaded_entry: MockConfigEntry,
    hass_ws_client: WebSocketGenerator,
    anna: Person,
    tom: Person,
) -> None:
    added = await anna.ask(
        "memories/add", content="My bike is the red one", tags=["bike"]
    )
    memory = added["result"]["memory"]
    assert (memory["content"], memory["scope"]) == (
        "My bike is the red one",
        anna.user.id,
    )
    assert memory["source"] == "user_stated"
    # Not to someone else, nor to the household (it would speak in everyone's
    # conversations: the administrators' to decide).
    for scope in (tom.user.id, HOUSEHOLD_SCOPE):
        refused = await anna.ask("memories/add", content="Tom owes me", scope=scope)
        assert refused["error"]["code"] == "unauthorized"
    empty = await anna.ask("memories/add", content=" ")
    assert empty["error"]["translation_key"] == "empty_content"
    admin = await hass_ws_client(hass)
    await admin.send_json_auto_id(
        {
            "type": "assist_memory/memories/add",
            "content": "The bins go out on Tuesday",
            "scope": HOUSEHOLD_SCOPE,
        }
    )
    assert (await admin.receive_json())["result"]["memory"]["scope"] == HOUSEHOLD_SCOPE
    assert await contents(hass) == [
        "My bike is the red one",
        "The bins go out on Tuesday",
    ]


async def test_undo_of_a_delete_restores_the_same_memory(
    hass: HomeAssistant, loaded_entry: MockConfigEntry, anna: Person, tom: Person
) -> None:
    await say(hass, "Remember that my bike is in the shed", user_id=anna.user.id)
    (bike,) = (await anna.ask("memories/list"))["result"]["items"]
    assert (await anna.ask("memories/delete", memory_id=bike["id"]))["success"]

    # Nobody else can put it back.
    refused = await tom.ask("memories/restore", memories=[bike])
    assert refused["error"]["code"] == "unauthorized"
    restored = await anna.ask("memories/restore", memories=[bike])
    assert restored["result"] == {"restored": 1}
    (again,) = (await anna.ask("memories/list"))["result"]["items"]
    assert again == bike  # the same memory: id, times, where it came from

    # Never over a memory of someone else, and never a memory without its id.
    await say(hass, "Remember that my dentist is Dr. Chen", user_id=tom.user.id)
    (dentist,) = (await tom.ask("memories/list"))["result"]["items"]
    taken = {**dentist, "scope": anna.user.id, "content": "Anna was here"}
    refused = await anna.ask("memories/restore", memories=[taken])
    assert refused["error"]["code"] == "unauthorized"
    no_id = {k: v for k, v in bike.items() if k != "id"}
    invalid = await anna.ask("memories/restore", memories=[no_id])
    assert invalid["error"]["translation_key"] == "invalid_import"
    assert await contents(hass) == sorted([dentist["content"], bike["content"]])
