"""Rule extraction of how people actually talk to a voice assistant.

Fillers, corrections, "now", where things are kept, other household members and pets,
more ways of stating a preference or a routine, plain statements about oneself, and
traditional Chinese kept traditional.
"""

from __future__ import annotations

import pytest

from custom_components.assist_memory.engine.language.facts import Fact
from custom_components.assist_memory.engine.language.rule_extraction import (
    RuleBasedExtractor,
)
from custom_components.assist_memory.engine.language.write_back import plan_write_back
from custom_components.assist_memory.engine.storage.models import Memory

Expected = list[tuple[str, str | None, str]]

SPOKEN: list[tuple[str, Expected]] = [
    # Fillers are not kept.
    (
        "Uh, my brother is called Sam",
        [("person", "user_brother_name", "The user's brother is called Sam")],
    ),
    (
        "Hmm, basically, I love hiking",
        [("preference", "user_hiking", "The user loves hiking")],
    ),
    (
        "I love hiking, by the way",
        [("preference", "user_hiking", "The user loves hiking")],
    ),
    ("嗯，我喜欢爬山", [("preference", "user_爬山", "用户喜欢爬山")]),
    ("那个，我喜欢爬山", [("preference", "user_爬山", "用户喜欢爬山")]),
    # Corrections: the corrected fact, without the prefix or what it replaces.
    (
        "Sorry, my piano lesson is on Friday, not Thursday",
        [("event", "user_piano_lesson", "The user's piano lesson is on Friday")],
    ),
    (
        "Correction: my sister's birthday is on the 2nd of July",
        [
            (
                "event",
                "user_sister_birthday",
                "The user's sister's birthday is on the 2nd of July",
            )
        ],
    ),
    (
        "No wait, I'm allergic to walnuts, not pecans",
        [("fact", "user_allergy_walnut", "The user is allergic to walnuts")],
    ),
    (
        "不对，我的生日是五月三号，不是四月三号",
        [("event", "user_birthday", "用户的生日是五月三号")],
    ),
    ("更正一下，我的车是白色的", [("fact", "user_car", "用户的车是白色的")]),
    # "Now" belongs to the moment of saying, not to the memory or its key.
    ("My car is a blue Golf", [("fact", "user_car", "The user's car is a blue Golf")]),
    (
        "My car is a red Tesla now",
        [("fact", "user_car", "The user's car is a red Tesla")],
    ),
    ("我的车现在是红色的特斯拉", [("fact", "user_car", "用户的车是红色的特斯拉")]),
    # Where things are kept.
    (
        "The torch is in the top drawer in the kitchen",
        [("fact", "torch_location", "The torch is in the top drawer in the kitchen")],
    ),
    (
        "The spare keys are under the doormat",
        [("fact", "spare_key_location", "The spare keys are under the doormat")],
    ),
    (
        "The ladder hangs behind the garage door",
        [("fact", "ladder_location", "The ladder hangs behind the garage door")],
    ),
    (
        "I keep the passports in the safe",
        [("fact", "passport_location", "The user keeps the passports in the safe")],
    ),
    ("雨伞放在门口的鞋柜里", [("fact", "雨伞_location", "雨伞放在门口的鞋柜里")]),
    ("护照在书房的抽屉里", [("fact", "护照_location", "护照在书房的抽屉里")]),
    ("剪刀收在電視櫃的抽屜裡", [("fact", "剪刀_location", "剪刀收在電視櫃的抽屜裡")]),
    # Other household members and pets, with any verb and a name in apposition.
    (
        "My son Leo plays football on Saturdays",
        [("routine", None, "The user's son Leo plays football on Saturdays")],
    ),
    (
        "My brother Mike lives in Denver",
        [
            (
                "person",
                "user_brother_residence",
                "The user's brother Mike lives in Denver",
            )
        ],
    ),
    (
        "My dad has high blood pressure",
        [("person", None, "The user's dad has high blood pressure")],
    ),
    ("Emma is afraid of the dark", [("person", None, "Emma is afraid of the dark")]),
    (
        "The cat's name is Luna",
        [("fact", "household_cat_name", "The household's cat's name is Luna")],
    ),
    (
        "我儿子小宝对花生过敏",
        [("fact", "user_son_allergy_花生", "用户的儿子小宝对花生过敏")],
    ),
    ("我爸爸有高血压", [("person", None, "用户的爸爸有高血压")]),
    ("我老婆不吃辣", [("person", None, "用户的老婆不吃辣")]),
    # Preferences said another way.
    (
        "I'd rather have the lights dim in the evening",
        [
            (
                "preference",
                "user_light_dim",
                "The user would rather have the lights dim in the evening",
            )
        ],
    ),
    (
        "I take my tea with honey",
        [("preference", "user_tea", "The user takes their tea with honey")],
    ),
    # Routines on named weekdays.
    (
        "I go swimming on Tuesday and Friday mornings",
        [("routine", None, "The user goes swimming on Tuesday and Friday mornings")],
    ),
    # Schedules of things and people, said in passing.
    (
        "The window cleaner comes every other Tuesday",
        [("routine", None, "The window cleaner comes every other Tuesday")],
    ),
    (
        "The electrician is coming at 3 on Friday",
        [("event", None, "The electrician is coming at 3 on Friday")],
    ),
    (
        "On Sunday evenings I call my parents",
        [("routine", None, "On Sunday evenings the user calls their parents")],
    ),
    (
        "Um, my niece's called Poppy",
        [("person", "user_niece_name", "The user's niece is called Poppy")],
    ),
    (
        "Nick's swimming is on Mondays",
        [("routine", "nick_swimming", "Nick's swimming is on Mondays")],
    ),
    ("快递员每周三下午来", [("routine", None, "快递员每周三下午来")]),
    ("不好意思，电工明天下午三点来", [("event", None, "电工明天下午三点来")]),
    # A like-verb after a time or a topic, in Chinese.
    (
        "周末我喜欢睡到自然醒",
        [("preference", "user_睡到自然醒", "周末用户喜欢睡到自然醒")],
    ),
    ("我喝茶喜欢加柠檬", [("preference", "user_茶", "用户喝茶喜欢加柠檬")]),
    # Plain statements about oneself.
    ("I grew up in Bristol", [("fact", None, "The user grew up in Bristol")]),
    (
        "I speak Dutch and a little German",
        [("fact", None, "The user speaks Dutch and a little German")],
    ),
    ("我是护士", [("fact", None, "用户是护士")]),
    ("我在成都长大", [("fact", None, "用户在成都长大")]),
    ("I'm left-handed", [("fact", None, "The user is left-handed")]),
    (
        "Our passports are in the drawer by the bed",
        [
            (
                "fact",
                "passport_location",
                "The household's passports are in the drawer by the bed",
            )
        ],
    ),
    ("我妈妈住在杭州", [("person", "user_mother_residence", "用户的妈妈住在杭州")]),
    ("我们家的狗很怕打雷", [("fact", None, "用户家的狗很怕打雷")]),
    (
        "Our neighbour Pat waters the plants when we're away",
        [
            (
                "person",
                None,
                "The household's neighbour Pat waters the plants when we're away",
            )
        ],
    ),
    (
        "We have our porridge with honey",
        [
            (
                "preference",
                "household_porridge",
                "The household has their porridge with honey",
            )
        ],
    ),
    (
        "I take my pills with dinner",
        [("routine", None, "The user takes their pills with dinner")],
    ),
    # Traditional Chinese stays traditional.
    ("我喜歡貓", [("preference", "user_cat", "用戶喜歡貓")]),
    ("我們家的狗叫旺財", [("fact", "household_dog_name", "用戶家的狗叫旺財")]),
    ("我對蝦子過敏", [("fact", "user_allergy_蝦子", "用戶對蝦子過敏")]),
]

NOTHING: list[str] = [
    "I'm so tired today",
    "I need a coffee",
    "I want pizza tonight",
    "The kids are in the garden",
    "The dishwasher is in a bad mood again",
    "Tom said 'I live in Paris'",
    "Set the lights to blue",
    "Sorry, what did you say?",
    "我好累",
    "我想吃火锅",
    "我要睡觉了",
    "他刚才说“我住在上海”",
    "不对",
    "Turn on the porch light every evening at 7",
    "The dog is in the garden",
    "The printer is in a bad mood",
    "I'm a huge fan of opera",
    "I have to leave early",
    "Tom texted: I am late",
    "Anna is tired",
    "On top of that, the printer is out of ink",
    "太好了，又下雨了，我最喜欢下雨了",
    "我可太爱洗碗了",
    "把空调每天晚上调到二十六度",
]


@pytest.mark.parametrize(("text", "expected"), SPOKEN, ids=[t for t, _ in SPOKEN])
def test_spoken_statements(text: str, expected: Expected) -> None:
    facts = RuleBasedExtractor().extract(text)
    assert [(f.category, f.key, f.content) for f in facts] == expected


@pytest.mark.parametrize("text", NOTHING)
def test_nothing_to_keep(text: str) -> None:
    assert RuleBasedExtractor().extract(text) == []


def _stored(fact: Fact, number: int) -> Memory:
    return Memory(
        id=f"m{number}",
        content=fact.content,
        category=fact.category,
        key=fact.key,
        scope="user-1",
        created_at="2025-01-01T00:00:00+00:00",
        updated_at="2025-01-01T00:00:00+00:00",
    )


@pytest.mark.parametrize(
    ("first", "then"),
    [
        ("My car is a blue Golf", "My car is a red Tesla now"),
        ("我的车是蓝色的大众", "我的车现在是红色的特斯拉"),
        ("The spare key is under the mat", "The spare key is in the key safe now"),
        ("My sister lives in Leeds", "Actually, my sister lives in York"),
        ("我的生日是四月三号", "不对，我的生日是五月三号"),
    ],
)
def test_a_newer_statement_replaces_the_older(first: str, then: str) -> None:
    extractor = RuleBasedExtractor()
    (old,) = extractor.extract(first)
    (new,) = extractor.extract(then)
    plan = plan_write_back([new], [_stored(old, 1)], scope="user-1")
    assert [(memory_id, fact.content) for memory_id, fact in plan.replacements] == [
        ("m1", new.content)
    ]


@pytest.mark.parametrize(
    ("text", "language", "content"),
    [
        # Written alike in both scripts: the conversation's language decides.
        ("我太太不吃牛肉", "zh-Hant", "用戶的太太不吃牛肉"),
        ("我太太不吃牛肉", "zh-TW", "用戶的太太不吃牛肉"),
        ("我太太不吃牛肉", "zh-hk", "用戶的太太不吃牛肉"),
        ("我太太不吃牛肉", "zh-Hans", "用户的太太不吃牛肉"),
        ("我太太不吃牛肉", "zh-CN", "用户的太太不吃牛肉"),
        ("我太太不吃牛肉", "zh", "用户的太太不吃牛肉"),
        ("我太太不吃牛肉", None, "用户的太太不吃牛肉"),
        # Words only traditional Chinese writes that way stay traditional whatever
        # the language says (a pipeline set to Chinese may hear either script).
        ("我喜歡貓", "zh-Hans", "用戶喜歡貓"),
        ("我喜歡貓", None, "用戶喜歡貓"),
        # An English conversation quoting Chinese: the text decides.
        ("我太太不吃牛肉", "en", "用户的太太不吃牛肉"),
    ],
)
def test_the_conversations_language_decides_the_script(
    text: str, language: str | None, content: str
) -> None:
    facts = RuleBasedExtractor().extract(text, language=language)
    assert [f.content for f in facts] == [content]
