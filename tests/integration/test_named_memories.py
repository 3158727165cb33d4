"""What a logged-in person teaches Assist names them, and is "you" again to them.

Memories are read in the memory manager, About me, MEMORY.md and exports: a fact
learnt from Sam reads "Sam's son Leo plays football on Saturdays" there, named as
the manager names people (their person entity, else their Home Assistant user),
while Assist says it to Sam as "Your son Leo ...". Said to someone else it names
Sam. A speaker whose name is not known keeps "The user ...".
"""

from __future__ import annotations

from typing import Any

from homeassistant.core import HomeAssistant
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.assist_memory.engine.language.naming import NAMED

from .conversing import say, speech
from .people import user_named


@pytest.fixture(autouse=True)
def house(hass: HomeAssistant, loaded_entry: MockConfigEntry) -> None:
    """A house with a kitchen light, and the memory agent set up."""
    hass.states.async_set("light.kitchen", "off", {"friendly_name": "Kitchen light"})


async def memories(hass: HomeAssistant) -> list[dict[str, Any]]:
    """Every memory, as the `list` service gives it."""
    response: Any = await hass.services.async_call(
        "assist_memory", "list", {}, blocking=True, return_response=True
    )
    return list(response["items"])


async def test_a_statement_names_the_logged_in_user(hass: HomeAssistant) -> None:
    sam = await user_named(hass, "Sam")
    result = await say(hass, "My son Leo plays football on Saturdays.", user_id=sam.id)
    assert speech(result) == "Got it: Your son Leo plays football on Saturdays."
    (memory,) = await memories(hass)
    assert memory["content"] == "Sam's son Leo plays football on Saturdays"
    assert memory["scope"] == sam.id
    assert memory["metadata"][NAMED] == "Sam"

    result = await say(hass, "When does my son Leo play football?", user_id=sam.id)
    assert "Your son Leo plays football on Saturdays" in speech(result)
    assert "Sam" not in speech(result)
    result = await say(hass, "What do you remember about my son Leo?", user_id=sam.id)
    assert speech(result) == (
        "Here is what I remember: Your son Leo plays football on Saturdays."
    )


async def test_the_person_entity_names_its_user(hass: HomeAssistant) -> None:
    user = await user_named(hass, "xiaoming")
    hass.states.async_set(
        "person.xiaoming", "home", {"friendly_name": "小明", "user_id": user.id}
    )
    result = await say(hass, "我女儿喜欢恐龙", user_id=user.id, language="zh-CN")
    assert speech(result) == "好的，记住了：你的女儿喜欢恐龙。"
    (memory,) = await memories(hass)
    assert memory["content"] == "小明的女儿喜欢恐龙"
    result = await say(hass, "我女儿喜欢什么？", user_id=user.id, language="zh-CN")
    assert speech(result) == "你的女儿喜欢恐龙。"


async def test_an_unknown_name_keeps_the_wording(hass: HomeAssistant) -> None:
    # A user id Home Assistant does not know (no user, no person): no name to use.
    await say(hass, "My son Leo plays football on Saturdays.", user_id="no-such-user")
    (memory,) = await memories(hass)
    assert memory["content"] == "The user's son Leo plays football on Saturdays"
    assert NAMED not in memory["metadata"]
