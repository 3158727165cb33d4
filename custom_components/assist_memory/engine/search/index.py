"""The search index: SQLite FTS5 (BM25) over the store's memories, derived and rebuildable.

It lives beside the store (`memories.index.db`) so a restart only reconciles what changed
(`sync` compares each memory's `updated_at`); deleting the file just causes a rebuild. The
store stays the source of truth: the index holds ids, scopes, categories and search terms.
The keywords' terms are one full-text table; the secondary terms (`secondary_terms`:
what the keywords drop but still tells memories apart) another, with the same row
numbers, so they never change the keywords' BM25.

When FTS5 is missing from the SQLite build or a query fails, matching falls back to SQL
LIKE with a keyword-count score, logged once, never an error.

A removed memory leaves no trace in the file: SQLite overwrites deleted content
(`secure_delete`), FTS5 takes its terms out of the index segments (its `secure-delete`
option, SQLite 3.42 or newer) and the write-ahead log is truncated after every batch
that removed or replaced a memory's text. A file from before this was erased once when it is opened (its
full-text index rebuilt, then VACUUM).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import closing, contextmanager, suppress
from dataclasses import dataclass, replace
import logging
from pathlib import Path
import sqlite3
import threading
from typing import Final

from ..errors import StorageError
from ..language.keywords import (
    Keywords,
    cjk_pairs,
    extract_keywords,
    index_terms,
    light_stem,
    merge_keywords,
    normalize,
    query_terms,
    secondary_terms,
)
from ..storage.durable import create_private_file
from ..storage.models import Memory

_LOGGER = logging.getLogger(__name__)

# Raise when the terms stored for a text (or what a row's number means) change, so
# old indexes are rebuilt.
TOKENIZER_VERSION: Final = "5"
FTS_TOKENIZER: Final = "porter unicode61 remove_diacritics 2"
# How much the secondary terms' BM25 (`secondary_terms`, over a table of their own, so
# the keywords' BM25 stays as it was) adds to a match's keywords' BM25. They never
# count in the keyword coverage, the other half of the keyword score, so they order
# matches and bring in the one memory holding them without outweighing a keyword.
# (0.3 and 0.6 were tried: 1.0 is at least as good on every labelled set.)
SECONDARY_WEIGHT: Final = 1.0
_MAX_QUERY_TERMS: Final = 64
# A term in more memories than this is "common": it is only searched in pairs.
COMMON_TERM_DOCS: Final = 300
# How many rows the secondary terms of a query may rank, at most (rarest first; 1 000
# found no more at 100 000 memories and cost a millisecond more).
SECONDARY_TERM_ROWS: Final = COMMON_TERM_DOCS
# A query of one common term alone ranks only its shortest matches, this many.
COMMON_WORD_ROWS: Final = 2000
# A term in more memories than this is "very common" (a first name in a quarter of
# them): beside a rare term it is searched only with the rare ones, never paired with
# another common term (those pairs ranked thousands of rows sharing no rare word).
VERY_COMMON_TERM_DOCS: Final = COMMON_WORD_ROWS
# A row's number: its text's length in terms, then newest first (see `_row_number`).
_LENGTH_SHIFT: Final = 32
_MAX_LENGTH: Final = 1 << 24
# A term of the conversation's topic brings candidates of its own only when it is
# this distinctive; otherwise it only boosts what the message finds (and costs nothing).
CONTEXT_TERM_DOCS: Final = 50
_MAX_PAIRED_TERMS: Final = 5
# How many rows the optional phrases of a query may add to its ranking, at most.
OPTIONAL_TERM_ROWS: Final = 300
_DOCUMENT_COUNT_CACHE: Final = 20_000
# The meta row saying deleted content never stays in this file (see the docstring).
_ERASES: Final = "erases_deleted"
# SQLite refuses LIKE patterns over 50 000 bytes; no stored word is this long anyway.
_MAX_LIKE_TERM_CHARS: Final = 1000


@dataclass(frozen=True, slots=True)
class Candidate:
    """A memory that matched, with its raw keyword score (higher is better)."""

    memory_id: str
    keyword_score: float
    # The terms the full-text index stored for it (`stored_terms`); None from the
    # LIKE fallback.
    terms: str | None = None
    # Its row in the full-text tables (0 from the LIKE fallback).
    row: int = 0


@dataclass(frozen=True, slots=True)
class SyncResult:
    """What a sync changed."""

    added: int
    updated: int
    removed: int


def fts_phrases(terms: Sequence[str], prefixes: Sequence[str]) -> list[str]:
    """Every term as an FTS5 phrase: quoted, so nothing in user text is syntax."""
    phrases = [f'"{term.replace('"', '""')}"' for term in terms[:_MAX_QUERY_TERMS]]
    phrases += [f'"{p.replace('"', '""')}"*' for p in prefixes[:_MAX_QUERY_TERMS]]
    return phrases


def _any_of(*expressions: str) -> str:
    """FTS5 expressions joined by OR (empty ones left out)."""
    return " OR ".join(expression for expression in expressions if expression)


def fts_query(terms: Sequence[str], prefixes: Sequence[str]) -> str:
    """An FTS5 expression matching any term."""
    return " OR ".join(fts_phrases(terms, prefixes))


def _plan_query(
    needed: Sequence[str], optional: Sequence[str], documents_with: Callable[[str], int]
) -> str:
    """An expression that ranks few rows even when some terms are in most memories.

    BM25 ranking costs time for every matching row. A rare phrase is searched on its
    own; a common one (in more than COMMON_TERM_DOCS memories) only together with
    another, so "Anna's coffee" does not rank every memory that mentions Anna.
    Optional phrases join rarest first while the rows they add stay within
    OPTIONAL_TERM_ROWS: a long Chinese sentence has many single characters, each in a
    few hundred memories, and all together they would rank most of the index.
    """
    common = {p for p in needed if documents_with(p) > COMMON_TERM_DOCS}
    rare = [p for p in needed if p not in common]
    budget = OPTIONAL_TERM_ROWS
    extra = [p for p in dict.fromkeys(optional) if p not in needed]
    for phrase in sorted(extra, key=documents_with):
        if (rows := documents_with(phrase)) > budget:
            break
        rare.append(phrase)
        budget -= rows
    if not common:
        return " OR ".join(rare)
    # More common terms than this add little and cost many pairs: the rest are left out.
    paired = [p for p in needed if p in common][:_MAX_PAIRED_TERMS]
    if not rare and len(paired) == 1:
        return paired[0]
    # The rows any rare phrase or two common ones match, each phrase written as few
    # times as that takes: ranking costs every matched row once per phrase written.
    # "(r1 OR r2) AND (c1 OR c2)" adds no row; it lets BM25 value the common phrases
    # a rare phrase's rows hold.
    parts = list(rare)
    if rare:
        parts.append(f"(({' OR '.join(rare)}) AND ({' OR '.join(paired)}))")
        paired = [p for p in paired if documents_with(p) <= VERY_COMMON_TERM_DOCS]
    for at, first in enumerate(paired[:-1]):
        parts.append(f"({first} AND ({' OR '.join(paired[at + 1 :])}))")
    return " OR ".join(parts)


def like_terms(keywords: Keywords) -> list[str]:
    """Fragments for LIKE matching: stemmed words, prefixes, Chinese pairs."""
    terms = [light_stem(word) for word in keywords.words]
    terms += list(keywords.prefixes)
    for piece in keywords.chinese:
        terms += cjk_pairs(piece)
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
        self._document_counts: dict[str, int] = {}

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
        target = ":memory:"
        if self.path is not None:
            # When it cannot be made, SQLite says why (a damaged or read-only file).
            with suppress(StorageError):
                create_private_file(self.path)
            target = str(self.path)
        db = sqlite3.connect(target, check_same_thread=False, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            # Derived data: losing the last changes in a power cut only means a resync.
            db.execute("PRAGMA synchronous=OFF")
            db.execute("PRAGMA secure_delete=ON")
            db.execute(
                "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT)"
            )
            version = db.execute(
                "SELECT value FROM meta WHERE key='tokenizer'"
            ).fetchone()
            new_tokenizer = version is None or version[0] != TOKENIZER_VERSION
            if new_tokenizer:
                db.execute("DROP TABLE IF EXISTS docs")
                db.execute("DROP TABLE IF EXISTS fts")
                db.execute("DROP TABLE IF EXISTS secondary")
            db.execute(
                "CREATE TABLE IF NOT EXISTS docs("
                "rowid INTEGER PRIMARY KEY, id TEXT UNIQUE NOT NULL, version TEXT NOT NULL,"
                " scope TEXT NOT NULL, category TEXT NOT NULL, text TEXT NOT NULL)"
            )
            self.fts_available = self._want_fts and self._create_fts(db)
            if not self._want_fts:
                self._fall_back("full-text search is turned off")
            if new_tokenizer:  # written only when it changes: a reader writes nothing
                db.execute(
                    "INSERT OR REPLACE INTO meta VALUES ('tokenizer', ?)",
                    (TOKENIZER_VERSION,),
                )
            if (
                db.execute("SELECT 1 FROM meta WHERE key=?", (_ERASES,)).fetchone()
                is None
            ):
                self._erase_old_traces(db)
        except BaseException:
            db.close()
            raise
        return db

    def _create_fts(self, db: sqlite3.Connection) -> bool:
        """The keywords' table and the secondary terms' (same row numbers)."""
        try:
            db.execute(
                "CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5("
                "terms, memory_id UNINDEXED, scope UNINDEXED,"
                f" tokenize='{FTS_TOKENIZER}')"
            )
            db.execute(
                "CREATE VIRTUAL TABLE IF NOT EXISTS secondary USING fts5("
                f"terms, tokenize='{FTS_TOKENIZER}')"
            )
        except sqlite3.OperationalError as err:
            self._fall_back(f"FTS5 is not available: {err}")
            return False
        for table in ("fts", "secondary"):
            _erase_deleted_words(db, table)
        return True

    def _erase_old_traces(self, db: sqlite3.Connection) -> None:
        """Clear a file written before deletes were erased of what they left behind."""
        if self.fts_available and db.execute("SELECT 1 FROM docs").fetchone():
            _LOGGER.info("Erasing deleted memories from the search index (once)")
            db.execute("INSERT INTO fts(fts) VALUES ('rebuild')")
        db.execute("VACUUM")
        db.execute("INSERT INTO meta VALUES (?, '1')", (_ERASES,))
        _truncate_log(db)

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
        """Make the index match `memories` (by id and `updated_at`).

        A full-text table that disagrees with the documents (rows lost or left
        behind, say by a hand edit) is rebuilt from `memories`.
        """
        with self._lock:
            if not self._fts_agrees():
                _LOGGER.warning("The full-text index disagrees; rebuilding it")
                self.rebuild(memories)
                return SyncResult(added=len(memories), updated=0, removed=0)
            self._document_counts.clear()
            indexed = dict(self.db.execute("SELECT id, version FROM docs"))
            changed = [
                m for m in memories.values() if indexed.get(m.id) != m.updated_at
            ]
            gone = [memory_id for memory_id in indexed if memory_id not in memories]
            if len(gone) > len(indexed) // 2:
                # Most are gone (cleared, replaced): starting again is far cheaper
                # than erasing them one by one.
                self.rebuild(memories)
                return SyncResult(added=len(memories), updated=0, removed=len(gone))
            added = sum(1 for m in changed if m.id not in indexed)
            self._apply(changed, gone)
            return SyncResult(
                added=added, updated=len(changed) - added, removed=len(gone)
            )

    def _fts_agrees(self) -> bool:
        """Every document has its full-text row and no other rows are there."""
        db = self.db  # opening it decides whether full-text search is available
        if not self.fts_available:
            return True
        # FTS5's own table of row sizes has one small row per indexed text: counting
        # it (not the full-text table, whose scan reads every text) keeps restarts fast.
        docs, fts, joined = db.execute(
            "SELECT (SELECT count(*) FROM docs), (SELECT count(*) FROM fts_docsize),"
            " (SELECT count(*) FROM docs JOIN fts_docsize s ON s.id = docs.rowid)"
        ).fetchone()
        return bool(docs == fts == joined)

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
            self._document_counts.clear()
            db = self.db
            db.execute("BEGIN IMMEDIATE")
            db.execute("DELETE FROM docs")
            if self.fts_available:
                # Dropped, not emptied row by row: their pages are freed (and erased).
                db.execute("DROP TABLE fts")
                db.execute("DROP TABLE secondary")
                self._create_fts(db)
            db.execute("COMMIT")
            self._apply(list(memories.values()), [])
            self.truncate_log()

    def _apply(self, upserts: Sequence[Memory], removals: Sequence[str]) -> None:
        if not upserts and not removals:
            return
        try:
            replaced = self._write(upserts, removals)
        except sqlite3.Error as err:
            if not self.fts_available or _busy(err):
                raise  # a busy database (after the wait) is not a broken table
            # A broken full-text table must not stop the index from following the
            # store: keep the LIKE table current; the next open rebuilds FTS.
            self._disable_fts(f"the full-text table failed: {err}")
            replaced = self._write(upserts, removals)
        if replaced:
            self.truncate_log()

    def _disable_fts(self, reason: str) -> None:
        self._fall_back(reason)
        self.fts_available = False
        with suppress(sqlite3.Error):
            self.db.execute("DELETE FROM meta WHERE key='tokenizer'")

    def _write(self, upserts: Sequence[Memory], removals: Sequence[str]) -> bool:
        """Apply the changes in one transaction; True when a stored text went."""
        db = self.db
        replaced = False
        db.execute("BEGIN IMMEDIATE")
        try:
            for memory_id in [*removals, *(m.id for m in upserts)]:
                row = db.execute(
                    "SELECT rowid FROM docs WHERE id=?", (memory_id,)
                ).fetchone()
                if row is not None:
                    replaced = True
                    db.execute("DELETE FROM docs WHERE rowid=?", row)
                    if self.fts_available:
                        db.execute("DELETE FROM fts WHERE rowid=?", row)
                        db.execute("DELETE FROM secondary WHERE rowid=?", row)
            for memory in upserts:
                text = searchable_text(memory)
                terms = stored_terms(text)
                rowid = _row_number(db, len(terms.split()))
                db.execute(
                    "INSERT INTO docs(rowid, id, version, scope, category, text)"
                    " VALUES (?,?,?,?,?,?)",
                    (
                        rowid,
                        memory.id,
                        memory.updated_at,
                        memory.scope,
                        memory.category,
                        normalize(text),
                    ),
                )
                if self.fts_available:
                    db.execute(
                        "INSERT INTO fts(rowid, terms, memory_id, scope) VALUES (?,?,?,?)",
                        (
                            rowid,
                            terms,
                            memory.id,
                            memory.scope,
                        ),
                    )
                    # A row for every memory, even without secondary terms: BM25
                    # counts how rare a term is among all of them.
                    db.execute(
                        "INSERT INTO secondary(rowid, terms) VALUES (?,?)",
                        (rowid, " ".join(secondary_terms(text))),
                    )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return replaced

    def truncate_log(self) -> None:
        """Empty the write-ahead log into the file: no page written before stays there.

        Called after anything is deleted from the file (memories, vectors).
        """
        with self._lock:
            _truncate_log(self.db)

    def count(self) -> int:
        """Number of indexed memories."""
        with self._lock:
            row = self.db.execute("SELECT count(*) FROM docs").fetchone()
            return int(row[0])

    # -- matching -------------------------------------------------------------

    def match(
        self,
        keywords: Keywords,
        *,
        limit: int,
        scopes: Sequence[str] | None = None,
        enough: int | None = None,
        context: Keywords | None = None,
        secondary: Sequence[str] = (),
    ) -> list[Candidate]:
        """The best `limit` memories for the keywords, by BM25 (or LIKE on fallback).

        A focused query is tried first; when it finds fewer than `enough` (default:
        `limit`), every memory any keyword matches is ranked. `context` (the
        conversation's topic) adds its distinctive terms to the focused query.
        `secondary` (the message's `secondary_terms`) add to the score of the
        memories holding them, and bring in the best of those (`_with_secondary`).
        """
        needed, optional = query_terms(keywords)
        if not needed and not keywords.prefixes:
            return []
        with self._lock:
            if self.fts_available:
                try:
                    return self._match_fts(
                        needed=needed,
                        optional=optional,
                        secondary=secondary,
                        prefixes=keywords.prefixes,
                        limit=limit,
                        scopes=scopes,
                        enough=limit if enough is None else enough,
                        context=query_terms(context)[0] if context else [],
                    )
                except sqlite3.Error as err:
                    # Stop using a broken FTS table; the next open rebuilds it.
                    self._disable_fts(f"the full-text query failed: {err}")
            merged = merge_keywords(keywords, context) if context else keywords
            return self._match_like(merged, limit, scopes)

    def _match_fts(
        self,
        *,
        needed: Sequence[str],
        optional: Sequence[str],
        secondary: Sequence[str],
        prefixes: Sequence[str],
        limit: int,
        scopes: Sequence[str] | None,
        enough: int,
        context: Sequence[str] = (),
    ) -> list[Candidate]:
        phrases = fts_phrases(needed, prefixes)
        distinctive = [
            phrase
            for phrase in fts_phrases(context, ())
            if phrase not in phrases
            and self._documents_with(phrase) <= CONTEXT_TERM_DOCS
        ]
        plan = _plan_query(phrases, fts_phrases(optional, ()), self._documents_with)
        # One common term alone (a first name in a quarter of the memories): only its
        # shortest matches are ranked (BM25 values a short text most when the word is
        # in each once), so the cost stays bounded however many there are.
        shortest = (
            COMMON_WORD_ROWS
            if not distinctive
            and plan in phrases
            and self._documents_with(plan) > COMMON_TERM_DOCS
            else None
        )
        rows = self._ranked(
            _any_of(plan, *distinctive), limit, scopes, shortest=shortest
        )
        if len(rows) < enough:
            # The focused query found too little: rank everything any term matches.
            broad = fts_query(needed, prefixes)
            rows = self._ranked(_any_of(broad, *distinctive), limit, scopes)
        return self._with_secondary(rows, secondary, limit, scopes)

    def _with_secondary(
        self,
        rows: list[Candidate],
        secondary: Sequence[str],
        limit: int,
        scopes: Sequence[str] | None,
    ) -> list[Candidate]:
        """The rows with their secondary terms' score added, and the best holding them.

        A memory among the secondary terms' best rows but not among the keywords'
        (了电 of 受不了电子乐, when 电 is in thousands) joins with its secondary score
        only; what it holds of the keywords still counts in their coverage. The
        rarest terms are searched while their rows stay within SECONDARY_TERM_ROWS:
        a common one tells little and costs much.
        """
        phrases: list[str] = []
        budget = SECONDARY_TERM_ROWS
        counted = {
            phrase: self._documents_with(phrase, "secondary")
            for phrase in fts_phrases(secondary, ())
        }
        for phrase in sorted(counted, key=counted.__getitem__):
            if (budget := budget - counted[phrase]) < 0:
                break
            phrases.append(phrase)
        if not phrases:
            return rows
        bonus: dict[int, float] = dict(
            self.db.execute(
                "SELECT rowid, -rank FROM secondary WHERE secondary MATCH ?"
                " ORDER BY rank LIMIT ?",
                (" OR ".join(phrases), limit),
            )
        )
        known = {row.row for row in rows}
        rows = rows + self._rows([row for row in bonus if row not in known], scopes)
        scored = [
            replace(
                row,
                keyword_score=row.keyword_score
                + SECONDARY_WEIGHT * bonus.get(row.row, 0.0),
            )
            for row in rows
        ]
        scored.sort(key=lambda row: row.keyword_score, reverse=True)
        return scored[:limit]

    def _rows(
        self, rows: Sequence[int], scopes: Sequence[str] | None
    ) -> list[Candidate]:
        """These rows (those in `scopes`), with no keyword score of their own."""
        if not rows:
            return []
        marks = ",".join("?" * len(rows))
        scope_sql, scope_args = _scope_filter(scopes, column="scope")
        # Only placeholders are formatted in.
        found = self.db.execute(
            f"SELECT rowid, id FROM docs WHERE rowid IN ({marks}){scope_sql}",  # noqa: S608
            (*rows, *scope_args),
        )
        return [Candidate(memory_id, 0.0, row=row) for row, memory_id in found]

    def _ranked(
        self,
        expression: str,
        limit: int,
        scopes: Sequence[str] | None,
        *,
        shortest: int | None = None,
    ) -> list[Candidate]:
        """The best `limit` rows by BM25; with `shortest`, among that many shortest."""
        scope_sql, scope_args = _scope_filter(scopes, column="scope")
        shortest_sql, shortest_args = "", tuple[object, ...]()
        if shortest is not None:
            # FTS5 walks a term's rows in row order cheaply (shortest texts first, see
            # `_row_number`); ranking them is the cost.
            shortest_sql = (
                " AND rowid <= (SELECT max(rowid) FROM (SELECT rowid FROM fts"
                " WHERE fts MATCH ? ORDER BY rowid LIMIT ?))"
            )
            shortest_args = (expression, shortest)
        # Ids and scopes live in the FTS table, so ranking needs no join; `rank` is
        # BM25, FTS5's fast path for ordering. Only placeholders are formatted in.
        sql = (
            "SELECT rowid, memory_id, -rank, terms FROM fts WHERE fts MATCH ?"  # noqa: S608
            f"{shortest_sql}{scope_sql} ORDER BY rank LIMIT ?"
        )
        rows = self.db.execute(sql, (expression, *shortest_args, *scope_args, limit))
        return [
            Candidate(memory_id, float(score), terms, row)
            for row, memory_id, score, terms in rows
        ]

    def _documents_with(self, phrase: str, table: str = "fts") -> int:
        """How many memories' `table` terms contain the phrase, up to VERY_COMMON_TERM_DOCS + 1.

        Only a planning hint, so counts are remembered until the index is rebuilt or
        resynchronised; single changes barely move them.
        """
        key = phrase if table == "fts" else f"{table} {phrase}"
        if (known := self._document_counts.get(key)) is not None:
            return known
        # `table` is one of the two table names, never user text.
        row = self.db.execute(
            f"SELECT count(*) FROM (SELECT 1 FROM {table} WHERE {table} MATCH ?"  # noqa: S608
            " LIMIT ?)",
            (phrase, VERY_COMMON_TERM_DOCS + 1),
        ).fetchone()
        if len(self._document_counts) >= _DOCUMENT_COUNT_CACHE:
            self._document_counts.clear()
        self._document_counts[key] = count = int(row[0])
        return count

    def _match_like(
        self, keywords: Keywords, limit: int, scopes: Sequence[str] | None
    ) -> list[Candidate]:
        """The LIKE fallback: score = how many keywords the text contains."""
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


def stored_terms(text: str) -> str:
    """The terms the full-text index stores for a memory's searchable text."""
    return " ".join(index_terms(extract_keywords(text)))


def _erase_deleted_words(db: sqlite3.Connection, table: str) -> None:
    """Have the full-text table take a deleted row's words out of its segments."""
    # Set when the table was made: a reader writes nothing. `table` is ours.
    if db.execute(
        f"SELECT 1 FROM {table}_config WHERE k='secure-delete'"  # noqa: S608
    ).fetchone():
        return
    try:
        db.execute(
            f"INSERT INTO {table}({table}, rank) VALUES ('secure-delete', 1)"  # noqa: S608
        )
    except sqlite3.OperationalError:  # pragma: no cover - SQLite before 3.42
        _LOGGER.warning(
            "SQLite %s cannot erase deleted words from the full-text index; "
            "they stay in its file until the index is rebuilt",
            sqlite3.sqlite_version,
        )


def _row_number(db: sqlite3.Connection, length: int) -> int:
    """A new row's number: shorter texts first, and among equal lengths the newest.

    The number is the length in terms (shifted up) and a count down within that
    length, so walking a term's rows in order (FTS5's cheap order) meets the texts
    BM25 values most first, and the newer of equals first (as recency does).
    """
    low = min(length, _MAX_LENGTH) << _LENGTH_SHIFT
    high = low + (1 << _LENGTH_SHIFT) - 1
    (lowest,) = db.execute(
        "SELECT min(rowid) FROM docs WHERE rowid BETWEEN ? AND ?", (low, high)
    ).fetchone()
    return high if lowest is None else int(lowest) - 1


def _scope_filter(
    scopes: Sequence[str] | None, column: str = "d.scope"
) -> tuple[str, list[str]]:
    if scopes is None:
        return "", []
    return f" AND {column} IN ({','.join('?' * len(scopes))})", list(scopes)


def _truncate_log(db: sqlite3.Connection) -> None:
    """Copy the write-ahead log into the file and empty it: no old page stays there."""
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def _escape_like(term: str) -> str:
    return term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _busy(err: sqlite3.Error) -> bool:
    """Whether SQLite gave up waiting for another connection's lock."""
    code = getattr(err, "sqlite_errorcode", 0) & 0xFF
    return code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
