"""Review's "Who said this?": a held fact becomes someone's memory, or is forgotten.

Any backend: the fact is taken out of the held facts (no trace of it is left there),
then stored in the scope a person chose (a person's, or the household's), or not at
all ("forget"). Undo puts the fact back as it was and removes the memory it became.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..conversation.held_facts import HeldFact
from ..errors import MemoryEngineError
from ..storage.models import Memory

if TYPE_CHECKING:
    from .protocol import MemoryBackend, MemoryFields


@dataclass(frozen=True, slots=True)
class Settled:
    """What became of a held fact: the fact as it was, and its memory (if kept)."""

    fact: HeldFact
    memory: Memory | None


async def settle_held(
    backend: MemoryBackend, held_id: str, scope: str | None
) -> Settled | None:
    """Store a held fact in `scope` (None: forget it); None when it is not held."""
    fact = await backend.take_held(held_id)
    if fact is None:
        return None
    if scope is None:
        return Settled(fact, None)
    fields: MemoryFields = {
        "category": fact.category,
        "source": "user_stated",
        "scope": scope,
        "metadata": {"learned_by": "review", "held_reason": fact.reason},
    }
    if fact.key:
        fields["key"] = fact.key
    if fact.session_id:
        fields["session_id"] = fact.session_id
    try:
        memory = await backend.add(fact.content, **fields)
    except MemoryEngineError:
        # Still full (or refused): the fact waits in Review as it was.
        await backend.hold(fact)
        raise
    return Settled(fact, memory)


async def undo_settle(
    backend: MemoryBackend, fact: HeldFact, memory_id: str | None
) -> HeldFact:
    """Hold the fact again, and remove the memory it became (if any)."""
    if memory_id is not None:
        await backend.delete(memory_id)
    return await backend.hold(fact)
