"""Whether a sentence states something: statements, and what is not one."""

from __future__ import annotations

import pytest

from custom_components.assist_memory.engine.language.statements import is_statement


@pytest.mark.parametrize(
    "text",
    [
        "The dog's vet is Dr Miller",
        "The garage code is 4512",
        "Our neighbour Tom waters the plants",
        "Tom waters the plants.",
        "Leo is allergic to nuts",
        "By the way, the bins go out on Tuesday",
        "Grandma's birthday is in May",
        "I park on the left side",
        "狗的兽医是米勒医生",
        "車庫密碼是4512",
        "奶奶不吃辣",
    ],
)
def test_a_statement(text: str) -> None:
    assert is_statement(text)


@pytest.mark.parametrize(
    "text",
    [
        "Turn on the garage light",
        "Lock the garage door",
        "Set the thermostat to 20",
        "Where is the spare key?",
        "Is the dog's vet Dr Miller?",
        "Thanks",
        "That's great",
        "Hello",
        "Good night",
        "打开车库灯",
        "请关掉客厅的灯",
        "备用钥匙在哪里？",
        "谢谢",
        "现在这里有多热",
        "",
    ],
)
def test_not_a_statement(text: str) -> None:
    assert not is_statement(text)
