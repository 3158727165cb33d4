"""The extraction throttle: the 60 s / 4 message extraction throttle and the 75 % pre-compaction flush."""

from __future__ import annotations

from datetime import timedelta
import math
from typing import Any

import pytest

from custom_components.assist_memory.engine.conversation.throttle import (
    ExtractionThrottle,
    FlushTracker,
    estimate_tokens,
)


class FakeClock:
    """Monotonic seconds that move only when the test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def throttle(clock: FakeClock) -> ExtractionThrottle:
    return ExtractionThrottle(clock=clock)


def test_defaults_are_60_s_and_4_messages() -> None:
    throttle = ExtractionThrottle()

    assert throttle.min_interval == timedelta(seconds=60)
    assert throttle.min_messages == 4
    assert FlushTracker().threshold == 0.75


def test_first_extraction_needs_four_messages_but_no_wait(
    throttle: ExtractionThrottle,
) -> None:
    assert not throttle.should_extract("s1")
    for _ in range(3):
        throttle.note_message("s1")
        assert not throttle.should_extract("s1")

    throttle.note_message("s1")

    assert throttle.should_extract("s1")


def test_after_an_extraction_both_time_and_messages_are_needed(
    throttle: ExtractionThrottle, clock: FakeClock
) -> None:
    throttle.note_message("s1", 4)
    throttle.mark_extracted("s1")
    assert not throttle.should_extract("s1"), "no new message since"

    throttle.note_message("s1", 4)
    clock.advance(59.9)
    assert not throttle.should_extract("s1"), "4 messages but only 59.9 s"

    clock.advance(0.1)
    assert throttle.should_extract("s1"), "4 messages and 60 s"

    throttle.mark_extracted("s1")
    clock.advance(600)
    throttle.note_message("s1", 3)
    assert not throttle.should_extract("s1"), "10 minutes but only 3 messages"
    throttle.note_message("s1")
    assert throttle.should_extract("s1")


def test_sessions_are_independent(
    throttle: ExtractionThrottle, clock: FakeClock
) -> None:
    throttle.note_message("kitchen", 4)
    throttle.mark_extracted("kitchen")
    throttle.note_message("kitchen", 4)
    throttle.note_message("bedroom", 4)

    assert throttle.should_extract("bedroom")
    assert not throttle.should_extract("kitchen")

    throttle.forget("kitchen")
    assert not throttle.should_extract("kitchen"), "its messages are forgotten"
    throttle.note_message("kitchen", 4)
    assert throttle.should_extract("kitchen"), "a forgotten session starts afresh"
    throttle.forget("never-seen")


def test_custom_settings(clock: FakeClock) -> None:
    throttle = ExtractionThrottle(timedelta(seconds=5), 1, clock=clock)
    throttle.note_message("s")
    assert throttle.should_extract("s")
    throttle.mark_extracted("s")
    throttle.note_message("s")
    clock.advance(5)
    assert throttle.should_extract("s")


def test_the_default_clock_is_monotonic_time() -> None:
    throttle = ExtractionThrottle(min_interval=timedelta(0), min_messages=1)
    throttle.note_message("s")
    throttle.mark_extracted("s")
    throttle.note_message("s")

    assert throttle.should_extract("s")


@pytest.mark.parametrize(
    "kwargs",
    [{"min_interval": timedelta(seconds=-1)}, {"min_messages": 0}],
)
def test_bad_throttle_settings(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="min_"):
        ExtractionThrottle(**kwargs)


def test_negative_message_count(throttle: ExtractionThrottle) -> None:
    with pytest.raises(ValueError, match="count"):
        throttle.note_message("s", -1)


# -- pre-compaction flush ---------------------------------------------------------


def test_flush_once_per_cycle_at_75_percent() -> None:
    tracker = FlushTracker()

    assert not tracker.should_flush("s", 7499, 10000)
    assert tracker.should_flush("s", 7500, 10000)
    assert not tracker.should_flush("s", 8000, 10000), "only once per cycle"
    assert not tracker.should_flush("s", 9999, 10000)

    tracker.forget("s")

    assert not tracker.should_flush("s", 1000, 10000)
    assert tracker.should_flush("s", 9000, 10000), "a new cycle flushes again"


def test_flush_sessions_are_independent() -> None:
    tracker = FlushTracker()

    assert tracker.should_flush("a", 80, 100)
    assert tracker.should_flush("b", 80, 100)
    assert not tracker.should_flush("a", 90, 100)

    tracker.forget("a")
    assert tracker.should_flush("a", 90, 100)


def test_unknown_context_size_never_flushes() -> None:
    tracker = FlushTracker()

    assert not tracker.should_flush("s", 500, 0)
    assert not tracker.should_flush("s", 500, -1)
    assert tracker.should_flush("s", 80, 100), "the cycle is still open"


def test_custom_threshold() -> None:
    tracker = FlushTracker(threshold=0.5)

    assert not tracker.should_flush("s", 49, 100)
    assert tracker.should_flush("s", 50, 100)
    assert FlushTracker(threshold=1.0).should_flush("t", 100, 100)


@pytest.mark.parametrize("threshold", [0.0, -0.5, 1.01, math.nan, math.inf])
def test_bad_threshold(threshold: float) -> None:
    with pytest.raises(ValueError, match="threshold"):
        FlushTracker(threshold=threshold)


# -- token estimate ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("", 0),
        ("abcd", 1),
        ("abcde", 2),
        ("Turn on the kitchen light", 7),
        ("你好", 2),
        ("打开客厅的灯。", 7),
        ("hi 你好", 3),
        ("我喜欢 Python", 5),
        ("ｈｉ", 2),
    ],
)
def test_estimate_tokens(text: str, tokens: int) -> None:
    assert estimate_tokens(text) == tokens


def test_estimate_grows_with_text() -> None:
    english = "The user prefers oat milk in their coffee. " * 100
    chinese = "用户喜欢燕麦奶。" * 100

    assert estimate_tokens(english) == math.ceil(len(english) / 4)
    assert estimate_tokens(chinese) == len(chinese)
