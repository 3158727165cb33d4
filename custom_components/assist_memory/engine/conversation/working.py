"""Working memory: short-lived state for each active conversation.

A `WorkingMemory` holds what the assistant keeps in mind during one conversation: the
current topic, context variables, the turn count and the last detected emotion. It is
created by the first message, updated by every later one, and dropped after the
conversation has been idle for the TTL (30 minutes by default).

It lives in memory only: it is short-lived by definition. Expired memories are handed
back by `WorkingMemoryManager.expire` exactly once, so the caller can archive what
matters to long-term memory (`important_items` turns it into short statements).

It belongs to the user who spoke (None for turns without a user): another user's
message in the same conversation id starts a new one. Its topic and variables are
redacted (`secrets_filter.redact`, a variable's text read with its key: "door_code":
"7788") before they are kept, and a statement that mentions a secret is never archived.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
import json
import logging
import re
import threading
from types import MappingProxyType
from typing import Any, Final

from ..errors import InvalidMemoryError
from ..language.secrets_filter import REDACTED, mentions_secret, redact

_LOGGER = logging.getLogger(__name__)

DEFAULT_TTL: Final = timedelta(minutes=30)
DEFAULT_MAX_SESSIONS: Final = 1000
MAX_SESSION_ID_LENGTH: Final = 200
MAX_TOPIC_LENGTH: Final = 200
MAX_EMOTION_LENGTH: Final = 50
# The encoded JSON of all of a session's variables, in UTF-8 bytes.
MAX_VARIABLES_BYTES: Final = 8192
# Context variables whose key starts with this (any case) are worth archiving.
REMEMBER_PREFIX: Final = "remember"
# A context variable listing what is worth archiving.
IMPORTANT_KEY: Final = "important"
_MAX_ITEM_LENGTH: Final = 500
_EMPTY: Final[Mapping[str, Any]] = MappingProxyType({})


def _system_clock() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class WorkingMemory:
    """One conversation's working memory. Immutable: each turn produces a new one.

    `context_variables` is read-only all the way down (lists become tuples);
    `to_dict` gives plain JSON again. Times are ISO 8601 strings in UTC.
    """

    session_id: str
    current_topic: str | None
    context_variables: Mapping[str, Any]
    turn_count: int
    last_emotion: str | None
    created_at: str
    updated_at: str
    user_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form (a fresh, mutable copy)."""
        return {
            "session_id": self.session_id,
            "current_topic": self.current_topic,
            "context_variables": _thaw(self.context_variables),
            "turn_count": self.turn_count,
            "last_emotion": self.last_emotion,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "user_id": self.user_id,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> WorkingMemory:
        """The inverse of `to_dict` (the remote backend reads the server's answer)."""
        return cls(
            session_id=str(data["session_id"]),
            current_topic=data.get("current_topic"),
            context_variables=_freeze(dict(data.get("context_variables") or {})),
            turn_count=int(data.get("turn_count", 0)),
            last_emotion=data.get("last_emotion"),
            created_at=str(data["created_at"]),
            updated_at=str(data["updated_at"]),
            user_id=data.get("user_id"),
        )


@dataclass(slots=True)
class _Entry:
    memory: WorkingMemory
    last_active: datetime


class WorkingMemoryManager:
    """The working memories of all active conversations; safe to use from any thread.

    `clock` returns the current time as an aware datetime (tests pass a fake one).
    At most `max_sessions` are kept: beyond that the least recently active one is
    expired early (and still handed back by `expire`).
    """

    def __init__(
        self,
        ttl: timedelta = DEFAULT_TTL,
        clock: Callable[[], datetime] = _system_clock,
        *,
        max_sessions: int = DEFAULT_MAX_SESSIONS,
    ) -> None:
        if ttl <= timedelta(0):
            raise ValueError("ttl must be positive")
        if max_sessions < 1:
            raise ValueError("max_sessions must be at least 1")
        self.ttl = ttl
        self.max_sessions = max_sessions
        self._clock = clock
        self._lock = threading.Lock()
        self._live: dict[str, _Entry] = {}
        # Expired (or displaced) memories not yet handed back by `expire`.
        self._expired: list[WorkingMemory] = []

    def touch(
        self,
        session_id: str,
        *,
        topic: str | None = None,
        variables: Mapping[str, Any] | None = None,
        emotion: str | None = None,
        user_id: str | None = None,
    ) -> WorkingMemory:
        """Record one message of `session_id` by `user_id` and return its working memory.

        The first message (or the first after the memory expired, or the first of
        another user than the one it belongs to) creates it with
        `turn_count` 1 and `created_at == updated_at`. Every later one increments
        `turn_count` and sets `updated_at`. `topic` and `emotion` replace the stored
        ones when given (an empty string clears them); `variables` are merged into the
        context variables key by key, and a key set to None is removed.

        Raises InvalidMemoryError (codes `invalid_session_id`, `invalid_topic`,
        `invalid_emotion`, `invalid_variables`, `variables_too_large`).
        """
        session_id = validate_session_id(session_id)
        new_topic = _optional_text(
            redact(topic) if isinstance(topic, str) else topic,
            "topic",
            MAX_TOPIC_LENGTH,
        )
        new_emotion = _optional_text(emotion, "emotion", MAX_EMOTION_LENGTH)
        changes = _redacted(_check_variables(variables))
        with self._lock:
            now = self._now()
            stamp = now.isoformat()
            entry = self._live.get(session_id)
            if entry is not None and (
                self._is_expired(entry, now) or entry.memory.user_id != user_id
            ):
                self._retire(session_id)
                entry = None
            if entry is None:
                merged = _merge_variables(_EMPTY, changes)
                memory = WorkingMemory(
                    session_id=session_id,
                    current_topic=new_topic or None,
                    context_variables=merged,
                    turn_count=1,
                    last_emotion=new_emotion or None,
                    created_at=stamp,
                    updated_at=stamp,
                    user_id=user_id,
                )
                self._live[session_id] = _Entry(memory, now)
                self._enforce_limit()
                return memory
            old = entry.memory
            memory = WorkingMemory(
                session_id=session_id,
                current_topic=old.current_topic
                if new_topic is None
                else new_topic or None,
                context_variables=_merge_variables(old.context_variables, changes),
                turn_count=old.turn_count + 1,
                last_emotion=old.last_emotion
                if new_emotion is None
                else new_emotion or None,
                created_at=old.created_at,
                updated_at=stamp,
                user_id=user_id,
            )
            entry.memory = memory
            entry.last_active = now
            # Most recently active last, so the limit displaces the idlest first.
            self._live[session_id] = self._live.pop(session_id)
            return memory

    def get(self, session_id: str) -> WorkingMemory | None:
        """The working memory of `session_id`, or None (never started, or expired)."""
        with self._lock:
            entry = self._live.get(session_id)
            if entry is None:
                return None
            if self._is_expired(entry, self._now()):
                self._retire(session_id)
                return None
            return entry.memory

    def sessions(self) -> list[WorkingMemory]:
        """Every live working memory, most recently active last."""
        with self._lock:
            now = self._now()
            return [
                entry.memory
                for entry in self._live.values()
                if not self._is_expired(entry, now)
            ]

    def expire(self, now: datetime | None = None) -> list[WorkingMemory]:
        """Remove the memories idle for more than the TTL and return them.

        Also returns memories that expired earlier and were noticed by `get` or
        `touch`, or displaced by the session limit: each is returned exactly once,
        so the caller can archive `important_items` to long-term memory.
        """
        with self._lock:
            moment = self._now() if now is None else _as_utc(now)
            for session_id, entry in list(self._live.items()):
                if self._is_expired(entry, moment):
                    self._retire(session_id)
            expired, self._expired = self._expired, []
            return expired

    def forget(self, session_id: str) -> None:
        """Drop a conversation's working memory, never to be archived (it was deleted)."""
        with self._lock:
            self._live.pop(session_id, None)
            self._expired = [m for m in self._expired if m.session_id != session_id]

    def remove(self, session_id: str) -> bool:
        """End a conversation now; True when it had a live working memory."""
        with self._lock:
            entry = self._live.get(session_id)
            if entry is None:
                return False
            if self._is_expired(entry, self._now()):
                self._retire(session_id)  # still handed back by `expire`
                return False
            del self._live[session_id]
            return True

    def __len__(self) -> int:
        """The number of live working memories."""
        return len(self.sessions())

    # -- internals ---------------------------------------------------------------

    def _now(self) -> datetime:
        return _as_utc(self._clock())

    def _is_expired(self, entry: _Entry, now: datetime) -> bool:
        return now - entry.last_active > self.ttl

    def _retire(self, session_id: str) -> None:
        entry = self._live.pop(session_id)
        self._expired.append(entry.memory)
        if len(self._expired) > self.max_sessions:
            dropped = len(self._expired) - self.max_sessions
            del self._expired[:dropped]
            _LOGGER.warning(
                "Dropped %d expired working memories nobody collected", dropped
            )

    def _enforce_limit(self) -> None:
        while len(self._live) > self.max_sessions:
            self._retire(next(iter(self._live)))


def validate_session_id(value: object) -> str:
    """A session id is non-blank text of at most 200 characters (then trimmed)."""
    if (
        not isinstance(value, str)
        or not value.strip()
        or len(value) > MAX_SESSION_ID_LENGTH
        or "\x00" in value
    ):
        raise InvalidMemoryError(
            "invalid_session_id",
            f"session_id must be non-empty text of at most {MAX_SESSION_ID_LENGTH} characters",
            field="session_id",
        )
    return value.strip()


def important_items(memory: WorkingMemory) -> list[str]:
    """Short statements worth archiving to long-term memory when `memory` expires.

    Two kinds of context variables count:
    - a key starting with the word "remember" (any case; `remember_parking_spot`,
      `rememberSpot`, not `remembered_at`): `remember_parking_spot: "B2"` gives
      "Parking spot: B2"; a bare `remember` key gives its value(s) as they are.
    - the `important` variable: a list (or one value). An item naming another
      variable gives "Name: value"; any other item is a statement itself.

    Values that are not text are written as compact JSON. Blank and repeated
    statements are skipped; each is cut to 500 characters.
    """
    variables = memory.context_variables
    items: list[str] = []
    for key, value in variables.items():
        if _is_remember_key(key):
            label = _label(key[len(REMEMBER_PREFIX) :])
            if label:
                items.append(f"{label}: {_render(value)}")
            else:
                items.extend(_render(item) for item in _as_list(value))
    for item in _as_list(variables.get(IMPORTANT_KEY)):
        if isinstance(item, str) and item in variables and item != IMPORTANT_KEY:
            items.append(f"{_label(item) or item}: {_render(variables[item])}")
        else:
            items.append(_render(item))
    statements: list[str] = []
    for item in items:
        text = " ".join(item.split())[:_MAX_ITEM_LENGTH]
        if text and not text.endswith(":") and text not in statements:
            statements.append(text)
    # "Door code: [secret withheld]" is no memory (and a secret is none either).
    return [text for text in statements if not mentions_secret(text)]


# -- helpers -------------------------------------------------------------------------


def _as_utc(moment: datetime) -> datetime:
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def _optional_text(value: object, name: str, max_length: int) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or len(value.strip()) > max_length or "\x00" in value:
        raise InvalidMemoryError(
            f"invalid_{name}",
            f"{name} must be text of at most {max_length} characters",
            field=name,
        )
    return value.strip()


def _check_variables(value: object) -> dict[str, Any]:
    """The given variables as fresh plain JSON; raises when they are not JSON."""
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        raise InvalidMemoryError(
            "invalid_variables",
            "variables must be a JSON object with text keys",
            field="variables",
        )
    try:
        encoded = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as err:
        raise InvalidMemoryError(
            "invalid_variables",
            f"variables must be plain JSON: {err}",
            field="variables",
        ) from err
    decoded: dict[str, Any] = json.loads(encoded)
    return decoded


def _redacted(value: Any, key: str | None = None) -> Any:
    """Plain JSON with every text redacted, read with the key it is the value of.

    `{"door_code": "7788"}` holds a secret that "7788" alone does not show: the text
    is redacted as "door code: 7788" is.
    """
    if isinstance(value, str):
        return _redacted_text(value, key)
    if isinstance(value, dict):
        return {name: _redacted(item, name) for name, item in value.items()}
    if isinstance(value, list):
        return [_redacted(item, key) for item in value]
    return value


def _redacted_text(text: str, key: str | None) -> str:
    if key is None:
        return redact(text)
    name = key[len(REMEMBER_PREFIX) :] if _is_remember_key(key) else key
    # "GateCode" is said "Gate Code".
    named = f"{_label(re.sub(r'(?<=[a-z])(?=[A-Z])', ' ', name))}: "
    said = redact(named + text)
    # The key itself read as a secret (never seen): nothing of the value is kept.
    return said[len(named) :] if said.startswith(named) else REDACTED


def _merge_variables(
    current: Mapping[str, Any], changes: Mapping[str, Any]
) -> Mapping[str, Any]:
    if not changes:
        return current
    merged = _thaw(current)
    for key, value in changes.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = value
    size = len(json.dumps(merged, ensure_ascii=False).encode())
    if size > MAX_VARIABLES_BYTES:
        raise InvalidMemoryError(
            "variables_too_large",
            f"context variables would take {size} bytes, the limit is {MAX_VARIABLES_BYTES}",
            size=size,
            max_size=MAX_VARIABLES_BYTES,
        )
    frozen: Mapping[str, Any] = _freeze(merged)
    return frozen


def _freeze(value: Any) -> Any:
    """Plain JSON made read-only: objects become mapping proxies, lists tuples."""
    if isinstance(value, Mapping):
        return MappingProxyType({k: _freeze(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return tuple(_freeze(item) for item in value)
    return value


def _thaw(value: Any) -> Any:
    """The inverse of `_freeze`: fresh, mutable plain JSON."""
    if isinstance(value, Mapping):
        return {k: _thaw(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_thaw(item) for item in value]
    return value


def _is_remember_key(key: str) -> bool:
    """`remember`, `remember_x`, `remember-x`, `rememberX`; not `remembered_at`."""
    if not key.lower().startswith(REMEMBER_PREFIX):
        return False
    rest = key[len(REMEMBER_PREFIX) :]
    return not rest or rest[0] in "_-: " or rest[0].isupper()


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, list | tuple):
        return list(value)
    return [value]


def _label(key: str) -> str:
    """`_parking_spot` -> "Parking spot"."""
    words = key.replace("_", " ").replace("-", " ").replace(":", " ").split()
    text = " ".join(words)
    return text[:1].upper() + text[1:]


def _render(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(_thaw(value), ensure_ascii=False, separators=(",", ":"))
