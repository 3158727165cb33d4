"""Whether what a person said is worth keeping, and what kind of thing it is.

Decided from meaning, by small heads over the local model's sentence vector
(`model/heads.py`, trained by `script/train_heads.py` on utterances written apart by
several writers): `keep` (a lasting fact, a change, a plan, household history, a
preference, a correction; not a passing state, a command, a question, hearsay or a
hypothetical) and `kind` (which of the kept kinds, for the memory's category). The one
exact cues they are given besides the vector are whether the words make a question,
and whether they start as one. A third, `secret`, is a second look after the secrets
filter (`secrets_filter.py`), whose names and shapes miss the kinds of secret they were
never shown: a piece of a sentence it finds to hold a code, a password or an identity
number is not learnt, whatever the filter says.

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
from .spoken_values import value_runs

KEEP_HEAD: Final = "keep"
KIND_HEAD: Final = "kind"
SECRET_HEAD: Final = "secret"  # noqa: S105 - a head's name, not a password
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


# Words a secret is said with, in any language (a piece without them or a value is
# not read by the secret head).
_SECRET_WORDS: Final = re.compile(
    r"pass|code|pin|key|log|secret|phrase|word|account|number|token|card|id\b"
    r"|[密码碼号號证證卡钥鑰锁鎖]",
    re.IGNORECASE,
)


def _may_hold_a_secret(text: str) -> bool:
    """Whether a text has a value (digits, a number said) or a word secrets go with."""
    return bool(_SECRET_WORDS.search(text)) or any(
        run.length >= 3 for run in value_runs(text)
    )


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
    # None until its weights are there (learning then keeps to the secrets filter).
    secret: Head | None = None

    def worth_keeping(self, texts: Sequence[str]) -> list[float]:
        """For each text, the probability that it is worth keeping."""
        vectors = self.vectors.vectors(list(texts))
        return [
            self.keep.says(keep_features(text, vector))[1]
            for text, vector in zip(texts, vectors, strict=True)
        ]

    def holding_secrets(
        self, texts: Sequence[str], *, at_most: int | None = None
    ) -> list[bool]:
        """For each text, whether the secret head finds it holds a secret.

        Only a text with a value or a word secrets are said with is read (most of
        what people say has neither: no sentence vector is made for it); with
        `at_most`, only the first that many of those.
        """
        head = self.secret
        looked = [text for text in texts if _may_hold_a_secret(text)][:at_most]
        if head is None or not looked:
            return [False] * len(texts)
        said = dict(zip(looked, self.vectors.vectors(looked), strict=True))
        return [text in said and head.says(said[text])[0] for text in texts]

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
        _found = Understanding(
            vectors, keep, kind, load_head(SECRET_HEAD, vectors.model)
        )
    return _found
