"""Time in Home Assistant, with a frozen clock: dates learnt absolutely in the home's
time zone, ends set by services and the memory manager, ended memories out of the
memory agent's prompt and shown as ended, then erased; a restart in between."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from freezegun.api import FrozenDateTimeFactory
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import ServiceValidationError
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry
from pytest_homeassistant_custom_component.typing import WebSocketGenerator

from custom_components.assist_memory.const import CONF_AGENT_ID, DOMAIN
from custom_components.assist_memory.engine.conversation.retention import (
    RetentionSettings,
)

from .agents import AGENT_ENTITY_ID, LlmEntities
from .conversing import EAGER, data_files_containing, meaning_caught_up, options, say

# Saturday 28 November 2026, 19:30 in Shanghai.
SATURDAY = datetime(2026, 11, 28, 11, 30, tzinfo=UTC)
MONDAY = datetime(2026, 11, 30, 2, 0, tzinfo=UTC)  # 10:00 at home


@pytest.fixture(autouse=True)
async def home_in_shanghai(hass: HomeAssistant, freezer: FrozenDateTimeFactory) -> None:
    await hass.config.async_set_time_zone("Asia/Shanghai")
    freezer.move_to(SATURDAY)


async def call(hass: HomeAssistant, service: str, **data: Any) -> dict[str, Any]:
    response = await hass.services.async_call(
        DOMAIN, service, data, blocking=True, return_response=True
    )
    assert response is not None
    return dict(response)


async def listed(hass: HomeAssistant, state: str = "current") -> list[str]:
    return [m["content"] for m in (await call(hass, "list", state=state))["items"]]


@pytest.mark.usefixtures("loaded_entry")
async def test_services_set_move_and_clear_an_end(hass: HomeAssistant) -> None:
    added = await call(
        hass, "add", content="Guests in the spare room", expires_at="2026-11-29"
    )
    memory = added["memory"]
    # Through Sunday at home: it ends at midnight in Shanghai.
    assert memory["expires_at"] == "2026-11-29T16:00:00+00:00"

    moved = await call(hass, "update", id=memory["id"], expires_at="2026-12-01 18:00")
    assert moved["memory"]["expires_at"] == "2026-12-01T10:00:00+00:00"
    cleared = await call(hass, "update", id=memory["id"], expires_at="")
    assert cleared["memory"]["expires_at"] is None

    with pytest.raises(ServiceValidationError) as raised:
        await call(hass, "add", content="x", expires_at="next week")
    assert raised.value.translation_key == "invalid_timestamp"


@pytest.mark.usefixtures("loaded_entry")
async def test_an_ended_memory_is_listed_as_ended(
    hass: HomeAssistant, freezer: FrozenDateTimeFactory
) -> None:
    await call(hass, "add", content="Guests in the spare room", expires_at="2026-11-29")
    await call(hass, "add", content="Anna takes her coffee black")

    freezer.move_to(MONDAY)

    assert await listed(hass) == ["Anna takes her coffee black"]
    assert await listed(hass, "ended") == ["Guests in the spare room"]
    assert sorted(await listed(hass, "all")) == [
        "Anna takes her coffee black",
        "Guests in the spare room",
    ]
    await meaning_caught_up(hass)
    found = await call(hass, "search", query="guests spare room")
    # The ended memory is not found, by its words or by meaning.
    assert "Guests in the spare room" not in [r["content"] for r in found["results"]]


@pytest.mark.usefixtures("loaded_entry")
async def test_the_memory_manager_adds_edits_and_shows_ended(
    hass: HomeAssistant,
    hass_ws_client: WebSocketGenerator,
    freezer: FrozenDateTimeFactory,
) -> None:
    client = await hass_ws_client(hass)
    await client.send_json_auto_id(
        {
            "type": "assist_memory/memories/add",
            "content": "The boiler is off",
            "expires_at": "2026-11-28",
        }
    )
    added = (await client.receive_json())["result"]["memory"]
    assert added["expires_at"] == "2026-11-28T16:00:00+00:00"
    await client.send_json_auto_id(
        {
            "type": "assist_memory/memories/update",
            "memory_id": added["id"],
            "expires_at": "2026-11-29",
        }
    )
    edited = (await client.receive_json())["result"]["memory"]
    assert edited["expires_at"] == "2026-11-29T16:00:00+00:00"
    await client.send_json_auto_id(
        {"type": "assist_memory/memories/add", "content": "x", "expires_at": "soon"}
    )
    assert not (await client.receive_json())["success"]

    freezer.move_to(MONDAY)
    await client.send_json_auto_id(
        {"type": "assist_memory/memories/list", "state": "ended"}
    )
    ended = (await client.receive_json())["result"]
    assert [m["content"] for m in ended["items"]] == ["The boiler is off"]
    await client.send_json_auto_id({"type": "assist_memory/memories/list"})
    assert (await client.receive_json())["result"]["total"] == 0


@pytest.mark.parametrize(
    "entry_options", [options(**{CONF_AGENT_ID: AGENT_ENTITY_ID, **EAGER})]
)
async def test_the_memory_agent_learns_the_date_and_forgets_after_the_end(
    hass: HomeAssistant,
    llm: LlmEntities,
    loaded_entry: MockConfigEntry,
    freezer: FrozenDateTimeFactory,
) -> None:
    await say(hass, "Remember that the plumber is coming tomorrow at ten")
    (memory,) = (await call(hass, "list"))["items"]
    assert memory["content"] == "The plumber is coming on Sunday 29 November at 10:00"
    # The day after the visit is its memory's last: Monday, to midnight at home.
    assert memory["expires_at"] == "2026-11-30T16:00:00+00:00"

    await say(hass, "When is the plumber coming?")
    assert "Sunday 29 November at 10:00" in llm.agent.turns[-1].system_prompt

    # Tuesday at home: the day after the visit is over. A restart in between.
    freezer.move_to(datetime(2026, 12, 1, 2, 0, tzinfo=UTC))
    assert await hass.config_entries.async_reload(loaded_entry.entry_id)
    await hass.async_block_till_done()
    await say(hass, "When is the plumber coming?")
    assert "plumber is coming on" not in llm.agent.turns[-1].system_prompt
    assert await listed(hass, "ended") == [memory["content"]]

    # Kept as ended for the daily-log retention, then erased from every file.
    backend = loaded_entry.runtime_data.backend
    await backend.set_retention(RetentionSettings(daily_log_days=7))
    assert await listed(hass, "ended") == [memory["content"]]
    freezer.move_to(datetime(2026, 12, 7, 17, 0, tzinfo=UTC))
    # This run, or the hourly one when the loop sees the clock jump, erases it.
    await backend.enforce_retention()
    assert await listed(hass, "all") == []
    left = await data_files_containing(hass, loaded_entry, ["Sunday 29 November"])
    # The conversation log keeps what was said for its own retention, not the memory.
    assert all(name.startswith("conversations") for name in left), left


async def test_memory_md_shows_the_end_in_the_homes_time_zone(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    """MEMORY.md says the end's day at home (this computer keeps UTC), and follows
    the home's time zone when it changes; read back, it moves no end."""
    backend = loaded_entry.runtime_data.backend
    # 06:00 on the 6th in Shanghai: 22:00 on the 5th in UTC.
    breakfast = (
        await call(hass, "add", content="Guests leave", expires_at="2026-12-06 06:00")
    )["memory"]
    await backend.wait_for_background_jobs()
    assert "- Guests leave (until 6 Dec)\n" in await backend.read_markdown()

    # As the General settings save it (the change is announced).
    await hass.config.async_update(time_zone="America/Los_Angeles")
    await hass.async_block_till_done()
    # Through the 6th in Los Angeles: 08:00 on the 7th in UTC.
    await call(hass, "add", content="The painter comes", expires_at="2026-12-06")
    await backend.wait_for_background_jobs()
    markdown = await backend.read_markdown()
    assert "- Guests leave (until 5 Dec)\n" in markdown
    assert "- The painter comes (until 6 Dec)\n" in markdown

    assert not (await backend.write_markdown(markdown)).changed
    ends = {m["content"]: m["expires_at"] for m in (await call(hass, "list"))["items"]}
    assert ends == {
        "Guests leave": breakfast["expires_at"],
        "The painter comes": "2026-12-07T08:00:00+00:00",
    }
