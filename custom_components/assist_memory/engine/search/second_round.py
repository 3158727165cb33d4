"""A second retrieval round, for questions of two steps.

"Where did the plumber who fixed the radiator grow up?": the first round finds "The
plumber who fixed the leaking radiator was Tomasz", and "Tomasz grew up in Gdansk"
shares no word with the question. The names in the first round's best results that
the question does not say (Tomasz) are searched again with the question's words; what
that finds joins the ranking at a lower weight, so it fills the places the question's
own words left rather than pushing them down.

Names are English capitalised words inside a sentence (not its first word); Chinese
has no capitals, so a Chinese question gets a second round only for the household's
own words (`expansion.py`: 小宝 for a question about 儿子).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
import dataclasses
import re
from typing import Final

from ..language.keywords import ENGLISH_STOP_WORDS
from .scoring import ScoredMemory

# What a second-round memory's score counts for, against the question's own results.
SECOND_ROUND_WEIGHT: Final = 0.8
# Names are taken from this many of the first round's best results.
NAMED_BY_BEST: Final = 2
_WORD: Final = re.compile(r"[A-Za-z][A-Za-z'\u2019-]*")
_SENTENCE_END: Final = re.compile(r"[.!?:;]\s*$")


def names_in(text: str) -> Iterator[str]:
    """The capitalised words of `text` that do not begin a sentence (possessive off)."""
    for match in _WORD.finditer(text):
        word = match.group()
        before = text[: match.start()]
        if not word[0].isupper() or not before.strip() or _SENTENCE_END.search(before):
            continue
        name = re.sub(r"['\u2019]s$", "", word)
        if name.lower() not in ENGLISH_STOP_WORDS and len(name) > 1:
            yield name


def follow_up(
    question: str, first: Sequence[ScoredMemory], related: Sequence[str] = ()
) -> str | None:
    """The second round's query, or None when there is nothing new to search.

    New: the names the best results give, and `related`, the household's words for
    what the question names (`expansion.py`: "son" for Leo, 小宝 for 儿子). A result
    gives its names when it shares a word with the question or search is sure it
    answers: one found by meaning alone may be only near ("whisky" finds "Anna takes
    her coffee black"), and its names would bring in memories about something else.
    """
    said = {word.lower() for word in _WORD.findall(question)}
    said |= {re.sub(r"['\u2019]s$", "", word) for word in said}
    new = dict.fromkeys(
        [
            name
            for result in first[:NAMED_BY_BEST]
            if result.matched or result.answers
            for name in names_in(result.memory.content)
            if name.lower() not in said
        ]
        + list(related)
    )
    return f"{question} {' '.join(new)}" if new else None


def merged(
    first: Sequence[ScoredMemory], second: Sequence[ScoredMemory], limit: int
) -> list[ScoredMemory]:
    """Both rounds in one ranking: each memory at its better score, best first."""
    best = {result.memory.id: result for result in first}
    for result in second:
        weighted = dataclasses.replace(result, score=result.score * SECOND_ROUND_WEIGHT)
        known = best.get(result.memory.id)
        if known is None:
            best[result.memory.id] = weighted
        elif weighted.score > known.score:
            # The first round's confidence: the second has no vectors to judge by.
            best[result.memory.id] = dataclasses.replace(
                weighted,
                answer_confidence=known.answer_confidence,
                answers=known.answers,
            )
    ranking = sorted(
        best.values(), key=lambda r: (r.score, r.memory.updated_at), reverse=True
    )
    return ranking[:limit]
