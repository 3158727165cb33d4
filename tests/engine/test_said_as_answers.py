"""Which results search is sure enough of to say as answers (`said_as_answers`)."""

from __future__ import annotations

import numpy as np

from custom_components.assist_memory.engine.model.heads import Head
from custom_components.assist_memory.engine.search.retrieval import said_as_answers
from custom_components.assist_memory.engine.search.scoring import (
    ScoredMemory,
    ScoreParts,
)
from custom_components.assist_memory.engine.search.second_round import (
    SECOND_ROUND_WEIGHT,
    merged,
)
from custom_components.assist_memory.engine.storage.models import Memory

HEAD = Head(
    name="relevance",
    model="test-model",
    labels=("other", "answers"),
    extra=("words",),
    weights=np.zeros((2, 1)),
    bias=np.zeros(2),
    threshold=0.5,
    thresholds={"answer": 0.6, "second_answer": 0.9},
)


def result(memory_id: str, score: float, confidence: float | None) -> ScoredMemory:
    parts = ScoreParts(keyword=score, category=1, recency=1, frequency=0, confidence=1)
    return ScoredMemory(
        Memory(id=memory_id, content=memory_id), score, parts, (), confidence
    )


def marked(results: list[ScoredMemory]) -> dict[str, bool | None]:
    return {r.memory.id: r.answers for r in said_as_answers(results, HEAD)}


def test_the_most_confident_is_said_even_when_the_fusion_puts_it_second() -> None:
    # The fusion's order is kept; the answer is the one the head is surest of.
    results = [result("near", 0.9, 0.3), result("answer", 0.8, 0.7)]

    assert marked(results) == {"near": False, "answer": True}
    assert [r.memory.id for r in said_as_answers(results, HEAD)] == ["near", "answer"]


def test_a_second_answer_needs_its_own_threshold() -> None:
    results = [
        result("first", 0.9, 0.95),
        result("second", 0.8, 0.92),
        result("third", 0.7, 0.8),
    ]

    assert marked(results) == {"first": True, "second": True, "third": False}


def test_nothing_is_said_below_the_answer_threshold() -> None:
    results = [result("a", 0.9, 0.5), result("b", 0.8, 0.55)]

    assert marked(results) == {"a": False, "b": False}


def test_without_a_head_or_a_confidence_nothing_is_marked() -> None:
    results = [result("a", 0.9, None)]

    assert said_as_answers(results, None) == results
    assert said_as_answers(results, HEAD) == results
    assert said_as_answers([], HEAD) == []


def test_a_memory_found_again_by_the_second_round_keeps_its_confidence() -> None:
    # The second round has no vectors: its copy of a memory has no confidence.
    first = [result("answer", 0.5, 0.8), result("other", 0.4, 0.2)]
    second = [result("answer", 0.9, None), result("new", 0.8, None)]
    ranking = merged(first, second, limit=3)
    assert [r.memory.id for r in ranking] == ["answer", "new", "other"]
    assert ranking[0].score == 0.9 * SECOND_ROUND_WEIGHT
    assert ranking[0].answer_confidence == 0.8
    assert ranking[1].answer_confidence is None
