"""Pausing: the "Learning" switch, and "stop remembering" for the conversation at hand.

A real Home Assistant with the memory agent wrapping a recording LLM-like agent or
Home Assistant's intent agent, learning by the rules after every message.
"""

from __future__ import annotations

from pathlib import Path

from homeassistant.const import ATTR_ENTITY_ID, STATE_OFF, STATE_ON
from homeassistant.core import HomeAssistant
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.assist_memory.const import (
    CONF_AGENT_ID,
    CONF_AUTO_EXTRACT,
    CONF_EXTRACT_MIN_INTERVAL,
    CONF_EXTRACT_MIN_MESSAGES,
)
from tests.support.data_folder import files_containing

from .agents import AGENT_ENTITY_ID, LlmEntities
from .conversing import EAGER, contents, options, say, speech

SWITCH = "switch.assist_memory_learning"
PAUSED = {
    "en": "OK, I won't remember anything from this conversation.",
    "zh-Hans": "好的，这次对话的内容我都不会记住。",
    "zh-Hant": "好的，這次對話的內容我都不會記住。",
}


async def turn_learning(hass: HomeAssistant, service: str) -> None:
    """Switch learning on or off as a dashboard would."""
    await hass.services.async_call(
        "switch", service, {ATTR_ENTITY_ID: SWITCH}, blocking=True
    )
    await hass.async_block_till_done()


@pytest.mark.parametrize(
    "entry_options", [options(**{CONF_AGENT_ID: AGENT_ENTITY_ID, **EAGER})]
)
async def test_the_learning_switch_pauses_learning(
    hass: HomeAssistant, llm: LlmEntities, loaded_entry: MockConfigEntry
) -> None:
    assert hass.states.get(SWITCH).state == STATE_ON  # type: ignore[union-attr]
    await turn_learning(hass, "turn_off")
    assert hass.states.get(SWITCH).state == STATE_OFF  # type: ignore[union-attr]
    assert loaded_entry.options[CONF_AUTO_EXTRACT] is False
    await say(hass, "My favourite colour is purple")
    assert await contents(hass) == []
    # Memory still reaches the agent while learning is paused.
    assert len(llm.agent.turns) == 1

    # It stays off after a restart of the entry.
    assert await hass.config_entries.async_reload(loaded_entry.entry_id)
    await hass.async_block_till_done()
    assert hass.states.get(SWITCH).state == STATE_OFF  # type: ignore[union-attr]

    await turn_learning(hass, "turn_on")
    await say(hass, "My favourite colour is green")
    assert await contents(hass) == ["The user's favourite colour is green"]


@pytest.mark.parametrize(
    ("sentence", "language"),
    [
        ("Stop remembering", "en"),
        ("Don't remember this.", "en"),
        ("please do not remember any of this", "en"),
        ("别记住这个", "zh-Hans"),
        ("不要记这个。", "zh-Hans"),
        ("停止记忆", "zh-Hans"),
        ("別記住這個", "zh-Hant"),
        ("不要記這個", "zh-Hant"),
        ("停止記憶", "zh-Hant"),
    ],
)
@pytest.mark.parametrize(
    "entry_options",
    [
        options(
            **{
                CONF_AGENT_ID: AGENT_ENTITY_ID,
                CONF_EXTRACT_MIN_INTERVAL: 0,
                CONF_EXTRACT_MIN_MESSAGES: 3,
            }
        )
    ],
)
async def test_stop_remembering_keeps_the_conversation_out_of_memory(
    hass: HomeAssistant,
    llm: LlmEntities,
    loaded_entry: MockConfigEntry,
    sentence: str,
    language: str,
) -> None:
    # Two messages: not learned yet (learning waits for three).
    first = await say(hass, "My favourite colour is purple", language=language)
    conversation_id = first.conversation_id
    paused = await say(hass, sentence, conversation_id, language=language)
    assert speech(paused) == PAUSED[language]
    assert paused.conversation_id == conversation_id
    # The sentence is answered by the memory agent, not handed on.
    assert [turn.text for turn in llm.agent.turns] == ["My favourite colour is purple"]

    later = await say(
        hass, "My cat is called Quorvath", conversation_id, language=language
    )
    # The agent still answers, with memory.
    assert speech(later).strip() == "echo: My cat is called Quorvath"
    await say(
        hass, "I prefer zelquan tea over coffee", conversation_id, language=language
    )
    # Nothing of this conversation is learned, not even what came before the sentence.
    assert await contents(hass) == []
    backend = loaded_entry.runtime_data.backend
    assert await backend.working_memory(str(conversation_id)) is None
    await hass.config_entries.async_unload(loaded_entry.entry_id)
    assert files_containing(Path(hass.config.path("data")), "Quorvath", "zelquan") == []


@pytest.mark.parametrize(
    "entry_options", [options(**{CONF_AGENT_ID: AGENT_ENTITY_ID, **EAGER})]
)
@pytest.mark.usefixtures("loaded_entry")
async def test_another_conversation_is_remembered_again(
    hass: HomeAssistant, llm: LlmEntities
) -> None:
    paused = await say(hass, "Stop remembering")
    await say(hass, "My favourite colour is purple", paused.conversation_id)
    await say(hass, "My favourite colour is green")
    assert await contents(hass) == ["The user's favourite colour is green"]


@pytest.mark.parametrize("entry_options", [options(**EAGER)])
async def test_stop_remembering_with_the_intent_agent(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    paused = await say(hass, "Don't remember this", language="en")
    assert speech(paused) == PAUSED["en"]
    await say(hass, "Turn on the Quorvath lamp", paused.conversation_id)
    await hass.config_entries.async_unload(loaded_entry.entry_id)
    assert files_containing(Path(hass.config.path("data")), "Quorvath") == []


@pytest.mark.parametrize(
    "entry_options", [options(**{CONF_AGENT_ID: AGENT_ENTITY_ID, **EAGER})]
)
async def test_stop_remembering_erases_what_the_speaker_said_before(
    hass: HomeAssistant, llm: LlmEntities, loaded_entry: MockConfigEntry
) -> None:
    conversation_id = "kitchen-1"
    await say(hass, "The Brondavel invoice is overdue", conversation_id, user_id="tom")
    await say(hass, "Plan a Quorvath surprise party", conversation_id, user_id="anna")
    await say(hass, "And order a zelquan cake", conversation_id, user_id="anna")
    paused = await say(hass, "Stop remembering", conversation_id, user_id="anna")
    assert speech(paused) == PAUSED["en"]

    # Anna's messages, the conversation's summary (her first words) and its working
    # memory are gone from every file; what Tom said in it stays his.
    backend = loaded_entry.runtime_data.backend
    assert await backend.working_memory(conversation_id) is None
    folder = Path(hass.config.path("data"))
    await backend.wait_for_background_jobs()
    assert files_containing(folder, "Quorvath", "zelquan") == []
    kept = await backend.conversation(conversation_id)
    assert [m.content for m in kept.messages] == [
        "The Brondavel invoice is overdue",
        "echo: The Brondavel invoice is overdue",
    ]
