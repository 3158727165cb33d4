"""Retrieval quality: Recall@5, Recall@10 and reciprocal rank, and the labelled set.

The labelled set is tests/data/retrieval_set.json (written by
script/make_retrieval_set.py): a household's memories and queries labelled with the
memories that answer them. `labelled_engine()` loads its memories into our engine
(keywords only, or with an embedding model: `embedded=True`, the local model, every
memory embedded before it is handed over) as `script/bench` and the quality guard
tests measure it; `score()`
and `means()` serve every retrieval section of the bench. `heldout_set()` is the
held-out queries (tests/data/retrieval_heldout.json, written by hand after search by
meaning was built, never tuned against) over the same memories.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
import json
from pathlib import Path
import statistics
import tempfile
from typing import Any

import numpy as np

from assist_memory_engine.memory.memory_engine import MemoryEngine
from assist_memory_engine.model.local_model import LocalEmbedder, LocalModel
from assist_memory_engine.storage.settings import StoreSettings

ROOT = Path(__file__).resolve().parent.parent
RETRIEVAL_SET = ROOT / "tests" / "data" / "retrieval_set.json"
HELDOUT_SET = ROOT / "tests" / "data" / "retrieval_heldout.json"
# How many results every system returns: Recall@10 needs ten.
DEPTH = 10

type Search = Callable[[str], list[str]]


@dataclass(frozen=True, slots=True)
class Score:
    """How well one ranking found one query's answers."""

    recall_at_5: float
    recall_at_10: float
    reciprocal_rank: float


def score(ranked: Sequence[str], relevant: Iterable[str]) -> Score:
    """The share of the answers in the top 5 and top 10, and 1 / rank of the first."""
    answers = set(relevant)
    rank = next((n for n, found in enumerate(ranked, 1) if found in answers), None)
    return Score(
        len(answers & set(ranked[:5])) / len(answers),
        len(answers & set(ranked[:10])) / len(answers),
        1 / rank if rank else 0.0,
    )


def means(scores: Sequence[Score]) -> tuple[float, float, float]:
    """Recall@5, Recall@10 and MRR over many queries."""
    return (
        statistics.fmean(s.recall_at_5 for s in scores),
        statistics.fmean(s.recall_at_10 for s in scores),
        statistics.fmean(s.reciprocal_rank for s in scores),
    )


type GroupScores = dict[tuple[str, str], list[Score]]


def scores_by_group(
    systems: Mapping[str, Search], queries: Sequence[dict[str, Any]]
) -> GroupScores:
    """Each system's score of each query, under (system, group): all, kind, language."""
    scores: GroupScores = defaultdict(list)
    for query in queries:
        for name, search in systems.items():
            entry = score(search(query["query"]), query["relevant"])
            for group in ("all", f"kind: {query['kind']}", f"lang: {query['lang']}"):
                scores[(name, group)].append(entry)
    return scores


def group_rows(scores: GroupScores, systems: Sequence[str]) -> list[list[object]]:
    """Table rows: group, queries, then R@5, R@10 and MRR of each system ("all" first)."""
    rows: list[list[object]] = []
    for group in sorted({g for _, g in scores}, key=lambda g: (g != "all", g)):
        row: list[object] = [group, len(scores[(systems[0], group)])]
        for name in systems:
            row += [f"{value:.3f}" for value in means(scores[(name, group)])]
        rows.append(row)
    return rows


def labelled_set() -> dict[str, Any]:
    """The labelled set: description, memories and queries."""
    data: dict[str, Any] = json.loads(RETRIEVAL_SET.read_text(encoding="utf-8"))
    return data


def heldout_set() -> dict[str, Any]:
    """The held-out queries with the labelled set's memories they are about."""
    data: dict[str, Any] = json.loads(HELDOUT_SET.read_text(encoding="utf-8"))
    if data["memories_from"] != RETRIEVAL_SET.name:
        raise ValueError(f"held-out memories from {data['memories_from']!r}")
    return {**data, "memories": labelled_set()["memories"]}


def engine_search(engine: MemoryEngine) -> Search:
    """Our search: the ids of the best `DEPTH` memories for a text."""

    def search(text: str) -> list[str]:
        return [result.memory.id for result in engine.search(text, limit=DEPTH)]

    return search


# What a labelled memory brings to the store; the store fills in the rest.
IMPORTED = ("id", "content", "scope", "category", "tags", "created_at")


def import_memories(engine: MemoryEngine, memories: Sequence[dict[str, Any]]) -> None:
    """Put labelled memories in the store with their ids (and times, when given)."""
    engine.store.import_(
        [{key: m[key] for key in IMPORTED if key in m} for m in memories]
    )


def cosine_search(engine: MemoryEngine) -> Search:
    """The model alone: the `DEPTH` memories of highest cosine.

    With the vectors the engine made (read from its index file).
    """
    if engine.vectors is None:
        raise ValueError("the engine has no embeddings")
    with engine.index.locked() as db:
        rows = db.execute(
            "SELECT v.id, c.vector FROM memory_vectors v JOIN embedding_cache c"
            " ON c.hash = v.hash"
        ).fetchall()
    ids = [memory_id for memory_id, _ in rows]
    matrix = np.array([np.frombuffer(blob, np.float32) for _, blob in rows])
    model = LocalEmbedder()

    def search(text: str) -> list[str]:
        cosines = matrix @ np.asarray(model.embed_query(text), np.float32)
        return [ids[i] for i in np.argsort(-cosines)[:DEPTH]]

    return search


def wait_for_vectors(engine: MemoryEngine) -> None:
    """Block until every memory has its vector (no-op without embeddings)."""
    if engine.vectors is not None and not engine.vectors.wait_until_idle(3600):
        raise RuntimeError("the memories were not embedded within an hour")


def vector_search(engine: MemoryEngine) -> Search:
    """Our vector search alone: the `DEPTH` memories of highest standing.

    (Their similarity read against their own writing system's memories.)
    """
    vectors = engine.vectors
    if vectors is None:
        raise ValueError("the engine has no embeddings")

    def search(text: str) -> list[str]:
        return list(vectors.scores(text, DEPTH))  # best first

    return search


@contextmanager
def labelled_engine(
    memories: Sequence[dict[str, Any]], *, embedded: bool = False
) -> Iterator[MemoryEngine]:
    """Our engine over labelled memories, in a temporary folder."""
    with tempfile.TemporaryDirectory() as folder:
        engine = MemoryEngine(
            Path(folder) / "memories.json",
            StoreSettings(max_items=0),
            embeddings=LocalModel() if embedded else None,
        )
        engine.init()
        try:
            import_memories(engine, memories)
            wait_for_vectors(engine)
            yield engine
        finally:
            engine.close()
