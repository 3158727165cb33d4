"""Grounding: an LLM's facts kept only when the users' words support them."""

from __future__ import annotations

from datetime import datetime
import json
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from custom_components.assist_memory.engine.conversation.grounded_facts import (
    grounded_facts,
)
from custom_components.assist_memory.engine.conversation.turns import LearnResult
from custom_components.assist_memory.engine.http.turn_wire import (
    fact_from_json,
    learn_result_from_json,
    learn_result_json,
)
from custom_components.assist_memory.engine.language.facts import Fact
from custom_components.assist_memory.engine.language.grounding import UserWords
from custom_components.assist_memory.engine.storage.models import Memory

NOW = datetime(2026, 12, 3, 9, 0, tzinfo=ZoneInfo("Europe/London"))
PAIRS = Path(__file__).parents[1] / "data" / "grounding" / "pairs.json"


def _llm(content: str, **changes: object) -> Fact:
    return Fact(content, from_llm=True, **changes)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("said", "fact", "supported"),
    [
        (
            "My son Leo plays football on Saturdays.",
            "The user's son Leo plays football on Saturdays",
            True,
        ),
        ("I'm allergic to peanuts.", "The user has a peanut allergy", True),
        (
            "The plumber is coming tomorrow.",
            "The plumber is coming on Friday 4 December",
            True,
        ),
        ("我对花生过敏。", "用户对花生过敏", True),
        (
            "By the way, our wifi password is hunter2.",
            "The wifi switch is in the kitchen",
            False,
        ),
        (
            "We got a new dishwasher last week.",
            "The dishwasher is in the kitchen",
            False,
        ),
        ("Where is the spare key?", "The spare key is under the blue flowerpot", False),
        ("Hi there!", "The user prefers oat milk", False),
        ("Hello", "The user", False),
    ],
)
def test_a_fact_is_supported_by_the_users_words_only(
    said: str, fact: str, supported: bool
) -> None:
    assert UserWords([said], NOW).supports(fact) is supported


def test_the_development_split_keeps_nothing_nobody_said() -> None:
    """The thresholds were chosen so; a change of them or of the terms shows here."""
    conversations = json.loads(PAIRS.read_text(encoding="utf-8"))["conversations"]
    kept = {"supported": 0, "other": 0}
    for conversation in conversations:
        if conversation["split"] != "dev":
            continue
        words = UserWords(conversation["user"], NOW)
        for fact in conversation["facts"]:
            label = "supported" if fact["label"] == "supported" else "other"
            kept[label] += words.supports(fact["fact"])
    assert kept == {"supported": 20, "other": 0}


def test_the_model_s_nearness_supports_a_rewording() -> None:
    said = ["I can't stand coriander."]
    fact = "The user dislikes coriander"

    assert not UserWords(said, NOW).supports(fact)
    assert UserWords(said, NOW, nearness=lambda _, __: 0.95).supports(fact)
    assert not UserWords(said, NOW, nearness=lambda _, __: 0.5).supports(fact)
    assert not UserWords(said, NOW, nearness=lambda _, __: None).supports(fact)


def test_grounded_facts_drop_and_count_what_nobody_said_and_what_was_said_back() -> (
    None
):
    given = [Memory("m1", "The spare key is under the blue flowerpot")]
    facts = [
        _llm("The spare key is under the blue flowerpot"),
        _llm("The user asked where the spare key is kept in the garden shed"),
        _llm("The user's son Leo plays football"),
        Fact("Something the rules found"),
        _llm(
            "The spare key is under the blue flowerpot until Sunday", until=NOW.date()
        ),
    ]
    said = ["Where is the spare key? My son Leo plays football."]

    grounded = grounded_facts(facts, said, given, NOW)

    assert [f.content for f in grounded.kept] == [
        "The user's son Leo plays football",
        "Something the rules found",
    ]
    assert (grounded.not_said, grounded.said_back) == (2, 1)


def test_the_wire_carries_the_llm_mark_and_the_counts() -> None:
    fact = fact_from_json({"content": "The user likes tea", "from_llm": True})
    assert fact.from_llm
    assert fact.to_dict()["from_llm"] is True
    assert "from_llm" not in Fact("x").to_dict()
    result = LearnResult(added=1, not_said=2, said_back=3)
    assert learn_result_from_json(learn_result_json(result)) == result
