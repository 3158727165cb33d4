"""Why did Assist say that: every answer from memory names the memories it said.

Home Assistant's own agent behind the memory agent: the memory agent's own answers
(a recall, "what do you know about me", the question before forgetting, an answer
from memory, an acknowledgement) keep the memories they said as the turn's; an
answer of the intent agent, which is given no memory, keeps none.
"""

from __future__ import annotations

from homeassistant.core import HomeAssistant
from pytest_homeassistant_custom_component.common import (
    MockConfigEntry,
    async_mock_service,
)

from .conversing import say

ANNA = "anna-user-id"


async def said_memories(
    entry: MockConfigEntry, conversation_id: str
) -> list[list[str]]:
    """The memories of each turn of the conversation, as Sessions shows them."""
    found = await entry.runtime_data.backend.conversation(conversation_id)
    assert found is not None
    return [list(m.memory_ids) for m in found.messages if m.role == "user"]


async def test_each_answer_from_memory_names_what_it_said(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    backend = loaded_entry.runtime_data.backend
    turned_on = async_mock_service(hass, "light", "turn_on")
    hass.states.async_set("light.kitchen", "off", {"friendly_name": "Kitchen light"})
    colour = await backend.add("my favourite colour is green", scope=ANNA)
    # Anna's own: she may forget it by voice.
    key = await backend.add("The spare key is under the blue flowerpot", scope=ANNA)
    switch = await backend.add("The kitchen light switch is behind the door")

    first = await say(hass, "What do you know about me?", user_id=ANNA)
    conversation_id = first.conversation_id
    assert conversation_id is not None
    for text in (
        "What do you remember about the spare key?",
        "Where is the spare key?",
        "Forget the spare key",
        "no",
        "Turn on the kitchen light",
        "My son Leo plays football on Saturdays",
    ):
        await say(hass, text, conversation_id, user_id=ANNA)

    leo = [
        m.id
        for m in (await backend.list(limit=50)).items
        if "Leo plays football" in m.content
    ]
    about_me, *others = await said_memories(loaded_entry, conversation_id)
    # "Here is what I know about you: …" (both of hers).
    assert sorted(about_me) == sorted([colour.id, key.id])
    assert others == [
        [key.id],  # "Here is what I remember: …"
        [key.id],  # "The spare key is under the blue flowerpot."
        [key.id],  # "Should I forget this: …?"
        [],  # "OK, I've kept it."
        [],  # Home Assistant's answer, though a memory is about the light
        leo,  # "Got it: Your son Leo plays football on Saturdays."
    ]
    assert len(turned_on) == 1
    assert switch.id not in str(await said_memories(loaded_entry, conversation_id))
