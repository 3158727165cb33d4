"""Which of an LLM's facts a conversation's users said (`language/grounding.py`).

A fact an LLM proposes is kept only when the users' own words in the batch support
it; otherwise it is dropped and counted, never logged with its content. A fact that
says back a memory the conversation was given (the memory block of any of its turns)
is never learnt again, even when the users' words happen to hold it: a memory read
to the assistant is no new fact. The rules' facts come from the users' words and
pass as they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from ..language.facts import Fact
from ..language.grounding import Nearness, UserWords
from ..storage.models import Memory


@dataclass(frozen=True, slots=True)
class Grounded:
    """The facts kept, and how many were dropped for each reason."""

    kept: list[Fact]
    # Proposed by an LLM and not supported by what the users said.
    not_said: int = 0
    # Saying back a memory the conversation was given.
    said_back: int = 0


def grounded_facts(
    facts: Sequence[Fact],
    user_texts: Sequence[str],
    given: Sequence[Memory],
    now: datetime,
    *,
    nearness: Nearness | None = None,
) -> Grounded:
    """The facts the users' words support; the LLM's others dropped and counted.

    `given`: the memories the conversation's turns were given. An LLM fact all of
    whose content words one of them holds is counted as said back, whether or not
    the users' words hold them too, unless it moves a memory's end (it says "until").
    """
    words = UserWords(user_texts, now, nearness=nearness)
    shown = [UserWords([memory.content], now) for memory in given]
    kept: list[Fact] = []
    not_said = said_back = 0
    for fact in facts:
        if not fact.from_llm:
            kept.append(fact)
            continue
        repeats = fact.until is None and any(
            memory.support(fact.content).share == 1.0 for memory in shown
        )
        if repeats:
            said_back += 1
        elif words.supports(fact.content):
            kept.append(fact)
        else:
            not_said += 1
    return Grounded(kept, not_said, said_back)
