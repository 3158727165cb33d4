"""No intent Home Assistant ships is taken away by answers from memory.

Sentences are sampled from Home Assistant's own sentence data (the
`home_assistant_intents` package, expanded with `hassil`) for English, simplified and
traditional Chinese: for each intent, templates chosen with a fixed seed, each
expanded with the names of this house's devices and areas. Each one is said to the
memory agent (wrapping Home Assistant's own agent, default options) in a house whose
memory holds everyday memories, several about the very devices, rooms and lists the
sentences name: none may be answered from memory, acknowledged as learnt, declined as
a statement not kept, or replaced by "I don't know that yet".
"""

from __future__ import annotations

from collections.abc import Iterator
import itertools
import random

from hassil import Intents
from hassil.expression import TextChunk
from hassil.intents import SlotList, TextSlotList, TextSlotValue
from hassil.sample import sample_sentence
from home_assistant_intents import get_intents
from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.assist_memory.engine.language.commands import reply

from .conversing import add, say
from .test_answers_without_llm import memory_ids

SPEAKER = "user-1"
# (content, scope): the speaker's or the household's.
MEMORIES = (
    ("The kitchen light switch is behind the door", "household"),
    ("The garage door opener battery was changed in May", "household"),
    ("The front door key is under the flowerpot", "household"),
    ("The thermostat is set to 20 degrees at night", "household"),
    ("The ceiling fan is noisy on the highest speed", "household"),
    ("The robot vacuum is called Dusty", "household"),
    ("The living room speaker is a gift from grandma", "household"),
    ("Our shopping list always has milk on it", "household"),
    ("The pizza timer is usually 12 minutes", "household"),
    ("The weather station is on the shed roof", "household"),
    ("The user turns off the lights at 11 pm", SPEAKER),
    ("The user likes jazz in the morning", SPEAKER),
    ("The user's coffee maker needs descaling every month", SPEAKER),
    ("厨房灯的开关在门后面", "household"),
    ("客厅音箱是奶奶送的", "household"),
    ("扫地机器人叫小白", "household"),
    ("用户每天晚上十一点关灯", SPEAKER),
    ("車庫門的遙控器在抽屜裡", "household"),
    ("客廳的吊扇很吵", "household"),
)
LANGUAGES = ("en", "zh-Hans", "zh-Hant")
# A statement declined in words (`statement_answers.py`).
DECLINED = ("not_kept", "secret", "learning_off", "guest")
# Templates tried per intent and language (chosen with a fixed seed).
TEMPLATES_PER_INTENT = 6
# The house: (entity id, English name, Chinese name).
DEVICES = (
    ("light.kitchen", "Kitchen light", "厨房灯"),
    ("switch.coffee", "Coffee maker", "咖啡机"),
    ("cover.garage", "Garage door", "车库门"),
    ("lock.front", "Front door", "前门"),
    ("climate.hall", "Thermostat", "温控器"),
    ("fan.ceiling", "Ceiling fan", "吊扇"),
    ("media_player.speaker", "Living room speaker", "客厅音箱"),
    ("vacuum.robot", "Robot vacuum", "扫地机器人"),
    ("sensor.outside", "Outdoor temperature", "室外温度"),
)
AREAS = {"en": ("Kitchen", "Living room"), "zh": ("厨房", "客厅")}
# Values for the lists Home Assistant fills with whatever was said.
WILDCARDS = {
    "en": {
        "message": "dinner is ready",
        "search_query": "jazz",
        "shopping_list_item": "milk",
        "todo_list_item": "milk",
        "timer_name": "pizza",
        "timer_command": "turn off the oven",
        "zone": "work",
    },
    "zh": {
        "message": "吃饭了",
        "search_query": "爵士乐",
        "shopping_list_item": "牛奶",
        "todo_list_item": "牛奶",
        "timer_name": "披萨",
        "timer_command": "关掉烤箱",
        "zone": "公司",
    },
}
# What the memory agent says only when it answers itself.
OWN_ANSWERS = (
    "Got it:",
    "好的，记住了",
    "好的，記住了",
    *(reply(language, key) for language in LANGUAGES for key in DECLINED),
)
DONT_KNOW = tuple(reply(language, "dont_know") for language in LANGUAGES)


def _slot_lists(family: str) -> dict[str, SlotList]:
    names = [d[1] if family == "en" else d[2] for d in DEVICES]
    values: dict[str, list[str]] = {
        "name": names,
        "area": list(AREAS[family]),
        "floor": ["Ground floor" if family == "en" else "一楼"],
        **{key: [value] for key, value in WILDCARDS[family].items()},
    }
    return {
        key: TextSlotList(key, [TextSlotValue(TextChunk(v), v) for v in texts])
        for key, texts in values.items()
    }


def sampled_sentences(language: str) -> Iterator[tuple[str, str]]:
    """(intent, sentence) pairs sampled from Home Assistant's sentences."""
    intents = Intents.from_dict(get_intents(language))
    family = "en" if language == "en" else "zh"
    slot_lists = {**intents.slot_lists, **_slot_lists(family)}
    chooser = random.Random(f"shipped-{language}")
    for name, found in intents.intents.items():
        templates = [
            (data, sentence) for data in found.data for sentence in data.sentences
        ]
        chosen = chooser.sample(templates, min(TEMPLATES_PER_INTENT, len(templates)))
        for data, template in chosen:
            rules = {**intents.expansion_rules, **data.expansion_rules}
            for text in itertools.islice(
                sample_sentence(template, slot_lists, rules, language=language), 1
            ):
                yield name, text


@pytest.fixture
async def house(hass: HomeAssistant, loaded_entry: MockConfigEntry) -> None:
    """The devices and areas of the samples, and memories about them."""
    areas = ar.async_get(hass)
    for name in (*AREAS["en"], *AREAS["zh"]):
        areas.async_create(name)
    for entity_id, english, chinese in DEVICES:
        hass.states.async_set(entity_id, "off", {"friendly_name": english})
        hass.states.async_set(f"{entity_id}_zh", "off", {"friendly_name": chinese})
    for content, scope in MEMORIES:
        await add(hass, content, scope=scope)


@pytest.mark.usefixtures("house")
@pytest.mark.parametrize("language", ["en", "zh-CN", "zh-TW", "zh-HK"])
async def test_no_shipped_intent_is_answered_from_memory(
    hass: HomeAssistant, language: str
) -> None:
    taken = []
    sentences = list(sampled_sentences(language))
    assert len(sentences) > 100
    for intent_name, text in sentences:
        result = await say(hass, text, language=language, user_id=SPEAKER)
        said = str(result.response.speech.get("plain", {}).get("speech", ""))
        if memory_ids(result) or said.startswith(OWN_ANSWERS) or said in DONT_KNOW:
            taken.append((intent_name, text, said))
    assert taken == []
