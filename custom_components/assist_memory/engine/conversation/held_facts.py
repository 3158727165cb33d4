"""Facts held back from the memories, waiting in Review for a person to decide.

A fact is held when it cannot be stored as it was learned: a voice device nobody can
tell the speaker of said something about themselves (`speaker_unknown`), which would
be wrong as the household's and is nobody's in particular until someone says whose
it is; or the memory was full (`memory_full`), and the fact waits, with the scope it
was meant for, until a person keeps it once there is room. Each held fact keeps why
(`reason`), the device and the time it was said.

The file (`held.json`, private) is small and bounded: at most `MAX_HELD` facts, the
oldest leaving first, each for as long as conversations are kept (the
conversation-retention setting). A fact taken out (stored for a person, or forgotten)
leaves the file at once: the file is replaced whole, so its text is in no file after.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
import json
from pathlib import Path
import threading
from typing import Any, Final, Literal, get_args
import uuid

from ..errors import InvalidMemoryError, StorageError
from ..language.facts import Fact
from ..language.secrets_filter import mentions_secret
from ..storage.durable import write_atomically
from ..storage.models import (
    CATEGORIES,
    MAX_SCOPE_LENGTH,
    parse_time,
    utc_time,
    validate_content,
)

# Why a fact is held. Add a reason here; Review lists every reason alike.
# `memory_full`: learnt while the memory had no room (its `scope` is whose it is).
type HoldReason = Literal["speaker_unknown", "memory_full"]
HOLD_REASONS: Final[tuple[str, ...]] = get_args(HoldReason.__value__)

HELD_FILE: Final = "held.json"
MAX_HELD: Final = 200
MAX_HELD_LENGTH: Final = 2000
_VERSION: Final = 1


@dataclass(frozen=True, slots=True)
class HeldFact:
    """A fact not stored yet, and what Review shows of it."""

    id: str
    content: str
    reason: HoldReason
    said_at: str
    device_id: str | None = None
    category: str = "fact"
    key: str | None = None
    session_id: str | None = None
    # Whose it would have been, when that is known (a full memory's facts).
    scope: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The fact on the wire and in the file."""
        return asdict(self)

    @classmethod
    def from_dict(cls, value: object) -> HeldFact:
        """A held fact from the file or the wire; a clear error when malformed."""
        if not isinstance(value, Mapping):
            raise _invalid("a held fact must be an object")
        reason = value.get("reason")
        if reason not in HOLD_REASONS:
            raise _invalid(f"reason must be one of {', '.join(HOLD_REASONS)}")
        category = value.get("category", "fact")
        if category not in CATEGORIES:
            raise _invalid("unknown category")
        held_id = value.get("id")
        if not isinstance(held_id, str) or not 0 < len(held_id) <= 64:
            raise _invalid("id must be short text")
        said_at = utc_time(parse_time(value.get("said_at"), "said_at")).isoformat()
        return cls(
            id=held_id,
            content=validate_content(value.get("content"), MAX_HELD_LENGTH),
            reason=reason,
            said_at=said_at,
            device_id=_optional_text(value, "device_id"),
            category=category,
            key=_optional_text(value, "key"),
            session_id=_optional_text(value, "session_id"),
            scope=_optional_text(value, "scope"),
        )


def new_held_fact(
    content: str,
    *,
    reason: HoldReason,
    device_id: str | None = None,
    category: str = "fact",
    key: str | None = None,
    session_id: str | None = None,
    scope: str | None = None,
    now: datetime | None = None,
) -> HeldFact:
    """A fact to hold, said now."""
    return HeldFact.from_dict(
        {
            "id": uuid.uuid4().hex,
            "content": content,
            "reason": reason,
            "said_at": (now or datetime.now(UTC)).isoformat(),
            "device_id": device_id,
            "category": category,
            "key": key,
            "session_id": session_id,
            "scope": scope,
        }
    )


def hold_facts(
    held: HeldFacts,
    facts: Iterable[Fact],
    *,
    reason: HoldReason,
    session_id: str,
    device_id: str | None,
    scope: str | None = None,
) -> int:
    """Hold facts for Review; how many were held.

    Never a secret, and never a fact already waiting for the same reason and scope
    (said again, or refused again by a memory still full).
    """
    waiting = {(f.content, f.scope) for f in held.all() if f.reason == reason}
    count = 0
    for fact in facts:
        if (fact.content, scope) in waiting or mentions_secret(fact.content):
            continue
        waiting.add((fact.content, scope))
        held.hold(
            new_held_fact(
                fact.content,
                reason=reason,
                device_id=device_id,
                category=fact.category,
                key=fact.key,
                session_id=session_id,
                scope=scope,
            )
        )
        count += 1
    return count


class HeldFacts:
    """The held facts of one memory folder; thread-safe, synchronous."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / HELD_FILE
        self._lock = threading.Lock()
        self._facts: dict[str, HeldFact] | None = None
        self.keep_for = timedelta(days=30)

    def all(self, now: datetime | None = None) -> list[HeldFact]:
        """The facts still held, newest first."""
        with self._lock:
            facts = self._current(now)
        return sorted(facts.values(), key=lambda f: f.said_at, reverse=True)

    def hold(self, fact: HeldFact) -> HeldFact:
        """Keep a fact (again, for Undo); the oldest leave beyond `MAX_HELD`."""
        with self._lock:
            facts = self._current()
            facts[fact.id] = fact
            for oldest in sorted(facts.values(), key=lambda f: f.said_at)[
                : max(len(facts) - MAX_HELD, 0)
            ]:
                del facts[oldest.id]
            self._write(facts)
        return fact

    def take(self, held_id: str) -> HeldFact | None:
        """Remove a fact and return it (None when it is not held)."""
        with self._lock:
            facts = self._load()
            fact = facts.pop(held_id, None)
            if fact is not None:
                self._write(facts)
        return fact

    def drop_session(self, session_id: str) -> int:
        """Remove the facts said in a conversation being deleted; how many."""
        with self._lock:
            facts = self._load()
            kept = {k: f for k, f in facts.items() if f.session_id != session_id}
            if len(kept) != len(facts):
                self._write(kept)
        return len(facts) - len(kept)

    def prune(self, now: datetime | None = None) -> int:
        """Drop the facts held longer than `keep_for`; how many left the file."""
        with self._lock:
            facts = self._load()
            kept = self._current(now)
            dropped = len(facts) - len(kept)
            if dropped:
                self._write(kept)
        return dropped

    def _current(self, now: datetime | None = None) -> dict[str, HeldFact]:
        """The loaded facts said within `keep_for` (lock held)."""
        oldest = (now or datetime.now(UTC)) - self.keep_for
        return {
            k: f
            for k, f in self._load().items()
            if parse_time(f.said_at, "said_at") >= oldest
        }

    def _load(self) -> dict[str, HeldFact]:
        if self._facts is not None:
            return dict(self._facts)
        try:
            document = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            document = {}
        except (OSError, ValueError) as err:
            raise StorageError(
                f"cannot read {self.path.name}: {err}", self.path
            ) from err
        facts = [HeldFact.from_dict(item) for item in document.get("held", [])]
        self._facts = {fact.id: fact for fact in facts}
        return dict(self._facts)

    def _write(self, facts: dict[str, HeldFact]) -> None:
        document = {"version": _VERSION, "held": [f.as_dict() for f in facts.values()]}
        write_atomically(self.path, [json.dumps(document, ensure_ascii=False)])
        self._facts = dict(facts)


def _optional_text(value: Mapping[str, Any], name: str) -> str | None:
    item = value.get(name)
    if item is None or item == "":
        return None
    if not isinstance(item, str) or len(item) > MAX_SCOPE_LENGTH:
        raise _invalid(f"{name} must be short text or null")
    return item


def _invalid(message: str) -> InvalidMemoryError:
    return InvalidMemoryError("invalid_held_fact", message, field="held")
