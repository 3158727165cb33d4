"""Automatic extraction: rule-based facts, LLM output checks, and write-back planning."""

from __future__ import annotations

from collections.abc import Callable
import json
import logging
from pathlib import Path
from typing import Any

import pytest

from custom_components.assist_memory.engine import CATEGORIES, Memory, MemoryStore
from custom_components.assist_memory.engine.language.facts import Fact
from custom_components.assist_memory.engine.language.llm_facts import (
    FACTS_SCHEMA,
    LLM_EXTRACTION_INSTRUCTIONS,
    parse_llm_facts,
)
from custom_components.assist_memory.engine.language.rule_extraction import (
    RuleBasedExtractor,
)
from custom_components.assist_memory.engine.language.sentences import split_sentences
from custom_components.assist_memory.engine.language.write_back import (
    WriteBackPlan,
    plan_write_back,
    states_replaced_fact,
)

# Dropped secrets are logged beside the fact, dropped LLM items beside the parser.
SECRETS_LOGGER = Fact.__module__
LLM_LOGGER = parse_llm_facts.__module__
Expected = list[tuple[str, str | None, str]]

# (sentence, [(category, key, content), ...]); [] means "nothing to remember".
ENGLISH: list[tuple[str, Expected]] = [
    ("My name is Anna.", [("person", "user_name", "The user's name is Anna")]),
    (
        "my name is Anna Smith",
        [("person", "user_name", "The user's name is Anna Smith")],
    ),
    ("I'm called Tom.", [("person", "user_name", "The user's name is Tom")]),
    ("Call me Annie.", [("person", "user_name", "The user wants to be called Annie")]),
    (
        "You can call me Bob from now on.",
        [("person", "user_name", "The user wants to be called Bob")],
    ),
    (
        "My favourite colour is blue.",
        [("preference", "user_favorite_color", "The user's favourite colour is blue")],
    ),
    (
        "My wife's birthday is June 3.",
        [("event", "user_wife_birthday", "The user's wife's birthday is June 3")],
    ),
    (
        "Anna's birthday is March 3rd.",
        [("event", "anna_birthday", "Anna's birthday is March 3rd")],
    ),
    (
        "My mom's birthday is in May.",
        [("event", "user_mother_birthday", "The user's mom's birthday is in May")],
    ),
    ("My wife is Anna.", [("person", "user_wife", "The user's wife is Anna")]),
    (
        "Dr. Smith is my doctor.",
        [("person", "user_doctor", "Dr. Smith is the user's doctor")],
    ),
    (
        "My kids are Tom and Lily.",
        [("person", "user_child", "The user's kids are Tom and Lily")],
    ),
    (
        "My dog is called Max.",
        [("fact", "user_dog_name", "The user's dog is called Max")],
    ),
    (
        "My car is a blue Tesla.",
        [("fact", "user_car", "The user's car is a blue Tesla")],
    ),
    (
        "Our wifi network is called HomeNet.",
        [
            (
                "fact",
                "household_wifi_network_name",
                "The household's wifi network is called HomeNet",
            )
        ],
    ),
    (
        "I prefer oat milk.",
        [("preference", "user_oat_milk", "The user prefers oat milk")],
    ),
    (
        "I like my coffee black.",
        [("preference", "user_coffee", "The user likes their coffee black")],
    ),
    (
        "I love hiking in the mountains.",
        [
            (
                "preference",
                "user_hiking_mountain",
                "The user loves hiking in the mountains",
            )
        ],
    ),
    ("I enjoy jazz.", [("preference", "user_jazz", "The user enjoys jazz")]),
    ("I hate coffee.", [("preference", "user_coffee", "The user hates coffee")]),
    (
        "I dislike loud music.",
        [("preference", "user_loud_music", "The user dislikes loud music")],
    ),
    ("I don't like tea.", [("preference", "user_tea", "The user doesn't like tea")]),
    (
        "I really don't like horror movies.",
        [
            (
                "preference",
                "user_horror_movie",
                "The user really doesn't like horror movies",
            )
        ],
    ),
    (
        "I can't stand country music.",
        [("preference", "user_country_music", "The user can't stand country music")],
    ),
    (
        "I also like reading before bed.",
        [("preference", "user_reading_bed", "The user also likes reading before bed")],
    ),
    (
        "I'm allergic to peanuts.",
        [("fact", "user_allergy_peanut", "The user is allergic to peanuts")],
    ),
    (
        "I am severely allergic to shellfish.",
        [
            (
                "fact",
                "user_allergy_shellfish",
                "The user is severely allergic to shellfish",
            )
        ],
    ),
    (
        "I'm not allergic to cats.",
        [("fact", "user_allergy_cat", "The user is not allergic to cats")],
    ),
    (
        "I have a peanut allergy.",
        [("fact", "user_allergy_peanut", "The user has a peanut allergy")],
    ),
    (
        "I have an allergy to penicillin.",
        [("fact", "user_allergy_penicillin", "The user has an allergy to penicillin")],
    ),
    (
        "Remember that the spare key is under the mat.",
        [("fact", "spare_key_location", "The spare key is under the mat")],
    ),
    (
        "Please remember my wife's name is Anna.",
        [("person", "user_wife_name", "The user's wife's name is Anna")],
    ),
    (
        "Don't forget that the plumber comes on Tuesday.",
        [("event", None, "The plumber comes on Tuesday")],
    ),
    (
        "Don't forget to water the plants.",
        [("note", None, "The user wants to remember to water the plants")],
    ),
    (
        "Can you remember that I'm allergic to cats?",
        [("fact", "user_allergy_cat", "The user is allergic to cats")],
    ),
    (
        "Remember that I parked on level 3.",
        [("fact", None, "The user parked on level 3")],
    ),
    (
        "I always walk the dog at 7.",
        [("routine", None, "The user always walks the dog at 7")],
    ),
    (
        "I usually wake up at 6:30.",
        [("routine", None, "The user usually wakes up at 6:30")],
    ),
    (
        "I usually forget my keys.",
        [("pattern", None, "The user usually forgets their keys")],
    ),
    (
        "Every Monday I go swimming.",
        [("routine", None, "Every Monday the user goes swimming")],
    ),
    (
        "I go to the gym every Tuesday.",
        [("routine", None, "The user goes to the gym every Tuesday")],
    ),
    (
        "We always eat pizza on Fridays.",
        [("routine", None, "The household always eats pizza on Fridays")],
    ),
    (
        "When I get home, I always take a shower.",
        [("routine", None, "When the user gets home, they always take a shower")],
    ),
    ("I live in Berlin.", [("fact", "user_residence", "The user lives in Berlin")]),
    ("I work as a nurse.", [("fact", "user_job", "The user works as a nurse")]),
    ("I work for Siemens.", [("fact", "user_employer", "The user works for Siemens")]),
    ("I'm vegetarian.", [("fact", "user_diet", "The user is vegetarian")]),
    (
        "I am lactose intolerant.",
        [("fact", "user_lactose_intolerant", "The user is lactose intolerant")],
    ),
    ("I'm 34 years old.", [("fact", "user_age", "The user is 34 years old")]),
    ("I have 2 cats.", [("fact", "user_cat", "The user has 2 cats")]),
    ("We have two kids.", [("fact", "household_child", "The household has two kids")]),
    (
        "Anna likes her coffee black.",
        [("preference", "anna_coffee_black", "Anna likes her coffee black")],
    ),
    (
        "My wife hates mushrooms.",
        [("preference", "user_wife_mushroom", "The user's wife hates mushrooms")],
    ),
    (
        "Tom is allergic to cats.",
        [("fact", "tom_allergy_cat", "Tom is allergic to cats")],
    ),
    (
        "By the way, I'm allergic to penicillin.",
        [("fact", "user_allergy_penicillin", "The user is allergic to penicillin")],
    ),
    ("Oh, and my name is Lisa.", [("person", "user_name", "The user's name is Lisa")]),
    (
        "I just want you to know that I prefer tea over coffee.",
        [("preference", "user_tea_coffee", "The user prefers tea over coffee")],
    ),
    (
        "I like tea and I hate coffee.",
        [
            ("preference", "user_tea", "The user likes tea"),
            ("preference", "user_coffee", "The user hates coffee"),
        ],
    ),
    ("I like tea but hate coffee.", [("preference", "user_tea", "The user likes tea")]),
    (
        "My name is Anna, I live in Berlin.",
        [
            ("person", "user_name", "The user's name is Anna"),
            ("fact", "user_residence", "The user lives in Berlin"),
        ],
    ),
    (
        "I usually fly to the US in summer.",
        [("routine", None, "The user usually flies to the US in summer")],
    ),
    (
        "I always watch the news at 8.",
        [("routine", None, "The user always watches the news at 8")],
    ),
    (
        "I love strawberries.",
        [("preference", "user_strawberry", "The user loves strawberries")],
    ),
    ("I like peaches.", [("preference", "user_peach", "The user likes peaches")]),
    (
        "I like a lot of jazz.",
        [("preference", "user_jazz", "The user likes a lot of jazz")],
    ),
    (
        "Remember that the kids go to bed at 8 every day.",
        [("routine", None, "The kids go to bed at 8 every day")],
    ),
    (
        "Remember that the kids really love pancakes.",
        [("preference", None, "The kids really love pancakes")],
    ),
    (
        "Note that my sister moved to Paris.",
        [("person", None, "The user's sister moved to Paris")],
    ),
    (
        "my wife and I love Italian food",
        [
            (
                "preference",
                "household_italian_food",
                "The user and their wife love Italian food",
            )
        ],
    ),
    (
        "we love Italian food",
        [("preference", "household_italian_food", "The household loves Italian food")],
    ),
    ("I don't eat pork.", [("fact", "user_diet_pork", "The user doesn't eat pork")]),
    ("I can't drink milk.", [("fact", "user_diet_milk", "The user can't drink milk")]),
    ("Tom is my brother.", [("person", "user_brother", "Tom is the user's brother")]),
    (
        "Our anniversary is June 5.",
        [("event", "household_anniversary", "The household's anniversary is June 5")],
    ),
    (
        "My favorite food is sushi and my wife's is ramen.",
        [("preference", "user_favorite_food", "The user's favorite food is sushi")],
    ),
    # Questions, commands, small talk, hypotheticals, states: nothing.
    ("Do I like tea?", []),
    ("do I like tea", []),
    ("What's my name?", []),
    ("Where is my phone", []),
    ("Do you remember my name?", []),
    ("Remember when we went to Paris?", []),
    ("Turn on the light.", []),
    ("Set a timer for 5 minutes.", []),
    ("Play my favourite playlist.", []),
    ("Remind me to call mom tomorrow.", []),
    ("Hello, how are you?", []),
    ("The weather is nice today.", []),
    ("Thanks, that's great!", []),
    ("I love you.", []),
    ("I like it.", []),
    ("I like that idea.", []),
    ("I'd like a coffee.", []),
    ("I want to listen to music.", []),
    ("If I liked tea, I'd drink it.", []),
    ("Maybe I like jazz.", []),
    ("I think I prefer tea.", []),
    ("My phone is dead.", []),
    ("My head is killing me.", []),
    ("My room is cold.", []),
    ("My name is not Bob.", []),
    ("Call me back later.", []),
    ("Call me tomorrow.", []),
    ("Remember the milk.", []),
    ("I'm allergic to it.", []),
    ("I see him every month.", []),
    ("Remember that I might be late.", []),
    ("I have an allergy to it.", []),
    ("The car's battery is low.", []),
    ("Today's weather is lovely.", []),
    ("My kids think the game is fun.", []),
    ("Everyone loves pizza.", []),
    ("Anna loves it.", []),
    ("This is my wife.", []),
    ("I don't eat it.", []),
    ("I'm in Berlin.", []),
    ("It's time for bed.", []),
    ("My bike cost 300 euros.", []),
    # Secrets are never facts.
    ("My password is hunter2.", []),
    ("The wifi password is Sunshine2024!", []),
    ("Remember that the alarm code is 4821.", []),
]

CHINESE: list[tuple[str, Expected]] = [
    ("我叫小明。", [("person", "user_name", "用户叫小明")]),
    ("我叫Anna", [("person", "user_name", "用户叫Anna")]),
    ("叫我老王就行。", [("person", "user_name", "用户希望被称为老王")]),
    ("我的名字是安娜。", [("person", "user_name", "用户的名字是安娜")]),
    ("我的生日是五月三号。", [("event", "user_birthday", "用户的生日是五月三号")]),
    (
        "我最喜欢的颜色是蓝色。",
        [("preference", "user_favorite_color", "用户最喜欢的颜色是蓝色")],
    ),
    ("我的老婆是安娜。", [("person", "user_wife", "用户的老婆是安娜")]),
    ("我老婆叫安娜。", [("person", "user_wife_name", "用户的老婆叫安娜")]),
    ("我妈是医生。", [("person", "user_mother", "用户的妈是医生")]),
    ("我的狗叫旺财。", [("fact", "user_dog_name", "用户的狗叫旺财")]),
    ("我的猫咪名字叫咪咪。", [("fact", "user_cat_name", "用户的猫咪名字叫咪咪")]),
    ("我家的狗叫旺财。", [("fact", "household_dog_name", "用户家的狗叫旺财")]),
    (
        "我们家的wifi名字叫HomeNet。",
        [("fact", "household_wifi_name", "用户家的wifi名字叫HomeNet")],
    ),
    ("我的車是特斯拉。", [("fact", "user_car", "用戶的車是特斯拉")]),
    ("安娜是我老婆。", [("person", "user_wife", "安娜是用户的老婆")]),
    ("我喜欢燕麦奶。", [("preference", "user_燕麦奶", "用户喜欢燕麦奶")]),
    ("我很喜欢喝咖啡。", [("preference", "user_喝咖啡", "用户很喜欢喝咖啡")]),
    ("我爱吃饺子。", [("preference", "user_吃饺子", "用户爱吃饺子")]),
    ("我最喜欢吃火锅。", [("preference", "user_吃火锅", "用户最喜欢吃火锅")]),
    ("其实我更喜欢喝茶。", [("preference", "user_喝茶", "用户更喜欢喝茶")]),
    ("我喜歡貓。", [("preference", "user_cat", "用戶喜歡貓")]),
    ("我不喜欢香菜。", [("preference", "user_香菜", "用户不喜欢香菜")]),
    ("我讨厌下雨天。", [("preference", "user_下雨天", "用户讨厌下雨天")]),
    ("我不太喜欢吃辣。", [("preference", "user_吃辣", "用户不太喜欢吃辣")]),
    (
        "我老婆喜欢喝拿铁。",
        [("preference", "user_wife_喝拿铁", "用户的老婆喜欢喝拿铁")],
    ),
    ("我对花生过敏。", [("fact", "user_allergy_花生", "用户对花生过敏")]),
    ("我对猫毛过敏。", [("fact", "user_allergy_猫毛", "用户对猫毛过敏")]),
    ("我花粉过敏。", [("fact", "user_allergy_花粉", "用户花粉过敏")]),
    ("我对海鲜不过敏。", [("fact", "user_allergy_海鲜", "用户对海鲜不过敏")]),
    (
        "我女儿对牛奶过敏。",
        [("fact", "user_daughter_allergy_牛奶", "用户的女儿对牛奶过敏")],
    ),
    ("对了，我对青霉素过敏。", [("fact", "user_allergy_青霉素", "用户对青霉素过敏")]),
    (
        "记住，备用钥匙在门垫下面。",
        [("fact", "备用钥匙_location", "备用钥匙在门垫下面")],
    ),
    ("请记住我叫小明。", [("person", "user_name", "用户叫小明")]),
    (
        "请记住我老婆的生日是六月五号。",
        [("event", "user_wife_birthday", "用户老婆的生日是六月五号")],
    ),
    ("帮我记一下，明天下午三点开会。", [("event", None, "明天下午三点开会")]),
    ("别忘了买牛奶。", [("note", None, "用户要记得买牛奶")]),
    ("记住我的车停在B2层。", [("fact", "car_location", "用户的车停在B2层")]),
    ("我每天早上跑步。", [("routine", None, "用户每天早上跑步")]),
    ("我通常十一点睡觉。", [("routine", None, "用户通常十一点睡觉")]),
    ("我总是忘记带钥匙。", [("pattern", None, "用户总是忘记带钥匙")]),
    ("我一般早上喝咖啡。", [("routine", None, "用户一般早上喝咖啡")]),
    ("每天早上我都喝一杯咖啡。", [("routine", None, "用户每天早上都喝一杯咖啡")]),
    ("周末我通常去爬山。", [("routine", None, "用户周末通常去爬山")]),
    ("每周五我们都吃披萨。", [("routine", None, "用户一家每周五都吃披萨")]),
    ("我们每周五晚上吃披萨。", [("routine", None, "用户一家每周五晚上吃披萨")]),
    ("我每天送我女儿上学。", [("routine", None, "用户每天送自己女儿上学")]),
    ("安娜的生日是三月三号。", [("event", "安娜_birthday", "安娜的生日是三月三号")]),
    (
        "我妈妈的生日是十月一号。",
        [("event", "user_mother_birthday", "用户妈妈的生日是十月一号")],
    ),
    (
        "我们的结婚纪念日是六月五日。",
        [("event", "household_anniversary", "用户一家的结婚纪念日是六月五日")],
    ),
    ("我住在北京。", [("fact", "user_residence", "用户住在北京")]),
    ("我们家住在上海。", [("fact", "household_residence", "用户家住在上海")]),
    ("我在一家医院工作。", [("fact", "user_employer", "用户在一家医院工作")]),
    ("我吃素。", [("fact", "user_diet", "用户吃素")]),
    ("我不吃猪肉。", [("fact", "user_diet_猪肉", "用户不吃猪肉")]),
    ("我不喝酒。", [("fact", "user_diet_酒", "用户不喝酒")]),
    (
        "我女儿的生日是五月五号",
        [("event", "user_daughter_birthday", "用户女儿的生日是五月五号")],
    ),
    ("我今年三十岁。", [("fact", "user_age", "用户今年三十岁")]),
    ("我有两只猫。", [("fact", "user_cat", "用户有两只猫")]),
    ("我家有一只狗。", [("fact", "household_dog", "用户家有一只狗")]),
    (
        "我叫小明，我对花生过敏。",
        [
            ("person", "user_name", "用户叫小明"),
            ("fact", "user_allergy_花生", "用户对花生过敏"),
        ],
    ),
    (
        "我喜欢茶，但是我讨厌咖啡。",
        [
            ("preference", "user_茶", "用户喜欢茶"),
            ("preference", "user_咖啡", "用户讨厌咖啡"),
        ],
    ),
    ("我喜欢茶但不喜欢咖啡。", [("preference", "user_茶", "用户喜欢茶")]),
    # Questions, commands, small talk, hypotheticals: nothing.
    ("我喜欢什么？", []),
    ("我喜欢喝茶吗", []),
    ("我的手机是不是坏了？", []),
    ("你记得我喜欢什么吗？", []),
    ("打开客厅的灯。", []),
    ("把空调调到26度。", []),
    ("明天早上七点叫我起床。", []),
    ("今天天气真好。", []),
    ("你好。", []),
    ("谢谢你！", []),
    ("我爱你。", []),
    ("我喜欢这首歌。", []),
    ("我叫了外卖。", []),
    ("我的手机坏了。", []),
    ("我的房间是不太干净", []),
    ("如果我喜欢猫，我会养一只。", []),
    ("我可能对花生过敏。", []),
    ("我觉得我喜欢茶。", []),
    ("我什么都吃。", []),
    ("我主要是早上跑步。", []),
    ("他的生日是三月三号。", []),
    ("记住，好。", []),
    ("我不吃了。", []),
    ("我对它过敏。", []),
    ("我老婆喜欢你。", []),
    # Secrets are never facts.
    ("我的wifi密码是abc12345。", []),
    ("记住门禁密码是1234#", []),
]


def _triples(facts: list[Fact]) -> Expected:
    return [(fact.category, fact.key, fact.content) for fact in facts]


@pytest.mark.parametrize(("text", "expected"), ENGLISH, ids=[t for t, _ in ENGLISH])
def test_english_statements(text: str, expected: Expected) -> None:
    assert _triples(RuleBasedExtractor().extract(text)) == expected


@pytest.mark.parametrize(("text", "expected"), CHINESE, ids=[t for t, _ in CHINESE])
def test_chinese_statements(text: str, expected: Expected) -> None:
    assert _triples(RuleBasedExtractor().extract(text)) == expected


def test_tables_are_large_enough() -> None:
    for table in (ENGLISH, CHINESE):
        assert sum(1 for _, expected in table if expected) >= 40
        assert sum(1 for _, expected in table if not expected) >= 20


def test_stated_and_explicit_confidence_and_source() -> None:
    extractor = RuleBasedExtractor()

    stated = extractor.extract("I prefer oat milk.")
    explicit = extractor.extract("Remember that I prefer oat milk.")
    chinese = extractor.extract("请记住我喜欢燕麦奶")

    assert [(f.confidence, f.source) for f in stated] == [(0.95, "user_stated")]
    assert [(f.confidence, f.source) for f in explicit] == [(1.0, "user_stated")]
    assert [(f.confidence, f.source) for f in chinese] == [(1.0, "user_stated")]
    assert explicit[0].content == stated[0].content
    custom = RuleBasedExtractor(stated_confidence=0.9, explicit_confidence=0.97)
    assert custom.extract("I enjoy jazz")[0].confidence == 0.9
    assert custom.extract("remember: I enjoy jazz")[0].confidence == 0.97


def test_multi_sentence_input_in_both_languages() -> None:
    text = (
        "My name is Anna. I'm allergic to peanuts! Do I like tea? "
        "我喜欢燕麦奶。我喜欢什么？我每天早上跑步；打开客厅的灯。"
    )

    facts = RuleBasedExtractor().extract(text)

    assert [fact.content for fact in facts] == [
        "The user's name is Anna",
        "The user is allergic to peanuts",
        "用户喜欢燕麦奶",
        "用户每天早上跑步",
    ]


def test_repeated_statements_in_one_message_give_one_fact() -> None:
    facts = RuleBasedExtractor().extract("I like tea. I like tea! i like tea")

    assert len(facts) == 1


def test_a_clause_break_at_the_start_is_ignored() -> None:
    facts = RuleBasedExtractor().extract(", and I like tea")

    assert [fact.content for fact in facts] == ["The user likes tea"]


def test_sentence_splitting() -> None:
    assert split_sentences("Dr. Smith is my doctor. He is nice.") == [
        "Dr. Smith is my doctor.",
        "He is nice.",
    ]
    assert split_sentences("我叫小明。我喜欢茶！你呢？好；\n\nok") == [
        "我叫小明。",
        "我喜欢茶！",
        "你呢？",
        "好；",
        "ok",
    ]
    assert split_sentences("It costs 6.50 euros.") == ["It costs 6.50 euros."]
    assert split_sentences("  ") == []


def test_empty_and_punctuation_only_input() -> None:
    extractor = RuleBasedExtractor()

    assert extractor.extract("") == []
    assert extractor.extract("...!?。") == []
    assert extractor.extract("oh, well,") == []


def test_a_dropped_secret_is_logged_without_the_secret(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.INFO, logger=SECRETS_LOGGER):
        facts = RuleBasedExtractor().extract(
            "My wifi password is Tulip-4242. I prefer oat milk."
        )

    assert [fact.content for fact in facts] == ["The user prefers oat milk"]
    assert "contains a secret" in caplog.text
    # Nor its key, made of the person's words.
    assert "wifi" not in caplog.text
    assert "Tulip-4242" not in caplog.text


def test_fact_validation_and_fields() -> None:
    fact = Fact("  The user likes tea ", category="Preference", key="user_tea")

    assert fact.content == "The user likes tea"
    assert fact.category == "preference"
    assert fact.to_dict() == {
        "content": "The user likes tea",
        "category": "preference",
        "key": "user_tea",
        "confidence": 0.95,
        "source": "user_stated",
    }
    bad_fields: list[dict[str, Any]] = [
        {"content": " "},
        {"content": "x", "category": "gossip"},
        {"content": "x", "source": "robot"},
        {"content": "x", "confidence": 1.5},
        {"content": "x", "confidence": True},
    ]
    for bad in bad_fields:
        with pytest.raises(ValueError, match=r"content|category|source|confidence"):
            Fact(**bad)


# -- LLM output -------------------------------------------------------------------


GOOD_ITEMS = [
    {
        "content": "The user prefers oat milk",
        "category": "preference",
        "key": "user_oat_milk",
        "confidence": 0.9,
        "source": "user_stated",
    },
    {"content": "用户每天早上跑步", "category": "routine"},
]


@pytest.mark.parametrize(
    "raw",
    [
        {"facts": GOOD_ITEMS},
        GOOD_ITEMS,
        json.dumps({"facts": GOOD_ITEMS}, ensure_ascii=False),
        "```json\n" + json.dumps({"facts": GOOD_ITEMS}, ensure_ascii=False) + "\n```",
        "Here you go:\n```\n" + json.dumps(GOOD_ITEMS, ensure_ascii=False) + "\n```",
        "Sure! " + json.dumps({"facts": GOOD_ITEMS}, ensure_ascii=False) + " Done.",
        json.dumps({"facts": GOOD_ITEMS}).encode(),
    ],
    ids=["dict", "list", "json", "fenced", "fenced-list", "prose", "bytes"],
)
def test_llm_output_in_every_accepted_shape(raw: object) -> None:
    facts = parse_llm_facts(raw)

    assert facts == [
        Fact(
            "The user prefers oat milk",
            "preference",
            "user_oat_milk",
            0.9,
            "user_stated",
            from_llm=True,
        ),
        Fact("用户每天早上跑步", "routine", None, 0.7, "inferred", from_llm=True),
    ]


def test_llm_single_item_object() -> None:
    facts = parse_llm_facts({"content": "The user likes tea", "category": "preference"})

    assert [fact.content for fact in facts] == ["The user likes tea"]


def test_llm_confidence_rules() -> None:
    facts = parse_llm_facts(
        [
            {"content": "a", "category": "fact", "confidence": 0.99},
            {"content": "b", "category": "fact", "confidence": 0.3},
            {
                "content": "c",
                "category": "fact",
                "source": "user_stated",
                "confidence": 0.4,
            },
            {"content": "d", "category": "fact", "source": "USER_STATED"},
            {
                "content": "e",
                "category": "fact",
                "source": "system",
                "confidence": "0.95",
            },
            {"content": "f", "category": "fact", "confidence": 1},
        ]
    )

    assert [(f.content, f.source, f.confidence) for f in facts] == [
        ("a", "inferred", 0.8),
        ("b", "inferred", 0.3),
        ("c", "user_stated", 0.9),
        ("d", "user_stated", 0.95),
        ("e", "inferred", 0.8),
        ("f", "inferred", 0.8),
    ]


def test_llm_keys_are_normalised() -> None:
    facts = parse_llm_facts(
        [
            {"content": "a", "category": "Fact", "key": " Anna Coffee "},
            {"content": "b", "category": "fact", "key": "---"},
            {"content": "c", "category": "fact", "key": None},
        ]
    )

    assert [(f.category, f.key) for f in facts] == [
        ("fact", "anna_coffee"),
        ("fact", None),
        ("fact", None),
    ]


def test_llm_partially_bad_output_drops_each_bad_item_with_one_log_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    items: list[object] = [
        {"content": "The user likes tea", "category": "preference"},  # kept
        {"content": "x", "category": "gossip"},
        {"content": "x", "category": 7},
        {"content": "", "category": "fact"},
        {"content": "   ", "category": "fact"},
        {"content": 42, "category": "fact"},
        {"category": "fact"},
        {"content": "x" * 501, "category": "fact"},
        {"content": "x\x00y", "category": "fact"},
        {"content": "x", "category": "fact", "confidence": "high"},
        {"content": "x", "category": "fact", "confidence": 1.5},
        {"content": "x", "category": "fact", "confidence": -0.1},
        {"content": "x", "category": "fact", "confidence": float("nan")},
        {"content": "x", "category": "fact", "confidence": True},
        {"content": "x", "category": "fact", "confidence": [0.5]},
        {"content": "x", "category": "fact", "key": 12},
        {"content": "x", "category": "fact", "key": "k" * 65},
        {"content": "The wifi password is Tulip-4242", "category": "fact"},
        "just a string",
        None,
        ["a", "list"],
        {"content": "y" * 500, "category": "note"},  # kept: exactly the limit
    ]

    with caplog.at_level(logging.INFO, logger=LLM_LOGGER):
        facts = parse_llm_facts({"facts": items})

    assert [fact.content[:5] for fact in facts] == ["The u", "yyyyy"]
    dropped = [r for r in caplog.records if r.name == LLM_LOGGER]
    assert len(dropped) == len(items) - 2
    assert all(r.levelno == logging.INFO for r in dropped)
    assert dropped[0].getMessage().startswith("Dropped fact 1 of the LLM's answer")
    assert "Tulip-4242" not in caplog.text


@pytest.mark.parametrize(
    "raw",
    [
        "not json at all",
        "{broken",
        "] oops [",
        "",
        42,
        None,
        {"facts": "none"},
        {"answer": []},
        '```json\n{"facts": [\n```',
        "oops {not json} here",
    ],
)
def test_llm_garbage_gives_no_facts_and_a_warning(
    raw: object, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger=LLM_LOGGER):
        assert parse_llm_facts(raw) == []

    assert [r.levelno for r in caplog.records if r.name == LLM_LOGGER] == [
        logging.WARNING
    ]


def test_llm_empty_answer_is_quiet(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger=LLM_LOGGER):
        assert parse_llm_facts('{"facts": []}') == []

    assert not caplog.records


def test_llm_instructions_and_schema_agree() -> None:
    assert json.loads(json.dumps(FACTS_SCHEMA)) == FACTS_SCHEMA
    item = FACTS_SCHEMA["properties"]["facts"]["items"]
    assert item["properties"]["category"]["enum"] == list(CATEGORIES)
    assert item["properties"]["source"]["enum"] == ["user_stated", "inferred"]
    assert item["properties"]["content"]["maxLength"] == 500
    assert item["required"] == ["content", "category"]
    for word in (*CATEGORIES, '{"facts": []}', "JSON", "secret", "device commands"):
        assert word in LLM_EXTRACTION_INSTRUCTIONS
    # The example in the instructions is itself accepted.
    example = LLM_EXTRACTION_INSTRUCTIONS.split("exactly this shape:\n", 1)[1]
    example = example.split("\n- category", 1)[0].replace(
        '"..."', '"The user likes tea"'
    )
    assert len(parse_llm_facts(example)) == 1


# -- write-back --------------------------------------------------------------------


def _memory(
    memory_id: str,
    content: str,
    *,
    key: str | None = None,
    scope: str = "household",
    updated_at: str = "2025-01-01T00:00:00+00:00",
) -> Memory:
    return Memory(
        id=memory_id,
        content=content,
        key=key,
        scope=scope,
        created_at="2025-01-01T00:00:00+00:00",
        updated_at=updated_at,
    )


def test_exact_duplicate_is_a_refresh() -> None:
    existing = [_memory("m1", "The user prefers oat milk")]
    fact = Fact("the user prefers  OAT milk.", "preference")

    plan = plan_write_back([fact], existing, scope="household")

    assert plan.refreshes == ["m1"]
    assert plan.refreshed_with == {"m1": fact}
    assert not plan.adds
    assert not plan.replacements
    assert not plan.skipped


@pytest.mark.parametrize(
    ("stored", "new"),
    [
        ("The user prefers oat milk", "User prefers oat milk!"),
        ("The user enjoys jazz music", "The user enjoyed jazz music"),
        (
            "The user's dogs are called Max and Rex",
            "The user's dog is called Max and Rex",
        ),
        ("用户很喜欢燕麦奶", "用户喜欢燕麦奶"),
        ("用户每天早上跑步", "用户每天早上都跑步"),
    ],
)
def test_near_duplicates_are_refreshes(stored: str, new: str) -> None:
    plan = plan_write_back([Fact(new)], [_memory("m1", stored)], scope="household")

    assert plan.refreshes == ["m1"]
    assert plan.adds == []


@pytest.mark.parametrize(
    ("stored", "new"),
    [
        ("The user likes tea", "The user doesn't like tea"),
        ("The user prefers oat milk", "The user prefers oat milk in coffee"),
        ("The user wakes up at 7", "The user wakes up at 6"),
        ("用户喜欢香菜", "用户不喜欢香菜"),
        ("Anna likes tea", "Tom likes tea"),
    ],
)
def test_different_meanings_are_added(stored: str, new: str) -> None:
    plan = plan_write_back([Fact(new)], [_memory("m1", stored)], scope="household")

    assert plan.adds == [Fact(new)]
    assert plan.refreshes == []


def test_same_key_newer_fact_wins() -> None:
    existing = [
        _memory("old", "The user likes tea", key="user_tea"),
        _memory(
            "older",
            "The user loves tea",
            key="User_Tea",
            updated_at="2024-01-01T00:00:00+00:00",
        ),
        _memory("other", "The user likes coffee", key="user_coffee"),
    ]
    fact = Fact("The user doesn't like tea", "preference", "user_tea")

    plan = plan_write_back([fact], existing, scope="household")

    assert plan.replacements == [("old", fact)]
    assert plan.adds == []
    assert plan.refreshes == []


def test_an_llm_key_that_names_nothing_the_fact_says_replaces_nothing() -> None:
    # A small model keys every fact "user_name": a new dishwasher is no new name.
    existing = [_memory("leo", "Leo plays football on Saturdays", key="user_name")]
    fact = Fact("We got a new dishwasher", "fact", "user_name", from_llm=True)
    leo = Fact("Leo plays football on Saturdays", "person", "user_name", from_llm=True)

    plan = plan_write_back([fact], existing, scope="household")
    in_batch = plan_write_back([leo, fact], [], scope="household")

    assert plan.adds == [fact]
    assert plan.replacements == []
    assert in_batch.adds == [leo, fact]


@pytest.mark.parametrize(
    ("stored", "new", "key"),
    [
        # The fact says the key's word.
        ("The user's name is Anna", "The user's name is Bea", "user_name"),
        # The facts share a content word.
        ("The user lives in Paris", "The user lives in Berlin", "user_city"),
    ],
)
def test_an_llm_key_naming_the_subject_still_replaces(
    stored: str, new: str, key: str
) -> None:
    fact = Fact(new, "fact", key, from_llm=True)

    plan = plan_write_back([fact], [_memory("old", stored, key=key)], scope="household")

    assert plan.replacements == [("old", fact)]


def test_same_key_and_same_content_is_a_refresh() -> None:
    existing = [_memory("m1", "The user's name is Anna", key="user_name")]

    plan = plan_write_back(
        [Fact("The user's name is Anna.", "person", "user_name")],
        existing,
        scope="household",
    )

    assert plan.refreshes == ["m1"]
    assert plan.replacements == []


def test_other_scopes_are_not_duplicates() -> None:
    existing = [
        _memory("anna", "The user likes tea", key="user_tea", scope="anna"),
        _memory("tom", "The user's name is Tom", key="user_name", scope="tom"),
    ]
    facts = [
        Fact("The user likes tea", key="user_tea"),
        Fact("The user's name is Anna", key="user_name"),
    ]

    plan = plan_write_back(facts, existing, scope="household")

    assert plan.adds == facts
    assert plan.refreshes == []
    assert plan.replacements == []
    assert plan_write_back(facts[:1], existing, scope="anna").refreshes == ["anna"]


def test_secrets_are_never_planned(caplog: pytest.LogCaptureFixture) -> None:
    facts = [
        Fact("The user's pin is 4321", key="user_pin"),
        Fact("用户的wifi密码是abc12345", key="user_wifi"),
        Fact(
            "The user likes tea", key="user_secret_is_sk-abcdefghijklmnopqrstuvwx1234"
        ),
        Fact("The user likes coffee"),
    ]

    with caplog.at_level(logging.INFO, logger=SECRETS_LOGGER):
        plan = plan_write_back(facts, [], scope="household")

    assert plan.adds == [facts[3]]
    assert plan.skipped == [(fact, "secret") for fact in facts[:3]]
    assert "4321" not in caplog.text
    assert "abc12345" not in caplog.text
    assert "sk-abcdefghijklmnopqrstuvwx1234" not in caplog.text
    assert caplog.text.count("contains a secret") == 3


def test_duplicates_within_one_batch_collapse() -> None:
    weak = Fact("The user likes tea", confidence=0.9)
    strong = Fact("The user likes tea!", confidence=1.0)
    chinese = Fact("用户喜欢燕麦奶")
    chinese_again = Fact("用户很喜欢燕麦奶")
    first_key = Fact("The user likes cats", key="user_cat")
    newer_key = Fact("The user is afraid of cats", key="user_cat")

    plan = plan_write_back(
        [weak, strong, chinese, chinese_again, first_key, newer_key],
        [],
        scope="household",
    )

    assert plan.adds == [strong, chinese, newer_key]
    assert plan.skipped == [
        (weak, "duplicate_in_batch"),
        (chinese_again, "duplicate_in_batch"),
        (first_key, "superseded_in_batch"),
    ]


def test_a_replaced_memory_is_not_also_refreshed() -> None:
    existing = [_memory("m1", "The user likes tea", key="user_tea")]
    repeat = Fact("The user likes tea.")
    change = Fact("The user hates tea", key="user_tea")

    plan = plan_write_back([repeat, change], existing, scope="household")
    assert plan.replacements == [("m1", change)]
    assert plan.refreshes == []
    assert plan.refreshed_with == {}

    plan = plan_write_back(
        [change, Fact("The user likes tea")], existing, scope="household"
    )
    assert plan.replacements == [("m1", change)]
    assert plan.skipped == [(Fact("The user likes tea"), "superseded_in_batch")]


def test_two_facts_refreshing_one_memory_keep_the_stronger() -> None:
    existing = [_memory("m1", "The user enjoys jazz")]
    weak = Fact("User enjoys jazz", key="a", confidence=0.9)
    strong = Fact("The user enjoyed jazz", key="b", confidence=1.0)

    plan = plan_write_back([weak, strong], existing, scope="household")

    assert plan.refreshes == ["m1"]
    assert plan.refreshed_with == {"m1": strong}


def test_empty_plan() -> None:
    plan = plan_write_back([], [_memory("m1", "x")], scope="household")

    assert plan == WriteBackPlan()


def test_extract_plan_and_apply_to_a_real_store(
    open_store: Callable[..., MemoryStore], store_path: Path
) -> None:
    """Second time round the same message only refreshes; a change replaces."""
    store = open_store()
    extractor = RuleBasedExtractor()

    def run(text: str) -> WriteBackPlan:
        plan = plan_write_back(extractor.extract(text), store.get_all(), scope="anna")
        for fact in plan.adds:
            store.add(**fact.to_dict(), scope="anna")
        for memory_id in plan.refreshes:
            store.update(
                memory_id, confidence=plan.refreshed_with[memory_id].confidence
            )
        for memory_id, fact in plan.replacements:
            store.update(memory_id, fact.content, category=fact.category)
        return plan

    first = run("My name is Anna. I like tea. 我对花生过敏。My pin is 1234.")
    assert len(first.adds) == 3
    assert not first.refreshes

    second = run("my name is Anna! I like tea.")
    assert not second.adds
    assert len(second.refreshes) == 2

    third = run("Actually, I don't like tea.")
    assert len(third.replacements) == 1
    contents = sorted(memory.content for memory in store.get_all())
    assert contents == [
        "The user doesn't like tea",
        "The user's name is Anna",
        "用户对花生过敏",
    ]
    assert "1234" not in store_path.read_text(encoding="utf-8")


def test_a_statement_of_a_replaced_fact_is_recognised() -> None:
    extractor = RuleBasedExtractor()
    (teal,) = extractor.extract("My favourite colour is teal")
    (orange,) = extractor.extract("My favourite colour is orange")
    (tea,) = extractor.extract("I like green tea")
    old = _memory("m1", teal.content, key=teal.key)

    assert states_replaced_fact(teal, old, orange)
    assert not states_replaced_fact(orange, old, orange)  # what is true now
    assert not states_replaced_fact(tea, old, orange)  # about something else
    # Without a key, the same meaning as the replaced memory is enough.
    assert states_replaced_fact(Fact(teal.content), old, orange)
