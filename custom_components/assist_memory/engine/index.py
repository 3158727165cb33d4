"""The search index: SQLite FTS5 (BM25) over the store's memories, derived and rebuildable.

It lives beside the store (`memories.index.db`) so a restart only reconciles what changed
(`sync` compares each memory's `updated_at`); deleting the file just causes a rebuild. The
store stays the source of truth: the index holds ids, scopes, categories and search terms.

When FTS5 is missing from the SQLite build or a query fails, matching falls back to SQL
LIKE with a keyword-count score (seed 002), logged once, never an error.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import closing, contextmanager, suppress
from dataclasses import dataclass
import logging
from pathlib import Path
import sqlite3
import threading
from typing import Final

from .keywords import Keywords, extract_keywords, index_terms, light_stem, normalize
from .models import Memory

_LOGGER = logging.getLogger(__name__)

# Raise when the terms stored for a text change, so old indexes are rebuilt.
TOKENIZER_VERSION: Final = "1"
FTS_TOKENIZER: Final = "porter unicode61 remove_diacritics 2"
_MAX_QUERY_TERMS: Final = 64
# SQLite refuses LIKE patterns over 50 000 bytes; no stored word is this long anyway.
_MAX_LIKE_TERM_CHARS: Final = 1000


@dataclass(frozen=True, slots=True)
class Candidate:
    """A memory that matched, with its raw keyword score (higher is better)."""

    memory_id: str
    keyword_score: float


@dataclass(frozen=True, slots=True)
class SyncResult:
    """What a sync changed."""

    added: int
    updated: int
    removed: int


def fts_query(terms: Sequence[str], prefixes: Sequence[str]) -> str:
    """An FTS5 expression matching any term: every term quoted, so nothing is syntax."""
    quoted = [f'"{term.replace('"', '""')}"' for term in terms[:_MAX_QUERY_TERMS]]
    quoted += [f'"{p.replace('"', '""')}"*' for p in prefixes[:_MAX_QUERY_TERMS]]
    return " OR ".join(quoted)


def like_terms(keywords: Keywords) -> list[str]:
    """Fragments for LIKE matching: stemmed words, prefixes, Chinese pairs."""
    terms = [light_stem(word) for word in keywords.words]
    terms += list(keywords.prefixes)
    for piece in keywords.chinese:
        terms += (
            [piece]
            if len(piece) <= 2
            else [piece[i : i + 2] for i in range(len(piece) - 1)]
        )
    terms = [term[:_MAX_LIKE_TERM_CHARS] for term in terms]
    return list(dict.fromkeys(terms))[:_MAX_QUERY_TERMS]


class SearchIndex:
    """FTS5 index of memories, safe to use from several threads (one at a time)."""

    def __init__(self, path: Path | None, *, use_fts: bool = True) -> None:
        """`path` None keeps the index in memory."""
        self.path = path
        self._want_fts = use_fts
        self.fts_available = False
        self.fallback_reason: str | None = None
        self._lock = threading.RLock()
        self._db: sqlite3.Connection | None = None

    # -- lifecycle -------------------------------------------------------------

    def open(self) -> sqlite3.Connection:
        """Open (or create, or rebuild after damage) the index database."""
        with self._lock:
            if self._db is None:
                try:
                    self._db = self._connect()
                except sqlite3.DatabaseError as err:
                    # A damaged derived file: throw it away and build a new one.
                    _LOGGER.warning("Rebuilding the search index (%s)", err)
                    self._remove_files()
                    self._db = self._connect()
            return self._db

    def _connect(self) -> sqlite3.Connection:
        target = ":memory:" if self.path is None else str(self.path)
        db = sqlite3.connect(target, check_same_thread=False, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            # Derived data: losing the last changes in a power cut only means a resync.
            db.execute("PRAGMA synchronous=OFF")
            db.execute(
                "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT)"
            )
            version = db.execute(
                "SELECT value FROM meta WHERE key='tokenizer'"
            ).fetchone()
            if version is None or version[0] != TOKENIZER_VERSION:
                db.execute("DROP TABLE IF EXISTS docs")
                db.execute("DROP TABLE IF EXISTS fts")
            db.execute(
                "CREATE TABLE IF NOT EXISTS docs("
                "rowid INTEGER PRIMARY KEY, id TEXT UNIQUE NOT NULL, version TEXT NOT NULL,"
                " scope TEXT NOT NULL, category TEXT NOT NULL, text TEXT NOT NULL)"
            )
            self.fts_available = self._want_fts and self._create_fts(db)
            if not self._want_fts:
                self._fall_back("full-text search is turned off")
            db.execute(
                "INSERT OR REPLACE INTO meta VALUES ('tokenizer', ?)",
                (TOKENIZER_VERSION,),
            )
        except BaseException:
            db.close()
            raise
        return db

    def _create_fts(self, db: sqlite3.Connection) -> bool:
        try:
            db.execute(
                "CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5("
                f"terms, tokenize='{FTS_TOKENIZER}')"
            )
        except sqlite3.OperationalError as err:
            self._fall_back(f"FTS5 is not available: {err}")
            return False
        return True

    def _fall_back(self, reason: str) -> None:
        if self.fallback_reason is None:
            _LOGGER.warning("Search uses LIKE matching: %s", reason)
        self.fallback_reason = reason

    def _remove_files(self) -> None:
        if self.path is None:
            return
        for suffix in ("", "-wal", "-shm"):
            with suppress(FileNotFoundError):
                Path(f"{self.path}{suffix}").unlink()

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    @contextmanager
    def locked(self) -> Iterator[sqlite3.Connection]:
        """The connection, for one piece of work no other thread interleaves with."""
        with self._lock:
            yield self.db

    @property
    def db(self) -> sqlite3.Connection:
        """The open connection (opening it on first use)."""
        return self._db if self._db is not None else self.open()

    # -- keeping in step with the store --------------------------------------

    def sync(self, memories: Mapping[str, Memory]) -> SyncResult:
        """Make the index match `memories` (by id and `updated_at`)."""
        with self._lock:
            indexed = dict(self.db.execute("SELECT id, version FROM docs"))
            changed = [
                m for m in memories.values() if indexed.get(m.id) != m.updated_at
            ]
            gone = [memory_id for memory_id in indexed if memory_id not in memories]
            added = sum(1 for m in changed if m.id not in indexed)
            self._apply(changed, gone)
            return SyncResult(
                added=added, updated=len(changed) - added, removed=len(gone)
            )

    def upsert(self, memories: Iterable[Memory]) -> None:
        """Index new or changed memories."""
        with self._lock:
            self._apply(list(memories), [])

    def remove(self, memory_ids: Iterable[str]) -> None:
        """Forget memories."""
        with self._lock:
            self._apply([], list(memory_ids))

    def rebuild(self, memories: Mapping[str, Memory]) -> None:
        """Throw the index away and build it again."""
        with self._lock:
            db = self.db
            db.execute("BEGIN")
            db.execute("DELETE FROM docs")
            if self.fts_available:
                db.execute("DELETE FROM fts")
            db.execute("COMMIT")
            self._apply(list(memories.values()), [])

    def _apply(self, upserts: Sequence[Memory], removals: Sequence[str]) -> None:
        if not upserts and not removals:
            return
        db = self.db
        db.execute("BEGIN")
        try:
            for memory_id in [*removals, *(m.id for m in upserts)]:
                row = db.execute(
                    "SELECT rowid FROM docs WHERE id=?", (memory_id,)
                ).fetchone()
                if row is not None:
                    db.execute("DELETE FROM docs WHERE rowid=?", row)
                    if self.fts_available:
                        db.execute("DELETE FROM fts WHERE rowid=?", row)
            for memory in upserts:
                cursor = db.execute(
                    "INSERT INTO docs(id, version, scope, category, text) VALUES (?,?,?,?,?)",
                    (
                        memory.id,
                        memory.updated_at,
                        memory.scope,
                        memory.category,
                        normalize(searchable_text(memory)),
                    ),
                )
                if self.fts_available:
                    terms = index_terms(extract_keywords(searchable_text(memory)))
                    db.execute(
                        "INSERT INTO fts(rowid, terms) VALUES (?, ?)",
                        (cursor.lastrowid, " ".join(terms)),
                    )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def count(self) -> int:
        """Number of indexed memories."""
        with self._lock:
            row = self.db.execute("SELECT count(*) FROM docs").fetchone()
            return int(row[0])

    # -- matching -------------------------------------------------------------

    def match(
        self, keywords: Keywords, *, limit: int, scopes: Sequence[str] | None = None
    ) -> list[Candidate]:
        """The best `limit` memories for the keywords, by BM25 (or LIKE on fallback)."""
        terms = index_terms(keywords)
        if not terms and not keywords.prefixes:
            return []
        with self._lock:
            if self.fts_available:
                try:
                    return self._match_fts(terms, keywords.prefixes, limit, scopes)
                except sqlite3.Error as err:
                    self._fall_back(f"the full-text query failed: {err}")
                    # Stop writing to a broken FTS table (every change would fail
                    # and the index fall behind); the next open rebuilds it.
                    self.fts_available = False
                    with suppress(sqlite3.Error):
                        self.db.execute("DELETE FROM meta WHERE key='tokenizer'")
            return self._match_like(keywords, limit, scopes)

    def _match_fts(
        self,
        terms: Sequence[str],
        prefixes: Sequence[str],
        limit: int,
        scopes: Sequence[str] | None,
    ) -> list[Candidate]:
        scope_sql, scope_args = _scope_filter(scopes)
        # Only placeholders are formatted in; every value is a bound parameter.
        sql = (
            "SELECT d.id, -bm25(fts) AS score FROM fts JOIN docs d ON d.rowid = fts.rowid"  # noqa: S608
            f" WHERE fts MATCH ?{scope_sql} ORDER BY bm25(fts) LIMIT ?"
        )
        rows = self.db.execute(sql, (fts_query(terms, prefixes), *scope_args, limit))
        return [Candidate(memory_id, float(score)) for memory_id, score in rows]

    def _match_like(
        self, keywords: Keywords, limit: int, scopes: Sequence[str] | None
    ) -> list[Candidate]:
        """Seed 002's fallback: score = how many keywords the text contains."""
        terms = like_terms(keywords)
        if not terms:
            return []
        hits = " + ".join("(d.text LIKE ? ESCAPE '\\')" for _ in terms)
        patterns = [f"%{_escape_like(term)}%" for term in terms]
        scope_sql, scope_args = _scope_filter(scopes)
        sql = (
            f"SELECT id, score FROM (SELECT d.id AS id, ({hits}) AS score FROM docs d"  # noqa: S608
            f" WHERE 1{scope_sql}) WHERE score > 0 ORDER BY score DESC LIMIT ?"
        )
        with closing(self.db.execute(sql, (*patterns, *scope_args, limit))) as rows:
            return [
                Candidate(memory_id, float(score) / len(terms))
                for memory_id, score in rows
            ]


def searchable_text(memory: Memory) -> str:
    """What a memory is found by: its content, key and tags."""
    return " ".join(part for part in (memory.content, memory.key, *memory.tags) if part)


def _scope_filter(scopes: Sequence[str] | None) -> tuple[str, list[str]]:
    if scopes is None:
        return "", []
    return f" AND d.scope IN ({','.join('?' * len(scopes))})", list(scopes)


def _escape_like(term: str) -> str:
    return term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
