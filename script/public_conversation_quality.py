"""A public long-conversation benchmark: CRI's persona, searched by keywords, model, hybrid.

No set of ours: the Contextual Resonance Index benchmark (PyPI `cri-benchmark` 0.1.2,
MIT) ships one long conversation inside its wheel: a person ("Marcus") talking with an
assistant for 289 days, 2 862 messages in 665 sessions, with labels that point at the
messages that carry a fact. script/setup downloads that wheel alone (its dependencies
are not needed) into .venv/share and checks its hash; it is read here, never installed
and never copied into this repository.

Every message is one memory, "User: text" or "Assistant: text", created at its own
time; the questions are asked the day after the last message, with our ranking taking
that day as "now". CRI evaluates answers, not retrieval, so its labels that name
messages become the questions, each asked in the benchmark's own words:

- change: a fact that changed (job, city, relationship, diet), asked by its topic
  ("current occupation"); evidence: the change's key messages.
- conflict: two statements that disagree, asked by their topic ("diet"); evidence: the
  messages that hold them.
- signal: a message that carries a fact, asked by that fact ("city change: NYC → Austin");
  evidence: the message whose text contains the example (2 of its 20 examples are
  paraphrased and found in no message: left out).

A question counts as found at k when a memory made from any of its evidence messages is
among the first k; MRR is 1 / the rank of the first one. Nothing is adversarial here, so
every category is kept.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
import hashlib
import json
from pathlib import Path
import sys
from typing import Any, Final
import zipfile

from conversation_quality import ASKED_AT, ranked_by_us
from retrieval_quality import GroupScores, Score, labelled_engine, score, vector_search

WHEEL: Final = "cri_benchmark-0.1.2-py3-none-any.whl"
WHEEL_SHA256: Final = "0fbbe852a4bfe0032649bc7142a41bb54ae451e827174b9d142be45db87d88c2"
PERSONA: Final = "cri/datasets/persona-1-base"


def wheel_path() -> Path:
    """Where script/setup puts the wheel: beside the virtualenv's own files."""
    return Path(sys.prefix) / "share" / "assist-memory" / WHEEL


def missing() -> str | None:
    """Why the set cannot be measured here, or None when it can."""
    path = wheel_path()
    if not path.is_file():
        return f"{path} is missing (script/setup downloads it from PyPI)"
    if hashlib.sha256(path.read_bytes()).hexdigest() != WHEEL_SHA256:
        return f"{path} does not have the pinned sha256"
    return None


def load() -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The persona's messages and its ground truth, read from the wheel."""
    with zipfile.ZipFile(wheel_path()) as wheel:
        lines = wheel.read(f"{PERSONA}/conversations.jsonl").decode("utf-8")
        truth: dict[str, Any] = json.loads(wheel.read(f"{PERSONA}/ground_truth.json"))
    return [json.loads(line) for line in lines.splitlines() if line.strip()], truth


def memories(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One memory per message, "User: text", created at the message's time."""
    return [
        {
            "id": f"m{m['message_id']}",
            "content": f"{m['role'].capitalize()}: {m['content']}",
            "created_at": datetime.fromisoformat(m["timestamp"])
            .replace(tzinfo=UTC)
            .isoformat(),
        }
        for m in messages
    ]


def questions(
    messages: Sequence[dict[str, Any]], truth: dict[str, Any]
) -> list[dict[str, Any]]:
    """The ground truth's labels that name messages, as questions with evidence ids."""
    asked = [
        {
            "question": change["query_topic"],
            "category": "change",
            "evidence": [f"m{n}" for n in change["key_messages"]],
        }
        for change in truth["changes"]
    ]
    asked += [
        {
            "question": conflict["topic"],
            "category": "conflict",
            "evidence": [f"m{n}" for n in conflict["introduced_at_messages"]],
        }
        for conflict in truth["conflicts"]
    ]
    for example in truth["signal_examples"]:
        said = [
            f"m{m['message_id']}"
            for m in messages
            if example["text"].strip() in m["content"]
        ]
        if said:
            asked.append(
                {
                    "question": example["target_fact"],
                    "category": "signal",
                    "evidence": said,
                }
            )
    return asked


def found(ranked: Sequence[str], evidence: Sequence[str]) -> Score:
    """1 at k when any evidence message is in the first k; 1 / rank of the first."""
    share = score(ranked, evidence)
    return Score(
        float(share.recall_at_5 > 0),
        float(share.recall_at_10 > 0),
        share.reciprocal_rank,
    )


def measure() -> tuple[GroupScores, int, int]:
    """Scores of keywords, vectors and hybrid by group; how many questions and turns."""
    messages, truth = load()
    turns = memories(messages)
    asked = questions(messages, truth)
    last = max(datetime.fromisoformat(m["created_at"]) for m in turns)
    now = datetime.combine(last.date() + timedelta(days=1), ASKED_AT)
    scores: GroupScores = defaultdict(list)
    with (
        labelled_engine(turns) as keywords,
        labelled_engine(turns, embedded=True) as hybrid,
    ):
        by_vectors = vector_search(hybrid)
        for question in asked:
            text = question["question"]
            rankings = {
                "keywords": ranked_by_us(keywords, text, now),
                "vectors": by_vectors(text),
                "hybrid": ranked_by_us(hybrid, text, now),
            }
            for system, ranked in rankings.items():
                entry = found(ranked, question["evidence"])
                for group in ("all", f"category: {question['category']}"):
                    scores[(system, group)].append(entry)
    return scores, len(asked), len(turns)
