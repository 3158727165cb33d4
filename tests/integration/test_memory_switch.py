"""The `enabled` switch: off, the memory agent is a plain pass-through."""

from __future__ import annotations

from homeassistant.core import HomeAssistant
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.assist_memory.const import CONF_AGENT_ID, CONF_MEMORY_ENABLED
from custom_components.assist_memory.engine.conversation.compose import BLOCK_START

from .agents import AGENT_ENTITY_ID, LlmEntities
from .conversing import EAGER, add, contents, options, say, speech


@pytest.mark.parametrize(
    "entry_options",
    [options(**{CONF_AGENT_ID: AGENT_ENTITY_ID, CONF_MEMORY_ENABLED: False, **EAGER})],
)
@pytest.mark.usefixtures("loaded_entry")
async def test_memory_off_passes_turns_through(
    hass: HomeAssistant, llm: LlmEntities, loaded_entry: MockConfigEntry
) -> None:
    await add(hass, "Anna takes her coffee black", category="preference")
    result = await say(hass, "My favourite colour is green. How does Anna like coffee?")
    assert speech(result).startswith("echo:")
    (turn,) = llm.agent.turns
    assert BLOCK_START not in turn.system_prompt
    assert "coffee black" not in turn.system_prompt
    # Nothing learned, nothing recorded.
    assert await contents(hass) == ["Anna takes her coffee black"]
    backend = loaded_entry.runtime_data.backend
    assert await backend.working_memory(str(result.conversation_id)) is None


@pytest.mark.parametrize("entry_options", [options(**{CONF_MEMORY_ENABLED: False})])
@pytest.mark.usefixtures("loaded_entry")
async def test_memory_off_leaves_sentences_to_the_intent_agent(
    hass: HomeAssistant,
) -> None:
    await say(hass, "Remember that the spare key is under the mat")
    assert await contents(hass) == []


@pytest.mark.parametrize("entry_options", [options(**{CONF_AGENT_ID: AGENT_ENTITY_ID})])
async def test_switching_memory_on_again(
    hass: HomeAssistant, llm: LlmEntities, loaded_entry: MockConfigEntry
) -> None:
    await add(hass, "Anna takes her coffee black", category="preference")
    hass.config_entries.async_update_entry(
        loaded_entry, options={**loaded_entry.options, CONF_MEMORY_ENABLED: False}
    )
    await say(hass, "How does Anna like her coffee?")
    hass.config_entries.async_update_entry(
        loaded_entry, options={**loaded_entry.options, CONF_MEMORY_ENABLED: True}
    )
    await say(hass, "How does Anna like her coffee?")
    off, on = llm.agent.turns
    assert "coffee black" not in off.system_prompt
    assert "coffee black" in on.system_prompt
