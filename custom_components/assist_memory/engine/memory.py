"""MemoryEngine: the store, its search index and retrieval, kept in step.

The store is the source of truth; the index follows every change through the store's
change hook (and resynchronises after a reload), so search never sees a memory the store
does not have. Synchronous and thread-safe; `LocalBackend` runs it off the event loop.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from .index import SearchIndex
from .models import Memory
from .retrieval import Retriever
from .scoring import ScoredMemory
from .settings import StoreSettings
from .store import LoadReport, MemoryStore, StoreChange


def index_path_for(store_path: Path) -> Path:
    """The index file beside the store: memories.json -> memories.index.db."""
    return store_path.with_suffix(".index.db")


class MemoryEngine:
    """Everything that answers "what do we remember about this?"."""

    def __init__(
        self,
        path: Path,
        settings: StoreSettings | None = None,
        *,
        use_fts: bool = True,
    ) -> None:
        self.store = MemoryStore(path, settings)
        self.index = SearchIndex(index_path_for(self.store.path), use_fts=use_fts)
        self.retriever = Retriever(self.index, self.store.get_many)
        self.store.add_change_hook(self._follow_store)

    @property
    def settings(self) -> StoreSettings:
        """The current limits."""
        return self.store.settings

    def init(self) -> LoadReport:
        """Load the store; the index catches up with it (a full build the first time)."""
        return self.store.init()

    def close(self) -> None:
        """Fold the store's journal and close the index."""
        try:
            self.store.close()
        finally:
            self.index.close()

    def _follow_store(self, change: StoreChange, records: Mapping[str, Memory]) -> None:
        if change.reloaded:
            self.index.sync(records)
            return
        self.index.remove(change.deleted)
        self.index.upsert(change.upserted)

    def search(
        self,
        query: str,
        *,
        limit: int | None = None,
        scopes: Sequence[str] | None = None,
        topic: str | None = None,
        record_access: bool = False,
    ) -> list[ScoredMemory]:
        """Ranked memories for a message (seed 002), best first.

        `record_access` is for memories that go into a prompt: it updates their
        `last_accessed` and `access_count`. A person searching leaves them alone.
        """
        self.store.refresh()
        results = self.retriever.retrieve(
            query,
            limit=limit or self.settings.retrieval_limit,
            scopes=scopes,
            topic=topic,
        )
        if record_access and results:
            self.store.record_access(r.memory.id for r in results)
        return results

    def reindex(self) -> int:
        """Rebuild the search index from the store; returns how many memories it holds."""
        with self.store.locked_records() as records:
            self.index.rebuild(records)
            return len(records)
