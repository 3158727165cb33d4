"""Every conversation is learnt from, at the latest when it ends: default settings.

A real Home Assistant with the memory agent wrapping an LLM agent (the test stand-in;
with Home Assistant's own agent a sentence the rules learn from is learnt at once and
acknowledged, see the answers without an LLM), the default learning throttle (60 s
and 4 messages between two extractions), a frozen clock. Most voice conversations are one turn: the throttle batches them and
learns from them when the chat session ends (5 minutes of silence), when the working
memory expires (30 minutes), when Home Assistant stops, or at the next start after a
crash; never twice. Memory sentences are turns of the conversation log.
"""

from __future__ import annotations

from datetime import timedelta
import json
from pathlib import Path
from typing import Any

from freezegun.api import FrozenDateTimeFactory
from homeassistant.const import EVENT_HOMEASSISTANT_STOP
from homeassistant.core import HomeAssistant
import pytest
from pytest_homeassistant_custom_component.common import (
    MockConfigEntry,
    async_fire_time_changed,
)

from custom_components.assist_memory.const import (
    CONF_AGENT_ID,
    CONF_AUTO_EXTRACT,
    CONF_EXTRACTOR_ENTITY,
)
from custom_components.assist_memory.engine.conversation.turn_settings import (
    TurnSettings,
)
from tests.support.memory_server import MemoryServer

from .agents import AGENT_ENTITY_ID, TASK_ENTITY_ID, LlmEntities
from .conftest import remote_config_entry
from .conversing import APP_USER, contents, options, say

SAID = "My son Leo plays football on Saturdays."
LEARNT = "The user's son Leo plays football on Saturdays"
WITH_AN_LLM = {CONF_AGENT_ID: AGENT_ENTITY_ID}
WITH_AN_EXTRACTOR = options(**WITH_AN_LLM, **{CONF_EXTRACTOR_ENTITY: TASK_ENTITY_ID})


@pytest.fixture(autouse=True)
def _llm(llm: LlmEntities) -> LlmEntities:
    """The LLM agent the memory agent wraps (and the AI Task a test may choose)."""
    return llm


@pytest.fixture
def entry_options() -> dict[str, Any]:
    """The default settings, nothing lowered; an LLM agent answers."""
    return options(**WITH_AN_LLM)


async def let_pass(
    hass: HomeAssistant, freezer: FrozenDateTimeFactory, minutes: float
) -> None:
    """Time passes; what it triggers (in the background too) finishes."""
    freezer.tick(timedelta(minutes=minutes))
    async_fire_time_changed(hass)
    await hass.async_block_till_done()


async def stop(hass: HomeAssistant) -> None:
    """Home Assistant stops (the entry is not unloaded: it never is at a stop)."""
    hass.bus.async_fire(EVENT_HOMEASSISTANT_STOP)
    await hass.async_block_till_done()


async def start_again(hass: HomeAssistant, entry: MockConfigEntry) -> None:
    """The entry is set up again over the same files."""
    assert await hass.config_entries.async_reload(entry.entry_id)
    await hass.async_block_till_done()


def stored_contents(store_file: Path) -> list[str]:
    """What the store file holds (read while no backend runs)."""
    document = json.loads(store_file.read_text(encoding="utf-8"))
    return sorted(m["content"] for m in document["memories"])


def learnt_from(llm: LlmEntities, words: str) -> int:
    """How many times the extractor was asked about a conversation saying `words`."""
    return sum(words in instructions for instructions in llm.task.instructions)


# -- one turn, learnt when it ends -----------------------------------------------------


@pytest.mark.usefixtures("loaded_entry")
async def test_a_one_turn_conversation_is_learnt_when_its_session_ends(
    hass: HomeAssistant, freezer: FrozenDateTimeFactory
) -> None:
    await say(hass, SAID)
    # Throttled: one turn is 2 messages of the 4 an extraction waits for.
    assert await contents(hass) == []
    await let_pass(hass, freezer, 4)
    assert await contents(hass) == []
    # Five minutes of silence: Home Assistant ends the chat session.
    await let_pass(hass, freezer, 2)
    assert await contents(hass) == [LEARNT]


@pytest.mark.usefixtures("loaded_entry")
async def test_a_conversation_without_a_chat_session_is_learnt_when_its_working_memory_expires(
    hass: HomeAssistant, loaded_entry: MockConfigEntry, freezer: FrozenDateTimeFactory
) -> None:
    # A turn that no chat session of Home Assistant holds (a client of the API).
    backend = loaded_entry.runtime_data.backend
    await backend.begin_turn(
        session_id="api-1", text=SAID, settings=TurnSettings(), user_id=APP_USER
    )
    await backend.end_turn(
        session_id="api-1", user_text=SAID, reply="OK", user_id=APP_USER
    )
    await let_pass(hass, freezer, 20)
    assert await contents(hass) == []
    await let_pass(hass, freezer, 11)
    assert await contents(hass) == [LEARNT]


async def test_a_conversation_is_learnt_when_home_assistant_stops(
    hass: HomeAssistant, loaded_entry: MockConfigEntry, store_file: Path
) -> None:
    await say(hass, SAID)
    await stop(hass)
    assert stored_contents(store_file) == [LEARNT]
    # Started again: learnt once.
    await start_again(hass, loaded_entry)
    assert await contents(hass) == [LEARNT]


async def test_a_conversation_left_by_a_crash_is_learnt_at_the_next_start(
    hass: HomeAssistant,
    loaded_entry: MockConfigEntry,
    store_file: Path,
    freezer: FrozenDateTimeFactory,
) -> None:
    await say(hass, SAID)
    # A crash: the stop path never runs; the files are what the turn left.
    assert await hass.config_entries.async_unload(loaded_entry.entry_id)
    assert stored_contents(store_file) == []
    assert await hass.config_entries.async_setup(loaded_entry.entry_id)
    await hass.async_block_till_done()
    assert await contents(hass) == [LEARNT]
    # The chat session of before the crash ends later: nothing is learnt again.
    await let_pass(hass, freezer, 6)
    await let_pass(hass, freezer, 31)
    assert await contents(hass) == [LEARNT]


# -- never twice ---------------------------------------------------------------------


@pytest.mark.parametrize("entry_options", [WITH_AN_EXTRACTOR])
async def test_nothing_is_learnt_twice(
    hass: HomeAssistant,
    llm: LlmEntities,
    loaded_entry: MockConfigEntry,
    freezer: FrozenDateTimeFactory,
) -> None:
    llm.task.answer = {"facts": [{"content": LEARNT, "category": "routine"}]}
    await say(hass, SAID, "kitchen-1")
    # The chat session ends, the working memory expires, Home Assistant stops
    # and starts again: the conversation went to the extractor once.
    await let_pass(hass, freezer, 6)
    assert learnt_from(llm, "Leo") == 1
    await let_pass(hass, freezer, 31)
    await stop(hass)
    await start_again(hass, loaded_entry)
    assert learnt_from(llm, "Leo") == 1
    assert await contents(hass) == [LEARNT]


@pytest.mark.parametrize("entry_options", [WITH_AN_EXTRACTOR])
async def test_a_conversation_the_throttle_learnt_from_is_not_learnt_again_at_its_end(
    hass: HomeAssistant,
    llm: LlmEntities,
    loaded_entry: MockConfigEntry,
    freezer: FrozenDateTimeFactory,
) -> None:
    await say(hass, SAID, "hall-1")
    await say(hass, "And my daughter Lily loves dinosaurs.", "hall-1")
    # Four messages: the throttle learnt from them after the second turn.
    assert learnt_from(llm, "Leo") == 1
    await say(hass, "Good night", "hall-1")
    await let_pass(hass, freezer, 6)
    # At the end only the newest turn is left to learn from.
    assert learnt_from(llm, "Leo") == 1
    assert learnt_from(llm, "Good night") == 1


# -- memory sentences are turns of the conversation ------------------------------------


# Home Assistant's own agent: memory sentences are ours to answer.
@pytest.mark.parametrize("entry_options", [options()])
async def test_memory_sentences_are_turns_of_the_conversation(
    hass: HomeAssistant, loaded_entry: MockConfigEntry, freezer: FrozenDateTimeFactory
) -> None:
    backend = loaded_entry.runtime_data.backend
    await say(hass, "Remember that the bins go out on Tuesday", "porch-1")
    await say(hass, "Forget the dentist", "porch-1")
    conversation = await backend.conversation("porch-1")
    assert conversation is not None
    said = [(m.role, m.content) for m in conversation.messages]
    assert said[0] == ("user", "Remember that the bins go out on Tuesday")
    assert said[2] == ("user", "Forget the dentist")
    assert [role for role, _ in said] == ["user", "assistant"] * 2
    # Shown in Sessions, titled by the conversation's first message.
    page = await backend.conversations()
    assert [(s.session_id, s.message_count) for s in page.items] == [("porch-1", 4)]
    assert "bins" in (page.items[0].title or "").lower()
    # The memory opens this conversation, where its sentence is.
    (memory,) = (await backend.list()).items
    assert memory.session_id == "porch-1"
    # Carried out already: the end of the conversation learns nothing more.
    await let_pass(hass, freezer, 6)
    assert await contents(hass) == ["the bins go out on Tuesday"]


async def test_stop_remembering_is_not_kept(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    await say(hass, "Stop remembering", "porch-2")
    assert await loaded_entry.runtime_data.backend.conversation("porch-2") is None


# -- the memory server -----------------------------------------------------------------


@pytest.mark.usefixtures("socket_enabled")
async def test_the_memory_server_learns_a_one_turn_conversation_at_its_end_and_stop(
    hass: HomeAssistant,
    memory_server: MemoryServer,
    freezer: FrozenDateTimeFactory,
) -> None:
    entry = remote_config_entry(memory_server, options(**WITH_AN_LLM))
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    await say(hass, SAID)
    assert await contents(hass) == []
    await let_pass(hass, freezer, 6)
    assert await contents(hass) == [LEARNT]
    await say(hass, "My daughter Lily loves dinosaurs.")
    await stop(hass)
    await start_again(hass, entry)
    assert await contents(hass) == sorted(
        [LEARNT, "The user's daughter Lily loves dinosaurs"]
    )


@pytest.mark.usefixtures("socket_enabled")
async def test_the_memory_server_keeps_what_a_crash_left_for_the_next_start(
    hass: HomeAssistant, memory_server: MemoryServer
) -> None:
    entry = remote_config_entry(memory_server, options(**WITH_AN_LLM))
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    await say(hass, SAID)
    assert await hass.config_entries.async_unload(entry.entry_id)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    assert await contents(hass) == [LEARNT]


# -- learning off ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "entry_options", [options(**WITH_AN_LLM, **{CONF_AUTO_EXTRACT: False})]
)
async def test_with_learning_off_an_ended_conversation_is_let_go(
    hass: HomeAssistant, loaded_entry: MockConfigEntry, freezer: FrozenDateTimeFactory
) -> None:
    await say(hass, SAID, "off-1")
    await let_pass(hass, freezer, 6)
    assert await contents(hass) == []
    # Turned on again: what was said while it was off is not learned later.
    hass.config_entries.async_update_entry(
        loaded_entry, options={**loaded_entry.options, CONF_AUTO_EXTRACT: True}
    )
    await stop(hass)
    await start_again(hass, loaded_entry)
    assert await contents(hass) == []
