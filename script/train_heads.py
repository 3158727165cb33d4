"""Rebuild the trained heads' weights from the labelled corpora, deterministically.

    script/train_heads.py relevance    the relevance head (search/relevance.py)
    script/train_heads.py keep         the keep and kind heads (language/worth_keeping.py)
    script/train_heads.py secret       the secret head (language/worth_keeping.py)
    script/train_heads.py centres      the average vectors (model/centres.py)

Each head is fitted on its corpus's train split only, its choices (the penalty, a
threshold) made on the development split; the test split is never read here (the
bench reports it). The weights go to
custom_components/assist_memory/engine/model/weights/<head>.json with what they were
trained on; running this again on the same corpus writes the same file (the fitting
is deterministic: tests/quality/test_heads_training.py).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
import dataclasses
import itertools
import json
from pathlib import Path
import sys
from typing import Any

from extraction_quality import occurs
from heads_training import CachedVectors, fit_logistic, fit_mlp, probability, write_head
from household_quality import Household, household_engine, households, scopes_of
from learning_quality import items as learning_items, measure as measure_learning
import numpy as np
from retrieval_quality import labelled_engine, labelled_set
from secrets_quality import (
    CORPUS as SECRETS_CORPUS,
    FRESH as SECRETS_FRESH,
    HOME as SECRETS_HOME,
    PROBE as SECRETS_PROBE,
    bare as bare_secret,
    items as secret_items,
)

from assist_memory_engine.language.learned_extraction import (
    LearnedExtractor,
    pieces,
    without_secrets,
)
from assist_memory_engine.language.sentences import split_sentences
from assist_memory_engine.language.worth_keeping import (
    KEEP_EXTRA,
    KEEP_HEAD,
    KIND_HEAD,
    SECRET_HEAD,
    Understanding,
    keep_features,
)
from assist_memory_engine.model.centres import CENTRES, load_centres
from assist_memory_engine.model.heads import WEIGHTS, Head, load_head
from assist_memory_engine.model.local_model import MODEL_NAME, LocalEmbedder
from assist_memory_engine.model.sentence_vectors import SentenceVectors
from assist_memory_engine.search.neighbours import CJK, spoken_system, writing_systems
from assist_memory_engine.search.relevance import FEATURES, RELEVANCE_HEAD, features

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
    if chosen is None:
        raise SystemExit("no penalty tried")
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
    load_head.cache_clear()
    answering, table = choose_answering("development")
    head = json.loads((WEIGHTS / f"{RELEVANCE_HEAD}.json").read_text(encoding="utf-8"))
    write_head(
        WEIGHTS / f"{RELEVANCE_HEAD}.json",
        model=head["model"],
        labels=head["labels"],
        extra=head["extra"],
        weights=head["weights"],
        bias=head["bias"],
        threshold=head["threshold"],
        thresholds=answering,
        trained_on={**head["trained_on"], "development_answering": table},
    )
    return {
        "penalty": l2,
        "development R@5 (candidates only)": round(recall, 4),
        "answering": answering,
    }


# Answering without an LLM: at most this share of the answerable questions may get a
# wrong memory, and of the unanswerable ones any memory (on development).
MOST_WRONG = 0.03
MOST_UNANSWERABLE_GIVEN = 0.05
ANSWER_GRID = tuple(round(0.3 + 0.025 * i, 3) for i in range(27))
SECOND_GRID = (0.6, 0.7, 0.8, 0.9, 0.95)


def choose_answering(split: str) -> tuple[dict[str, float], dict[str, Any]]:
    """The confidences at which a memory, and a second one, are said (chosen on split).

    The most answered questions with at most `MOST_WRONG` of them given a wrong memory
    and `MOST_UNANSWERABLE_GIVEN` of the unanswerable ones given any; the table of the
    trade-off goes into the head's file.
    """
    asked: list[tuple[set[str], list[tuple[str, float]]]] = []
    for house in households(split):
        with household_engine(house) as engine:
            for question in house.questions:
                results = engine.search(
                    question["say"], limit=10, scopes=scopes_of(question)
                )
                ranked = sorted(
                    ((r.memory.id, r.answer_confidence or 0.0) for r in results),
                    key=lambda found: -found[1],
                )
                asked.append((set(question["answer"]), ranked))
    table: dict[str, Any] = {}
    best: tuple[float, dict[str, float]] | None = None
    # From the highest thresholds down: of choices that answer as many, the quieter.
    for first in reversed(ANSWER_GRID):
        for second in reversed(SECOND_GRID):
            right = wrong = given = 0
            answerable = sum(1 for answer, _ in asked if answer)
            for answer, ranked in asked:
                said = [m for m, c in ranked[:1] if c >= first]
                said += [m for m, c in ranked[1:2] if said and c >= second]
                if not answer:
                    given += bool(said)
                elif said and all(m in answer for m in said):
                    right += 1
                elif said:
                    wrong += 1
            unanswerable = len(asked) - answerable
            shares = (
                right / answerable,
                wrong / answerable,
                given / max(unanswerable, 1),
            )
            table[f"{first} {second}"] = [round(x, 3) for x in shares]
            if (
                shares[1] <= MOST_WRONG
                and shares[2] <= MOST_UNANSWERABLE_GIVEN
                and (best is None or shares[0] > best[0])
            ):
                best = (shares[0], {"answer": first, "second_answer": second})
    if best is None:  # nothing within both limits: say nothing rather than wrongly
        return {"answer": 1.0, "second_answer": 1.0}, table
    return best[1], table


KEEP_PENALTIES = (1.0, 10.0, 100.0)
KEEP_HIDDEN = 64
# The thresholds tried on the development split, and the precision they must reach.
GRID = {
    "sentence": (0.5, 0.6, 0.7, 0.8, 0.85, 0.9),
    "piece_dropped": (0.05, 0.1, 0.2, 0.3, 0.4),
    "piece_alone": (0.8, 0.9, 0.95, 0.98),
}
WANTED_PRECISION = 0.95


def keep_examples(found: list[dict[str, Any]]) -> tuple[list[str], list[int]]:
    """Texts and labels for the keep head: each utterance, and its pieces.

    An utterance is worth keeping when it has a label. Without its secret pieces,
    as learning reads it. A piece is worth keeping when it holds a label's required
    words, not when its utterance has none; a piece of a kept utterance that holds no
    label's words says nothing sure (the writer may have left it out) and is left out.
    """
    texts: list[str] = []
    labels: list[int] = []
    for item in found:
        for sentence in split_sentences(item["say"]):
            parts = [piece.text for piece in without_secrets(sentence)]
            if not parts:
                continue
            texts.append(" ".join(parts))
            labels.append(int(bool(item["keep"])))
            if len(parts) == 1:
                continue
            for part in parts:
                holds = any(
                    all(occurs(term, part) for term in label["require"])
                    for label in item["keep"]
                )
                if holds or not item["keep"]:
                    texts.append(part)
                    labels.append(int(holds))
    return texts, labels


def kind_examples(found: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """Kept utterances of one kind, and that kind."""
    texts, kinds = [], []
    for item in found:
        labelled = {label["kind"] for label in item["keep"]}
        if len(labelled) == 1 and not item["secrets"]:
            texts.append(item["say"])
            kinds.append(labelled.pop())
    return texts, kinds


def _judged(
    extractor: LearnedExtractor, found: list[dict[str, Any]]
) -> tuple[float, float]:
    """The lowest recall and the lowest precision over the languages."""
    tallies = measure_learning(
        lambda text, lang: extractor.extract(text, language=lang), found
    )
    return (
        min(t.recall for t in tallies.values()),
        min(t.precision for t in tallies.values()),
    )


def train_keep() -> dict[str, Any]:
    """Fit the keep and kind heads; penalty and thresholds chosen on development."""
    vectors = CachedVectors(SentenceVectors(cached=1), "sentences")
    train = learning_items("train")
    development = learning_items("development")
    texts, labels = keep_examples(train)
    rows = np.asarray(
        [
            keep_features(t, v)
            for t, v in zip(texts, vectors.vectors(texts), strict=True)
        ],
        np.float64,
    )
    kind_texts, kinds = kind_examples(train)
    kind_rows = np.asarray(vectors.vectors(kind_texts), np.float64)
    vectors.save()
    kind_labels = sorted(set(kinds))
    kind_fits = [
        fit_logistic(kind_rows, np.asarray([int(k == label) for k in kinds]), l2=10.0)
        for label in kind_labels
    ]
    kind = Head(
        KIND_HEAD,
        MODEL_NAME,
        tuple(kind_labels),
        (),
        np.asarray([w for w, _ in kind_fits]),
        np.asarray([b for _, b in kind_fits]),
        0.5,
    )
    best: tuple[tuple[float, float], float, dict[str, float], Any] | None = None
    report = {}
    for l2 in KEEP_PENALTIES:
        layer, weights, bias = fit_mlp(
            rows, np.asarray(labels), hidden=KEEP_HIDDEN, l2=l2
        )
        base = Head(
            KEEP_HEAD,
            MODEL_NAME,
            ("drop", "keep"),
            KEEP_EXTRA,
            np.asarray([np.zeros_like(weights), weights]),
            np.asarray([0.0, bias]),
            0.5,
            hidden=layer,
        )
        for values in itertools.product(*GRID.values()):
            thresholds = dict(zip(GRID, values, strict=True))
            head = dataclasses.replace(base, thresholds=thresholds)
            extractor = LearnedExtractor(Understanding(vectors, head, kind))
            recall, precision = _judged(extractor, development)
            report[f"{l2} {values}"] = (round(recall, 3), round(precision, 3))
            # The best recall at the wanted precision; else the best precision.
            score = (1.0, recall) if precision >= WANTED_PRECISION else (0.0, precision)
            if best is None or score > best[0]:
                best = (score, l2, thresholds, (layer, weights, bias))
    vectors.save()
    if best is None:
        raise SystemExit("no setting tried")
    _, l2, thresholds, (layer, weights, bias) = best
    trained_on = {
        "corpus": "tests/data/corpus/extraction.json (train)",
        "examples": len(labels),
        "penalty": l2,
        "hidden": KEEP_HIDDEN,
        "development (lowest recall, lowest precision of the languages)": report[
            f"{l2} {tuple(thresholds.values())}"
        ],
    }
    write_head(
        WEIGHTS / f"{KEEP_HEAD}.json",
        model=MODEL_NAME,
        labels=("drop", "keep"),
        extra=KEEP_EXTRA,
        weights=[[0.0] * len(weights), weights.tolist()],
        bias=[0.0, bias],
        threshold=0.5,
        thresholds=thresholds,
        trained_on=trained_on,
        hidden=layer,
    )
    write_head(
        WEIGHTS / f"{KIND_HEAD}.json",
        model=MODEL_NAME,
        labels=kind_labels,
        extra=(),
        weights=kind.weights.tolist(),
        bias=kind.bias.tolist(),
        threshold=0.5,
        trained_on={
            "corpus": "tests/data/corpus/extraction.json (train)",
            "examples": len(kinds),
        },
    )
    return {**trained_on, "thresholds": thresholds}


# The secret head: the share of pieces without a secret it may take for one, on the
# corpus's development split (everyday speech) and on the probes' (look-alikes said
# beside secrets: plates, phone numbers, flights), and what it is tried with.
SECRET_MOST_FLAGGED = 0.005
SECRET_MOST_FLAGGED_PROBES = 0.04
SECRET_PENALTIES = (1.0, 10.0, 100.0)
SECRET_WEIGHTS = (1.0, 5.0)
# The sets written apart whose development splits choose the secret head.
PROBES = ("probe", "fresh", "home")
SECRET_GRID = tuple(round(0.5 + 0.05 * i, 2) for i in range(10))


def secret_examples(found: list[dict[str, Any]]) -> tuple[list[str], list[int]]:
    """Every piece of every sentence, and whether it holds one of the secrets said."""
    texts: list[str] = []
    labels: list[int] = []
    for item in found:
        said = [bare_secret(secret) for secret in item["secrets"]]
        for sentence in split_sentences(item["say"]):
            for piece in pieces(sentence):
                texts.append(piece.text)
                labels.append(
                    int(any(s and s in bare_secret(piece.text) for s in said))
                )
    return texts, labels


def train_secret() -> dict[str, Any]:
    """Fit the secret head on the train splits; its choices on development.

    Trained on the extraction corpus's and the home set's train splits. Development:
    the corpus's split and the sets written apart (`PROBES`, `script/secrets_quality.py`).
    Chosen: the most secret pieces found on those sets, with at most the shares of
    clean pieces above taken for secrets.
    """
    vectors = CachedVectors(SentenceVectors(cached=1), "sentences")
    texts, labels = secret_examples(
        secret_items(["train"], SECRETS_CORPUS) + secret_items(["train"], SECRETS_HOME)
    )
    rows = np.asarray(vectors.vectors(texts), np.float64)
    y = np.asarray(labels)
    development = {
        name: secret_examples(secret_items(["development"], path))
        for name, path in (
            ("corpus", SECRETS_CORPUS),
            ("probe", SECRETS_PROBE),
            ("fresh", SECRETS_FRESH),
            ("home", SECRETS_HOME),
        )
    }
    read = {
        name: (np.asarray(vectors.vectors(t), np.float64), np.asarray(lab))
        for name, (t, lab) in development.items()
    }
    vectors.save()
    # The best key yet (found, threshold, -penalty, -weight), its choice and weights.
    best: tuple[tuple[float, ...], dict[str, Any], np.ndarray, float] | None = None
    for l2, weight in itertools.product(SECRET_PENALTIES, SECRET_WEIGHTS):
        coefficients, bias = fit_logistic(
            rows, y, l2=l2, weights=1.0 + (weight - 1.0) * y
        )
        chances = {
            name: (probability(x, coefficients, bias), lab)
            for name, (x, lab) in read.items()
        }
        for threshold in SECRET_GRID:
            counts = {
                name: (
                    int(((p >= threshold) & (lab == 1)).sum()),
                    int(lab.sum()),
                    int(((p >= threshold) & (lab == 0)).sum()),
                    int((lab == 0).sum()),
                )
                for name, (p, lab) in chances.items()
            }
            found = sum(counts[n][0] for n in PROBES)
            flagged = sum(counts[n][2] for n in PROBES) / max(
                sum(counts[n][3] for n in PROBES), 1
            )
            everyday = counts["corpus"][2] / max(counts["corpus"][3], 1)
            if everyday > SECRET_MOST_FLAGGED or flagged > SECRET_MOST_FLAGGED_PROBES:
                continue
            key = (found, threshold, -l2, -weight)
            if best is None or key > best[0]:
                choice = {"penalty": l2, "weight": weight, "threshold": threshold}
                best = (key, {**choice, **counts}, coefficients, bias)
    if best is None:
        raise RuntimeError("no penalty and threshold meet the limits on development")
    _, chosen, coefficients, bias = best
    l2, weight, threshold = chosen["penalty"], chosen["weight"], chosen["threshold"]
    write_head(
        WEIGHTS / f"{SECRET_HEAD}.json",
        model=MODEL_NAME,
        labels=("other", "secret"),
        extra=(),
        weights=[[0.0] * len(coefficients), coefficients.tolist()],
        bias=[0.0, bias],
        threshold=threshold,
        trained_on={
            "corpus": "tests/data/corpus/extraction.json and secrets_home.json"
            " (train), pieces of sentences",
            "pieces": len(labels),
            "with_a_secret": int(y.sum()),
            "penalty": l2,
            "secret_weight": weight,
            "development": (
                "extraction.json, secrets_probe.json, secrets_fresh.json and"
                " secrets_home.json (development): [secret pieces found, secret pieces,"
                " clean pieces taken, clean pieces]"
            ),
            "development_counts": {k: chosen[k] for k in ("corpus", *PROBES)},
        },
    )
    return chosen


def train_centres() -> dict[str, Any]:
    """The average question and memory vectors, per writing system, of the train split."""
    model = LocalEmbedder()
    houses = households("train")
    memories = [m["content"] for house in houses for m in house.memories]
    questions = [q["say"] for house in houses for q in house.questions]
    memory_rows = np.asarray(model.embed(memories), np.float64)
    question_rows = np.asarray([model.embed_query(q) for q in questions], np.float64)
    memory_chinese = np.array([bool(writing_systems(t) & CJK) for t in memories])
    question_chinese = np.array([bool(spoken_system(q) & CJK) for q in questions])

    def averages(rows: np.ndarray, chinese: np.ndarray) -> list[list[float]]:
        rows = rows / np.linalg.norm(rows, axis=1, keepdims=True)
        return [
            [float(f"{v:.7g}") for v in rows[chinese == flag].mean(axis=0)]
            for flag in (False, True)
        ]

    trained_on: dict[str, Any] = {
        "corpus": "tests/data/corpus/households.json (train)",
        "memories": [int((~memory_chinese).sum()), int(memory_chinese.sum())],
        "questions": [int((~question_chinese).sum()), int(question_chinese.sum())],
    }
    data = {
        "model": MODEL_NAME,
        "trained_on": trained_on,
        "questions": averages(question_rows, question_chinese),
        "memories": averages(memory_rows, memory_chinese),
    }
    (WEIGHTS / f"{CENTRES}.json").write_text(json.dumps(data) + "\n", encoding="utf-8")
    load_centres.cache_clear()
    return trained_on


def main(argv: list[str] | None = None) -> int:
    """Train the head named on the command line and write its weights."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("head", choices=["relevance", "keep", "secret", "centres"])
    args = parser.parse_args(argv)
    WEIGHTS.mkdir(exist_ok=True)
    if args.head == "relevance":
        print(json.dumps(train_relevance(), indent=1))
    if args.head == "keep":
        print(json.dumps(train_keep(), indent=1, ensure_ascii=False))
    if args.head == "secret":
        print(json.dumps(train_secret(), indent=1))
    if args.head == "centres":
        print(json.dumps(train_centres(), indent=1))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    sys.exit(main())
