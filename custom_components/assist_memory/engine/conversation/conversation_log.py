"""The conversation log: every user and assistant message, in SQLite.

One database file beside the store (the caller picks it, e.g. `<data>/conversations.db`),
with the tables of `conversation_schema`.

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

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
import sqlite3
import threading
from typing import Any, Final, Literal, Self

from ..errors import InvalidMemoryError, StorageError
from ..language.secrets_by_meaning import withheld_by_meaning
from ..storage.durable import create_private_file, make_private_folder
from ..storage.models import utc_time
from .conversation_records import (
    EVERYONE,
    MAX_SNIPPET_LENGTH,
    MAX_TITLE_LENGTH,
    Message,
    SessionInfo,
    SessionSummary,
    Speaker,
    _check_count,
    _message,
    _validate_role,
    _validate_summary_text,
    _validate_user_id,
    _whose,
    new_session_id,
    timestamp,
    validate_message,
)
from .conversation_schema import (
    _MIGRATE_FROM_1,
    _SCHEMA,
    REDACTED_SINCE,
    SCHEMA_VERSION,
    _redact_every_text,
    _truncate_wal,
)
from .working import validate_session_id

Synchronous = Literal["NORMAL", "FULL"]


# SQLite accepts at most 32 766 parameters per statement; stay well below.
_BATCH: Final = 500


def _in_batches[T](ids: Sequence[T]) -> Iterator[tuple[Sequence[T], str]]:
    """The ids in slices of _BATCH, each with its SQL marks ("?, ?, ...")."""
    for start in range(0, len(ids), _BATCH):
        batch = ids[start : start + _BATCH]
        yield batch, ", ".join("?" * len(batch))


def _system_clock() -> datetime:
    return datetime.now(UTC)


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
                # Written before the filter knew what it knows now: redacted again.
                redacting = 0 < version < REDACTED_SINCE
                if redacting:
                    _redact_every_text(db)
                for statement in _SCHEMA:
                    db.execute(statement)
                db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
                db.execute("COMMIT")
                if redacting:
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
        collected: bool = False,
    ) -> Message:
        """Store one message, redacted, and return it; durable once this returns.

        `collected`: nothing is to be learned from it (a memory sentence, carried out).

        Raises InvalidMemoryError (codes `invalid_session_id`, `invalid_role`,
        `empty_content`, `invalid_content`, `content_too_long`, `invalid_user_id`,
        `invalid_timestamp`).
        """
        session_id = validate_session_id(session_id)
        role = _validate_role(role)
        content = validate_message(content)
        if role == "user":  # a second look, from meaning (the model's, when it runs)
            content = withheld_by_meaning(content)
        user = _validate_user_id(user_id)
        created_at = self._stamp(when)
        with self._locked() as db:
            cursor = db.execute(
                "INSERT INTO messages(session_id, role, content, user_id, created_at,"
                " collected) VALUES (?, ?, ?, ?, ?, ?)",
                (session_id, role, content, user, created_at, int(collected)),
            )
            message_id = cursor.lastrowid
        return Message(
            id=int(message_id or 0),
            session_id=session_id,
            role=role,
            content=content,
            created_at=created_at,
            user_id=user,
            collected=collected,
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

    def record_turn_memories(
        self, message_id: int, memory_ids: Iterable[str], *, replace: bool = False
    ) -> None:
        """Note the memories given to the assistant for the turn `message_id` began.

        `replace`: these instead of those noted before (the memories an answer said).
        """
        rows = [(message_id, memory_id) for memory_id in dict.fromkeys(memory_ids)]
        if not rows and not replace:
            return
        with self._locked() as db:
            if replace:
                db.execute(
                    "DELETE FROM turn_memories WHERE message_id=?", (message_id,)
                )
            db.executemany(
                "INSERT OR IGNORE INTO turn_memories(message_id, memory_id)"
                " VALUES (?, ?)",
                rows,
            )

    def given_memories(self, session_id: str) -> list[str]:
        """The ids of the memories the session's turns were given, first given first."""
        with self._locked() as db:
            rows = db.execute(
                "SELECT t.memory_id FROM turn_memories t JOIN messages m"
                " ON m.id = t.message_id WHERE m.session_id=? ORDER BY t.rowid",
                (session_id,),
            ).fetchall()
        return list(dict.fromkeys(row[0] for row in rows))

    def record_turn_speaker(
        self,
        message_id: int,
        source: str,
        device_id: str | None = None,
        person_entity_id: str | None = None,
    ) -> None:
        """Note who spoke in the turn `message_id` began, how known, at which device."""
        with self._locked() as db:
            db.execute(
                "INSERT OR REPLACE INTO turn_speakers"
                "(message_id, source, device_id, person_entity_id) VALUES (?, ?, ?, ?)",
                (message_id, source, device_id, person_entity_id),
            )

    def with_turn_memories(self, messages: list[Message]) -> list[Message]:
        """The messages, each with the memories its turn was given and its speaker."""
        found: dict[int, list[str]] = {}
        speakers: dict[int, dict[str, str | None]] = {}
        ids = [m.id for m in messages]
        with self._locked() as db:
            for chunk, marks in _in_batches(ids):
                for message_id, memory_id in db.execute(
                    "SELECT message_id, memory_id FROM turn_memories"  # noqa: S608 - "?" marks only
                    f" WHERE message_id IN ({marks}) ORDER BY rowid",
                    chunk,
                ):
                    found.setdefault(message_id, []).append(memory_id)
                for message_id, source, device_id, person in db.execute(
                    "SELECT message_id, source, device_id, person_entity_id"  # noqa: S608 - "?" marks only
                    f" FROM turn_speakers WHERE message_id IN ({marks})",
                    chunk,
                ):
                    speakers[message_id] = {
                        "source": source,
                        "device_id": device_id,
                        "person_entity_id": person,
                    }
        return [
            replace(
                m,
                memory_ids=tuple(found.get(m.id, m.memory_ids)),
                speaker=speakers.get(m.id, m.speaker),
            )
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

    def uncollected_sessions(self) -> list[str]:
        """The conversations with messages extraction has not looked at yet."""
        with self._locked() as db:
            rows = db.execute(
                "SELECT DISTINCT session_id FROM messages WHERE collected=0"
            ).fetchall()
        return [row[0] for row in rows]

    def mark_collected(self, message_ids: Iterable[int]) -> int:
        """Mark messages as looked at by extraction; returns how many changed."""
        ids = list(dict.fromkeys(message_ids))
        if any(isinstance(i, bool) or not isinstance(i, int) for i in ids):
            raise InvalidMemoryError(
                "invalid_message_id", "message ids are whole numbers", field="ids"
            )
        return self._update_in_batches(
            "UPDATE messages SET collected=1 WHERE collected=0 AND id IN ({marks})", ids
        )

    def said_in(
        self, session_id: str, message_ids: Iterable[int], texts: Iterable[str]
    ) -> list[Message]:
        """The user messages of a session with these ids.

        Without ids, a sentence learnt as it is said (before its answer): the
        session's newest message, when it is the user's and says one of `texts`.
        """
        wanted = set(message_ids)
        if wanted:
            return [
                m
                for m in self.messages(session_id)
                if m.id in wanted and m.role == "user"
            ]
        said = {text.strip() for text in texts}
        return [
            m
            for m in self.messages(session_id, limit=1)
            if m.role == "user" and m.content in said
        ]

    def existing_messages(self, message_ids: Iterable[int]) -> set[int]:
        """Which of these message ids the log still holds."""
        wanted = sorted(set(message_ids))
        found: set[int] = set()
        with self._locked() as db:
            for chunk, marks in _in_batches(wanted):
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
        messages counted and the title and snippet only when they started it.
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
                "  ORDER BY f.created_at, f.id LIMIT 1), m.turns,"
                " (SELECT s.snippet FROM summaries AS s"
                "  WHERE s.session_id = m.session_id AND (? OR s.user_id IS ?))"
                " FROM (SELECT session_id, MIN(created_at) AS first_at,"
                " MAX(created_at) AS last_at, COUNT(*) AS n, MAX(id) AS last_id,"
                " SUM(role = 'user') AS turns"
                " FROM messages WHERE (? OR user_id IS ?) GROUP BY session_id) AS m"
                " ORDER BY m.last_at DESC, m.last_id DESC LIMIT ? OFFSET ?",
                (*whose, *whose, *whose, limit, offset),
            ).fetchall()
        return [
            SessionInfo(
                session_id=row[0],
                first_message_at=row[1],
                last_message_at=row[2],
                message_count=row[3],
                title=row[4],
                user_id=row[5],
                turn_count=row[6],
                snippet=row[7],
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
        return self._update_in_batches(
            "UPDATE summaries SET superseded=1"
            " WHERE superseded=0 AND session_id IN ({marks})",
            list(dict.fromkeys(session_ids)),
        )

    # -- internals ---------------------------------------------------------------

    def _update_in_batches(self, statement: str, ids: list[Any]) -> int:
        """Run an UPDATE ending "IN ({marks})" over the ids in one transaction.

        Returns how many rows changed.
        """
        changed = 0
        with self._locked() as db:
            db.execute("BEGIN IMMEDIATE")
            for batch, marks in _in_batches(ids):
                changed += db.execute(statement.format(marks=marks), batch).rowcount
            db.execute("COMMIT")
        return changed

    def _stamp(self, when: datetime | str | None) -> str:
        if when is None:
            return utc_time(self._clock()).isoformat()
        return timestamp(when)
