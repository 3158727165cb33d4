"""The relevance score, with every part kept so a person can see why.

score = (0.8 keyword + 0.06 category + 0.06 recency + 0.03 frequency + 0.05 confidence)
        x 1.3 when the memory is on the session's current topic

The words decide: the other signals together weigh a quarter of the keyword match, so
they order memories that match about equally well and cannot bury a better match
(calibrated on the labelled retrieval set and the long-conversation set).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime
import math
from typing import Any, Final

from ..storage.models import Memory

WEIGHT_KEYWORD: Final = 0.8
WEIGHT_CATEGORY: Final = 0.06
WEIGHT_RECENCY: Final = 0.06
WEIGHT_FREQUENCY: Final = 0.03
WEIGHT_CONFIDENCE: Final = 0.05
PREFERENCE_BOOST: Final = 1.5
TOPIC_BOOST: Final = 1.3
HALF_LIFE_DAYS: Final = 7.0
# A memory used this often (or more) gets the full frequency score.
FREQUENCY_SATURATION: Final = 100


@dataclass(frozen=True, slots=True)
class ScoreParts:
    """The parts of a score, each from 0 to 1 (topic_boost is 1 or 1.3)."""

    keyword: float
    category: float
    recency: float
    frequency: float
    confidence: float
    topic_boost: float = 1.0
    bm25: float = 0.0
    vector: float | None = None

    def total(self) -> float:
        """The weighted sum, with the topic boost."""
        return (
            WEIGHT_KEYWORD * self.keyword
            + WEIGHT_CATEGORY * self.category
            + WEIGHT_RECENCY * self.recency
            + WEIGHT_FREQUENCY * self.frequency
            + WEIGHT_CONFIDENCE * self.confidence
        ) * self.topic_boost


@dataclass(frozen=True, slots=True)
class ScoredMemory:
    """A retrieved memory, its score, the score's parts and the words that matched."""

    memory: Memory
    score: float
    parts: ScoreParts
    matched: tuple[str, ...] = ()
    # How sure the engine is that the memory answers the question (0-1, calibrated;
    # `relevance.py`), None when search has no trained head for its model.
    answer_confidence: float | None = None
    # Whether it is sure enough to say the memory as an answer (the most confident
    # result at the head's "answer" threshold, another at its "second_answer" one);
    # None without.
    answers: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON form: the record, `score`, its parts, `matched`, the answer's fields.

        `answer_confidence` and `answers` are about this question; the record's own
        `confidence` is how sure the memory itself is.
        """
        return {
            **self.memory.to_dict(),
            "score": round(self.score, 4),
            "answer_confidence": None
            if self.answer_confidence is None
            else round(self.answer_confidence, 4),
            "answers": self.answers,
            "score_parts": {
                key: (round(value, 4) if isinstance(value, float) else value)
                for key, value in asdict(self.parts).items()
            },
            "matched": list(self.matched),
        }


def lexical_score(bm25_share: float, coverage: float) -> float:
    """The keyword part: BM25 (as a share of the best candidate's) and coverage."""
    return 0.5 * bm25_share + 0.5 * coverage


def category_score(memory: Memory, *, wants_preference: bool) -> float:
    """1 for a preference when the message is about preferences, else 1/1.5."""
    if wants_preference and memory.category == "preference":
        return 1.0
    return 1.0 / PREFERENCE_BOOST


def recency_score(memory: Memory, now: datetime) -> float:
    """Halves every 7 days since the memory was last used (or changed)."""
    stamp = max(memory.last_accessed or "", memory.updated_at)
    try:
        when = datetime.fromisoformat(stamp)
    except ValueError:
        return 0.0
    age_days = max((now - when).total_seconds(), 0.0) / 86400.0
    return float(0.5 ** (age_days / HALF_LIFE_DAYS))


def frequency_score(memory: Memory) -> float:
    """log(1 + uses) / log(1 + 100), capped at 1."""
    return min(1.0, math.log1p(memory.access_count) / math.log1p(FREQUENCY_SATURATION))
