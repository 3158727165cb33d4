"""How likely each candidate is to answer the question, from its words and its meaning.

Each candidate a question finds (by words, by meaning, or both) comes with its
evidence: its share of the best BM25 score, how much of the question's keywords it
holds, its cosine to the question and its standing (`neighbours.py`: the cosine read
against its own writing system's memories), and whether it is in another language
than the question. A trained head (`model/weights/relevance.json`, a logistic
regression written by `script/train_heads.py`) reads those numbers, and how the other
candidates did, and gives the probability that this memory answers the question.
That probability is the keyword part of the scoring formula (`scoring.py`) and the
result's `answer_confidence`: answering without an LLM says a memory only when it is sure
enough (`backend/question_answers.py`).

Trained on households written apart from the project and the labelled retrieval set,
chosen on a development household, measured on two test households (docs/benchmarks.md).
Without the local model (keywords only, or an embedding endpoint whose model the head
was not trained on) the older fusion decides (`fusion.py`) and there is no confidence.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from .fusion import fused_keyword_scores
from .nearness import Nearness

if TYPE_CHECKING:
    from ..model.heads import Head

RELEVANCE_HEAD: Final = "relevance"
# The confidences at which the best memory, and a second one, are said as answers
# (thresholds in the head's file, chosen on the development household with it; the
# values here are used when the file has none).
ANSWER: Final = ("answer", 0.7)
SECOND_ANSWER: Final = ("second_answer", 0.9)
# The features the head reads, in its weights' order.
FEATURES: Final = (
    "words",
    "bm25_share",
    "coverage",
    "best_words",
    "words_if_best_words",
    "cosine",
    "cosine_below_best",
    "standing",
    "standing_below_best",
    "across",
    "standing_if_across",
    "standing_if_no_words",
)


@dataclass(frozen=True, slots=True)
class Evidence:
    """What words and meaning say about one candidate."""

    bm25_share: float
    coverage: float
    near: Nearness | None = None

    @property
    def words(self) -> float:
        """The word match (0-1): half BM25 share, half coverage."""
        return 0.5 * self.bm25_share + 0.5 * self.coverage


def features(evidence: Mapping[str, Evidence]) -> dict[str, tuple[float, ...]]:
    """Each candidate's features, in `FEATURES` order.

    Some read the best of the other candidates (the best word match, the nearest
    memory), never how many there are: a search for ten results reads its candidates
    as one for five does.
    """
    near = [e.near for e in evidence.values() if e.near is not None]
    best_words = max(
        (e.words for e in evidence.values() if not (e.near and e.near.across)),
        default=0.0,
    )
    best_cosine = max((n.cosine for n in near), default=0.0)
    low_cosine = min((n.cosine for n in near), default=0.0)
    best_standing = max((n.standing for n in near), default=0.0)
    low_standing = min((n.standing for n in near), default=0.0)
    rows: dict[str, tuple[float, ...]] = {}
    for key, found in evidence.items():
        nearness = found.near
        cosine = nearness.cosine if nearness else low_cosine
        standing = nearness.standing if nearness else low_standing
        across = float(nearness is not None and nearness.across)
        rows[key] = (
            found.words,
            found.bm25_share,
            found.coverage,
            best_words,
            found.words * best_words,
            cosine,
            best_cosine - cosine,
            standing,
            best_standing - standing,
            across,
            standing * across,
            standing * (1.0 - best_words),
        )
    return rows


def relevance(
    evidence: Mapping[str, Evidence],
    head: Head | None,
    nearest: Mapping[str, Nearness],
) -> tuple[dict[str, float], dict[str, float] | None]:
    """Each candidate's keyword part (the fusion's), and its confidence.

    The confidence is None without the head.

    `nearest`: everything the vector search returned (the older fusion rescales
    standings over all of it, candidates of other scopes included).
    """
    lexical = {key: e.words for key, e in evidence.items()}
    if head is None or not nearest:
        return fused_keyword_scores(lexical, nearest), None
    import numpy as np

    rows = features(evidence)
    keys = list(rows)
    matrix = np.asarray([rows[key] for key in keys], dtype=np.float64)
    logits = matrix @ (head.weights[-1] - head.weights[0]) + (
        head.bias[-1] - head.bias[0]
    )
    probabilities = 1.0 / (1.0 + np.exp(-logits))
    confidence = dict(zip(keys, probabilities.tolist(), strict=True))
    # The order stays the fusion's: ordered by the head, the labelled set's results
    # lost to the model's own vector search (0.905 against 0.909 in the first five).
    return fused_keyword_scores(lexical, nearest), confidence
