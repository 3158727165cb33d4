"""Grounding: a fact an LLM proposes is kept only when a person's own words support it.

An LLM asked what to remember from a conversation may write what nobody said: the
assistant's own reply ("The wifi switch is in the kitchen" after "our wifi password
is ..."), an example of its instructions ("The wifi router is in the study"), a memory
the assistant read back, or a guess about the topic ("We got a new dishwasher" ->
"The dishwasher is in the kitchen"). Only the users' messages of the batch are a
source: never the assistant's replies, the memory block or what a tool read.

The test is the fact's content words, found in what the users said:

- content words are English stems and Chinese character pairs with numbers and names
  (`write_back.fact_terms`), without the subject words every fact has ("the user",
  "household", 用户) and without its time words (`time_phrases.blank_times`: an LLM
  writes "tomorrow" as the date it is);
- a fact word is found when a user's message has it, or a word sharing its first
  `_PREFIX` letters (allergic, allergy);
- the fact is supported when at least `SUPPORT` of its content words are found, and
  at least one is (a fact with no content word left is no fact);
- with a sentence model (search by meaning on), a fact that finds at least
  `MEANING_SUPPORT` of its words is supported too when it is as near as `MEANING_NEAR`
  to one of the users' messages: a rewording ("I can't stand coriander" -> "The user
  dislikes coriander", 我老婆 -> 用户的妻子). Without the model, words alone decide.

The thresholds were chosen on labelled pairs (`tests/data/grounding/pairs.json`:
supported, invented, copied from instructions, said by the assistant), on their
development split; `script/calibrate_grounding.py` prints them with the test split's
figures.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from .time_phrases import blank_times
from .write_back import fact_terms

# Share of a fact's content words a person's words must hold (development split).
SUPPORT: Final = 0.7
# With the sentence model: a fact finding this share of its words, as near as this
# (cosine of multilingual-e5-small) to a user's message, is a rewording of it.
MEANING_SUPPORT: Final = 0.5
MEANING_NEAR: Final = 0.93
# Letters two English words must share at their start to count as one word.
_PREFIX: Final = 5


@dataclass(frozen=True, slots=True)
class Support:
    """How well the users' words support a fact: content words found of all."""

    found: int
    total: int

    @property
    def share(self) -> float:
        """The share found (0 when the fact has no content word)."""
        return self.found / self.total if self.total else 0.0

    def holds(self, threshold: float | None = None) -> bool:
        """Whether the fact is supported (at `SUPPORT` unless told otherwise)."""
        return self.found > 0 and self.share >= (
            SUPPORT if threshold is None else threshold
        )


# The cosine of a text to the nearest of some others, or None (no model now).
type Nearness = Callable[[str, list[str]], float | None]


class UserWords:
    """What the users said in a batch, ready to look a fact's words up in."""

    def __init__(
        self,
        user_texts: Iterable[str],
        now: datetime,
        *,
        nearness: Nearness | None = None,
    ) -> None:
        self.now = now
        self.texts = [text for text in user_texts if text.strip()]
        self._nearness = nearness
        self.terms: frozenset[str] = frozenset().union(
            *(fact_terms(blank_times(text, now)) for text in self.texts)
        )
        self._prefixes = {term[:_PREFIX] for term in self.terms if _is_long_word(term)}

    def support(self, fact: str) -> Support:
        """How many of the fact's content words the users said."""
        terms = fact_terms(blank_times(fact, self.now))
        found = sum(1 for term in terms if self._said(term))
        return Support(found, len(terms))

    def supports(self, fact: str) -> bool:
        """Whether what the users said supports the fact (words, then meaning)."""
        support = self.support(fact)
        if support.holds():
            return True
        if self._nearness is None or not support.holds(MEANING_SUPPORT):
            return False
        near = self._nearness(fact, self.texts)
        return near is not None and near >= MEANING_NEAR

    def _said(self, term: str) -> bool:
        if term in self.terms:
            return True
        return _is_long_word(term) and term[:_PREFIX] in self._prefixes


def _is_long_word(term: str) -> bool:
    """An English word long enough to be matched by its start."""
    return len(term) >= _PREFIX and term.isascii() and term.isalpha()
