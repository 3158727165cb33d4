"""Memories learnt before their person's name was known, named once it is.

A fact learnt as "The user's favourite colour is green" while Assist did not know the
speaker's name (or by a version that did not name people yet) reads "Sam's favourite
colour is green" the next time learning writes among Sam's memories (`naming`). Only
what learning wrote (its provenance says `learned_by`) is reworded: a memory a person
typed stays as they typed it.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..language.naming import NAMED, clean_name, named, naming_metadata
from ..storage.models import Memory
from ..storage.store import MemoryStore


def name_learnt_memories(
    store: MemoryStore, memories: Iterable[Memory], name: str | None
) -> None:
    """Name the person in their learnt memories that say "the user".

    One update per memory, once in its life: a named memory is marked (`NAMED`).
    """
    person = clean_name(name)
    if person is None:
        return
    for memory in memories:
        if NAMED in memory.metadata or "learned_by" not in memory.metadata:
            continue
        content = named(memory.content, person)
        if content != memory.content:
            store.update(
                memory.id,
                content,
                metadata=naming_metadata(memory.metadata, memory.content, person),
            )
