"""Rule extraction of more ways people state things, in sentences of our own.

Things named by a head noun ("birthday candles" are kept somewhere, "my birthday" is a
date), plural subjects on a plain weekday (every week), a clock time in the present
tense (every day), "go-to" preferences, "I've got ...", questions whose question word
comes last, and in Chinese: where things are put, what household members do and have,
more plain statements about oneself.
"""

from __future__ import annotations

import pytest

from custom_components.assist_memory.engine.language.rule_extraction import (
    RuleBasedExtractor,
)

Expected = list[tuple[str, str | None, str]]

STATED: list[tuple[str, Expected]] = [
    # The head noun decides: these are things kept somewhere, not dates.
    (
        "Anniversary cards are in the desk drawer",
        [
            (
                "fact",
                "anniversary_card_location",
                "Anniversary cards are in the desk drawer",
            )
        ],
    ),
    (
        "Our holiday brochures are in the basket by the sofa",
        [
            (
                "fact",
                "holiday_brochure_location",
                "The household's holiday brochures are in the basket by the sofa",
            )
        ],
    ),
    # A plural subject on a plain weekday happens every week; "next" makes it once.
    (
        "Guitar lessons are on Monday at six",
        [("routine", None, "Guitar lessons are on Monday at six")],
    ),
    ("The bins go out on Friday", [("routine", None, "The bins go out on Friday")]),
    (
        "My exams start next Monday",
        [("event", None, "The user's exams start next Monday")],
    ),
    # A clock time said in the present tense is a daily habit; "I have" is one-off.
    (
        "I take the 6:50 bus to the office",
        [("routine", "user_bus", "The user takes the 6:50 bus to the office")],
    ),
    ("I have a call at 3pm", [("fact", None, "The user has a call at 3pm")]),
    ("I've got asthma", [("fact", None, "The user has got asthma")]),
    (
        "My go-to breakfast is porridge with honey",
        [
            (
                "preference",
                "user_go_to_breakfast",
                "The user's go-to breakfast is porridge with honey",
            )
        ],
    ),
    # Chinese: where things are put, also when the place is said in the middle.
    (
        "我把护照放在卧室的保险柜里了",
        [("fact", "护照_location", "用户把护照放在卧室的保险柜里了")],
    ),
    (
        "药箱在厨房水槽下面的柜子",
        [("fact", "药箱_location", "药箱在厨房水槽下面的柜子")],
    ),
    ("遥控器在沙发旁边那格", [("fact", "遥控器_location", "遥控器在沙发旁边那格")]),
    # Kin said without "my" are the user's; in traditional script they stay so.
    ("外公住在苏州", [("person", "user_外公_residence", "用户的外公住在苏州")]),
    ("阿嬤每天早上去公園散步", [("routine", None, "用戶的阿嬤每天早上去公園散步")]),
    ("家里的狗叫旺财", [("fact", "household_dog_name", "用户家的狗叫旺财")]),
    ("我們的貓叫小花", [("fact", "household_cat_name", "用戶一家的貓叫小花")]),
    # Plain statements about oneself.
    ("我老家在云南", [("fact", None, "用户老家在云南")]),
    ("我在一家医院当护士", [("fact", "user_job", "用户在一家医院当护士")]),
    ("我开的是一辆黑色的大众", [("fact", None, "用户开的是一辆黑色的大众")]),
    ("我穿三十八码的鞋", [("fact", None, "用户穿三十八码的鞋")]),
    ("我血压有点高，不能吃太咸", [("fact", None, "用户血压有点高，不能吃太咸")]),
    # Times: said first, a clock time of a visitor, one's own plans, weekly lessons.
    ("每周五下午打扫卫生", [("routine", None, "每周五下午打扫卫生")]),
    ("电工下午三点来", [("event", None, "电工下午三点来")]),
    ("我下个月要去上海出差", [("event", None, "用户下个月要去上海出差")]),
    ("我周四晚上要上钢琴课", [("routine", None, "用户周四晚上要上钢琴课")]),
    ("我每個禮拜三去游泳", [("routine", None, "用戶每個禮拜三去游泳")]),
    # Preferences: how one takes a drink, the subject carried over a comma.
    ("我喝奶茶要加珍珠", [("preference", "user_奶茶", "用户喝奶茶要加珍珠")]),
    ("我性格比较安静，喜欢看书", [("preference", "user_看书", "用户喜欢看书")]),
    ("就是说，我喜欢早睡", [("preference", "user_早睡", "用户喜欢早睡")]),
]

NOTHING: list[str] = [
    # The question word said last.
    "my dentist is who again",
    "the party is where again",
    "our anniversary was when?",
    # Asking the assistant to act at a time is a command.
    "明天早上七点叫我起床",
]

# Said in order, the later statement replaces the earlier one (the same key).
UPDATES: list[tuple[str, str]] = [
    ("我在一家书店上班", "我改在超市上班了"),
    ("我最喜欢的水果是苹果", "我最喜欢的水果换成芒果了"),
    ("我每天坐七点的公交车", "我改坐七点半的公交车了"),
    ("I like my tea with lemon", "I like my tea with honey"),
    ("I take the 6:10 bus to school", "I take the 6:40 bus to school now"),
]


@pytest.mark.parametrize(("text", "expected"), STATED, ids=[t for t, _ in STATED])
def test_stated(text: str, expected: Expected) -> None:
    facts = RuleBasedExtractor().extract(text)
    assert [(f.category, f.key, f.content) for f in facts] == expected


@pytest.mark.parametrize("text", NOTHING)
def test_nothing_to_keep(text: str) -> None:
    assert RuleBasedExtractor().extract(text) == []


@pytest.mark.parametrize(("first", "then"), UPDATES)
def test_a_later_statement_has_the_same_key(first: str, then: str) -> None:
    extractor = RuleBasedExtractor()
    (old,) = extractor.extract(first)
    (new,) = extractor.extract(then)
    assert old.key is not None
    assert new.key == old.key
