"""Questions about a time ("two weeks ago", "last weekend", 上周): a window, not keywords."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from custom_components.assist_memory.engine.language.when import time_asked
from custom_components.assist_memory.engine.memory.memory_engine import MemoryEngine

NOW = datetime(2025, 6, 11, 12, 0, tzinfo=UTC)  # a Wednesday


@pytest.mark.parametrize(
    ("message", "rest", "inside", "outside"),
    [
        ("What did Tom say two weeks ago?", "What did Tom say  ?", 14, 3),
        ("what happened 3 days ago", "what happened", 3, 10),
        ("How was the party last weekend", "How was the party", 10, 2),
        ("What did I cook yesterday?", "What did I cook  ?", 1, 5),
        ("Where did we eat last month", "Where did we eat", 40, 3),
        ("上周小明去哪儿了", "小明去哪儿了", 9, 1),
        ("三天前谁来过", "谁来过", 3, 9),
        ("我们去年去了哪里", "我们 去了哪里", 365, 30),
    ],
)
def test_the_time_a_question_asks_about(
    message: str, rest: str, inside: int, outside: int
) -> None:
    asked = time_asked(message, NOW)
    assert asked is not None
    assert asked.rest == rest
    assert asked.holds(NOW - timedelta(days=inside))
    assert not asked.holds(NOW - timedelta(days=outside))


@pytest.mark.parametrize(
    "message", ["What does Tom like?", "this weekend", "今天吃什么"]
)
def test_no_time_asked(message: str) -> None:
    assert time_asked(message, NOW) is None


def test_a_question_about_last_weekend_finds_what_was_said_then(
    store_path: Path,
) -> None:
    engine = MemoryEngine(store_path)
    engine.init()
    then = (NOW - timedelta(days=10)).isoformat()
    lately = (NOW - timedelta(days=1)).isoformat()
    engine.store.import_(
        [
            {"id": "knee", "content": "Derek: my knee hurts after bowls",
             "created_at": then, "updated_at": then},
            {"id": "plans", "content": "Derek: what are we doing this weekend?",
             "created_at": lately, "updated_at": lately},
        ]
    )  # fmt: skip
    engine.flush_index()
    # The engine's own search, asked on a given day.
    retriever = engine.retriever.at(NOW)

    results = retriever.retrieve("What was wrong with Derek's knee last weekend?")

    assert results[0].memory.id == "knee"
    assert results[0].parts.recency == 1.0  # said in the window asked about
    assert "weekend" not in results[0].matched
    engine.close()
