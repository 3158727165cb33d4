"""Scopes: what one person told the assistant never reaches another person's prompt.

A real Home Assistant with the memory agent in front of a recording agent: each
person's turns are learned in their own scope, household memories reach everyone.
"""

from __future__ import annotations

from homeassistant.core import HomeAssistant
import pytest

from custom_components.assist_memory.const import CONF_AGENT_ID

from .agents import AGENT_ENTITY_ID, LlmEntities
from .conversing import EAGER, add, options, say

PEOPLE = {"anna": "purple", "tom": "green", "lea": "orange"}


@pytest.mark.parametrize(
    "entry_options", [options(**{CONF_AGENT_ID: AGENT_ENTITY_ID, **EAGER})]
)
@pytest.mark.usefixtures("loaded_entry")
async def test_learned_memories_stay_with_their_speaker(
    hass: HomeAssistant, llm: LlmEntities
) -> None:
    await add(hass, "The spare key for the shed is under the blue pot")
    for person, colour in PEOPLE.items():
        await say(hass, f"My favourite colour is {colour}", user_id=person)
    asked = len(llm.agent.turns)
    for person in PEOPLE:
        await say(hass, "What is my favourite colour?", user_id=person)
        await say(hass, "Where is the spare key for the shed?", user_id=person)

    turns = llm.agent.turns[asked:]
    for index, (person, colour) in enumerate(PEOPLE.items()):
        colour_prompt = turns[2 * index].system_prompt
        key_prompt = turns[2 * index + 1].system_prompt
        assert colour in colour_prompt
        for other, other_colour in PEOPLE.items():
            if other != person:
                assert other_colour not in colour_prompt + key_prompt
        assert "blue pot" in key_prompt
