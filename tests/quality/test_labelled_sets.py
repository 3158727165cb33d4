"""The labelled sets of learning and long conversations load and pass their self-checks.

They are measured by `script/bench --sets` only: no test tunes anything on them.
"""

from __future__ import annotations

from pathlib import Path
import subprocess
import sys

from custom_components.assist_memory.engine.language.facts import Fact
from script.answer_quality import labelled, problems as question_set_problems
from script.extraction_quality import Item, items, matches, problems
from script.scope_quality import (
    SCOPE_PROBE,
    Item as ScopeItem,
    items as scope_items,
    judge as judge_scope,
    problems as scope_problems,
)
from script.time_quality import cases as time_cases, problems as time_problems

ROOT = Path(__file__).resolve().parents[2]


def test_extraction_set_passes_its_self_checks() -> None:
    found = items()

    assert problems(found) == []
    assert len(found) >= 400


def test_extraction_self_check_finds_a_label_the_utterance_does_not_say() -> None:
    item: Item = {
        "id": "en-me-01",
        "lang": "en",
        "kind": "me",
        "say": "I grew up in Leeds",
        "expect": [{"category": ["fact"], "require": ["user", "York"], "forbid": []}],
    }

    assert problems([item]) != []


def test_matching_rule_reads_words_as_its_header_says() -> None:
    label = {
        "category": ["routine"],
        "require": ["user", "Saturday", "swim|pool"],
        "forbid": ["um"],
    }

    def fact(text: str, category: str = "routine") -> Fact:
        return Fact(text, category)

    assert matches(fact("The user swims on Saturdays"), label)
    assert matches(
        fact("Umbrella in hand, the user goes to the pool on Saturday"), label
    )
    assert not matches(fact("Um, the user swims on Saturdays"), label)
    assert not matches(fact("The user swims on Saturdays", "fact"), label)
    assert not matches(fact("The user swims at weekends"), label)
    assert not matches(fact("The user downswims on Saturdays"), label)
    assert matches(
        fact("用戶每週六游泳"),
        {"category": ["routine"], "require": ["用戶", "游泳"], "forbid": ["用户"]},
    )
    assert not matches(
        fact("用户每週六游泳"),
        {"category": ["routine"], "require": ["游泳"], "forbid": ["用户"]},
    )


def test_conversation_set_is_what_its_data_files_make() -> None:
    """The generator's self-checks pass and the file is up to date."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "script" / "make_conversation_set.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )

    assert done.returncode == 0, done.stderr


def test_time_set_passes_its_self_checks() -> None:
    assert time_problems() == []
    assert len(time_cases()) >= 100


def test_question_set_passes_its_self_checks() -> None:
    data = labelled()

    assert question_set_problems(data) == []
    assert {q["lang"] for q in data["questions"]} == {"en", "zh-Hans", "zh-Hant"}


def test_question_set_self_check_finds_an_unknown_memory_and_too_few_questions() -> (
    None
):
    data = labelled()
    broken = {
        **data,
        "questions": [{**data["questions"][0], "answer": ["no-such-memory"]}],
    }

    found = question_set_problems(broken)
    assert "only 1 questions" in found
    assert any("unknown memories" in problem for problem in found)


def test_scope_set_passes_its_self_checks() -> None:
    found = scope_items()

    assert scope_problems(found) == []
    assert scope_problems([*found, found[0]]) != []  # a repeated id
    probe = scope_items(SCOPE_PROBE)
    assert {item["expect"] for item in probe} <= {"household", "personal"}
    assert len({item["id"] for item in probe}) == len(probe)


def test_scope_judging_rule_reads_as_its_header_says() -> None:
    def item(expect: str) -> ScopeItem:
        return {"id": "x", "lang": "en", "say": "…", "expect": expect}  # type: ignore[typeddict-item]

    own = "0123456789abcdef0123456789abcdef"
    assert judge_scope(item("household"), ["household"]) == "right"
    assert judge_scope(item("household"), ["household", own]) == "wrong"
    assert judge_scope(item("personal"), [own]) == "right"
    assert judge_scope(item("personal"), []) == "not learnt"
    assert judge_scope(item("withheld"), []) == "right"
    assert judge_scope(item("withheld"), [own]) == "wrong"
