"""Forgetting: memories a person deletes leave no trace in any file of the data folder.

`forget` (delete) and `forget_all` (clear) are how every host removes memories for a
person. Before they return the memories are out of:
- the store's files (`memories.json`, `memories.journal`: the store erases them);
- the search index and the vector cache (`memories.index.db`: SQLite secure delete,
  the write-ahead log truncated);
- MEMORY.md, its lines changed (the rest is not rendered again), after a hand edit
  not applied yet is applied (it shows the memory too; an edit that cannot be applied
  is kept aside, see below);
- the daily-log lines that repeat them;
- the compaction backups (`compactions/`, those set aside as interrupted too), so
  undoing a compaction cannot bring them back; clearing removes the backups;
- the MEMORY.md edits kept aside (`MEMORY.rejected-<time>.md`): their lines holding
  the memories go; clearing removes them.

Undoing a compaction needs nothing more: it writes a new snapshot, and the index
erases what it replaced. Memories a compaction merges away stay in its backup until
the backup is pruned; that is what undo needs.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from datetime import UTC, datetime, timedelta

from .compaction import backup_folder, forget_in_backups
from .memory_engine import MemoryEngine


def forget(engine: MemoryEngine, memory_ids: Iterable[str]) -> list[str]:
    """Delete memories and every copy of their text; the ids that were there."""
    gone: list[str] = []
    texts: list[str] = []
    for memory_id in dict.fromkeys(memory_ids):
        memory = engine.store.get(memory_id)
        if memory is not None and engine.store.delete(memory_id):
            gone.append(memory_id)
            texts.append(memory.content)
    if gone:
        _erase_copies(engine, texts, gone)
    return gone


def forget_ended(engine: MemoryEngine, kept_days: int, now: datetime) -> list[str]:
    """Forget the memories that ended more than `kept_days` days before `now`.

    Until then the memory manager shows them as ended; then they go as a forgotten
    memory goes, every copy of their text with them.
    """
    cutoff = (now - timedelta(days=kept_days)).astimezone(UTC).isoformat()
    ended = [memory.id for memory in engine.store.get_all() if memory.has_ended(cutoff)]
    return forget(engine, ended) if ended else []


def forget_all(engine: MemoryEngine) -> int:
    """Delete every memory and every copy of their text; how many there were."""
    texts = [memory.content for memory in engine.store.get_all()]
    removed = engine.store.clear()
    if removed:
        _erase_copies(engine, texts, None)
    return removed


def _erase_copies(
    engine: MemoryEngine, texts: list[str], memory_ids: Collection[str] | None
) -> None:
    if engine.mirror.outside_change() is not None:
        engine.reconcile_markdown()  # never written over, and it holds the memory too
    engine.flush()  # the index (and vector cache) and MEMORY.md
    engine.daily_log.forget(texts)
    forget_in_backups(backup_folder(engine.store.path), memory_ids)
    engine.mirror.forget_in_rejected(texts if memory_ids is not None else None)
