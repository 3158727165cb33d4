"""Retrieval quality may not fall: the labelled set's Recall@5 with our search.

The floor is the figure measured when this guard was written, 0.7046 (the answers of
182.5 of 259 queries in the top 5; no embeddings), rounded down to three decimals: one
query that loses half its answers from the top 5 brings it below. Raise it when search
gets better. `script/bench` prints the same figure with Recall@10, MRR and baselines by
query kind and language.
"""

from __future__ import annotations

from script.make_retrieval_set import build, check, render
from script.retrieval_quality import (
    RETRIEVAL_SET,
    engine_search,
    labelled_engine,
    labelled_set,
    means,
    score,
)

RECALL_AT_5_FLOOR = 0.704


def test_recall_at_5_does_not_fall() -> None:
    data = labelled_set()
    with labelled_engine(data["memories"]) as engine:
        search = engine_search(engine)
        scores = [score(search(q["query"]), q["relevant"]) for q in data["queries"]]

    recall_at_5, _, _ = means(scores)

    assert recall_at_5 >= RECALL_AT_5_FLOOR, f"Recall@5 fell to {recall_at_5:.4f}"


def test_the_set_is_the_one_its_data_files_make() -> None:
    """The measured file is what script/retrieval_set/ describes, self-checks passed."""
    data = build()

    assert check(data) == []
    assert RETRIEVAL_SET.read_text(encoding="utf-8") == render(data)
