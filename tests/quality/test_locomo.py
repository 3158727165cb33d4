"""LoCoMo as script/bench reads it: turns become memories, questions are kept or left out.

LoCoMo itself is not in this repository (non-commercial licence): these tests write a
two-turn conversation in its format; the figures need the data and stay in the bench.
"""

from __future__ import annotations

from datetime import UTC, datetime
import importlib
import json
from pathlib import Path
import sys
from typing import Any

# The bench's modules import each other by their plain names, as script/bench runs them.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "script"))
locomo = importlib.import_module("locomo_quality")

SESSIONS: dict[str, Any] = {
    "speaker_a": "Ana",
    "speaker_b": "Ben",
    "session_1_date_time": "4:05 pm on 3 March, 2021",
    "session_1": [
        {"speaker": "Ana", "dia_id": "D1:1", "text": "I went to a pottery class."},
        {
            "speaker": "Ben",
            "dia_id": "D1:2",
            "text": "Nice! Look who we adopted.",
            "img_url": ["https://example.com/cat.jpg"],
            "blip_caption": "a photo of a cat on a sofa",
        },
    ],
    "session_2_date_time": "9:00 am on 1 April, 2021",  # a date without turns
}
QUESTIONS: list[dict[str, Any]] = [
    {"question": "When did Ana go to pottery?", "evidence": ["D1:1"], "category": 2},
    {"question": "What do they do?", "evidence": ["D1:2; D1:1"], "category": 1},
    {"question": "What did Ben adopt?", "evidence": ["D1:02"], "category": 4},
    {"question": "What did Ana adopt?", "evidence": ["D1:2"], "category": 5},
    {"question": "Where does Ben work?", "evidence": ["D7:1", "D"], "category": 3},
]


def test_a_conversation_file_becomes_memories_and_questions(tmp_path: Path) -> None:
    (tmp_path / "26.json").write_text(
        json.dumps({**SESSIONS, "qa": QUESTIONS}), encoding="utf-8"
    )

    (talk,) = locomo.load(tmp_path)

    assert talk.name == "26"
    assert talk.memories == [
        {
            "id": "D1-1",
            "content": "Ana: I went to a pottery class.",
            "created_at": "2021-03-03T16:05:00+00:00",
        },
        {
            "id": "D1-2",
            "content": "Ben: Nice! Look who we adopted.",
            "created_at": "2021-03-03T16:06:00+00:00",
        },
    ]
    assert [(q["category"], q["evidence"]) for q in talk.questions] == [
        (2, ["D1-1"]),
        (1, ["D1-2", "D1-1"]),
        (4, ["D1-2"]),
    ]
    assert talk.left_out == {
        "adversarial (5)": 1,
        "no evidence turn in the conversation": 1,
    }
    assert talk.asked_at == datetime(2021, 3, 4, 12, tzinfo=UTC)
    assert locomo.group(4) == "single-hop (4)"


def test_the_ten_as_one_list_are_read_alike(tmp_path: Path) -> None:
    data = [{"sample_id": "conv-26", "conversation": SESSIONS, "qa": QUESTIONS}]
    (tmp_path / "locomo10.json").write_text(json.dumps(data), encoding="utf-8")

    (talk,) = locomo.load(tmp_path / "locomo10.json")

    assert talk.name == "conv-26"
    assert [m["id"] for m in talk.memories] == ["D1-1", "D1-2"]
    assert len(talk.questions) == 3


def test_without_the_data_the_bench_says_where_to_get_it(tmp_path: Path) -> None:
    assert locomo.SOURCE in (locomo.missing(None) or "")
    assert "no LoCoMo conversation" in (locomo.missing(tmp_path) or "")
    assert locomo.missing(tmp_path / "absent") is not None
