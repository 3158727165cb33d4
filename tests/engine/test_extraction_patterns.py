"""Rule extraction of more ways people state things, in sentences of our own.

Things named by a head noun ("birthday candles" are kept somewhere, "my birthday" is a
date), plural subjects on a plain weekday (every week), a clock time in the present
tense (every day), "go-to" preferences, "I've got ...", questions whose question word
comes last, and in Chinese: where things are put, what household members do and have,
more plain statements about oneself.
"""

from __future__ import annotations

import pytest

from assist_memory_engine.extraction import RuleBasedExtractor

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
        [("routine", None, "The user takes the 6:50 bus to the office")],
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
]

NOTHING: list[str] = [
    # The question word said last.
    "my dentist is who again",
    "the party is where again",
    "our anniversary was when?",
]


@pytest.mark.parametrize(("text", "expected"), STATED, ids=[t for t, _ in STATED])
def test_stated(text: str, expected: Expected) -> None:
    facts = RuleBasedExtractor().extract(text)
    assert [(f.category, f.key, f.content) for f in facts] == expected


@pytest.mark.parametrize("text", NOTHING)
def test_nothing_to_keep(text: str) -> None:
    assert RuleBasedExtractor().extract(text) == []
