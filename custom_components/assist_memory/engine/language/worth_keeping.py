"""Whether what a person said is worth keeping, and what kind of thing it is.

Decided from meaning, by two small heads over the local model's sentence vector
(`model/heads.py`, trained by `script/train_heads.py` on utterances written apart by
several writers): `keep` (a lasting fact, a change, a plan, household history, a
preference, a correction; not a passing state, a command, a question, hearsay or a
hypothetical) and `kind` (which of the kept kinds, for the memory's category). The one
exact cues they are given besides the vector are whether the words make a question,
and whether they start as one.

None of it runs without the local model: `understanding()` is then None and learning
keeps to its rules (`rule_extraction.py`), the documented lesser mode.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
import re
from typing import Final

from ..model.heads import Head, Vector, features, load_head
from ..model.sentence_vectors import SentenceVectors, sentence_vectors
from .questions import read_question
from .sentences import _is_question

KEEP_HEAD: Final = "keep"
KIND_HEAD: Final = "kind"
# What the keep head reads besides the vector.
KEEP_EXTRA: Final = ("question", "asking_word_first", "asks_about_something")
# A sentence that starts as a question would, with or without its question mark.
_ASKING_FIRST: Final = re.compile(
    r"^(?:what|where|who|whose|which|why|how|when|is|are|do|does|did|can|could"
    r"|should|would|will|have|has)\b",
    re.IGNORECASE,
)
# The category a kept kind is stored under.
CATEGORY_OF_KIND: Final = {
    "preference": "preference",
    "fact_me": "fact",
    "member": "person",
    "home": "fact",
    "history": "event",
    "change": "fact",
    "plan": "event",
    "correction": "fact",
}


def keep_features(text: str, vector: Vector) -> Vector:
    """What the keep head reads of one sentence."""
    said = text.strip()
    return features(
        vector,
        (
            float(_is_question(said)),
            float(bool(_ASKING_FIRST.match(said))),
            float(read_question(said) is not None),
        ),
    )


@dataclass(frozen=True, slots=True)
class Understanding:
    """The local model's vectors and the heads trained on them."""

    vectors: SentenceVectors
    keep: Head
    kind: Head

    def worth_keeping(self, texts: Sequence[str]) -> list[float]:
        """For each text, the probability that it is worth keeping."""
        vectors = self.vectors.vectors(list(texts))
        return [
            self.keep.says(keep_features(text, vector))[1]
            for text, vector in zip(texts, vectors, strict=True)
        ]

    def category(self, text: str) -> str:
        """The category of a kept text, from the kind its meaning is nearest."""
        kind, _ = self.kind.best(self.vectors.vector(text))
        return CATEGORY_OF_KIND.get(kind, "fact")


_found: Understanding | None = None


def understanding() -> Understanding | None:
    """The heads over the local model, or None while the model cannot run here.

    Asked again each time until it can: Home Assistant installs the model's package
    in the background after a first start, and learning then decides from meaning.
    """
    global _found  # noqa: PLW0603 - one per process, like the model
    if _found is None:
        vectors = sentence_vectors()
        if vectors is None:
            return None
        keep = load_head(KEEP_HEAD, vectors.model)
        kind = load_head(KIND_HEAD, vectors.model)
        if keep is None or kind is None:
            return None
        _found = Understanding(vectors, keep, kind)
    return _found
