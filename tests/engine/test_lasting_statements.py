"""Statements that hold for a while are kept by the rules, commands and small talk not."""

from __future__ import annotations

from freezegun.api import FrozenDateTimeFactory
import pytest

from custom_components.assist_memory.engine.language.rule_extraction import (
    RuleBasedExtractor,
)


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        (
            "We have guests staying until Sunday",
            "The household has guests staying until Sunday",
        ),
        (
            "I am away on business until Friday",
            "The user is away on business until Friday",
        ),
        (
            "My sister is staying with us for three days",
            "The user's sister is staying with us for three days",
        ),
        ("这周我在减肥", "这周用户在减肥"),
        ("客人住到周日", "客人住到周日"),
        ("這幾天我在休假", "這幾天用戶在休假"),
    ],
)
def test_a_statement_with_an_end_is_kept_as_an_event(said: str, kept: str) -> None:
    (fact,) = RuleBasedExtractor().extract(said)

    assert (fact.content, fact.category) == (kept, "event")


@pytest.mark.parametrize(
    "said",
    [
        "Set the heating to 20 until Sunday",
        "帮我把空调开到周日",
        "We have guests staying until Sunday?",
        "I'm so tired today",
        "我老板说他出差到周五",
        "I went away for a week",
        "我们去过日本",
    ],
)
def test_commands_questions_small_talk_and_reports_are_not(said: str) -> None:
    assert RuleBasedExtractor().extract(said) == []


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("这周我在减肥", "这周用户在减肥"),
        ("I am on a diet this week", "The user is on a diet this week"),
    ],
)
def test_this_week_said_on_its_last_day_still_lasts(
    said: str, kept: str, freezer: FrozenDateTimeFactory
) -> None:
    """On a Sunday "this week" ends tonight: still a statement that lasts."""
    freezer.move_to("2026-11-29T10:00:00+00:00")  # a Sunday, in any time zone

    (fact,) = RuleBasedExtractor().extract(said)

    assert (fact.content, fact.category) == (kept, "event")
