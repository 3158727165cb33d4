"""The memory sentences Home Assistant's intent agent path answers itself.

A real Home Assistant with the memory agent wrapping `conversation.home_assistant`:
secrets are refused, a memory goes to the scope of the person it is about, and a
repeated "remember that" refreshes the memory it repeats.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from homeassistant.core import HomeAssistant
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry, MockUser

from custom_components.assist_memory.const import DOMAIN
from custom_components.assist_memory.engine import HOUSEHOLD_SCOPE
from tests.support.data_folder import files_containing

from .conversing import add, say, speech

ANNA = "anna-user-id"
TOM = "tom-user-id"


async def memories(hass: HomeAssistant) -> list[dict[str, Any]]:
    """Every memory, as the list service gives them."""
    response = await hass.services.async_call(
        DOMAIN, "list", {}, blocking=True, return_response=True
    )
    assert response is not None
    items: list[dict[str, Any]] = response["items"]  # type: ignore[assignment]
    return items


# -- secrets -------------------------------------------------------------------------

# Secrets long enough not to turn up by chance in a file's numbers (times, sizes).
SECRETS = [
    ("Remember that my wifi password is hunter2", "en", "hunter2"),
    ("Remember that my API key is sk-abc123def456ghi789jkl012", "en", "sk-abc123def"),
    ("Remember that the door code is 445519", "en", "445519"),
    ("Please remember my bank PIN is 987613", "en", "987613"),
    ("记住我的wifi密码是tulip2024", "zh-Hans", "tulip2024"),
    ("记住门禁密码是778841", "zh-Hans", "778841"),
    ("記住門禁密碼是665527", "zh-Hant", "665527"),
    ("记住我的API密钥是sk-abc123", "zh-Hans", "sk-abc123"),
]
REFUSALS = {
    "en": "I don't keep passwords or codes.",
    "zh-Hans": "密码和验证码这类信息我不会记。",
    "zh-Hant": "密碼和驗證碼這類資訊我不會記。",
}


@pytest.mark.parametrize(("sentence", "language", "secret"), SECRETS)
async def test_a_secret_is_refused_and_stored_nowhere(
    hass: HomeAssistant,
    loaded_entry: MockConfigEntry,
    sentence: str,
    language: str,
    secret: str,
) -> None:
    result = await say(hass, sentence, language=language, user_id=ANNA)
    assert speech(result) == REFUSALS[language]
    assert await memories(hass) == []
    await hass.config_entries.async_unload(loaded_entry.entry_id)
    assert files_containing(Path(hass.config.path("data")), secret) == []


@pytest.mark.usefixtures("loaded_entry")
async def test_a_secret_stored_by_a_person_is_not_spoken_back(
    hass: HomeAssistant,
) -> None:
    # A person may store anything through a service; recalling it by voice
    # withholds the value.
    await add(hass, "The garage door code is 3141")
    result = await say(hass, "What do you remember about the garage door?")
    assert "3141" not in speech(result)
    assert "garage door code" in speech(result)


# -- scope follows the speaker ----------------------------------------------------


@pytest.mark.usefixtures("loaded_entry")
async def test_what_someone_says_about_themselves_stays_theirs(
    hass: HomeAssistant,
) -> None:
    await say(
        hass,
        "Remember that my dentist appointment is with Dr. Chen on Friday",
        user_id=ANNA,
    )
    (stored,) = await memories(hass)
    assert stored["scope"] == ANNA

    result = await say(
        hass, "What do you remember about my dentist appointment?", user_id=TOM
    )
    assert speech(result) == ("I don't remember anything about my dentist appointment.")
    result = await say(hass, "What do you remember about the dentist?", user_id=TOM)
    assert "Chen" not in speech(result)
    result = await say(
        hass, "What do you remember about my dentist appointment?", user_id=ANNA
    )
    assert "Dr. Chen on Friday" in speech(result)

    # Tom forgetting "my dentist appointment" cannot touch Anna's.
    result = await say(hass, "Forget my dentist appointment", user_id=TOM)
    assert speech(result) == "I don't remember anything about my dentist appointment."
    assert len(await memories(hass)) == 1
    result = await say(hass, "Forget my dentist appointment", user_id=ANNA)
    assert speech(result) == (
        "Should I forget this: Your dentist appointment is with Dr. Chen on Friday?"
    )
    result = await say(hass, "yes", result.conversation_id, user_id=ANNA)
    assert speech(result) == "Done, I've forgotten that."
    assert await memories(hass) == []


@pytest.mark.parametrize(
    ("sentence", "language", "scope"),
    [
        ("Remember that I am allergic to peanuts", "en", ANNA),
        ("Remember that our wifi network is called Tulip", "en", HOUSEHOLD_SCOPE),
        ("Remember that the family's dentist is Dr. Chen", "en", HOUSEHOLD_SCOPE),
        ("Remember that everyone's bikes are in the shed", "en", HOUSEHOLD_SCOPE),
        ("Remember that the spare key is under the mat", "en", HOUSEHOLD_SCOPE),
        ("记住我的牙医预约在周五", "zh-Hans", ANNA),
        ("记住我们家的垃圾周二收", "zh-Hans", HOUSEHOLD_SCOPE),
        ("記住我的牙醫預約在週五", "zh-Hant", ANNA),
        ("記住我們家的垃圾週二收", "zh-Hant", HOUSEHOLD_SCOPE),
    ],
)
@pytest.mark.usefixtures("loaded_entry")
async def test_the_scope_follows_whom_the_sentence_is_about(
    hass: HomeAssistant, sentence: str, language: str, scope: str
) -> None:
    await say(hass, sentence, language=language, user_id=ANNA)
    (stored,) = await memories(hass)
    assert stored["scope"] == scope


@pytest.mark.usefixtures("loaded_entry")
async def test_a_turn_without_a_user_holds_what_is_personal(
    hass: HomeAssistant,
) -> None:
    # A satellite or an automation: nobody can tell whose "my" it is.
    held = await say(
        hass, "Remember that my dentist appointment is on Friday", user_id=None
    )
    assert speech(held).startswith("I can't tell who is speaking here")
    assert await memories(hass) == []
    result = await say(
        hass, "What do you remember about my dentist appointment?", user_id=None
    )
    assert "Friday" not in speech(result)
    # What is everyone's is remembered for everyone.
    await say(hass, "Remember that the bins go out on Thursday", user_id=None)
    (stored,) = await memories(hass)
    assert stored["scope"] == HOUSEHOLD_SCOPE


@pytest.mark.usefixtures("loaded_entry")
async def test_chinese_recall_follows_the_speaker(hass: HomeAssistant) -> None:
    await say(hass, "记住我的牙医预约在周五", language="zh-Hans", user_id=ANNA)
    result = await say(hass, "你记得我的牙医预约吗？", language="zh-Hans", user_id=TOM)
    assert "周五" not in speech(result)
    result = await say(hass, "你记得我的牙医预约吗？", language="zh-Hans", user_id=ANNA)
    assert "周五" in speech(result)


# -- repeats ------------------------------------------------------------------------


@pytest.mark.usefixtures("loaded_entry")
async def test_a_repeat_refreshes_the_memory_it_repeats(hass: HomeAssistant) -> None:
    first = await say(hass, "Remember that the spare key is under the mat")
    assert speech(first) == "OK, I'll remember that."
    (before,) = await memories(hass)
    again = await say(hass, "remember that the spare key is under the mat.")
    assert speech(again) == "I already knew that."
    (after,) = await memories(hass)
    assert after["id"] == before["id"]
    assert after["updated_at"] > before["updated_at"]
    chinese = await say(hass, "记住备用钥匙在门垫下面", language="zh-Hans")
    assert speech(chinese) == "好的，我记住了。"
    chinese = await say(hass, "记住备用钥匙在门垫下面。", language="zh-Hans")
    assert speech(chinese) == "这个我已经记得了。"
    assert len(await memories(hass)) == 2


@pytest.mark.usefixtures("loaded_entry")
async def test_a_remembered_sentence_keeps_who_said_it_and_where(
    hass: HomeAssistant,
) -> None:
    said = "Remember that my favourite tea is jasmine"
    result = await say(hass, said, user_id=ANNA)
    (memory,) = await memories(hass)
    assert memory["session_id"] == result.conversation_id
    assert memory["source"] == "user_stated"
    assert memory["metadata"] == {
        "learned_by": "command",
        "said": said,
        "speaker": ANNA,
    }


async def test_memory_sentences_are_turns_of_the_conversation_in_progress(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    """Counted with the others: a conversation of three exchanges has three turns,
    whether it is in progress (its working memory) or listed."""
    first = await say(hass, "Remember that the bins go out on Tuesday", user_id=ANNA)
    session = first.conversation_id
    assert session is not None
    await say(hass, "What do you remember about the bins?", session, user_id=ANNA)
    await say(hass, "Is the kitchen light on", session, user_id=ANNA)
    backend = loaded_entry.runtime_data.backend
    working = await backend.working_memory(session)
    assert working is not None
    assert working.turn_count == 3
    (listed,) = (await backend.conversations()).items
    assert (listed.turn_count, listed.message_count) == (3, 6)


@pytest.mark.usefixtures("loaded_entry")
async def test_the_same_words_from_two_people_are_two_memories(
    hass: HomeAssistant,
) -> None:
    await say(hass, "Remember that my favourite tea is jasmine", user_id=ANNA)
    result = await say(hass, "Remember that my favourite tea is jasmine", user_id=TOM)
    assert speech(result) == "OK, I'll remember that."
    assert sorted(m["scope"] for m in await memories(hass)) == [ANNA, TOM]


@pytest.mark.usefixtures("loaded_entry")
async def test_forgetting_several_and_a_store_that_refuses(
    hass: HomeAssistant, hass_admin_user: MockUser
) -> None:
    await add(hass, "The spare key is under the mat")
    await add(hass, "The spare key for the shed is in the drawer")
    result = await say(hass, "Forget the spare key", user_id=hass_admin_user.id)
    assert speech(result).startswith("I remember 2 things about the spare key: first, ")
    result = await say(hass, "both", result.conversation_id)
    assert speech(result) == "Done, I've forgotten 2 memories."
    assert await memories(hass) == []

    for n in range(100):  # the options' limit
        await add(hass, f"Memory number {n}")
    result = await say(hass, "Remember that the boiler is serviced in October")
    assert speech(result) == (
        "Sorry, I couldn't remember that: memory is full (100 items)"
    )
