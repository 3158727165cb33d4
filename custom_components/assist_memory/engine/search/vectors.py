"""Optional vector similarity: embeddings computed in the background.

Adding a memory never waits for an embedding: the store's change hook only queues the
memory, and a worker thread asks the endpoint in batches. Vectors are cached by a hash of
model and text in the index database, so a restart or an unchanged text costs nothing.
Nearest neighbours come from sqlite-vec when its extension loads, otherwise from a plain
in-process search. A deleted memory's vector leaves the cache unless another memory
has the same text. When the endpoint fails, search is BM25 only: one log line, a flag
(`degraded_reason`) for diagnostics, and the worker retries later.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
import hashlib
import logging
import sqlite3
import struct
import threading
from typing import Final, Protocol

from ..storage.models import Memory
from ..storage.store_files import StoreChange
from .embeddings import Embedder, EmbeddingError
from .index import SearchIndex, searchable_text

_LOGGER = logging.getLogger(__name__)

BATCH: Final = 32
RETRY_AFTER: Final = 30.0
_QUERY_CACHE: Final = 256


def content_hash(model: str, text: str) -> str:
    """What an embedding is cached under."""
    return hashlib.sha256(f"{model}\n{text}".encode()).hexdigest()[:32]


def _pack(vector: list[float]) -> bytes:
    return struct.pack(f"{len(vector)}f", *vector)


def _unpack(blob: bytes) -> list[float]:
    return list(struct.unpack(f"{len(blob) // 4}f", blob))


class NearestNeighbours(Protocol):
    """Where vectors are kept for similarity search."""

    name: str

    def put(self, memory_id: str, vector: list[float]) -> None:
        """Add or replace a memory's vector."""

    def remove(self, memory_ids: Iterable[str]) -> None:
        """Forget vectors."""

    def nearest(self, vector: list[float], k: int) -> list[tuple[str, float]]:
        """The k most similar memories with their cosine similarity."""


class InProcessNeighbours:
    """Vectors as the rows of one float32 matrix (numpy), searched with one product.

    A removed row is filled with the last one, and the matrix grows by an eighth, so
    100 000 memories of 384 dimensions take about 160 MB, never twice that.
    """

    name = "in-process"

    def __init__(self) -> None:
        import numpy as np  # the engine's one dependency beyond aiohttp

        self._np = np
        self._slots: dict[str, int] = {}
        self._ids: list[str] = []
        self._matrix = np.zeros((0, 0), dtype=np.float32)

    @property
    def capacity(self) -> int:
        """Rows the matrix holds before it must grow."""
        return len(self._matrix)

    def reserve(self, rows: int, size: int) -> None:
        """Make room for `rows` vectors of `size` at once.

        A start loads them all: growing step by step would copy the matrix many times.
        """
        if not self._ids:
            self._matrix = self._np.zeros((rows, size), dtype=self._np.float32)

    def put(self, memory_id: str, vector: list[float]) -> None:
        """Add or replace a memory's vector."""
        np = self._np
        row = np.asarray(vector, dtype=np.float32)
        row /= float(np.linalg.norm(row)) or 1.0
        if self._matrix.shape[1] != row.size:  # another model's size: start again
            self._slots.clear()
            self._ids.clear()
            self._matrix = np.zeros((0, row.size), dtype=np.float32)
        slot = self._slots.get(memory_id)
        if slot is None:
            slot = len(self._ids)
            if slot == len(self._matrix):
                grown = np.zeros((slot + max(64, slot // 8), row.size), np.float32)
                grown[:slot] = self._matrix[:slot]
                self._matrix = grown
            self._slots[memory_id] = slot
            self._ids.append(memory_id)
        self._matrix[slot] = row

    def remove(self, memory_ids: Iterable[str]) -> None:
        """Forget vectors."""
        for memory_id in memory_ids:
            slot = self._slots.pop(memory_id, None)
            if slot is None:
                continue
            last_id = self._ids.pop()
            if last_id != memory_id:
                self._matrix[slot] = self._matrix[len(self._ids)]
                self._ids[slot] = last_id
                self._slots[last_id] = slot

    def nearest(self, vector: list[float], k: int) -> list[tuple[str, float]]:
        """The k most similar memories with their cosine similarity."""
        np = self._np
        count = len(self._ids)
        if not count or len(vector) != self._matrix.shape[1]:
            return []
        query = np.asarray(vector, dtype=np.float32)
        query /= float(np.linalg.norm(query)) or 1.0
        similarities = self._matrix[:count] @ query
        best = np.arange(count)
        if count > k:
            best = np.argpartition(-similarities, k)[:k]
        best = best[np.argsort(-similarities[best])]
        return [(self._ids[i], float(similarities[i])) for i in best[:k]]


class SqliteVecNeighbours:
    """Vectors in a sqlite-vec table of the index database."""

    name = "sqlite-vec"

    def __init__(self, db: sqlite3.Connection) -> None:
        import sqlite_vec  # type: ignore[import-untyped]  # optional extension

        db.enable_load_extension(True)
        try:
            sqlite_vec.load(db)
        finally:
            db.enable_load_extension(False)
        self._db = db
        row = db.execute("SELECT value FROM meta WHERE key='vector_size'").fetchone()
        self._size = int(row[0]) if row else 0

    def _table_for(self, size: int) -> None:
        if size == self._size:
            return
        self._db.execute("DROP TABLE IF EXISTS memory_vec")
        self._db.execute(
            "CREATE VIRTUAL TABLE memory_vec USING vec0("
            f"id TEXT PRIMARY KEY, embedding float[{int(size)}] distance_metric=cosine)"
        )
        self._db.execute(
            "INSERT OR REPLACE INTO meta VALUES ('vector_size', ?)", (str(size),)
        )
        self._size = size

    def put(self, memory_id: str, vector: list[float]) -> None:
        """Add or replace a memory's vector."""
        self._table_for(len(vector))
        self._db.execute("DELETE FROM memory_vec WHERE id=?", (memory_id,))
        self._db.execute(
            "INSERT INTO memory_vec(id, embedding) VALUES (?, ?)",
            (memory_id, _pack(vector)),
        )

    def remove(self, memory_ids: Iterable[str]) -> None:
        """Forget vectors."""
        if self._size:
            self._db.executemany(
                "DELETE FROM memory_vec WHERE id=?", [(i,) for i in memory_ids]
            )

    def nearest(self, vector: list[float], k: int) -> list[tuple[str, float]]:
        """The k most similar memories with their cosine similarity."""
        if not self._size or len(vector) != self._size:
            return []
        rows = self._db.execute(
            "SELECT id, distance FROM memory_vec WHERE embedding MATCH ? AND k = ?",
            (_pack(vector), k),
        )
        return [(memory_id, 1.0 - float(distance)) for memory_id, distance in rows]


class VectorIndex:
    """Embeddings for memories, kept up to date by a worker thread."""

    def __init__(
        self,
        index: SearchIndex,
        client: Embedder,
        fetch: Callable[[Iterable[str]], dict[str, Memory]],
        *,
        use_sqlite_vec: bool = True,
        retry_after: float = RETRY_AFTER,
    ) -> None:
        self._index = index
        self._client = client
        self._fetch = fetch
        self._use_sqlite_vec = use_sqlite_vec
        self._retry_after = retry_after
        self._model = client.model
        self._pending: dict[str, None] = {}
        self._busy = False
        self._in_flight = 0
        self._total = 0
        self._wake = threading.Condition()
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._neighbours: NearestNeighbours | None = None
        self._query_cache: OrderedDict[str, list[float]] = OrderedDict()
        self.degraded_reason: str | None = None

    @property
    def backend(self) -> str | None:
        """The nearest-neighbour search in use ("sqlite-vec", "in-process")."""
        return None if self._neighbours is None else self._neighbours.name

    def start(self) -> None:
        """Prepare the tables and start the worker thread."""
        with self._index.locked() as db:
            db.execute(
                "CREATE TABLE IF NOT EXISTS embedding_cache(hash TEXT PRIMARY KEY, vector BLOB)"
            )
            db.execute(
                "CREATE TABLE IF NOT EXISTS memory_vectors(id TEXT PRIMARY KEY, hash TEXT)"
            )
            self._forget_other_model(db)
            self._neighbours = self._choose_neighbours(db)
        self._thread = threading.Thread(
            target=self._work, name="assist_memory_embeddings", daemon=True
        )
        self._thread.start()

    def _forget_other_model(self, db: sqlite3.Connection) -> None:
        """Another model's vectors are of no use with this one's questions: drop them.

        Search keeps to the words until the memories are embedded again (the store's
        first change hook finds every memory's vector missing).
        """
        row = db.execute(
            "SELECT value FROM meta WHERE key='embedding_model'"
        ).fetchone()
        if row is not None and row[0] != self._model:
            db.execute("DELETE FROM memory_vectors")
            db.execute("DELETE FROM embedding_cache")
            # sqlite-vec's table is dropped at the first new vector (it needs the
            # extension); without its size it is not searched meanwhile.
            db.execute("DELETE FROM meta WHERE key='vector_size'")
            _LOGGER.info("The embedding model changed: memories are embedded again")
        db.execute(
            "INSERT OR REPLACE INTO meta VALUES ('embedding_model', ?)", (self._model,)
        )

    def _choose_neighbours(self, db: sqlite3.Connection) -> NearestNeighbours:
        if self._use_sqlite_vec:
            try:
                return SqliteVecNeighbours(db)
            except (ImportError, AttributeError, sqlite3.Error) as err:
                _LOGGER.info(
                    "sqlite-vec is not available (%s); using in-process search", err
                )
        neighbours = InProcessNeighbours()
        (count,) = db.execute("SELECT count(*) FROM memory_vectors").fetchone()
        rows = db.execute(
            "SELECT v.id, c.vector FROM memory_vectors v JOIN embedding_cache c"
            " ON c.hash = v.hash"
        )
        for memory_id, blob in rows:
            if not neighbours.capacity:  # the first vector gives the size
                neighbours.reserve(count, len(blob) // 4)
            neighbours.put(memory_id, _unpack(blob))
        return neighbours

    def stop(self) -> None:
        """Stop the worker (pending memories are embedded at the next start)."""
        with self._wake:
            self._stopping = True
            self._wake.notify_all()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    # -- following the store ---------------------------------------------------

    def follow(self, change: StoreChange, records: Mapping[str, Memory]) -> None:
        """Queue what needs an embedding (never waits for the endpoint)."""
        self._total = len(records)
        if change.reloaded:
            with self._index.locked() as db:
                known = dict(db.execute("SELECT id, hash FROM memory_vectors"))
                gone = [memory_id for memory_id in known if memory_id not in records]
                self._forget(db, gone)
            wanted = [
                m.id
                for m in records.values()
                if known.get(m.id) != content_hash(self._model, searchable_text(m))
            ]
        else:
            with self._index.locked() as db:
                self._forget(db, change.deleted)
            wanted = [m.id for m in change.upserted]
        if wanted:
            with self._wake:
                self._pending.update(dict.fromkeys(wanted))
                self._wake.notify_all()

    def _forget(self, db: sqlite3.Connection, memory_ids: Iterable[str]) -> None:
        """Drop the memories' vectors, and their cached ones no other memory uses."""
        ids = list(memory_ids)
        if not ids or self._neighbours is None:
            return
        hashes = {
            digest
            for memory_id in ids
            for (digest,) in db.execute(
                "SELECT hash FROM memory_vectors WHERE id=?", (memory_id,)
            )
        }
        db.executemany("DELETE FROM memory_vectors WHERE id=?", [(i,) for i in ids])
        db.executemany(
            "DELETE FROM embedding_cache WHERE hash=?"
            " AND NOT EXISTS (SELECT 1 FROM memory_vectors v WHERE v.hash=?)",
            [(digest, digest) for digest in hashes],
        )
        self._neighbours.remove(ids)
        if hashes:
            self._index.truncate_log()

    def progress(self) -> tuple[int, int]:
        """(memories with their vector, memories): "Understanding memories: 1 234 of 5 000"."""
        with self._wake:
            waiting = len(self._pending) + self._in_flight
        return max(self._total - waiting, 0), self._total

    def wait_until_idle(self, timeout: float) -> bool:
        """True once nothing is queued or being embedded (for tools and tests)."""
        with self._wake:
            return self._wake.wait_for(
                lambda: (not self._pending and not self._busy) or self._stopping,
                timeout,
            )

    def _work(self) -> None:
        try:
            self._client.warm_up()
        except EmbeddingError as err:
            self._degrade(err)
        while True:
            with self._wake:
                self._wake.wait_for(lambda: bool(self._pending) or self._stopping)
                if self._stopping:
                    return
                batch = list(self._pending)[:BATCH]
                for memory_id in batch:
                    del self._pending[memory_id]
                self._busy = True
                self._in_flight = len(batch)
            try:
                self._embed_batch(batch)
            except EmbeddingError as err:
                self._degrade(err)
                with self._wake:
                    self._pending.update(dict.fromkeys(batch))
                    self._busy = False
                    self._in_flight = 0
                    self._wake.notify_all()
                    # Retry later, or as soon as a query shows the endpoint is back.
                    self._wake.wait_for(
                        lambda: self._stopping or self.degraded_reason is None,
                        self._retry_after,
                    )
                continue
            except Exception:  # pragma: no cover - keep the worker alive
                _LOGGER.exception("Embedding memories failed")
            with self._wake:
                self._busy = False
                self._in_flight = 0
                self._wake.notify_all()

    def _embed_batch(self, batch: list[str]) -> None:
        memories = self._fetch(batch)
        texts = {i: searchable_text(m) for i, m in memories.items()}
        hashes = {i: content_hash(self._model, t) for i, t in texts.items()}
        with self._index.locked() as db:
            cached = {
                digest: _unpack(blob)
                for digest in set(hashes.values())
                for (blob,) in db.execute(
                    "SELECT vector FROM embedding_cache WHERE hash=?", (digest,)
                )
            }
        missing = [i for i in texts if hashes[i] not in cached]
        if missing:
            fresh = self._client.embed([texts[i] for i in missing])
            cached.update({hashes[i]: v for i, v in zip(missing, fresh, strict=True)})
        neighbours = self._neighbours
        if neighbours is None:  # pragma: no cover - the worker starts after it is set
            return
        with self._index.locked() as db:
            db.execute("BEGIN IMMEDIATE")
            for memory_id, digest in hashes.items():
                db.execute(
                    "INSERT OR IGNORE INTO embedding_cache VALUES (?, ?)",
                    (digest, _pack(cached[digest])),
                )
                db.execute(
                    "INSERT OR REPLACE INTO memory_vectors VALUES (?, ?)",
                    (memory_id, digest),
                )
                neighbours.put(memory_id, cached[digest])
            db.execute("COMMIT")
        self._recovered()

    # -- searching -------------------------------------------------------------

    def scores(self, text: str, k: int) -> dict[str, float]:
        """Cosine similarity of the k nearest memories to the text ({} when unavailable)."""
        if self._neighbours is None:
            return {}
        vector = self._query_cache.get(text)
        if vector is None:
            try:
                vector = self._client.embed_query(text)
            except EmbeddingError as err:
                self._degrade(err)
                return {}
            self._recovered()
            self._query_cache[text] = vector
            if len(self._query_cache) > _QUERY_CACHE:
                self._query_cache.popitem(last=False)
        with self._index.locked():
            return dict(self._neighbours.nearest(vector, k))

    def _degrade(self, err: EmbeddingError) -> None:
        # The worker and a search may fail at the same moment: log once.
        with self._wake:
            first = self.degraded_reason is None
            self.degraded_reason = err.message
        if first:
            _LOGGER.warning("Search uses BM25 only, embeddings failed: %s", err.message)

    def _recovered(self) -> None:
        with self._wake:
            was_degraded = self.degraded_reason is not None
            self.degraded_reason = None
            self._wake.notify_all()
        if was_degraded:
            _LOGGER.info("Embeddings work again; search is hybrid")
