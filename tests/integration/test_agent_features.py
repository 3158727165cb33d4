"""The memory agent says what the agent it wraps can do.

Home Assistant's Assist dialog shows "This assistant cannot control your home." for an
agent without `ConversationEntityFeature.CONTROL`. The memory agent passes every
command on, so it controls the home exactly when the wrapped agent does: Home
Assistant's own agent always, another agent when its entity says so, and it follows
a change of either.
"""

from __future__ import annotations

from homeassistant.components.conversation import ConversationEntityFeature
from homeassistant.const import ATTR_SUPPORTED_FEATURES
from homeassistant.core import HomeAssistant
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.assist_memory.const import CONF_AGENT_ID

from .agents import AGENT_ENTITY_ID, LlmEntities
from .conversing import MEMORY_AGENT


def features(hass: HomeAssistant) -> int:
    """The memory agent's supported features, as the frontend reads them."""
    state = hass.states.get(MEMORY_AGENT)
    assert state is not None
    return int(state.attributes.get(ATTR_SUPPORTED_FEATURES, 0))


async def use_agent(
    hass: HomeAssistant, entry: MockConfigEntry, agent_id: str | None
) -> None:
    """Save the agent that answers (None: Home Assistant's own) in the options."""
    options = {k: v for k, v in entry.options.items() if k != CONF_AGENT_ID}
    if agent_id is not None:
        options[CONF_AGENT_ID] = agent_id
    hass.config_entries.async_update_entry(entry, options=options)
    await hass.async_block_till_done()


async def test_wrapping_home_assistants_agent_it_controls_the_home(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    assert features(hass) == ConversationEntityFeature.CONTROL


async def test_it_follows_the_wrapped_agent_and_its_changes(
    hass: HomeAssistant, loaded_entry: MockConfigEntry, llm: LlmEntities
) -> None:
    # An LLM agent without access to the home: neither can the memory agent.
    await use_agent(hass, loaded_entry, AGENT_ENTITY_ID)
    assert features(hass) == 0
    # Given the home (its API chosen): the memory agent follows at once.
    llm.agent._attr_supported_features = ConversationEntityFeature.CONTROL
    llm.agent.async_write_ha_state()
    await hass.async_block_till_done()
    assert features(hass) == ConversationEntityFeature.CONTROL
    llm.agent._attr_supported_features = ConversationEntityFeature(0)
    llm.agent.async_write_ha_state()
    await hass.async_block_till_done()
    assert features(hass) == 0
    # Back to Home Assistant's own agent.
    await use_agent(hass, loaded_entry, None)
    assert features(hass) == ConversationEntityFeature.CONTROL


@pytest.mark.usefixtures("llm")
async def test_an_agent_that_is_gone_controls_nothing(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    await use_agent(hass, loaded_entry, "conversation.not_there")
    assert features(hass) == 0


async def test_the_memory_agent_is_named_assist_memory_once(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    """Its device's name alone (it is the device's main feature), not "Assist Memory
    Memory agent"."""
    state = hass.states.get(MEMORY_AGENT)
    assert state is not None
    assert state.name == "Assist Memory"
