"""A fact: one thing worth remembering, before it is stored as a `Memory`.

Stated facts have source "user_stated" and confidence 0.95; facts the user asked to be
remembered ("remember that ...", "记住...") 1.0. Nothing that contains a secret
(`secrets_filter`) is ever returned or planned; such drops are logged with the
category only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
import logging
from typing import Any, Final, Literal, get_args

from ..storage.models import CATEGORIES, SOURCES, is_storable_text, validate_key

_LOGGER = logging.getLogger(__name__)


STATED_CONFIDENCE: Final = 0.95
EXPLICIT_CONFIDENCE: Final = 1.0
MIN_STATED_CONFIDENCE: Final = 0.9
MAX_INFERRED_CONFIDENCE: Final = 0.8
DEFAULT_INFERRED_CONFIDENCE: Final = 0.7
MAX_LLM_CONTENT_LENGTH: Final = 500
NEAR_DUPLICATE_SIMILARITY: Final = 0.85
MAX_FACT_KEY_LENGTH: Final = 64
EXTRACTION_SOURCES: Final = ("user_stated", "inferred")
# Whose a fact is, when the extractor says so (an LLM's `scope`): see `fact_scope`.
type Whose = Literal["household", "speaker"]
WHOSE: Final[tuple[str, ...]] = get_args(Whose.__value__)


@dataclass(frozen=True, slots=True)
class Fact:
    """One thing worth remembering, before it is stored as a `Memory`."""

    content: str
    category: str = "fact"
    key: str | None = None
    confidence: float = STATED_CONFIDENCE
    source: str = "user_stated"
    # The last day the fact holds, when the extractor says so (an LLM may).
    until: date | None = None
    # The household's or the speaker's, when the extractor says so (an LLM may).
    whose: Whose | None = None
    # Proposed by an LLM: kept only when the users' words support it (`grounding`).
    from_llm: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.content, str) or not self.content.strip():
            raise ValueError("a fact needs content")
        if not is_storable_text(self.content):
            raise ValueError("a fact must not contain NUL characters")
        object.__setattr__(self, "key", validate_key(self.key))
        category = str(self.category).strip().lower()
        if category not in CATEGORIES:
            raise ValueError(f"unknown category {self.category!r}")
        if self.source not in SOURCES:
            raise ValueError(f"unknown source {self.source!r}")
        if (
            isinstance(self.confidence, bool)
            or not isinstance(self.confidence, int | float)
            or not 0.0 <= self.confidence <= 1.0
        ):
            raise ValueError("confidence must be a number from 0 to 1")
        if self.whose is not None and self.whose not in WHOSE:
            raise ValueError(f"whose must be one of {', '.join(WHOSE)}")
        object.__setattr__(self, "content", self.content.strip())
        object.__setattr__(self, "category", category)
        object.__setattr__(self, "confidence", float(self.confidence))

    def to_dict(self) -> dict[str, Any]:
        """The fact as JSON: content, category, key, confidence, source (until, whose, from_llm)."""
        found = {
            "content": self.content,
            "category": self.category,
            "key": self.key,
            "confidence": self.confidence,
            "source": self.source,
        }
        if self.until is not None:
            found["until"] = self.until.isoformat()
        if self.whose is not None:
            found["whose"] = self.whose
        if self.from_llm:
            found["from_llm"] = True
        return found


def _log_secret(fact: Fact) -> None:
    # The category only: the key is made of the person's words ("user_locker_pin").
    _LOGGER.info(
        "Not keeping a fact (category %s): it contains a secret", fact.category
    )
