"""Memories read back in the question's language, the same fact once.

A household that told Assist the same thing in English and in Chinese, with search by
meaning on (the local model, as by default): "What do you remember about the spare
key?" says the English memory, not its Chinese twin as well; asked in Chinese, the
Chinese one, first. Facts that differ are all said, the question's language first.
"""

from __future__ import annotations

from homeassistant.core import HomeAssistant
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from .conversing import add, meaning_caught_up, say, speech

ANNA = "anna-user-id"


@pytest.fixture
async def twins(hass: HomeAssistant, loaded_entry: MockConfigEntry) -> None:
    """The same facts in both languages, and some that differ."""
    await add(hass, "The spare key is under the blue flowerpot by the back door")
    await add(hass, "备用钥匙放在后门的蓝色花盆下面")
    await add(hass, "The spare car key is in the hall drawer")
    await add(hass, "The user is allergic to penicillin", scope=ANNA)
    await add(hass, "用户对青霉素过敏", scope=ANNA)
    await add(hass, "The user's daughter Lily loves dinosaurs", scope=ANNA)
    await meaning_caught_up(hass)


@pytest.mark.usefixtures("twins")
async def test_the_same_fact_is_said_once_in_the_questions_language(
    hass: HomeAssistant,
) -> None:
    said = speech(await say(hass, "What do you remember about the spare key?"))
    assert said.startswith("Here is what I remember: The spare")
    assert "The spare key is under the blue flowerpot by the back door" in said
    assert "花盆" not in said
    assert "spare car key" in said

    said = speech(await say(hass, "你记得备用钥匙的什么？", language="zh-CN"))
    assert said.startswith("我记得：备用钥匙放在后门的蓝色花盆下面")
    assert "flowerpot" not in said


@pytest.mark.usefixtures("twins")
async def test_what_you_know_about_me_says_each_fact_once(hass: HomeAssistant) -> None:
    said = speech(await say(hass, "What do you know about me?", user_id=ANNA))
    assert "You're allergic to penicillin" in said
    assert "青霉素" not in said
    assert "Lily loves dinosaurs" in said
    said = speech(await say(hass, "关于我你知道什么？", language="zh-CN", user_id=ANNA))
    assert said.startswith("关于你，我记得：你对青霉素过敏")
    assert "penicillin" not in said
