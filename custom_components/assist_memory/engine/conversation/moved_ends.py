"""A memory with an end said again with another end: it moves, not a second memory.

"The guests are staying until Tuesday now" after "... until Sunday": the memory takes
the new words (naming the person, `naming.py`) and the new end.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..language.facts import Fact
from ..language.naming import named, naming_metadata
from ..language.time_phrases import end_of, without_time
from ..storage.models import Memory
from ..storage.store import MemoryStore


def move_ends(
    store: MemoryStore,
    facts: list[Fact],
    existing: list[Memory],
    now: datetime,
    name: str | None = None,
) -> list[Fact]:
    """Apply the facts that move a memory's end; return the facts so applied."""
    ending = {
        without_time(memory.content, now): memory
        for memory in existing
        if memory.expires_at is not None
    }
    moved = []
    for fact in facts:
        if fact.until is not None and (
            memory := ending.pop(without_time(fact.content, now), None)
        ):
            store.update(
                memory.id,
                named(fact.content, name),
                metadata=renamed(memory, fact.content, name),
                expires_at=end_of(fact, now),
            )
            moved.append(fact)
    return moved


def renamed(memory: Memory | None, content: str, name: str | None) -> dict[str, Any]:
    """A memory's metadata once it says `content` naming `name` (`naming`)."""
    return naming_metadata(memory.metadata if memory else {}, content, name)
