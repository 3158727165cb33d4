"""Answering an everyday question from the memory that answers it, with any backend.

The household's memories and the speaker's own are searched (never another
person's); each candidate is judged (`questions.judge`) and the best answer is said
to the listener (`listener.for_listener`): "You're allergic to penicillin", 你对青霉素过敏.
When a second memory answers as well as the first, both are said. None when no
memory answers the question well: the caller then leaves it to the intent agent.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Final

from ..language.listener import said_to
from ..language.questions import Judgement, judge, known_units, read_question
from ..language.speech import is_traditional
from ..language.time_phrases import home_now, when_said
from ..storage.models import HOUSEHOLD_SCOPE, Memory

if TYPE_CHECKING:
    from .protocol import MemoryOperations

# Memories looked at for a question: enough to know which of its words the
# household's memories have at all.
CANDIDATES: Final = 10
# A second answer is said when it scores at least this share of the first.
_SECOND_ANSWER_SHARE: Final = 0.8


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
    found = {
        result.memory.id: result
        for query in (question.words, text)
        for result in await backend.search(query, limit=CANDIDATES, scopes=scopes)
    }.values()
    known = known_units(question, (r.memory.content for r in found))
    traditional = is_traditional(text)
    judged: list[tuple[tuple[int, int, int, float], Memory]] = []
    for result in found:
        verdict: Judgement = judge(question, result.memory.content, known)
        if not verdict.answers:
            continue
        same_script = int(is_traditional(result.memory.content) == traditional)
        rank = (verdict.matched, verdict.side_by_side, same_script, result.score)
        judged.append((rank, result.memory))
    if not judged:
        return None
    judged.sort(key=lambda item: item[0], reverse=True)
    best_rank, best = judged[0]
    chosen = [best]
    if len(judged) > 1:
        rank, second = judged[1]
        if rank[:3] == best_rank[:3] and rank[3] >= _SECOND_ANSWER_SHARE * best_rank[3]:
            chosen.append(second)
    if question.kind == "when" and len(chosen) == 1:
        language = (
            ("zh-Hant" if traditional else "zh-Hans") if question.chinese else "en"
        )
        when = when_said(best.content, now or home_now(None), language)
        if when is not None:
            return MemoryAnswer(_sentence(when), (best,))
    return MemoryAnswer(spoken(chosen, user_id), tuple(chosen))


def spoken(memories: list[Memory], user_id: str | None) -> str:
    """Memories as one or two spoken sentences to the listener (a repeat said once)."""
    sentences = [_sentence(text) for text in said_to(memories, user_id)]
    return " ".join(dict.fromkeys(sentences))


def _sentence(text: str) -> str:
    text = text.rstrip(" .。")
    if text and "\u4e00" <= text[-1] <= "\u9fff":
        return text + "。"
    return text + "."
