"""A full memory says so: the repair issue, its ways out, no retry on every turn.

The limit is 3 to get there quickly; every other option is the default (the
learning throttle too: a minute and four messages between two extractions, so the
clock moves on between turns).
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from freezegun.api import FrozenDateTimeFactory
from homeassistant.const import CONF_TOKEN, CONF_URL
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import ServiceValidationError
from homeassistant.helpers import issue_registry as ir
from homeassistant.helpers.aiohttp_client import async_get_clientsession
from homeassistant.setup import async_setup_component
from homeassistant.util import dt as dt_util
import pytest
from pytest_homeassistant_custom_component.common import (
    MockConfigEntry,
    async_fire_time_changed,
)
from pytest_homeassistant_custom_component.typing import (
    ClientSessionGenerator,
    WebSocketGenerator,
)

from custom_components.assist_memory.const import (
    CONF_COMPACTION_ENABLED,
    CONF_EVICTION_THRESHOLD,
    CONF_EXTRACTOR_ENTITY,
    CONF_MAX_ITEMS,
    CONF_STORAGE,
    DOMAIN,
    STORAGE_REMOTE,
)
from custom_components.assist_memory.engine.storage.models import HOUSEHOLD_SCOPE
from custom_components.assist_memory.full_memory import memory_full_issue_id
from tests.support.server_process import ServerProcess, serve_command

from .agents import TASK_ENTITY_ID, LlmEntities
from .conversing import add, contents, options, say

SENSOR = "sensor.assist_memory_memories"
FACTS = [
    "My sister Ana lives in Porto.",
    "Our wifi router is in the study.",
    "The bins go out on Thursday.",
    "Leo plays football on Saturdays.",
    "The spare key is under the blue flowerpot.",
    "Grandma is allergic to penicillin.",
]

LIMIT_3 = pytest.mark.parametrize("entry_options", [options(**{CONF_MAX_ITEMS: 3})])


async def tell(
    hass: HomeAssistant, freezer: FrozenDateTimeFactory, sentences: list[str]
) -> None:
    """One conversation, a minute between turns (the default throttle learns)."""
    conversation_id: str | None = None
    for sentence in sentences:
        result = await say(hass, sentence, conversation_id)
        conversation_id = result.conversation_id
        freezer.tick(timedelta(seconds=61))
    # Two more turns with nothing to learn, so that the last facts are taken.
    for _ in range(2):
        await say(hass, "What time is it?", conversation_id)
        freezer.tick(timedelta(seconds=61))


async def settle(hass: HomeAssistant) -> None:
    """Past the coordinator's cooldown: the counts are read again."""
    async_fire_time_changed(hass, dt_util.utcnow() + timedelta(seconds=5))
    await hass.async_block_till_done()


def issue(hass: HomeAssistant, entry: MockConfigEntry) -> ir.IssueEntry | None:
    return ir.async_get(hass).async_get_issue(DOMAIN, memory_full_issue_id(entry))


async def start_fix(
    hass: HomeAssistant, client_factory: ClientSessionGenerator, entry: MockConfigEntry
) -> tuple[Any, dict[str, Any]]:
    assert await async_setup_component(hass, "repairs", {})
    client = await client_factory()
    resp = await client.post(
        "/api/repairs/issues/fix",
        json={"handler": DOMAIN, "issue_id": memory_full_issue_id(entry)},
    )
    assert resp.status == 200
    return client, await resp.json()


async def choose(client: Any, flow_id: str, body: dict[str, Any]) -> dict[str, Any]:
    resp = await client.post(f"/api/repairs/issues/fix/{flow_id}", json=body)
    assert resp.status == 200
    answer: dict[str, Any] = await resp.json()
    return answer


@LIMIT_3
@pytest.mark.usefixtures("loaded_entry")
async def test_learning_into_a_full_memory_raises_the_repair_issue(
    hass: HomeAssistant,
    loaded_entry: MockConfigEntry,
    freezer: FrozenDateTimeFactory,
) -> None:
    await tell(hass, freezer, FACTS[:2])
    assert issue(hass, loaded_entry) is None
    assert hass.states.get(SENSOR).attributes["learning_stopped"] is False

    await tell(hass, freezer, FACTS[2:])
    await hass.async_block_till_done()
    assert len(await contents(hass)) == 3
    found = issue(hass, loaded_entry)
    assert found is not None
    assert found.is_fixable
    assert found.translation_key == "memory_full"
    assert found.translation_placeholders == {
        "title": loaded_entry.title,
        "max_items": "3",
    }
    state = hass.states.get(SENSOR)
    assert state.attributes["full"] is True
    assert state.attributes["nearly_full"] is True
    assert state.attributes["learning_stopped"] is True


@LIMIT_3
@pytest.mark.usefixtures("loaded_entry")
async def test_no_retry_on_every_later_turn(
    hass: HomeAssistant,
    loaded_entry: MockConfigEntry,
    freezer: FrozenDateTimeFactory,
) -> None:
    for start in range(0, len(FACTS), 2):
        await tell(hass, freezer, FACTS[start : start + 2])
    backend = loaded_entry.runtime_data.backend
    refused = (await backend.stats()).fullness.refused
    assert refused >= 1, await contents(hass)
    # Ten more turns of the same conversation and of a new one: nothing is retried.
    await tell(hass, freezer, ["What time is it?"] * 5)
    await tell(hass, freezer, ["Turn on the light."] * 5)
    assert (await backend.stats()).fullness.refused == refused


async def add_up_to_the_limit(hass: HomeAssistant) -> None:
    for text in ("The cat is called Mochi", "Our plumber is Joe", "Bins on Thursday"):
        await add(hass, text)
    await settle(hass)


async def add_one_too_many(hass: HomeAssistant, loaded_entry: MockConfigEntry) -> None:
    """The add the limit refuses: the repair issue is raised."""
    with pytest.raises(Exception, match="full"):
        await add(hass, "The spare key is under the flowerpot")
    await settle(hass)
    assert issue(hass, loaded_entry) is not None


async def fill(hass: HomeAssistant, loaded_entry: MockConfigEntry) -> None:
    await add_up_to_the_limit(hass)
    await add_one_too_many(hass, loaded_entry)


@LIMIT_3
@pytest.mark.usefixtures("loaded_entry")
async def test_an_add_at_the_limit_raises_it_and_a_delete_clears_it(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    await add_up_to_the_limit(hass)
    assert issue(hass, loaded_entry) is None  # full, but nothing refused yet
    assert hass.states.get(SENSOR).attributes["full"] is True
    await add_one_too_many(hass, loaded_entry)

    page = await loaded_entry.runtime_data.backend.list()
    await hass.services.async_call(
        DOMAIN, "delete", {"id": page.items[0].id}, blocking=True
    )
    await settle(hass)
    assert issue(hass, loaded_entry) is None
    assert hass.states.get(SENSOR).attributes["learning_stopped"] is False


# Home Assistant drops the translation's final full stop.
FULL = (
    "The memory is full (3 items). Delete some memories or raise the limit in the "
    "options"
)


@LIMIT_3
@pytest.mark.usefixtures("loaded_entry")
async def test_an_add_to_a_full_memory_is_a_mistake_of_the_call(
    hass: HomeAssistant, hass_client: ClientSessionGenerator
) -> None:
    """Refused as Home Assistant refuses a bad call: translated, HTTP 400, no fault."""
    assert await async_setup_component(hass, "api", {})
    await add_up_to_the_limit(hass)

    with pytest.raises(ServiceValidationError) as raised:
        await add(hass, "The spare key is under the flowerpot")
    assert raised.value.translation_key == "memory_full"
    assert str(raised.value) == FULL

    client = await hass_client()
    answer = await client.post(
        f"/api/services/{DOMAIN}/add?return_response",
        json={"content": "The spare key is under the flowerpot"},
    )
    assert answer.status == 400
    assert await answer.json() == {"message": FULL}
    assert len(await contents(hass)) == 3


@LIMIT_3
@pytest.mark.usefixtures("loaded_entry")
async def test_fix_raise_the_limit(
    hass: HomeAssistant,
    loaded_entry: MockConfigEntry,
    hass_client: ClientSessionGenerator,
) -> None:
    await fill(hass, loaded_entry)
    client, flow = await start_fix(hass, hass_client, loaded_entry)
    assert flow["type"] == "menu"
    # No LLM is set to compact: that way out is not offered.
    assert flow["menu_options"] == ["raise_limit", "evict", "manage"]
    assert flow["description_placeholders"]["count"] == "3"
    form = await choose(client, flow["flow_id"], {"next_step_id": "raise_limit"})
    assert form["type"] == "form"
    assert form["data_schema"][0]["default"] == 6
    done = await choose(client, flow["flow_id"], {CONF_MAX_ITEMS: 10})
    assert done["type"] == "create_entry"
    await hass.async_block_till_done()
    assert loaded_entry.options[CONF_MAX_ITEMS] == 10
    assert issue(hass, loaded_entry) is None
    await add(hass, "The spare key is under the flowerpot")
    assert len(await contents(hass)) == 4


@LIMIT_3
@pytest.mark.usefixtures("loaded_entry")
async def test_fix_forget_the_least_useful(
    hass: HomeAssistant,
    loaded_entry: MockConfigEntry,
    hass_client: ClientSessionGenerator,
) -> None:
    await fill(hass, loaded_entry)
    client, flow = await start_fix(hass, hass_client, loaded_entry)
    form = await choose(client, flow["flow_id"], {"next_step_id": "evict"})
    assert form["data_schema"][0]["default"] == 3
    done = await choose(client, flow["flow_id"], {CONF_EVICTION_THRESHOLD: 3})
    assert done["type"] == "create_entry"
    await hass.async_block_till_done()
    assert loaded_entry.options[CONF_EVICTION_THRESHOLD] == 3
    assert issue(hass, loaded_entry) is None
    await add(hass, "The spare key is under the flowerpot")
    remaining = await contents(hass)
    assert len(remaining) == 3
    assert "The spare key is under the flowerpot" in remaining


@LIMIT_3
@pytest.mark.usefixtures("loaded_entry")
async def test_fix_open_the_memory_manager_keeps_the_issue(
    hass: HomeAssistant,
    loaded_entry: MockConfigEntry,
    hass_client: ClientSessionGenerator,
) -> None:
    await fill(hass, loaded_entry)
    client, flow = await start_fix(hass, hass_client, loaded_entry)
    answer = await choose(client, flow["flow_id"], {"next_step_id": "manage"})
    assert answer["type"] == "abort"
    assert answer["reason"] == "open_manager"
    assert answer["description_placeholders"]["manager"] == "/assist-memory"
    assert issue(hass, loaded_entry) is not None


@pytest.mark.parametrize(
    "entry_options",
    [
        options(
            **{
                CONF_MAX_ITEMS: 3,
                CONF_EXTRACTOR_ENTITY: TASK_ENTITY_ID,
                CONF_COMPACTION_ENABLED: True,
            }
        )
    ],
)
@pytest.mark.usefixtures("loaded_entry")
async def test_fix_compact_now(
    hass: HomeAssistant,
    loaded_entry: MockConfigEntry,
    hass_client: ClientSessionGenerator,
    llm: LlmEntities,
) -> None:
    await fill(hass, loaded_entry)
    client, flow = await start_fix(hass, hass_client, loaded_entry)
    assert flow["menu_options"] == ["raise_limit", "evict", "compact", "manage"]
    form = await choose(client, flow["flow_id"], {"next_step_id": "compact"})
    assert form["type"] == "form"
    # The LLM answers with no bullets: nothing changes, the issue stays.
    llm.task.answer = "I merged them for you."
    answer = await choose(client, flow["flow_id"], {})
    assert answer["type"] == "abort"
    assert answer["reason"] == "compaction_failed"
    assert issue(hass, loaded_entry) is not None

    client, flow = await start_fix(hass, hass_client, loaded_entry)
    await choose(client, flow["flow_id"], {"next_step_id": "compact"})
    llm.task.answer = "## Facts\n\n- The cat is called Mochi and Joe is our plumber\n"
    done = await choose(client, flow["flow_id"], {})
    assert done["type"] == "create_entry"
    await hass.async_block_till_done()
    assert await contents(hass) == ["The cat is called Mochi and Joe is our plumber"]
    assert issue(hass, loaded_entry) is None


@pytest.mark.usefixtures("socket_enabled")
async def test_a_memory_server_says_it_is_full(
    hass: HomeAssistant, tmp_path: Path, freezer: FrozenDateTimeFactory
) -> None:
    """Learning through the add-on's server: its stats, its log once, the issue."""
    command = serve_command(tmp_path / "data", "--max-items", "3")
    async with ServerProcess(command) as server:
        entry = MockConfigEntry(
            domain=DOMAIN,
            title="Assist Memory",
            data={
                CONF_STORAGE: STORAGE_REMOTE,
                CONF_URL: server.base_url,
                CONF_TOKEN: server.token,
            },
            options=options(),
        )
        entry.add_to_hass(hass)
        assert await hass.config_entries.async_setup(entry.entry_id)
        await hass.async_block_till_done()
        backend = entry.runtime_data.backend
        for start in range(0, len(FACTS), 2):
            await tell(hass, freezer, FACTS[start : start + 2])
        await tell(hass, freezer, ["Our car is a red Fiat.", "Mia loves cats."])
        stats = await backend.stats()
        assert stats.count == 3
        assert stats.fullness.learning_stopped
        refused = stats.fullness.refused
        # The coordinator's next poll raises the issue.
        await entry.runtime_data.coordinator.async_refresh()
        await hass.async_block_till_done()
        assert issue(hass, entry) is not None
        session = async_get_clientsession(hass)
        async with session.get(f"{server.base_url}/health") as answer:
            assert (await answer.json())["learningStopped"] is True

        await tell(hass, freezer, ["What time is it?"] * 4)
        assert (await backend.stats()).fullness.refused == refused
        with pytest.raises(ServiceValidationError) as raised:
            await add(hass, "The spare key is under the flowerpot")
        assert raised.value.translation_key == "memory_full"
        await backend.delete((await backend.list()).items[0].id)
        await entry.runtime_data.coordinator.async_refresh()
        await hass.async_block_till_done()
        assert issue(hass, entry) is None
        assert await hass.config_entries.async_unload(entry.entry_id)
        assert await server.stop() == 0
    log = server.log_text()
    assert log.count("The memory is full") == 1
    assert log.count("The memory has room again") == 1
    for fact in FACTS:
        assert fact.rstrip(".") not in log


@LIMIT_3
@pytest.mark.usefixtures("loaded_entry")
async def test_refused_facts_wait_in_review_and_are_kept_once_there_is_room(
    hass: HomeAssistant,
    loaded_entry: MockConfigEntry,
    freezer: FrozenDateTimeFactory,
    hass_ws_client: WebSocketGenerator,
) -> None:
    household = [
        "Our wifi router is in the study.",
        "The bins go out on Thursday.",
        "Our plumber is Joe Bloggs.",
        "The spare key is under the blue flowerpot.",
        "Our car is a red Fiat.",
    ]
    await tell(hass, freezer, household[:2])
    await tell(hass, freezer, household[2:4])
    await tell(hass, freezer, household[4:])
    # The same sentence again while full: it waits once, not twice.
    await tell(hass, freezer, household[4:])
    stored = await contents(hass)
    assert len(stored) == 3
    client = await hass_ws_client(hass)
    await client.send_json_auto_id({"type": "assist_memory/held/list"})
    answer = await client.receive_json()
    waiting = [f for f in answer["result"]["held"] if f["reason"] == "memory_full"]
    assert len(waiting) == 2
    assert {f["scope"] for f in waiting} == {HOUSEHOLD_SCOPE}
    assert not any(f["content"] in stored for f in waiting)

    # Still full: keeping one is refused and it stays in Review.
    await client.send_json_auto_id(
        {"type": "assist_memory/held/assign", "held_id": waiting[0]["id"], "to": "keep"}
    )
    refused = await client.receive_json()
    assert not refused["success"]
    held = await loaded_entry.runtime_data.backend.held_facts()
    assert waiting[0]["id"] in {f.id for f in held}

    hass.config_entries.async_update_entry(
        loaded_entry, options={**loaded_entry.options, CONF_MAX_ITEMS: 10}
    )
    await hass.async_block_till_done()
    await client.send_json_auto_id(
        {"type": "assist_memory/held/assign", "held_id": waiting[0]["id"], "to": "keep"}
    )
    kept = await client.receive_json()
    assert kept["success"]
    assert kept["result"]["memory"]["scope"] == HOUSEHOLD_SCOPE
    assert waiting[0]["content"] in await contents(hass)
    held = await loaded_entry.runtime_data.backend.held_facts()
    assert waiting[0]["id"] not in {f.id for f in held}


@LIMIT_3
async def test_a_restart_still_knows_learning_stopped(
    hass: HomeAssistant,
    config_entry: MockConfigEntry,
    freezer: FrozenDateTimeFactory,
) -> None:
    config_entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done()
    for start in range(0, len(FACTS), 2):
        await tell(hass, freezer, FACTS[start : start + 2])
    await tell(hass, freezer, ["Our car is a red Fiat.", "Our plumber is Joe."])
    assert issue(hass, config_entry) is not None

    assert await hass.config_entries.async_reload(config_entry.entry_id)
    await hass.async_block_till_done()
    assert (await config_entry.runtime_data.backend.stats()).fullness.learning_stopped
    assert issue(hass, config_entry) is not None
    assert hass.states.get(SENSOR).attributes["learning_stopped"] is True
