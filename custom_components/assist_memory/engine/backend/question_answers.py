"""Answering an everyday question from the memory that answers it, with any backend.

The household's memories and the speaker's own are searched (never another
person's). With the local model, search says how sure it is that each memory answers
(`ScoredMemory.answer_confidence`, calibrated: `search/relevance.py`) and whether that is sure
enough to say it (`ScoredMemory.answers`, at thresholds chosen on a development
household): the best memory is said when it is, a second one beside it only when it is
too ("What are the kids allergic to?"), else None ("I don't know that yet", said by
the caller). Whatever the question's words: "Who do we call
when a pipe leaks?" finds the plumber, 备用钥匙在哪里？ the English memory about the
spare key (said as stored, introduced in the question's language). Without the model
(keywords only), each candidate is judged by its words (`questions.judge`).

The answer is said to the listener (`listener.for_listener`): "You're allergic to
penicillin", 你对青霉素过敏. "When …?" answered by one memory that names its day is
said as that day.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
import re
from typing import TYPE_CHECKING, Final

from ..language.commands import reply
from ..language.listener import said_to
from ..language.questions import Judgement, Question, judge, known_units, read_question
from ..language.speech import is_traditional
from ..language.time_phrases import home_now, when_said
from ..search.scoring import ScoredMemory
from ..storage.models import HOUSEHOLD_SCOPE, Memory

if TYPE_CHECKING:
    from .protocol import MemoryOperations

# Memories looked at for a question: enough to know which of its words the
# household's memories have at all.
CANDIDATES: Final = 10
# The confidence at which the words' judgement may answer when search is not sure.
# Chosen on the development household as the answer thresholds are: the most answered
# with at most 3 % of answerable questions given a wrong memory and 5 % of
# unanswerable ones given any (0.6: 20 % answered, 2 %, 3 %; at 0.2 24 %, 4 %, 15 %).
WORDS_AT: Final = 0.6
# A second answer is said when it scores at least this share of the first.
_SECOND_ANSWER_SHARE: Final = 0.8


_HAN: Final = re.compile(r"[\u4e00-\u9fff]")


@dataclass(frozen=True, slots=True)
class MemoryAnswer:
    """What to say, and the memories it comes from (best first)."""

    speech: str
    memories: tuple[Memory, ...]


async def answer_question(
    backend: MemoryOperations,
    text: str,
    *,
    user_id: str | None,
    now: datetime | None = None,
) -> MemoryAnswer | None:
    """The answer memory gives to a question, or None when no memory answers it.

    "When ...?" answered by one memory that names its day is said as that day ("On
    Friday 4 December at 10:00"); `now` is the home's (`home_now`).
    """
    question = read_question(text)
    if question is None:
        return None
    scopes = [HOUSEHOLD_SCOPE] if not user_id else [user_id, HOUSEHOLD_SCOPE]
    results = await backend.search(text, limit=CANDIDATES, scopes=scopes)
    if results and results[0].answers is not None:
        chosen = _surest(results, text)
        if not chosen:
            # Not sure by meaning: the words' judgement, when search gives the
            # memory it picks at least WORDS_AT ("What is the cat called?" → "The cat
            # is called Mochi").
            words = await _by_words(backend, question, text, scopes, results)
            first = (
                next((r for r in results if r.memory.id == words[0].id), None)
                if words
                else None
            )
            if first is not None and (first.answer_confidence or 0.0) >= WORDS_AT:
                chosen = words[:1]
    else:
        chosen = await _by_words(backend, question, text, scopes, results)
    if not chosen:
        return None
    traditional = is_traditional(text)
    language = ("zh-Hant" if traditional else "zh-Hans") if question.chinese else "en"
    if question.kind == "when" and len(chosen) == 1:
        when = when_said(chosen[0].content, now or home_now(None), language)
        if when is not None:
            return MemoryAnswer(_sentence(when), tuple(chosen))
    speech = spoken(chosen, user_id)
    if any(_across(text, memory.content) for memory in chosen):
        # Said as stored, in the other language: introduced in the question's.
        speech = reply(language, "recall", items=speech)
    return MemoryAnswer(speech, tuple(chosen))


def _surest(results: list[ScoredMemory], question: str) -> list[Memory]:
    """The memories search is sure answer the question (best first, two at most).

    One in the question's writing system comes first, and a second is said only in
    the first's: a household that keeps a fact in both languages hears it once, in
    the language it asked in.
    """
    sure = [
        result.memory
        for result in sorted(results, key=lambda r: -(r.answer_confidence or 0.0))
        if result.answers
    ]
    if not sure:
        return []
    sure.sort(key=lambda memory: _across(question, memory.content))  # stable
    first = sure[0]
    same = [m for m in sure[1:] if not _across(first.content, m.content)]
    return [first, *same[:1]]


def _across(question: str, content: str) -> bool:
    """Whether a memory is in another writing system than the question."""
    return bool(_HAN.search(question)) != bool(_HAN.search(content))


async def _by_words(
    backend: MemoryOperations,
    question: Question,
    text: str,
    scopes: list[str],
    found_first: list[ScoredMemory],
) -> list[Memory]:
    """Without the model's confidence: the memories whose words answer the question."""
    found = {result.memory.id: result for result in found_first}
    for result in await backend.search(question.words, limit=CANDIDATES, scopes=scopes):
        found.setdefault(result.memory.id, result)
    known = known_units(question, (r.memory.content for r in found.values()))
    traditional = is_traditional(text)
    judged: list[tuple[tuple[int, int, int, float], Memory]] = []
    for result in found.values():
        verdict: Judgement = judge(question, result.memory.content, known)
        if not verdict.answers:
            continue
        same_script = int(is_traditional(result.memory.content) == traditional)
        rank = (verdict.matched, verdict.side_by_side, same_script, result.score)
        judged.append((rank, result.memory))
    if not judged:
        return []
    judged.sort(key=lambda item: item[0], reverse=True)
    best_rank, best = judged[0]
    chosen = [best]
    if len(judged) > 1:
        rank, second = judged[1]
        if rank[:3] == best_rank[:3] and rank[3] >= _SECOND_ANSWER_SHARE * best_rank[3]:
            chosen.append(second)
    return chosen


def spoken(memories: list[Memory], user_id: str | None) -> str:
    """Memories as one or two spoken sentences to the listener (a repeat said once)."""
    sentences = [_sentence(text) for text in said_to(memories, user_id)]
    return " ".join(dict.fromkeys(sentences))


def _sentence(text: str) -> str:
    text = text.rstrip(" .。")
    if text and "\u4e00" <= text[-1] <= "\u9fff":
        return text + "。"
    return text + "."
