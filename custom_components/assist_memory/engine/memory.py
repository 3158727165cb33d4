"""MemoryEngine: the store, its search index and retrieval, kept in step.

The store is the source of truth; the index follows every change through the store's
change hook (and resynchronises after a reload), so search never sees a memory the store
does not have. Synchronous and thread-safe; `LocalBackend` runs it off the event loop.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from .embeddings import EmbeddingClient, EmbeddingConfig
from .index import SearchIndex
from .models import Memory
from .retrieval import Retriever
from .scoring import ScoredMemory
from .settings import StoreSettings
from .store import LoadReport, MemoryStore, StoreChange
from .vectors import VectorIndex


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
        embeddings: EmbeddingConfig | None = None,
        use_sqlite_vec: bool = True,
    ) -> None:
        """`embeddings` turns on hybrid search (0.7 vector + 0.3 BM25, seed 000)."""
        self.store = MemoryStore(path, settings)
        self.index = SearchIndex(index_path_for(self.store.path), use_fts=use_fts)
        self.vectors = (
            None
            if embeddings is None
            else VectorIndex(
                self.index,
                EmbeddingClient(embeddings),
                self.store.get_many,
                use_sqlite_vec=use_sqlite_vec,
            )
        )
        self.retriever = Retriever(
            self.index,
            self.store.get_many,
            vectors=None if self.vectors is None else self.vectors.scores,
        )
        self.store.add_change_hook(self._follow_store)
        if self.vectors is not None:
            self.store.add_change_hook(self.vectors.follow)

    @property
    def settings(self) -> StoreSettings:
        """The current limits."""
        return self.store.settings

    def init(self) -> LoadReport:
        """Load the store; the index catches up with it (a full build the first time)."""
        if self.vectors is not None:
            self.store.ensure_folder()
            self.vectors.start()
        return self.store.init()

    def close(self) -> None:
        """Stop the embedding worker, fold the store's journal and close the index."""
        try:
            if self.vectors is not None:
                self.vectors.stop()
            self.store.close()
        finally:
            self.index.close()

    def close_quietly(self) -> None:
        """Release threads and files after a failed init (nothing to fold)."""
        if self.vectors is not None:
            self.vectors.stop()
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
