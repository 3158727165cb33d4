"""Forgetting by voice says what it will forget and asks first.

A real Home Assistant with an administrator and a person who is not one, the memory
agent wrapping Home Assistant's own agent: "yes" forgets, anything else keeps;
several matches are named and chosen; the household's memories are the
administrators' to forget by voice unless the option lets anyone.
"""

from __future__ import annotations

from datetime import timedelta
import re

from freezegun.api import FrozenDateTimeFactory
from homeassistant.auth.const import GROUP_ID_USER
from homeassistant.core import HomeAssistant
import pytest
from pytest_homeassistant_custom_component.common import MockUser

from custom_components.assist_memory.const import (
    CONF_VOICE_FORGET_HOUSEHOLD,
    VOICE_FORGET_ANYONE,
)

from .conversing import add, contents, options, say, speech

SPARE_KEY = "The spare key is under the blue flowerpot"


@pytest.fixture
async def anna(hass: HomeAssistant) -> str:
    """A person of the household who is not an administrator."""
    user = MockUser(
        name="Anna", groups=[await hass.auth.async_get_group(GROUP_ID_USER)]
    )
    user.add_to_hass(hass)
    return user.id


@pytest.mark.usefixtures("loaded_entry")
async def test_yes_forgets_and_anything_else_keeps(
    hass: HomeAssistant, hass_admin_user: MockUser
) -> None:
    admin = hass_admin_user.id
    await add(hass, SPARE_KEY)
    await add(hass, "The cat is called Mochi")

    asked = await say(hass, "Forget the spare key", user_id=admin)
    assert speech(asked) == f"Should I forget this: {SPARE_KEY}?"
    assert asked.continue_conversation
    kept = await say(hass, "No", asked.conversation_id, user_id=admin)
    assert speech(kept) == "OK, I've kept it."
    assert SPARE_KEY in await contents(hass)

    # Another sentence is no answer: the memory stays and the sentence is answered.
    asked = await say(hass, "Forget the spare key", user_id=admin)
    other = await say(hass, "What is the cat called?", asked.conversation_id)
    assert speech(other) == "The cat is called Mochi."
    assert SPARE_KEY in await contents(hass)
    # ... and the question is over: "yes" now forgets nothing.
    await say(hass, "yes", asked.conversation_id, user_id=admin)
    assert SPARE_KEY in await contents(hass)

    asked = await say(hass, "Forget the spare key", user_id=admin)
    done = await say(hass, "yes", asked.conversation_id, user_id=admin)
    assert speech(done) == "Done, I've forgotten that."
    assert await contents(hass) == ["The cat is called Mochi"]


@pytest.mark.usefixtures("loaded_entry")
async def test_several_matches_are_named_and_chosen(
    hass: HomeAssistant, hass_admin_user: MockUser
) -> None:
    admin = hass_admin_user.id
    await add(hass, SPARE_KEY)
    await add(hass, "The spare key of the shed is in the drawer")
    asked = await say(hass, "Forget the spare key", user_id=admin)
    named = re.fullmatch(
        r"I remember 2 things about the spare key: first, (.+); second, (.+)\."
        r" Which should I forget: the first, the second, or all of them\?",
        speech(asked),
    )
    assert named is not None
    assert set(named.groups()) == {
        SPARE_KEY,
        "The spare key of the shed is in the drawer",
    }
    done = await say(hass, "the second one", asked.conversation_id, user_id=admin)
    assert speech(done) == "Done, I've forgotten that."
    assert await contents(hass) == [named.group(1)]


@pytest.mark.usefixtures("loaded_entry")
async def test_choosing_in_chinese(
    hass: HomeAssistant, hass_admin_user: MockUser
) -> None:
    admin = hass_admin_user.id
    await add(hass, "备用钥匙在花盆下面")
    await add(hass, "备用钥匙的复制品在抽屉里")
    asked = await say(hass, "忘记备用钥匙", user_id=admin, language="zh-CN")
    assert speech(asked).startswith("关于备用钥匙我记得2条：第一条：")
    done = await say(hass, "第一条", asked.conversation_id, language="zh-CN")
    assert speech(done) == "好的，我已经忘记了。"
    assert len(await contents(hass)) == 1


@pytest.mark.usefixtures("loaded_entry")
async def test_only_administrators_forget_household_memories_by_default(
    hass: HomeAssistant, anna: str
) -> None:
    await add(hass, SPARE_KEY)
    await add(hass, "The user's favourite colour is blue", scope=anna)
    refused = await say(hass, "Forget the spare key", user_id=anna)
    assert speech(refused) == (
        "Only an administrator can make me forget the household's memories."
    )
    # A voice device nobody is known at counts as not an administrator.
    refused = await say(hass, "Forget the spare key")
    assert "administrator" in speech(refused)
    asked = await say(hass, "Forget my favourite colour", user_id=anna)
    assert speech(asked) == "Should I forget this: Your favourite colour is blue?"
    await say(hass, "yes", asked.conversation_id, user_id=anna)
    assert await contents(hass) == [SPARE_KEY]


@pytest.mark.parametrize(
    "entry_options", [options(**{CONF_VOICE_FORGET_HOUSEHOLD: VOICE_FORGET_ANYONE})]
)
@pytest.mark.usefixtures("loaded_entry")
async def test_the_option_lets_anyone_forget_household_memories(
    hass: HomeAssistant, anna: str
) -> None:
    await add(hass, SPARE_KEY)
    asked = await say(hass, "Forget the spare key", user_id=anna)
    await say(hass, "是", asked.conversation_id, user_id=anna)
    assert await contents(hass) == []


@pytest.mark.usefixtures("loaded_entry")
async def test_an_unanswered_question_lapses(
    hass: HomeAssistant, hass_admin_user: MockUser, freezer: FrozenDateTimeFactory
) -> None:
    await add(hass, SPARE_KEY)
    asked = await say(hass, "Forget the spare key", user_id=hass_admin_user.id)
    freezer.tick(timedelta(minutes=6))
    await say(hass, "yes", asked.conversation_id, user_id=hass_admin_user.id)
    assert await contents(hass) == [SPARE_KEY]
