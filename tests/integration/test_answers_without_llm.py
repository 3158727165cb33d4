"""Answers from memory with Home Assistant's own intent agent behind the memory agent.

A real Home Assistant, the memory agent wrapping `conversation.home_assistant` with the
default options, the memories added through the `add` service first, as a new user
would: questions a memory answers are answered from it, in the speaker's language and
to the speaker; devices, the time and every other intent stay Home Assistant's;
statements the rules learn from are acknowledged and learnt at once.
"""

from __future__ import annotations

from typing import Any

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import area_registry as ar, intent
from homeassistant.setup import async_setup_component
import pytest
from pytest_homeassistant_custom_component.common import (
    MockConfigEntry,
    async_mock_service,
)

from .conversing import add, contents, meaning_caught_up, say, speech

ANNA = "anna-user-id"
LANGUAGES = {"en": "en", "zh-Hans": "zh-CN", "zh-Hant": "zh-TW"}


@pytest.fixture
async def home(hass: HomeAssistant, loaded_entry: MockConfigEntry) -> MockConfigEntry:
    """A house with a light, and memories of the household and of Anna."""
    hass.states.async_set("light.kitchen", "off", {"friendly_name": "Kitchen light"})
    hass.states.async_set("light.chufang", "off", {"friendly_name": "厨房灯"})
    await add(hass, "The spare key is under the blue flowerpot by the back door")
    await add(hass, "The spare car key is in the hall drawer")
    await add(hass, "The cat is called Mochi")
    await add(hass, "Our plumber is Mario Rossi")
    await add(hass, "Grandma doesn't eat spicy food")
    await add(hass, "备用钥匙放在后门的蓝色花盆下面")
    await add(hass, "奶奶不能吃辣")
    await add(hass, "後門鑰匙放在信箱裡面")
    await add(hass, "The user is allergic to penicillin", scope=ANNA)
    await add(hass, "The user's daughter Lily loves dinosaurs", scope=ANNA)
    await add(hass, "用户对青霉素过敏", scope=ANNA)
    # Every memory searched by meaning too, as in a home a minute later.
    await meaning_caught_up(hass)
    return loaded_entry


async def ask(
    hass: HomeAssistant, text: str, language: str = "en", user_id: str | None = ANNA
) -> conversation.ConversationResult:
    """Ask the memory agent as Anna, in a language of the labelled set."""
    return await say(
        hass, text, language=LANGUAGES.get(language, language), user_id=user_id
    )


async def ask_home_assistant(
    hass: HomeAssistant, text: str, language: str = "en"
) -> conversation.ConversationResult:
    """The same sentence to Home Assistant's own agent directly."""
    return await conversation.async_converse(
        hass,
        text,
        None,
        Context(),
        language=LANGUAGES.get(language, language),
        agent_id=conversation.HOME_ASSISTANT_AGENT,
    )


def memory_ids(result: conversation.ConversationResult) -> list[str | None]:
    """The memories an answer says it comes from ([] for Home Assistant's answers)."""
    return [
        target.id
        for target in result.response.success_results
        if target.type is intent.IntentResponseTargetType.CUSTOM
    ]


async def memory_id(hass: HomeAssistant, content: str) -> str:
    """The id of the memory with this content."""
    response: Any = await hass.services.async_call(
        "assist_memory", "list", {}, blocking=True, return_response=True
    )
    (found,) = [m["id"] for m in response["items"] if m["content"] == content]
    return str(found)


@pytest.mark.usefixtures("home")
@pytest.mark.parametrize(
    ("question", "language", "answer", "memory"),
    [
        (
            "Where is the spare key?",
            "en",
            "The spare key is under the blue flowerpot by the back door.",
            "The spare key is under the blue flowerpot by the back door",
        ),
        (
            "What is the cat called?",
            "en",
            "The cat is called Mochi.",
            "The cat is called Mochi",
        ),
        (
            "What am I allergic to?",
            "en",
            "You're allergic to penicillin.",
            "The user is allergic to penicillin",
        ),
        (
            "Who is our plumber?",
            "en",
            "Our plumber is Mario Rossi.",
            "Our plumber is Mario Rossi",
        ),
        (
            "Does grandma eat spicy food?",
            "en",
            "Grandma doesn't eat spicy food.",
            "Grandma doesn't eat spicy food",
        ),
        (
            "备用钥匙在哪里？",
            "zh-Hans",
            "备用钥匙放在后门的蓝色花盆下面。",
            "备用钥匙放在后门的蓝色花盆下面",
        ),
        ("奶奶能吃辣吗？", "zh-Hans", "奶奶不能吃辣。", "奶奶不能吃辣"),
        ("我对什么过敏？", "zh-Hans", "你对青霉素过敏。", "用户对青霉素过敏"),
        (
            "後門鑰匙在哪裡？",
            "zh-Hant",
            "後門鑰匙放在信箱裡面。",
            "後門鑰匙放在信箱裡面",
        ),
    ],
)
async def test_a_question_is_answered_by_the_memory_that_answers_it(
    hass: HomeAssistant, question: str, language: str, answer: str, memory: str
) -> None:
    result = await ask(hass, question, language)
    assert speech(result) == answer
    assert memory_ids(result) == [await memory_id(hass, memory)]


@pytest.mark.usefixtures("home")
async def test_another_persons_memories_are_never_said(hass: HomeAssistant) -> None:
    # Tom asks what only Anna's memories answer: Home Assistant's answer instead.
    result = await ask(hass, "What am I allergic to?", user_id="tom-user-id")
    assert memory_ids(result) == []
    assert "penicillin" not in speech(result)


@pytest.mark.usefixtures("home")
@pytest.mark.parametrize(
    ("sentence", "language"),
    [
        ("Turn on the kitchen light", "en"),
        ("Is the kitchen light on?", "en"),
        ("What time is it?", "en"),
        ("打开厨房灯", "zh-Hans"),
        ("现在几点？", "zh-Hans"),
    ],
)
async def test_device_commands_and_intents_stay_home_assistants(
    hass: HomeAssistant, sentence: str, language: str
) -> None:
    turned_on = async_mock_service(hass, "light", "turn_on")
    expected = await ask_home_assistant(hass, sentence, language)
    result = await ask(hass, sentence, language)
    assert memory_ids(result) == []
    assert speech(result) == speech(expected)
    assert result.response.response_type is expected.response.response_type
    # A command acts once for each of the two askings, never zero times.
    assert len(turned_on) in (0, 2)


@pytest.mark.usefixtures("home")
async def test_a_question_no_memory_answers(hass: HomeAssistant) -> None:
    # Never the device error Home Assistant alone gives ("no device called
    # umbrella"): a question about a thing gets "I don't know that yet" ...
    alone = await ask_home_assistant(hass, "Where is my umbrella?")
    assert alone.response.error_code is not None
    result = await ask(hass, "Where is my umbrella?")
    assert memory_ids(result) == []
    assert speech(result) == "I don't know that yet."
    # ... as when nothing understood it.
    result = await ask(hass, "Who fixes our bicycles?")
    assert speech(result) == "I don't know that yet."
    result = await ask(hass, "自行车坏了找谁修？", "zh-Hans")
    assert speech(result) == "这个我还不知道。"


@pytest.mark.usefixtures("home")
async def test_what_do_you_know_about_me(hass: HomeAssistant) -> None:
    result = await ask(hass, "What do you know about me?")
    said = speech(result)
    assert said.startswith("Here is what I know about you: ")
    assert "Your daughter Lily loves dinosaurs" in said
    assert "You're allergic to penicillin" in said
    for number in range(4):
        await add(hass, f"The user keeps notebook {number} in the study", scope=ANNA)
    said = speech(await ask(hass, "What do you know about me?"))
    assert said.endswith(" And 4 more in the memory manager.")
    said = speech(await ask(hass, "关于我你知道什么？", "zh-Hans"))
    assert said.startswith("关于你，我记得：")
    assert said.endswith("记忆管理器里还有4条。")
    said = speech(await ask(hass, "What do you know about the house?"))
    assert said.startswith("Here is what I know about your household: ")


@pytest.mark.usefixtures("home")
async def test_a_recalled_memory_is_said_to_the_listener(hass: HomeAssistant) -> None:
    await add(hass, "my favourite colour is green", scope=ANNA)
    result = await ask(hass, "What do you remember about my favourite colour?")
    assert speech(result) == "Here is what I remember: Your favourite colour is green."


@pytest.mark.usefixtures("home")
@pytest.mark.parametrize(
    ("sentence", "language", "answer", "stored"),
    [
        (
            "My son Leo plays football on Saturdays.",
            "en",
            "Got it: Your son Leo plays football on Saturdays.",
            "The user's son Leo plays football on Saturdays",
        ),
        (
            "我女儿喜欢恐龙",
            "zh-Hans",
            "好的，记住了：你的女儿喜欢恐龙。",
            "用户的女儿喜欢恐龙",
        ),
        (
            "我兒子每週日去游泳",
            "zh-Hant",
            "好的，記住了：你的兒子每週日去游泳。",
            "用戶的兒子每週日去游泳",
        ),
    ],
)
async def test_a_statement_is_learnt_at_once_and_acknowledged(
    hass: HomeAssistant, sentence: str, language: str, answer: str, stored: str
) -> None:
    result = await ask(hass, sentence, language)
    assert speech(result) == answer
    assert stored in await contents(hass)
    # Said again later in the conversation: still one memory.
    await ask(hass, sentence, language)
    assert (await contents(hass)).count(stored) == 1


@pytest.mark.usefixtures("home")
async def test_a_statement_is_answered_by_the_intent_agent_when_it_understands(
    hass: HomeAssistant,
) -> None:
    turned_on = async_mock_service(hass, "light", "turn_on")
    result = await ask(hass, "Turn on the kitchen light")
    assert not speech(result).startswith("Got it")
    assert len(turned_on) == 1


@pytest.mark.usefixtures("home")
async def test_a_sentence_of_an_automation_stays_the_automations(
    hass: HomeAssistant,
) -> None:
    assert await async_setup_component(
        hass,
        "automation",
        {
            "automation": {
                "trigger": {
                    "platform": "conversation",
                    "command": "where is the spare key",
                },
                "action": {"set_conversation_response": "Ask Dad."},
            }
        },
    )
    result = await ask(hass, "Where is the spare key?")
    assert speech(result) == "Ask Dad."
    assert memory_ids(result) == []


@pytest.mark.usefixtures("home")
async def test_who_is_home_is_home_assistants_when_it_knows(
    hass: HomeAssistant,
) -> None:
    await add(hass, "Grandpa is home on Sundays")
    hass.states.async_set("person.anna", "home", {"friendly_name": "Anna"})
    async_expose_entity(hass, conversation.DOMAIN, "person.anna", True)
    result = await ask(hass, "Who is home?")
    assert memory_ids(result) == []
    assert "Anna" in speech(result)


@pytest.mark.usefixtures("home")
async def test_a_sentence_naming_an_area_stays_home_assistants(
    hass: HomeAssistant,
) -> None:
    ar.async_get(hass).async_create("Garden", aliases={"back garden"})
    await add(hass, "The garden hose is in the shed")
    expected = await ask_home_assistant(
        hass, "What is the humidity in the garden hose?"
    )
    result = await ask(hass, "What is the humidity in the garden hose?")
    assert memory_ids(result) == []
    assert speech(result) == speech(expected)
