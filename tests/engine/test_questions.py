"""Everyday questions read, memories judged, and memories said to the listener."""

from __future__ import annotations

import pytest

from custom_components.assist_memory.engine.language.follow_ups import follow_up
from custom_components.assist_memory.engine.language.listener import for_listener
from custom_components.assist_memory.engine.language.questions import (
    judge,
    known_units,
    read_question,
    stem,
)


@pytest.mark.parametrize(
    ("text", "kind", "units"),
    [
        ("Where is the spare key?", "where", ("spar", "key")),
        ("When does Biscuit get fed?", "when", ("biscuit", "fed")),
        ("Who's our plumber?", "who", ("plumber",)),
        ("Does grandma eat spicy food?", "yesno", ("grandma", "eat", "spicy", "food")),
        ("Tell me the name of our plumber", "what", ("plumber",)),
        ("the spare key?", "yesno", ("spar", "key")),
        ("备用钥匙在哪里？", "where", ("备用", "用钥", "钥匙")),
        ("奶奶吃不吃辣？", "yesno", ("奶奶", "奶吃", "吃辣")),
        ("爷爷的生日是哪天？", "when", ("爷爷", "生日")),
        ("小宝的老师是谁？", "who", ("小宝", "老师")),
        ("wifi叫什么？", "what", ("叫", "wifi")),
    ],
)
def test_questions_and_their_units(
    text: str, kind: str, units: tuple[str, ...]
) -> None:
    question = read_question(text)
    assert question is not None
    assert (question.kind, question.units) == (kind, units)


@pytest.mark.parametrize(
    "text",
    [
        "Turn on the kitchen light",
        "What time is it?",
        "How are you?",
        "打开厨房灯",
        "",
        "现在几点",
    ],
)
def test_not_questions_about_anything(text: str) -> None:
    assert read_question(text) is None


def test_stems_bring_forms_together() -> None:
    assert stem("charges") == stem("charge")
    assert stem("serviced") == stem("service")
    assert stem("families") == "family"
    assert stem("glass") == "glass"


def judged(text: str, content: str, *others: str) -> bool:
    question = read_question(text)
    assert question is not None
    return judge(question, content, known_units(question, [content, *others])).answers


def test_judging_a_memory() -> None:
    assert judged("Where is the spare key?", "The spare key is under the mat")
    # Every word the household's memories know must be there.
    assert not judged(
        "When is Lily's birthday?", "Lily has piano on Wednesdays", "Grandpa's birthday"
    )
    # A name in the question is never left out.
    assert not judged("Who is Tom's teacher?", "Leo's teacher is Mrs. Patel")
    # A yes-no question about something no memory mentions.
    assert not judged(
        "Is anyone allergic to peanuts?", "The user is allergic to penicillin"
    )
    # A place question needs more than a name in common.
    assert not judged("Where is Leo now?", "Leo plays football on Saturdays")
    assert judged("我們的貓叫什麼？", "貓咪叫做豆花")
    assert judged("奶奶能吃辣吗？", "奶奶不能吃辣")


def test_side_by_side_words_make_the_better_answer() -> None:
    question = read_question("Where is the spare key?")
    assert question is not None
    contents = ["The spare car key is in the drawer", "The spare key is under the mat"]
    known = known_units(question, contents)
    car, mat = (judge(question, c, known) for c in contents)
    assert mat.side_by_side > car.side_by_side
    chinese = read_question("备用钥匙在哪里？")
    assert chinese is not None
    assert judge(chinese, "备用钥匙放在花盆下面", frozenset({"钥匙"})).side_by_side >= 4


@pytest.mark.parametrize(
    ("content", "own", "said"),
    [
        ("The user is allergic to penicillin", True, "You're allergic to penicillin"),
        (
            "The user's daughter Lily loves dinosaurs",
            True,
            "Your daughter Lily loves dinosaurs",
        ),
        ("my favourite colour is green", True, "Your favourite colour is green"),
        ("I'm vegetarian", True, "You're vegetarian"),
        (
            "The user takes their tea without sugar",
            True,
            "You take your tea without sugar",
        ),
        ("The user always walks the dog", True, "You always walk the dog"),
        ("The user watches the news", True, "You watch the news"),
        ("The user carries a spare key for me", True, "You carry a spare key for you"),
        ("The user doesn't eat pork", True, "You don't eat pork"),
        ("the spare key is under the mat", False, "The spare key is under the mat"),
        ("The household drinks green tea", False, "Your household drinks green tea"),
        ("用户对青霉素过敏", True, "你对青霉素过敏"),
        ("我们家的猫叫年糕", True, "你们家的猫叫年糕"),
        ("用戶家的醫生是陳醫生", False, "你家的醫生是陳醫生"),
    ],
)
def test_memories_said_to_the_listener(content: str, own: bool, said: str) -> None:
    assert for_listener(content, own=own) == said


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Forget that", "forget_last"),
        ("No, that's not right.", "forget_last"),
        ("不对", "forget_last"),
        ("刪掉這個", "forget_last"),
        ("What did you just learn?", "what_learnt"),
        ("你剛才記住了什麼？", "what_learnt"),
        ("Forget that the key is under the mat", None),
        ("That's a nice car", None),
    ],
)
def test_follow_ups(text: str, kind: str | None) -> None:
    assert follow_up(text) == kind
