"""A statement the memory agent hears is learnt, or declined in words.

Home Assistant's own agent behind the memory agent (no LLM): a sentence its intent
agent cannot take ("The dog's vet is Dr Miller" reads to it as a device called "dog's
vet is Dr Miller") is acknowledged when learnt, and otherwise declined in words (a
secret is never kept, and says so), never answered with a device error. Device
commands that fail stay Home Assistant's answers.
"""

from __future__ import annotations

from homeassistant.core import HomeAssistant
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.assist_memory.const import CONF_AUTO_EXTRACT

from .conversing import APP_USER, contents, say, speech
from .test_answers_without_llm import ask_home_assistant

NOT_KEPT = {
    "en": 'I haven\'t kept that. To make sure I do, say "Remember that" and then what'
    " to remember.",
    "zh-CN": "这句我没有记下。想让我记住的话，请说“记住”，再说要记的内容。",
    "zh-TW": "這句我沒有記下。想讓我記住的話，請說「記住」，再說要記的內容。",
}
SECRET = {
    "en": "I don't keep passwords or codes.",
    "zh-CN": "密码和验证码这类信息我不会记。",
    "zh-TW": "密碼和驗證碼這類資訊我不會記。",
}


@pytest.fixture(autouse=True)
def house(hass: HomeAssistant, loaded_entry: MockConfigEntry) -> None:
    """A house with a kitchen light, and the memory agent set up."""
    hass.states.async_set("light.kitchen", "off", {"friendly_name": "Kitchen light"})


@pytest.mark.parametrize(
    ("sentence", "language", "answer"),
    [
        # A passing state: worth telling, not worth keeping.
        ("I'm a bit cold right now", "en", NOT_KEPT["en"]),
        ("The garage code is 4512", "en", SECRET["en"]),
        ("The wifi password is hunter2", "en", SECRET["en"]),
        ("我现在有点冷", "zh-CN", NOT_KEPT["zh-CN"]),
        ("车库密码是4512", "zh-CN", SECRET["zh-CN"]),
        ("車庫密碼是4512", "zh-TW", SECRET["zh-TW"]),
    ],
)
async def test_a_statement_not_learnt_is_declined_in_words(
    hass: HomeAssistant, sentence: str, language: str, answer: str
) -> None:
    # Home Assistant alone answers with a device it does not know.
    alone = await ask_home_assistant(hass, sentence, language)
    assert alone.response.error_code is not None
    result = await say(hass, sentence, language=language)
    assert speech(result) == answer
    assert await contents(hass) == []


@pytest.mark.parametrize(
    ("sentence", "language", "kept"),
    [
        ("The dog's vet is Dr Miller", "en", "The dog's vet is Dr Miller"),
        ("狗的兽医是米勒医生", "zh-CN", "狗的兽医是米勒医生"),
    ],
)
async def test_a_lasting_fact_without_a_pattern_is_learnt(
    hass: HomeAssistant, sentence: str, language: str, kept: str
) -> None:
    alone = await ask_home_assistant(hass, sentence, language)
    assert alone.response.error_code is not None
    result = await say(hass, sentence, language=language)
    assert kept in speech(result)
    assert await contents(hass) == [kept]


async def test_a_learnt_statement_is_acknowledged_and_says_who_said_it(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    result = await say(hass, "The bins go out on Tuesday")
    assert speech(result) == "Got it: The bins go out on Tuesday."
    assert await contents(hass) == ["The bins go out on Tuesday"]
    # Where it came from: the person who said it, their words, their message.
    (memory,) = (await loaded_entry.runtime_data.backend.list()).items
    assert memory.metadata["speaker"] == APP_USER
    assert memory.metadata["said"] == "The bins go out on Tuesday"
    assert isinstance(memory.metadata["message_id"], int)
    assert memory.session_id == result.conversation_id


@pytest.mark.parametrize(
    ("sentence", "language"),
    [
        ("Turn on the garage light", "en"),
        ("Lock the garage door", "en"),
        ("Thanks", "en"),
        ("打开车库灯", "zh-CN"),
    ],
)
async def test_a_command_or_small_talk_keeps_home_assistants_answer(
    hass: HomeAssistant, sentence: str, language: str
) -> None:
    expected = await ask_home_assistant(hass, sentence, language)
    result = await say(hass, sentence, language=language)
    assert speech(result) == speech(expected)


@pytest.mark.parametrize("entry_options", [{CONF_AUTO_EXTRACT: False}])
async def test_with_learning_off_a_statement_says_so(hass: HomeAssistant) -> None:
    result = await say(hass, "My son Leo plays football on Saturdays")
    assert speech(result) == "Learning is off, so I haven't kept that."
    # A secret is a secret whatever the settings.
    assert speech(await say(hass, "The garage code is 4512")) == SECRET["en"]
    assert await contents(hass) == []
