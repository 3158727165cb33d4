"""Follow-ups about what was just said, with Home Assistant's own agent behind the memory agent.

"Forget that" and "that's wrong" offer to forget the memory the last answer used or
the one just learnt; "what did you just learn?" says it.
"""

from __future__ import annotations

from homeassistant.core import HomeAssistant
import pytest
from pytest_homeassistant_custom_component.common import MockUser

from .conversing import add, contents, say, speech

ANNA = "anna-user-id"


@pytest.mark.usefixtures("loaded_entry")
async def test_forget_what_was_just_learnt(hass: HomeAssistant) -> None:
    learnt = await say(hass, "My son Leo plays football on Saturdays.", user_id=ANNA)
    talk = learnt.conversation_id
    said = await say(hass, "What did you just learn?", talk, user_id=ANNA)
    assert (
        speech(said) == "I just learnt this: Your son Leo plays football on Saturdays."
    )
    asked = await say(hass, "That's wrong", talk, user_id=ANNA)
    assert speech(asked) == (
        "Should I forget this: Your son Leo plays football on Saturdays?"
    )
    await say(hass, "yes", talk, user_id=ANNA)
    assert await contents(hass) == []


@pytest.mark.usefixtures("loaded_entry")
async def test_forget_the_memory_an_answer_used(
    hass: HomeAssistant, hass_admin_user: MockUser
) -> None:
    admin = hass_admin_user.id
    await add(hass, "The spare key is under the blue flowerpot")
    answered = await say(hass, "Where is the spare key?", user_id=admin)
    assert speech(answered) == "The spare key is under the blue flowerpot."
    asked = await say(hass, "Forget that", answered.conversation_id, user_id=admin)
    assert (
        speech(asked)
        == "Should I forget this: The spare key is under the blue flowerpot?"
    )
    await say(hass, "yes", answered.conversation_id, user_id=admin)
    assert await contents(hass) == []


@pytest.mark.usefixtures("loaded_entry")
async def test_follow_ups_with_nothing_before(hass: HomeAssistant) -> None:
    said = await say(hass, "What did you just learn?", user_id=ANNA)
    assert speech(said) == "I haven't learnt anything in this conversation yet."
    said = await say(hass, "忘掉这个", user_id=ANNA, language="zh-CN")
    assert speech(said) == "我不记得关于这个的事情。"
