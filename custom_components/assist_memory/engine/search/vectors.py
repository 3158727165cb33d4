"""Optional vector similarity: embeddings computed in the background.

Adding a memory never waits for an embedding: the store's change hook only queues the
memory, and a worker thread asks the endpoint in batches. Vectors are cached by a hash of
model and text in the index database, so a restart or an unchanged text costs nothing.
Nearest neighbours come from one matrix in the process, read per writing system
(`neighbours.py`). A deleted memory's vector leaves the cache unless another memory
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
from typing import Final

import numpy as np

from ..model.centres import load_centres
from ..model.embeddings import Embedder, EmbeddingError
from ..storage.models import Memory
from ..storage.store_files import StoreChange
from .background import BACKGROUND
from .index import SearchIndex, searchable_text
from .nearness import Nearness
from .neighbours import Neighbours, spoken_system, writing_systems

_LOGGER = logging.getLogger(__name__)

BATCH: Final = 32
RETRY_AFTER: Final = 30.0
_QUERY_CACHE: Final = 256
# The background sentences' vectors by model, once read or embedded in a process.
_background_vectors: dict[str, list[list[float]]] = {}


def content_hash(model: str, text: str) -> str:
    """What an embedding is cached under."""
    return hashlib.sha256(f"{model}\n{text}".encode()).hexdigest()[:32]


def _pack(vector: list[float]) -> bytes:
    return struct.pack(f"{len(vector)}f", *vector)


def _unpack(blob: bytes) -> list[float]:
    return list(struct.unpack(f"{len(blob) // 4}f", blob))


class VectorIndex:
    """Embeddings for memories, kept up to date by a worker thread."""

    def __init__(
        self,
        index: SearchIndex,
        client: Embedder,
        fetch: Callable[[Iterable[str]], dict[str, Memory]],
        *,
        retry_after: float = RETRY_AFTER,
    ) -> None:
        self._index = index
        self._client = client
        self._fetch = fetch
        self._retry_after = retry_after
        self._model = client.model
        self._pending: dict[str, None] = {}
        self._busy = False
        self._in_flight = 0
        self._total = 0
        self._wake = threading.Condition()
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._neighbours: Neighbours | None = None
        self._loaded = False
        self._background_ready = False
        self._query_cache: OrderedDict[str, list[float]] = OrderedDict()
        self.degraded_reason: str | None = None

    def nearness(self, text: str, others: list[str]) -> float | None:
        """The cosine of `text` to the nearest of `others` by the model, or None.

        None when there is nothing to compare or the model cannot answer now.
        """
        if not others:
            return None
        try:
            vectors = self._client.embed([text, *others])
        except EmbeddingError:
            return None
        matrix = np.asarray(vectors, dtype=np.float32)
        matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
        return float(np.max(matrix[1:] @ matrix[0]))

    @property
    def model(self) -> str:
        """The embedding model's name (and version, for the local model)."""
        return self._model

    @property
    def backend(self) -> str | None:
        """The nearest-neighbour search in use ("in-process")."""
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
            self._neighbours = Neighbours(load_centres(self._model))
            self._background_from_cache(db)
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
            _LOGGER.info("The embedding model changed: memories are embedded again")
        db.execute(
            "INSERT OR REPLACE INTO meta VALUES ('embedding_model', ?)", (self._model,)
        )

    def _load_vectors(
        self, db: sqlite3.Connection, records: Mapping[str, Memory]
    ) -> None:
        """Every stored vector of a memory, with its writing system (the first load)."""
        if self._neighbours is None:  # pragma: no cover - started first
            return
        (count,) = db.execute("SELECT count(*) FROM memory_vectors").fetchone()
        rows = db.execute(
            "SELECT v.id, c.vector FROM memory_vectors v JOIN embedding_cache c"
            " ON c.hash = v.hash"
        )
        for memory_id, blob in rows:
            memory = records.get(memory_id)
            if memory is None:  # deleted while nothing ran: forgotten just after
                continue
            if not self._neighbours.capacity:  # the first vector gives the size
                self._neighbours.reserve(count, len(blob) // 4)
            systems = writing_systems(memory.content)
            # Straight from the bytes, without a list of Python floats per memory.
            vector = np.frombuffer(blob, dtype=np.float32)
            self._neighbours.put(memory_id, vector, systems)
        self._loaded = True

    def stop(self) -> None:
        """Stop the worker (pending memories are embedded at the next start)."""
        with self._wake:
            self._stopping = True
            self._wake.notify_all()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self._neighbours is not None:
            with self._index.locked():  # no search is reading the vectors
                self._neighbours.close()

    # -- following the store ---------------------------------------------------

    def follow(self, change: StoreChange, records: Mapping[str, Memory]) -> None:
        """Queue what needs an embedding (never waits for the endpoint)."""
        self._total = len(records)
        if change.reloaded:
            with self._index.locked() as db:
                if not self._loaded:
                    self._load_vectors(db, records)
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
            self._ensure_background()
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
                self._ensure_background()
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

    def _background_from_cache(self, db: sqlite3.Connection) -> None:
        """The background sentences' vectors this process or the index already has.

        At a restart they are there before the first question: a small household's
        search by meaning has its floor at once.
        """
        vectors = _background_vectors.get(self._model)
        if vectors is None:
            hashes = [content_hash(self._model, text) for text in BACKGROUND]
            stored = {
                digest: _unpack(blob)
                for digest in hashes
                for (blob,) in db.execute(
                    "SELECT vector FROM embedding_cache WHERE hash=?", (digest,)
                )
            }
            if len(stored) < len(hashes):
                return
            vectors = [stored[digest] for digest in hashes]
            _background_vectors[self._model] = vectors
        if self._neighbours is not None:
            self._neighbours.set_background(vectors, BACKGROUND)
            self._background_ready = True

    def _ensure_background(self) -> None:
        """Embed the background sentences (`background.py`) unless they are known."""
        if self._background_ready or self._neighbours is None:
            return
        # In batches as memories are: a model's working memory grows with its batch.
        vectors = [
            vector
            for start in range(0, len(BACKGROUND), BATCH)
            for vector in self._client.embed(list(BACKGROUND[start : start + BATCH]))
        ]
        with self._index.locked() as db:
            db.executemany(
                "INSERT OR IGNORE INTO embedding_cache VALUES (?, ?)",
                [
                    (content_hash(self._model, text), _pack(vector))
                    for text, vector in zip(BACKGROUND, vectors, strict=True)
                ],
            )
            _background_vectors[self._model] = vectors  # not read back from the file
            self._background_from_cache(db)

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
            try:
                for memory_id, digest in hashes.items():
                    db.execute(
                        "INSERT OR IGNORE INTO embedding_cache VALUES (?, ?)",
                        (digest, _pack(cached[digest])),
                    )
                    db.execute(
                        "INSERT OR REPLACE INTO memory_vectors VALUES (?, ?)",
                        (memory_id, digest),
                    )
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
            for memory_id, digest in hashes.items():
                systems = writing_systems(memories[memory_id].content)
                neighbours.put(memory_id, cached[digest], systems)
        self._recovered()

    # -- searching -------------------------------------------------------------

    def scores(
        self, text: str, k: int, also: Iterable[str] = ()
    ) -> dict[str, Nearness]:
        """The k memories nearest to the text, best first ({} when unavailable).

        Then the nearness of the memories of `also` (found by words).
        """
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
            return self._neighbours.nearest(vector, k, spoken_system(text), also)

    def same_fact(self, first: str, second: str) -> bool:
        """Whether two memories in different languages say the same thing.

        `Neighbours.same_fact`; False until both have their vectors.
        """
        if self._neighbours is None:
            return False
        with self._index.locked():
            return self._neighbours.same_fact(first, second)

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
