"""Rebuild the trained heads' weights from the labelled corpora, deterministically.

    script/train_heads.py relevance    the relevance head (search/relevance.py)

Each head is fitted on its corpus's train split only, its choices (the penalty, a
threshold) made on the development split; the test split is never read here (the
bench reports it). The weights go to
custom_components/assist_memory/engine/model/weights/<head>.json with what they were
trained on; running this again on the same corpus writes the same file
(tests/quality/test_heads_retrain.py checks the decisions).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
import json
from pathlib import Path
import sys
from typing import Any

import numpy as np

from assist_memory_engine.model.heads import WEIGHTS
from assist_memory_engine.model.local_model import MODEL_NAME
from assist_memory_engine.search.relevance import FEATURES, RELEVANCE_HEAD, features
from heads_training import fit_logistic, probability, write_head
from household_quality import Household, household_engine, households, scopes_of
from retrieval_quality import labelled_engine, labelled_set

# The penalties tried on the development split.
PENALTIES = (0.1, 1.0, 10.0, 100.0)


def relevance_rows(
    splits: tuple[str, ...], *, with_labelled_set: bool
) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Features, labels and question numbers of every candidate of every question."""
    rows: list[tuple[float, ...]] = []
    labels: list[int] = []
    groups: list[int] = []
    for number, (evidence, answer) in enumerate(
        _questions(splits, with_labelled_set=with_labelled_set)
    ):
        for memory_id, row in features(evidence).items():
            rows.append(row)
            labels.append(int(memory_id in answer))
            groups.append(number)
    return np.asarray(rows, np.float64), np.asarray(labels), groups


def _questions(
    splits: tuple[str, ...], *, with_labelled_set: bool
) -> Iterator[tuple[dict[str, Any], set[str]]]:
    for house in households(*splits):
        yield from _household_questions(house)
    if with_labelled_set:
        data = labelled_set()
        with labelled_engine(data["memories"], embedded=True) as engine:
            for query in data["queries"]:
                yield (
                    engine.retriever.evidence(query["query"]),
                    set(query["relevant"]),
                )


def _household_questions(
    house: Household,
) -> Iterator[tuple[dict[str, Any], set[str]]]:
    with household_engine(house) as engine:
        for question in house.questions:
            evidence = engine.retriever.evidence(
                question["say"], scopes=scopes_of(question)
            )
            yield evidence, set(question["answer"])


def _recall_at_5(scores: np.ndarray, labels: np.ndarray, groups: list[int]) -> float:
    """Mean share of each answerable question's answers among its 5 best candidates."""
    by_question: dict[int, list[tuple[float, int]]] = {}
    for score, label, group in zip(scores, labels, groups, strict=True):
        by_question.setdefault(group, []).append((float(score), int(label)))
    recalls = []
    for found in by_question.values():
        answers = sum(label for _, label in found)
        if answers:
            best = sorted(found, key=lambda item: -item[0])[:5]
            recalls.append(sum(label for _, label in best) / answers)
    return float(np.mean(recalls)) if recalls else 0.0


def train_relevance() -> dict[str, Any]:
    """Fit the relevance head; the penalty chosen on the development household."""
    train_x, train_y, _ = relevance_rows(("train",), with_labelled_set=True)
    dev_x, dev_y, dev_groups = relevance_rows(("development",), with_labelled_set=False)
    chosen: tuple[float, float, np.ndarray, float] | None = None
    report = {}
    for l2 in PENALTIES:
        weights, bias = fit_logistic(train_x, train_y, l2=l2)
        recall = _recall_at_5(probability(dev_x, weights, bias), dev_y, dev_groups)
        report[str(l2)] = round(recall, 4)
        if chosen is None or recall > chosen[0] + 1e-9:
            chosen = (recall, l2, weights, bias)
    assert chosen is not None
    recall, l2, weights, bias = chosen
    write_head(
        WEIGHTS / f"{RELEVANCE_HEAD}.json",
        model=MODEL_NAME,
        labels=("other", "answers"),
        extra=FEATURES,
        weights=[[0.0] * len(FEATURES), weights.tolist()],
        bias=[0.0, bias],
        threshold=0.5,
        trained_on={
            "corpus": "tests/data/corpus/households.json (train) and "
            "tests/data/retrieval_set.json",
            "candidates": len(train_y),
            "penalty": l2,
            "development_recall_at_5_by_penalty": report,
        },
    )
    return {"penalty": l2, "development R@5 (candidates only)": round(recall, 4)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("head", choices=["relevance"])
    args = parser.parse_args(argv)
    WEIGHTS.mkdir(exist_ok=True)
    if args.head == "relevance":
        print(json.dumps(train_relevance(), indent=1))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    sys.exit(main())
