"""The households written apart, and their questions: search and answers measured on them.

tests/data/corpus/households.json holds five invented households, each written by one
writer, and 850 questions about them by ten others (README of the file: its
`description`). Split by household before any code was written: h1 and h2 train, h3
development, h4 and h5 test. `script/bench` reports the test split only; choices and
thresholds are made on the development split (`script/train_heads.py`).

A household's memories go into an engine of their own, the private ones under their
owner's scope; a question searches the household's memories and its asker's own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
import json
from pathlib import Path
from typing import Any

import numpy as np
from retrieval_quality import DEPTH, labelled_engine
from scale import FairFts5

from assist_memory_engine.memory.memory_engine import MemoryEngine
from assist_memory_engine.model.local_model import LocalEmbedder
from assist_memory_engine.storage.models import HOUSEHOLD_SCOPE

ROOT = Path(__file__).resolve().parent.parent
HOUSEHOLDS = ROOT / "tests" / "data" / "corpus" / "households.json"
# How a question relates to the memory that answers it (as its writer labelled it).
WORDINGS = ("shared_words", "other_words", "no_shared_word", "other_language")
UNANSWERABLE = "none"

type Search = Callable[[str, Sequence[str]], list[str]]


def corpus() -> dict[str, Any]:
    """The whole corpus: writers, households, questions."""
    data: dict[str, Any] = json.loads(HOUSEHOLDS.read_text(encoding="utf-8"))
    return data


@dataclass(frozen=True, slots=True)
class Household:
    """One household's memories and the questions asked about them."""

    id: str
    memories: list[dict[str, Any]]
    questions: list[dict[str, Any]]


def households(*splits: str) -> list[Household]:
    """The households of the given splits, with their questions."""
    data = corpus()
    return [
        Household(
            house["id"],
            house["memories"],
            [q for q in data["questions"] if q["household"] == house["id"]],
        )
        for house in data["households"]
        if house["split"] in splits
    ]


def scope_of(owner: str | None) -> str:
    """The scope a memory is kept under: the household's, or its owner's."""
    return HOUSEHOLD_SCOPE if owner is None else f"person-{owner}"


def scopes_of(question: dict[str, Any]) -> list[str]:
    """What a question reads: the household's memories and its asker's own."""
    return [HOUSEHOLD_SCOPE, scope_of(question["asker"])]


def household_engine(
    house: Household, *, embedded: bool = True
) -> AbstractContextManager[MemoryEngine]:
    """Our engine over one household's memories (each embedded before it is handed over)."""
    return labelled_engine(
        [
            {"id": m["id"], "content": m["content"], "scope": scope_of(m["owner"])}
            for m in house.memories
        ],
        embedded=embedded,
    )


def ours(engine: MemoryEngine) -> Search:
    """Our search: the best `DEPTH` memories of the scopes a question reads."""

    def search(text: str, scopes: Sequence[str]) -> list[str]:
        return [r.memory.id for r in engine.search(text, limit=DEPTH, scopes=scopes)]

    return search


def words_alone(house: Household) -> Search:
    """BM25 over the raw texts (FTS5, Chinese character by character)."""
    fts = FairFts5([(m["id"], m["content"]) for m in house.memories])
    scope = {m["id"]: scope_of(m["owner"]) for m in house.memories}

    def search(text: str, scopes: Sequence[str]) -> list[str]:
        found = fts.search(text, len(scope))
        return [i for i in found if scope[i] in scopes][:DEPTH]

    return search


def model_alone(house: Household) -> Search:
    """The model's plain cosine between the question and each memory."""
    model = LocalEmbedder()
    ids = [m["id"] for m in house.memories]
    scope = [scope_of(m["owner"]) for m in house.memories]
    matrix = np.asarray(model.embed([m["content"] for m in house.memories]), np.float32)

    def search(text: str, scopes: Sequence[str]) -> list[str]:
        cosines = matrix @ np.asarray(model.embed_query(text), np.float32)
        ranked = [i for i in np.argsort(-cosines) if scope[i] in scopes]
        return [ids[i] for i in ranked[:DEPTH]]

    return search


def recall_at(ranked: Sequence[str], answer: Sequence[str], depth: int) -> float:
    """The share of the answering memories among the first `depth`."""
    return len(set(answer) & set(ranked[:depth])) / len(answer)
