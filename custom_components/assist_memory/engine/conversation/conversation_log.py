"""The conversation log: every user and assistant message, in SQLite.

One database file beside the store (the caller picks it, e.g. `<data>/conversations.db`):

- `messages(id, session_id, role, content, user_id, created_at, collected)`: one row per
  message; `id` only grows (AUTOINCREMENT), so ids are never reused after a delete;
  `collected` is 1 once extraction has looked at the message.
- `summaries(session_id, title, snippet, created_at, user_id, superseded)`: at most one
  per session; `superseded` is 1 once it states a fact learned differently since.
- `turn_memories(message_id, memory_id)`: which memories went into the
  `<long_term_memory>` block of the turn a user message began ("why did Assist say
  that?"); its rows go with their message (a trigger), whatever deletes it.
- `PRAGMA user_version` holds the schema version (2; a version 1 file is migrated:
  its summaries get the user of their conversation's first message, and every text
  is redacted).

Times are ISO 8601 strings in UTC, which sort as text in time order.

Privacy: every message, title and snippet is redacted (`secrets_filter.redact`) before
it is stored. A message belongs to the user who spoke (`user_id`, None for a turn
without one, such as a satellite or an automation): the rolling window gives a
speaker only their own messages. Deleted text leaves no trace in the files:
`secure_delete` overwrites it, and the write-ahead log is checkpointed and truncated
after every delete.

Durability: the database runs in WAL mode with `synchronous=NORMAL`. Each write is its
own transaction, committed to the WAL file before the call returns, so an acknowledged
append survives the process being killed at any instant. A power cut or an OS crash
may lose the last few transactions (never corrupt the file); pass `synchronous="FULL"`
to fsync every commit as well, at some cost per message.

The log is synchronous and thread-safe (one connection behind a lock); Home Assistant
runs it in the executor.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from enum import Enum
from pathlib import Path
import re
import sqlite3
import threading
from typing import Any, Final, Literal, Self
import uuid

from ..errors import InvalidMemoryError, StorageError
from ..language.secrets_filter import redact
from ..storage.durable import create_private_file, make_private_folder
from ..storage.models import parse_time, utc_time
from .working import validate_session_id

SCHEMA_VERSION: Final = 2
ROLES: Final = ("user", "assistant")
MAX_MESSAGE_LENGTH: Final = 20_000
MAX_TITLE_LENGTH: Final = 200
MAX_SNIPPET_LENGTH: Final = 1000
MAX_USER_ID_LENGTH: Final = 200
TITLE_LENGTH: Final = 60
SNIPPET_LENGTH: Final = 160
# Chinese and Japanese have no spaces and say more per character: cut shorter.
CJK_TITLE_LENGTH: Final = 30
CJK_SNIPPET_LENGTH: Final = 80
DEFAULT_TITLE: Final = "Conversation"
Synchronous = Literal["NORMAL", "FULL"]

_SCHEMA: Final = (
    (
        "CREATE TABLE IF NOT EXISTS messages("
        " id INTEGER PRIMARY KEY AUTOINCREMENT,"
        " session_id TEXT NOT NULL,"
        " role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),"
        " content TEXT NOT NULL,"
        " user_id TEXT,"
        " created_at TEXT NOT NULL,"
        " collected INTEGER NOT NULL DEFAULT 0)"
    ),
    (
        "CREATE INDEX IF NOT EXISTS messages_by_session"
        " ON messages(session_id, created_at, id)"
    ),
    "CREATE INDEX IF NOT EXISTS messages_by_time ON messages(created_at)",
    (
        "CREATE TABLE IF NOT EXISTS summaries("
        " session_id TEXT PRIMARY KEY,"
        " title TEXT NOT NULL,"
        " snippet TEXT NOT NULL,"
        " created_at TEXT NOT NULL,"
        " user_id TEXT,"
        " superseded INTEGER NOT NULL DEFAULT 0)"
    ),
    "CREATE INDEX IF NOT EXISTS summaries_by_time ON summaries(created_at)",
    (
        "CREATE TABLE IF NOT EXISTS turn_memories("
        " message_id INTEGER NOT NULL,"
        " memory_id TEXT NOT NULL,"
        " PRIMARY KEY (message_id, memory_id))"
    ),
    (
        "CREATE TRIGGER IF NOT EXISTS turn_memories_go_with_their_message"
        " AFTER DELETE ON messages BEGIN"
        " DELETE FROM turn_memories WHERE message_id = OLD.id; END"
    ),
)
# Version 1 summaries had no user and could not be superseded.
_MIGRATE_FROM_1: Final = (
    "ALTER TABLE summaries ADD COLUMN user_id TEXT",
    "ALTER TABLE summaries ADD COLUMN superseded INTEGER NOT NULL DEFAULT 0",
    (
        "UPDATE summaries SET user_id = (SELECT m.user_id FROM messages AS m"
        " WHERE m.session_id = summaries.session_id ORDER BY m.created_at, m.id"
        " LIMIT 1)"
    ),
)
# SQLite accepts at most 32 766 parameters per statement; stay well below.
_BATCH: Final = 500


def _system_clock() -> datetime:
    return datetime.now(UTC)


def new_session_id() -> str:
    """A new unique session id (a random UUID as 32 hex characters)."""
    return uuid.uuid4().hex


class _Everyone(Enum):
    EVERYONE = "everyone"


# Whose messages a call is about: EVERYONE's, one user's, or (None) those of turns
# without a user.
EVERYONE: Final = _Everyone.EVERYONE
type Speaker = str | _Everyone | None


def _whose(speaker: Speaker) -> tuple[bool, str | None]:
    """The parameters of the condition "(? OR user_id IS ?)" for `speaker`'s rows."""
    if isinstance(speaker, _Everyone):
        return True, None
    return False, speaker


@dataclass(frozen=True, slots=True)
class Message:
    """One stored message."""

    id: int
    session_id: str
    role: str
    content: str
    created_at: str
    collected: bool = False
    user_id: str | None = None
    # The memories given to the assistant for the turn this message began.
    memory_ids: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form."""
        return {
            "id": self.id,
            "session_id": self.session_id,
            "role": self.role,
            "content": self.content,
            "created_at": self.created_at,
            "collected": self.collected,
            "user_id": self.user_id,
            "memory_ids": list(self.memory_ids),
        }


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """One conversation in a listing; `title` comes from its summary, if any."""

    session_id: str
    first_message_at: str
    last_message_at: str
    message_count: int
    title: str | None = None
    # Who started it (the user of its first message; None: a turn without a user).
    user_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form."""
        return {
            "session_id": self.session_id,
            "first_message_at": self.first_message_at,
            "last_message_at": self.last_message_at,
            "message_count": self.message_count,
            "title": self.title,
            "user_id": self.user_id,
        }


@dataclass(frozen=True, slots=True)
class SessionSummary:
    """A short description of one conversation (its session summary)."""

    session_id: str
    title: str
    snippet: str
    created_at: str
    user_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form."""
        return {
            "session_id": self.session_id,
            "title": self.title,
            "snippet": self.snippet,
            "created_at": self.created_at,
            "user_id": self.user_id,
        }


@dataclass(frozen=True, slots=True)
class ConversationPage:
    """A page of conversations and how many there are in all."""

    items: list[SessionInfo]
    total: int

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form."""
        return {"items": [info.to_dict() for info in self.items], "total": self.total}


@dataclass(frozen=True, slots=True)
class Conversation:
    """One conversation's messages (of one user, or everyone's) and its title."""

    session_id: str
    title: str | None
    messages: list[Message]

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form."""
        return {
            "session_id": self.session_id,
            "title": self.title,
            "messages": [message.to_dict() for message in self.messages],
        }


class ConversationLog:
    """Conversations persisted in SQLite; safe to use from several threads.

    Opens on first use (or `open()`); `close()` releases the file. Also a context
    manager. `clock` returns the current time as an aware datetime.
    """

    new_session_id = staticmethod(new_session_id)

    def __init__(
        self,
        path: Path | str,
        *,
        clock: Callable[[], datetime] = _system_clock,
        synchronous: Synchronous = "NORMAL",
    ) -> None:
        if synchronous not in ("NORMAL", "FULL"):
            raise ValueError("synchronous must be 'NORMAL' or 'FULL'")
        self.path = Path(path)
        self._clock = clock
        self._synchronous = synchronous
        self._lock = threading.RLock()
        self._db: sqlite3.Connection | None = None

    # -- lifecycle -------------------------------------------------------------

    def open(self) -> None:
        """Open (creating the folder and the file when missing) the database."""
        with self._lock:
            if self._db is not None:
                return
            try:
                make_private_folder(self.path.parent)
                create_private_file(self.path)
                db = sqlite3.connect(
                    self.path, check_same_thread=False, isolation_level=None
                )
            except (OSError, sqlite3.Error) as err:
                raise StorageError(
                    f"cannot open the conversation log {self.path}: {err}", self.path
                ) from err
            try:
                db.execute("PRAGMA busy_timeout=10000")
                db.execute("PRAGMA journal_mode=WAL")
                db.execute(f"PRAGMA synchronous={self._synchronous}")
                # Deleted text is overwritten, not left in free space.
                db.execute("PRAGMA secure_delete=ON")
                version = self._check_version(db)
                db.execute("BEGIN IMMEDIATE")
                if version == 1:
                    for statement in _MIGRATE_FROM_1:
                        db.execute(statement)
                    _redact_every_text(db)
                for statement in _SCHEMA:
                    db.execute(statement)
                db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
                db.execute("COMMIT")
                if version == 1:
                    # Nothing of the text before redaction stays in a free page.
                    db.execute("VACUUM")
                    _truncate_wal(db)
            except sqlite3.Error as err:
                db.close()
                raise StorageError(
                    f"cannot open the conversation log {self.path}: {err}", self.path
                ) from err
            except BaseException:
                db.close()
                raise
            self._db = db

    def _check_version(self, db: sqlite3.Connection) -> int:
        version = int(db.execute("PRAGMA user_version").fetchone()[0])
        if version > SCHEMA_VERSION:
            raise StorageError(
                f"{self.path} was written by a newer version (schema {version})",
                self.path,
            )
        return version

    def close(self) -> None:
        """Close the database (a later call opens it again)."""
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    def __enter__(self) -> Self:
        self.open()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @contextmanager
    def _locked(self) -> Iterator[sqlite3.Connection]:
        """The connection for one piece of work; SQLite errors become StorageError."""
        with self._lock:
            db = self._connection()
            try:
                yield db
            except sqlite3.Error as err:
                if db.in_transaction:
                    with suppress(sqlite3.Error):
                        db.execute("ROLLBACK")
                raise StorageError(
                    f"conversation log {self.path}: {err}", self.path
                ) from err

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            self.open()
        if self._db is None:  # pragma: no cover - open() sets it or raises
            raise StorageError(f"cannot open {self.path}", self.path)
        return self._db

    # -- messages ----------------------------------------------------------------

    def append(
        self,
        session_id: str,
        role: str,
        content: str,
        *,
        user_id: str | None = None,
        when: datetime | str | None = None,
    ) -> Message:
        """Store one message, redacted, and return it; durable once this returns.

        Raises InvalidMemoryError (codes `invalid_session_id`, `invalid_role`,
        `empty_content`, `invalid_content`, `content_too_long`, `invalid_user_id`,
        `invalid_timestamp`).
        """
        session_id = validate_session_id(session_id)
        role = _validate_role(role)
        content = validate_message(content)
        user = _validate_user_id(user_id)
        created_at = self._stamp(when)
        with self._locked() as db:
            cursor = db.execute(
                "INSERT INTO messages(session_id, role, content, user_id, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (session_id, role, content, user, created_at),
            )
            message_id = cursor.lastrowid
        return Message(
            id=int(message_id or 0),
            session_id=session_id,
            role=role,
            content=content,
            created_at=created_at,
            user_id=user,
        )

    @staticmethod
    def check(session_id: str, role: str, content: str, user_id: str | None) -> str:
        """Raise what `append` would raise for this message, without storing it.

        Returns the content as `append` would store it (redacted).
        """
        validate_session_id(session_id)
        _validate_role(role)
        _validate_user_id(user_id)
        return validate_message(content)

    def messages(
        self,
        session_id: str,
        *,
        limit: int | None = None,
        speaker: Speaker = EVERYONE,
    ) -> list[Message]:
        """The messages of a session, oldest first; with `limit`, only the newest.

        With `speaker`, only the messages of that user's turns (None: of turns
        without a user).
        """
        whose = _whose(speaker)
        if limit is not None:
            _check_count(limit, "limit")
            with self._locked() as db:
                rows = db.execute(
                    "SELECT id, session_id, role, content, user_id, created_at, collected"
                    " FROM messages WHERE session_id=? AND (? OR user_id IS ?)"
                    " ORDER BY created_at DESC, id DESC LIMIT ?",
                    (session_id, *whose, limit),
                ).fetchall()
            return [_message(row) for row in reversed(rows)]
        with self._locked() as db:
            rows = db.execute(
                "SELECT id, session_id, role, content, user_id, created_at, collected"
                " FROM messages WHERE session_id=? AND (? OR user_id IS ?)"
                " ORDER BY created_at, id",
                (session_id, *whose),
            ).fetchall()
        return [_message(row) for row in rows]

    def record_turn_memories(self, message_id: int, memory_ids: Iterable[str]) -> None:
        """Note the memories given to the assistant for the turn `message_id` began."""
        rows = [(message_id, memory_id) for memory_id in dict.fromkeys(memory_ids)]
        if not rows:
            return
        with self._locked() as db:
            db.executemany(
                "INSERT OR IGNORE INTO turn_memories(message_id, memory_id)"
                " VALUES (?, ?)",
                rows,
            )

    def with_turn_memories(self, messages: list[Message]) -> list[Message]:
        """The messages, each with the memories its turn was given."""
        found: dict[int, list[str]] = {}
        ids = [m.id for m in messages]
        with self._locked() as db:
            for start in range(0, len(ids), _BATCH):
                chunk = ids[start : start + _BATCH]
                marks = ",".join("?" * len(chunk))
                for message_id, memory_id in db.execute(
                    "SELECT message_id, memory_id FROM turn_memories"  # noqa: S608 - "?" marks only
                    f" WHERE message_id IN ({marks}) ORDER BY rowid",
                    chunk,
                ):
                    found.setdefault(message_id, []).append(memory_id)
        return [
            replace(m, memory_ids=tuple(found[m.id])) if m.id in found else m
            for m in messages
        ]

    def window(
        self, session_id: str, context_limit: int, *, speaker: Speaker = EVERYONE
    ) -> list[Message]:
        """The rolling window: the recent messages to give the model.

        With `speaker`, a window of that speaker's turns only: a conversation id
        another user spoke in before gives nothing of theirs.

        At most `context_limit` messages, oldest first. Older messages are dropped a
        whole user/assistant turn at a time, so the window starts with a user message
        (it starts with an assistant message only when no user message comes before
        it in the session). When even the newest turn has more than `context_limit`
        messages the window is empty. Dropped messages stay in the log; they do not
        go to long-term memory by themselves.
        """
        _check_count(context_limit, "context_limit")
        if context_limit == 0:
            return []
        whose = _whose(speaker)
        with self._locked() as db:
            newest = self.messages(session_id, limit=context_limit, speaker=speaker)
            if not newest or newest[0].role == "user":
                return newest
            first = newest[0]
            # Any user message before the window's first one?
            preceded = db.execute(
                "SELECT 1 FROM messages WHERE session_id=? AND role='user'"
                " AND (? OR user_id IS ?)"
                " AND (created_at < ? OR (created_at = ? AND id < ?)) LIMIT 1",
                (session_id, *whose, first.created_at, first.created_at, first.id),
            ).fetchone()
        if preceded is None:
            return newest
        for start, message in enumerate(newest):
            if message.role == "user":
                return newest[start:]
        return []

    def others_spoke(self, session_id: str, speaker: str | None, since: str) -> bool:
        """True when another speaker than `speaker` spoke in the session since `since`."""
        with self._locked() as db:
            row = db.execute(
                "SELECT 1 FROM messages WHERE session_id=? AND created_at >= ?"
                " AND user_id IS NOT ? LIMIT 1",
                (session_id, since, speaker),
            ).fetchone()
        return row is not None

    def uncollected(self, session_id: str) -> list[Message]:
        """Messages extraction has not looked at yet, oldest first."""
        with self._locked() as db:
            rows = db.execute(
                "SELECT id, session_id, role, content, user_id, created_at, collected"
                " FROM messages"
                " WHERE session_id=? AND collected=0 ORDER BY created_at, id",
                (session_id,),
            ).fetchall()
        return [_message(row) for row in rows]

    def mark_collected(self, message_ids: Iterable[int]) -> int:
        """Mark messages as looked at by extraction; returns how many changed."""
        ids = list(dict.fromkeys(message_ids))
        if any(isinstance(i, bool) or not isinstance(i, int) for i in ids):
            raise InvalidMemoryError(
                "invalid_message_id", "message ids are whole numbers", field="ids"
            )
        changed = 0
        with self._locked() as db:
            db.execute("BEGIN IMMEDIATE")
            for start in range(0, len(ids), _BATCH):
                batch = ids[start : start + _BATCH]
                marks = ", ".join("?" * len(batch))
                changed += db.execute(
                    "UPDATE messages SET collected=1"  # noqa: S608 - "?" marks only
                    f" WHERE collected=0 AND id IN ({marks})",
                    batch,
                ).rowcount
            db.execute("COMMIT")
        return changed

    def count_since_collected(self, session_id: str) -> int:
        """How many messages of the session extraction has not looked at yet."""
        with self._locked() as db:
            row = db.execute(
                "SELECT COUNT(*) FROM messages WHERE session_id=? AND collected=0",
                (session_id,),
            ).fetchone()
        return int(row[0])

    def existing_messages(self, message_ids: Iterable[int]) -> set[int]:
        """Which of these message ids the log still holds."""
        wanted = sorted(set(message_ids))
        found: set[int] = set()
        with self._locked() as db:
            for start in range(0, len(wanted), 500):
                chunk = wanted[start : start + 500]
                marks = ",".join("?" * len(chunk))
                found.update(
                    row[0]
                    for row in db.execute(
                        f"SELECT id FROM messages WHERE id IN ({marks})",  # noqa: S608
                        chunk,
                    )
                )
        return found

    # -- sessions ----------------------------------------------------------------

    def sessions(
        self, limit: int = 20, *, offset: int = 0, owner: Speaker = EVERYONE
    ) -> list[SessionInfo]:
        """Conversations, the most recently active first.

        With `owner`, only the conversations that user spoke in, with only their
        messages counted and the title only when they started it.
        """
        _check_count(limit, "limit")
        _check_count(offset, "offset")
        whose = _whose(owner)
        with self._locked() as db:
            rows = db.execute(
                "SELECT m.session_id, m.first_at, m.last_at, m.n,"
                " (SELECT s.title FROM summaries AS s"
                "  WHERE s.session_id = m.session_id AND (? OR s.user_id IS ?)),"
                " (SELECT f.user_id FROM messages AS f WHERE f.session_id = m.session_id"
                "  ORDER BY f.created_at, f.id LIMIT 1)"
                " FROM (SELECT session_id, MIN(created_at) AS first_at,"
                " MAX(created_at) AS last_at, COUNT(*) AS n, MAX(id) AS last_id"
                " FROM messages WHERE (? OR user_id IS ?) GROUP BY session_id) AS m"
                " ORDER BY m.last_at DESC, m.last_id DESC LIMIT ? OFFSET ?",
                (*whose, *whose, limit, offset),
            ).fetchall()
        return [
            SessionInfo(
                session_id=row[0],
                first_message_at=row[1],
                last_message_at=row[2],
                message_count=row[3],
                title=row[4],
                user_id=row[5],
            )
            for row in rows
        ]

    def session_count(self, *, owner: Speaker = EVERYONE) -> int:
        """How many conversations have messages (of `owner`)."""
        whose = _whose(owner)
        with self._locked() as db:
            row = db.execute(
                "SELECT COUNT(DISTINCT session_id) FROM messages"
                " WHERE (? OR user_id IS ?)",
                whose,
            ).fetchone()
        return int(row[0])

    def delete_session(self, session_id: str, *, owner: Speaker = EVERYONE) -> int:
        """Delete a conversation; returns how many messages were deleted.

        With `owner`, only that user's messages, and the summary when they started
        the conversation (or nothing else is left). The text is gone from the files
        when this returns (see `erase`).
        """
        whose = _whose(owner)
        with self._locked() as db:
            db.execute("BEGIN IMMEDIATE")
            deleted = db.execute(
                "DELETE FROM messages WHERE session_id=? AND (? OR user_id IS ?)",
                (session_id, *whose),
            ).rowcount
            db.execute(
                "DELETE FROM summaries WHERE session_id=? AND (NOT EXISTS ("
                " SELECT 1 FROM messages AS m WHERE m.session_id = summaries.session_id)"
                " OR ? OR user_id IS ?)",
                (session_id, *whose),
            )
            db.execute("COMMIT")
            _truncate_wal(db)
        return deleted

    def prune(self, older_than: timedelta, *, now: datetime | None = None) -> int:
        """Retention: delete messages and summaries older than `older_than`.

        Returns how many messages were deleted. A summary goes when it is older than
        the cutoff and its conversation has no message left. The text is gone from
        the files when this returns.
        """
        if older_than < timedelta(0):
            raise ValueError("older_than must not be negative")
        moment = self._clock() if now is None else now
        cutoff = utc_time(moment - older_than).isoformat()
        with self._locked() as db:
            db.execute("BEGIN IMMEDIATE")
            deleted = db.execute(
                "DELETE FROM messages WHERE created_at < ?", (cutoff,)
            ).rowcount
            db.execute(
                "DELETE FROM summaries WHERE created_at < ? AND NOT EXISTS ("
                " SELECT 1 FROM messages AS m"
                " WHERE m.session_id = summaries.session_id)",
                (cutoff,),
            )
            db.execute("COMMIT")
            # Also catches up with a delete whose truncation a reader held back.
            _truncate_wal(db)
        return deleted

    # -- summaries ---------------------------------------------------------------

    def add_summary(
        self,
        session_id: str,
        title: str,
        snippet: str,
        when: datetime | str | None = None,
        *,
        user_id: str | None = None,
    ) -> SessionSummary:
        """Store the summary of `user_id`'s session, redacted, replacing an earlier one.

        Raises InvalidMemoryError (codes `invalid_session_id`, `invalid_title`,
        `invalid_snippet`, `invalid_user_id`, `invalid_timestamp`).
        """
        session_id = validate_session_id(session_id)
        title = _validate_summary_text(title, "title", MAX_TITLE_LENGTH, required=True)
        snippet = _validate_summary_text(
            snippet, "snippet", MAX_SNIPPET_LENGTH, required=False
        )
        summary = SessionSummary(
            session_id=session_id,
            title=title,
            snippet=snippet,
            created_at=self._stamp(when),
            user_id=_validate_user_id(user_id),
        )
        with self._locked() as db:
            db.execute(
                "INSERT INTO summaries(session_id, title, snippet, created_at, user_id)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT(session_id) DO UPDATE SET"
                " title=excluded.title, snippet=excluded.snippet,"
                " created_at=excluded.created_at, user_id=excluded.user_id,"
                " superseded=0",
                (
                    summary.session_id,
                    summary.title,
                    summary.snippet,
                    summary.created_at,
                    summary.user_id,
                ),
            )
        return summary

    def summary(self, session_id: str) -> SessionSummary | None:
        """The summary of a session, or None."""
        with self._locked() as db:
            row = db.execute(
                "SELECT session_id, title, snippet, created_at, user_id FROM summaries"
                " WHERE session_id=?",
                (session_id,),
            ).fetchone()
        return None if row is None else SessionSummary(*row)

    def recent_summaries(
        self, limit: int = 5, *, owner: Speaker = EVERYONE
    ) -> list[SessionSummary]:
        """The newest `limit` summaries (of `owner`'s conversations), newest first."""
        _check_count(limit, "limit")
        whose = _whose(owner)
        with self._locked() as db:
            rows = db.execute(
                "SELECT session_id, title, snippet, created_at, user_id FROM summaries"
                " WHERE (? OR user_id IS ?)"
                " ORDER BY created_at DESC, rowid DESC LIMIT ?",
                (*whose, limit),
            ).fetchall()
        return [SessionSummary(*row) for row in rows]

    def speaker_summaries(
        self, user_id: str | None, limit: int, *, among: int, excluding: str = ""
    ) -> list[SessionSummary]:
        """The newest `limit` summaries of `user_id`'s conversations, newest first.

        Only the newest `among` summaries are looked at (a speaker who has not talked
        for a long time gets none rather than a scan of every conversation).
        Superseded ones (they state a fact learned differently since) and
        `excluding` (the conversation going on) are left out.
        """
        _check_count(limit, "limit")
        _check_count(among, "among")
        with self._locked() as db:
            rows = db.execute(
                "SELECT session_id, title, snippet, created_at, user_id FROM ("
                " SELECT *, rowid AS n"
                " FROM summaries ORDER BY created_at DESC, rowid DESC LIMIT ?) AS s"
                " WHERE session_id != ? AND user_id IS ? AND superseded = 0"
                " ORDER BY created_at DESC, n DESC LIMIT ?",
                (among, excluding, user_id, limit),
            ).fetchall()
        return [SessionSummary(*row) for row in rows]

    def supersede_summaries(self, session_ids: Iterable[str]) -> int:
        """Keep these summaries out of prompts (each states a fact replaced since)."""
        ids = list(dict.fromkeys(session_ids))
        changed = 0
        with self._locked() as db:
            db.execute("BEGIN IMMEDIATE")
            for start in range(0, len(ids), _BATCH):
                batch = ids[start : start + _BATCH]
                marks = ", ".join("?" * len(batch))
                changed += db.execute(
                    "UPDATE summaries SET superseded=1"  # noqa: S608 - "?" marks only
                    f" WHERE superseded=0 AND session_id IN ({marks})",
                    batch,
                ).rowcount
            db.execute("COMMIT")
        return changed

    # -- internals ---------------------------------------------------------------

    def _stamp(self, when: datetime | str | None) -> str:
        if when is None:
            return utc_time(self._clock()).isoformat()
        return timestamp(when)


def _truncate_wal(db: sqlite3.Connection) -> None:
    """Copy the write-ahead log into the database and empty it.

    Its frames still hold text deleted since (secure_delete clears the database
    file, not the log). A reader in another process may hold the log back; the next
    delete or retention run truncates it then.
    """
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()


def _redact_every_text(db: sqlite3.Connection) -> None:
    """Redact what a version 1 file kept as it was said."""
    for message_id, content in db.execute("SELECT id, content FROM messages"):
        if (redacted := redact(content)) != content:
            db.execute(
                "UPDATE messages SET content=? WHERE id=?", (redacted, message_id)
            )
    summaries = db.execute("SELECT session_id, title, snippet FROM summaries")
    for session_id, title, snippet in summaries.fetchall():
        if (redact(title), redact(snippet)) != (title, snippet):
            db.execute(
                "UPDATE summaries SET title=?, snippet=? WHERE session_id=?",
                (redact(title), redact(snippet), session_id),
            )


# -- validation and small helpers ------------------------------------------------------


def timestamp(value: object) -> str:
    """An ISO 8601 time (text or datetime) as the UTC text the log stores.

    A time without a zone is taken as UTC. Raises InvalidMemoryError otherwise.
    """
    if isinstance(value, str):
        value = parse_time(value, "when")
    if not isinstance(value, datetime):
        raise InvalidMemoryError(
            "invalid_timestamp", "when must be an ISO 8601 time", field="when"
        )
    return utc_time(value, "when").isoformat()


def _check_count(value: object, name: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidMemoryError(
            f"invalid_{name}", f"{name} must be a whole number >= 0", field=name
        )


def _validate_role(value: object) -> str:
    if value not in ROLES:
        raise InvalidMemoryError(
            "invalid_role",
            f"role must be one of: {', '.join(ROLES)}",
            role=value,
        )
    return str(value)


def validate_message(value: object) -> str:
    """A message is non-blank text without NUL of at most MAX_MESSAGE_LENGTH."""
    if not isinstance(value, str) or "\x00" in value:
        raise InvalidMemoryError(
            "invalid_content", "content must be text without NUL", field="content"
        )
    text = redact(value.strip())
    if not text:
        raise InvalidMemoryError(
            "empty_content", "content must not be empty", field="content"
        )
    if len(value) > MAX_MESSAGE_LENGTH:
        raise InvalidMemoryError(
            "content_too_long",
            f"content is {len(value)} characters, the limit is {MAX_MESSAGE_LENGTH}",
            length=len(value),
            max_length=MAX_MESSAGE_LENGTH,
        )
    return text


def _validate_user_id(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > MAX_USER_ID_LENGTH or "\x00" in value:
        raise InvalidMemoryError(
            "invalid_user_id",
            f"user_id must be text of at most {MAX_USER_ID_LENGTH} characters",
            field="user_id",
        )
    return value.strip() or None


def _validate_summary_text(
    value: object, name: str, max_length: int, *, required: bool
) -> str:
    text = redact(value.strip()) if isinstance(value, str) else None
    if (
        text is None
        or (required and not text)
        or len(text) > max_length
        or "\x00" in text
    ):
        raise InvalidMemoryError(
            f"invalid_{name}",
            f"{name} must be {'non-empty ' if required else ''}text"
            f" of at most {max_length} characters",
            field=name,
        )
    return text


def _message(row: tuple[Any, ...]) -> Message:
    return Message(
        id=row[0],
        session_id=row[1],
        role=row[2],
        content=row[3],
        user_id=row[4],
        created_at=row[5],
        collected=bool(row[6]),
    )


# -- summaries without an LLM ---------------------------------------------------------

_CJK: Final = re.compile(
    "[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]"
)
# A sentence ends at CJK end punctuation, a line break, or . ! ? before a space or the
# end (so "3.5" and "example.com" do not end one).
_SENTENCE_END: Final = re.compile(r"[。！？!?]+|\n|[.!?]+(?=\s|$)")
_TRAILING: Final = ".。!！;；,，:：、 "


def first_sentence(text: str) -> str:
    """The first sentence of `text`, with its whitespace tidied."""
    text = text.strip()
    match = _SENTENCE_END.search(text)
    sentence = text[: match.end()] if match else text
    return " ".join(sentence.split())


def is_cjk_text(text: str) -> bool:
    """True when at least half of the text's non-space characters are CJK."""
    letters = sum(1 for char in text if not char.isspace())
    return letters > 0 and 2 * len(_CJK.findall(text)) >= letters


def shorten(text: str, limit: int, cjk_limit: int) -> str:
    """Cut `text` to about `limit` characters at a word boundary, adding "…".

    Text that is mostly Chinese or Japanese has no spaces: it is cut at `cjk_limit`
    characters instead.
    """
    if is_cjk_text(text):
        limit = cjk_limit
        if len(text) <= limit:
            return text
        return text[:limit].rstrip(_TRAILING) + "…"
    if len(text) <= limit:
        return text
    cut = text[: limit + 1].rfind(" ")
    head = text[:cut] if cut > limit // 2 else text[:limit]
    return head.rstrip(_TRAILING) + "…"


def summarize_first_exchange(user_text: str, assistant_text: str) -> tuple[str, str]:
    """A (title, snippet) for a new session's summary when no LLM is available.

    The title is the user's first sentence cut to about 60 characters at a word
    boundary (30 characters for Chinese), without closing punctuation; the snippet is
    the assistant's first sentence cut to about 160 (80 for Chinese). With no user
    text the title falls back to the snippet, then to "Conversation".
    """
    user_sentence = first_sentence(user_text).rstrip(_TRAILING)
    snippet = shorten(
        first_sentence(assistant_text), SNIPPET_LENGTH, CJK_SNIPPET_LENGTH
    )
    title = shorten(user_sentence, TITLE_LENGTH, CJK_TITLE_LENGTH)
    if not title:
        title = shorten(snippet.rstrip(_TRAILING), TITLE_LENGTH, CJK_TITLE_LENGTH)
    return title or DEFAULT_TITLE, snippet
