"""What the conversation log holds and returns: messages, sessions, summaries.

And the checks a value passes before it is stored.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from typing import Any, Final
import uuid

from ..errors import InvalidMemoryError
from ..language.secrets_filter import redact
from ..storage.models import parse_time, utc_time

ROLES: Final = ("user", "assistant")
MAX_MESSAGE_LENGTH: Final = 20_000
MAX_TITLE_LENGTH: Final = 200
MAX_SNIPPET_LENGTH: Final = 1000
MAX_USER_ID_LENGTH: Final = 200


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
    # Who spoke in that turn: {"source", "device_id", "person_entity_id"}.
    speaker: dict[str, str | None] | None = None

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
            "speaker": self.speaker,
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
    # Its turns: the messages said to Assist (each with the answer that followed).
    turn_count: int = 0
    # Its summary's snippet (Assist's first answer), if any.
    snippet: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form."""
        return {
            "session_id": self.session_id,
            "first_message_at": self.first_message_at,
            "last_message_at": self.last_message_at,
            "message_count": self.message_count,
            "turn_count": self.turn_count,
            "title": self.title,
            "snippet": self.snippet,
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
        raise InvalidMemoryError.too_long(
            "content_too_long", "content", len(value), MAX_MESSAGE_LENGTH
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
