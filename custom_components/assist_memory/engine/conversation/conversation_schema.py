"""The conversation log's SQLite schema and its migration.

The helpers at the end keep deleted text out of the file.

- `messages(id, session_id, role, content, user_id, created_at, collected)`: one row per
  message; `id` only grows (AUTOINCREMENT), so ids are never reused after a delete;
  `collected` is 1 once extraction has looked at the message.
- `summaries(session_id, title, snippet, created_at, user_id, superseded)`: at most one
  per session; `superseded` is 1 once it states a fact learned differently since.
- `turn_memories(message_id, memory_id)`: which memories went into the
  memory block (`<assist_memory>`) of the turn a user message began ("why did Assist say
  that?"); its rows go with their message (a trigger), whatever deletes it.
- `turn_speakers(message_id, source, device_id, person_entity_id)`: who spoke in the
  turn a user message began and how that was known (user, device, presence,
  unknown), and at which voice device; its row goes with its message too.
- `PRAGMA user_version` holds the schema version (3; a version 1 file is migrated:
  its summaries get the user of their conversation's first message). A file older
  than `REDACTED_SINCE` has every text redacted again when it is opened: the secrets
  filter has since learnt to find more (codes said as words or in groups of digits,
  identity numbers, security answers), and a version is added each time it does.

Times are ISO 8601 strings in UTC, which sort as text in time order.
"""

from __future__ import annotations

import sqlite3
from typing import Final

from ..language.secrets_filter import redact

SCHEMA_VERSION: Final = 3
# The first version whose texts were redacted by the secrets filter as it is now.
REDACTED_SINCE: Final = 3


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
    # The conversations left to learn from (few rows: most messages are collected).
    (
        "CREATE INDEX IF NOT EXISTS messages_uncollected"
        " ON messages(session_id) WHERE collected=0"
    ),
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
    (
        "CREATE TABLE IF NOT EXISTS turn_speakers("
        " message_id INTEGER PRIMARY KEY,"
        " source TEXT NOT NULL,"
        " device_id TEXT,"
        " person_entity_id TEXT)"
    ),
    (
        "CREATE TRIGGER IF NOT EXISTS turn_speakers_go_with_their_message"
        " AFTER DELETE ON messages BEGIN"
        " DELETE FROM turn_speakers WHERE message_id = OLD.id; END"
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


def _truncate_wal(db: sqlite3.Connection) -> None:
    """Copy the write-ahead log into the database and empty it.

    Its frames still hold text deleted since (secure_delete clears the database
    file, not the log). A reader in another process may hold the log back; the next
    delete or retention run truncates it then.
    """
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()


def _redact_every_text(db: sqlite3.Connection) -> None:
    """Redact what an older file kept (as said, or redacted by an older filter)."""
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
