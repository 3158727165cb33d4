"""The kind of value a question asks for, and whether a memory holds one."""

from __future__ import annotations

import pytest

from custom_components.assist_memory.engine.language.asked_values import (
    AskedValue,
    asked_value,
    holds_value,
)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What's the plumber's number?", AskedValue.PHONE),
        ("What's Dave the pool guy's email?", AskedValue.EMAIL),
        ("Do you have the phone number for the vet?", AskedValue.PHONE),
        ("What number do I ring for the school office?", AskedValue.PHONE),
        ("朵朵的英语老师Emma电话多少？", AskedValue.PHONE),
        ("阿強嘅號碼係幾多？", AskedValue.PHONE),
        ("How much do we pay Jordan for the dog walks?", AskedValue.MONEY),
        ("How much is the property fee per square metre?", AskedValue.MONEY),
        ("What does the window cleaner cost?", AskedValue.MONEY),
        ("一桶怡宝水多少钱？", AskedValue.MONEY),
        ("李师傅上次修空调收了多少钱？", AskedValue.MONEY),
        ("老闆娘的電郵係咩？", AskedValue.EMAIL),
        # Not a value of those shapes.
        ("Where is the fuse box?", None),
        ("How much sleep does the baby need?", None),
        ("What's my passport number?", None),
        ("Which account gets charged at the toll gates?", None),
        ("Where are the phone chargers?", None),
        ("充电费用的那张卡在哪个抽屉里？", None),
        ("When was the boiler last serviced?", None),
    ],
)
def test_the_value_a_question_asks_for(
    question: str, expected: AskedValue | None
) -> None:
    assert asked_value(question) == expected


@pytest.mark.parametrize(
    ("value", "text", "holds"),
    [
        (AskedValue.PHONE, "Our electrician is Tony Kassis, 0418 555 262", True),
        (AskedValue.PHONE, "水管工孙师傅的电话是136 0127 5583", True),
        (AskedValue.PHONE, "The dentist is at +44 (0)113 496 0412", True),
        (AskedValue.PHONE, "Dave the pool guy comes every second Thursday", False),
        (AskedValue.PHONE, "Grace comes on Fridays from 9:30 to 12:30", False),
        (AskedValue.MONEY, "The allotment rent, £48 a year, is due in January", True),
        (AskedValue.MONEY, "The rooms are 1,300 yuan a month each", True),
        (AskedValue.MONEY, "物业费每年一月缴一次，2026年交了7860元", True),
        (AskedValue.MONEY, "剪头发三十块", True),
        (AskedValue.MONEY, "The school lunches are free on Fridays", True),
        (AskedValue.MONEY, "桶装水找怡宝送水站，电话020-8711 4523", False),
        (AskedValue.MONEY, "The dog walker is Jordan, on Tuesdays at noon", False),
        (AskedValue.EMAIL, "Dave's email is dave@poolcare.example", True),
        (AskedValue.EMAIL, "Dave's email is dave at poolcare dot com", True),
        (AskedValue.EMAIL, "Dave the pool guy comes every second Thursday", False),
    ],
)
def test_whether_a_memory_holds_the_value(
    value: AskedValue, text: str, holds: bool
) -> None:
    assert holds_value(value, text) is holds
