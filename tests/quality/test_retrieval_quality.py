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
    cosine_search,
    engine_search,
    labelled_engine,
    labelled_set,
    means,
    score,
    vector_search,
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


def test_search_by_meaning_beats_words_and_the_model_alone() -> None:
    """With the local model (real weights): the floors, and by query kind the hybrid
    at least as good as keywords only and near the best of the model's plain cosine
    and our vector search alone (similarities read per writing system).
    """
    data = labelled_set()
    kinds = sorted({q["kind"] for q in data["queries"]})
    with (
        labelled_engine(data["memories"]) as plain,
        labelled_engine(data["memories"], embedded=True) as embedded,
    ):
        systems = {
            "keywords": engine_search(plain),
            "cosine": cosine_search(embedded),
            "vectors": vector_search(embedded),
            "hybrid": engine_search(embedded),
        }
        recall = {
            (name, kind): means(
                [
                    score(search(q["query"]), q["relevant"])
                    for q in data["queries"]
                    if kind in ("all", q["kind"])
                ]
            )[0]
            for name, search in systems.items()
            for kind in ["all", *kinds]
        }

    assert recall[("hybrid", "all")] >= 0.90
    assert recall[("hybrid", "cross")] >= 0.90
    # 0.755 before the model's averages were taken off (model/centres.py), which
    # won across languages (0.667 -> 1.0 here, and on the sets written apart) and
    # cost two or three of the 53 questions that share no word (docs/benchmarks.md).
    assert recall[("hybrid", "no_overlap")] >= 0.69
    for kind in ["all", *kinds]:
        assert recall[("hybrid", kind)] >= recall[("keywords", kind)], (kind, recall)
        # Within two of the 53 questions of the kind that lost most to the model.
        best = max(recall[(rival, kind)] for rival in ("cosine", "vectors"))
        assert recall[("hybrid", kind)] >= best - 0.04, (kind, recall)
