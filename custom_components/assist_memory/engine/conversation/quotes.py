"""A memory's quote of what was said, dropped when the message is gone.

A learned memory keeps the sentence it came from (`language/provenance.py`). It may
outlive its conversation: when the conversation is deleted, or its messages pass
their retention, the memory stays and its quote goes.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..storage.models import Memory
from ..storage.store import MemoryStore
from .conversation_log import ConversationLog
from .conversation_records import EVERYONE, Speaker


def forget_quotes(store: MemoryStore, session_id: str, owner: Speaker) -> int:
    """Memories learned in a deleted conversation (`owner`'s part) stop quoting it."""
    return _unquote(
        store,
        (
            memory
            for memory in store.get_all()
            if memory.session_id == session_id
            and "said" in memory.metadata
            and (owner is EVERYONE or memory.metadata.get("speaker") == owner)
        ),
    )


def forget_expired_quotes(store: MemoryStore, log: ConversationLog) -> int:
    """Memories whose quoted message is gone stop quoting it; how many changed."""
    quoting = [
        memory
        for memory in store.get_all()
        if "said" in memory.metadata
        and isinstance(memory.metadata.get("message_id"), int)
    ]
    if not quoting:
        return 0
    kept = log.existing_messages(m.metadata["message_id"] for m in quoting)
    return _unquote(store, (m for m in quoting if m.metadata["message_id"] not in kept))


def _unquote(store: MemoryStore, memories: Iterable[Memory]) -> int:
    """Rewrite memories without their quote; how many.

    An import keeps ids and times, and the old text leaves the files.
    """
    unquoted = [
        {
            **memory.to_dict(),
            "metadata": {
                k: v
                for k, v in memory.metadata.items()
                if k not in ("said", "message_id")
            },
        }
        for memory in memories
    ]
    if unquoted:
        store.import_(unquoted, mode="merge")
    return len(unquoted)
