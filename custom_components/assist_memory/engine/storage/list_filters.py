"""The memory list's filters by where a memory came from and when it was last used.

Origin: "stated" memories are what a person said to remember or added by hand
(`source` is `user_stated`); "learned" ones were inferred from a conversation (every
other source).

Last used, from the access records (`last_accessed`: the last time a memory went
into an answer's memory block, `<assist_memory>`):
- "recent": used in the last 7 days;
- "dormant": used before, but not in the last 90 days;
- "never": never used in an answer.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Final, Literal, get_args

from ..errors import InvalidMemoryError
from .models import Memory, parse_time

type Origin = Literal["stated", "learned"]
type LastUsed = Literal["recent", "dormant", "never"]
ORIGINS: Final[tuple[str, ...]] = get_args(Origin.__value__)
LAST_USED: Final[tuple[str, ...]] = get_args(LastUsed.__value__)

# Which memories a list holds by their end: not ended (the default), ended, or all
# (the `ended` argument of `MemoryStore.list`).
LIST_STATES: Final[dict[str, bool | None]] = {
    "current": False,
    "ended": True,
    "all": None,
}

RECENT: Final = timedelta(days=7)
DORMANT: Final = timedelta(days=90)
STATED_SOURCE: Final = "user_stated"


def memory_filter(
    origin: str | None, last_used: str | None, now: str
) -> Callable[[Memory], bool] | None:
    """A test a memory must pass, or None when neither filter is given.

    `now` is the store's clock (an ISO 8601 time).

    InvalidMemoryError for an origin or a last-used bucket that is not known.
    """
    if origin is not None and origin not in ORIGINS:
        raise InvalidMemoryError(
            "invalid_origin",
            f"origin must be one of: {', '.join(ORIGINS)}",
            origins=", ".join(ORIGINS),
        )
    if last_used is not None and last_used not in LAST_USED:
        raise InvalidMemoryError(
            "invalid_last_used",
            f"last_used must be one of: {', '.join(LAST_USED)}",
            buckets=", ".join(LAST_USED),
        )
    if origin is None and last_used is None:
        return None
    moment = _utc(now)

    def passes(memory: Memory) -> bool:
        if origin is not None and (memory.source == STATED_SOURCE) != (
            origin == "stated"
        ):
            return False
        return last_used is None or _used_in(memory, last_used, moment)

    return passes


def _used_in(memory: Memory, bucket: str, now: datetime) -> bool:
    """Whether the memory's last use falls in the bucket."""
    if memory.last_accessed is None:
        return bucket == "never"
    if bucket == "never":
        return False
    since = now - _utc(memory.last_accessed)
    return since <= RECENT if bucket == "recent" else since > DORMANT


def _utc(value: str) -> datetime:
    moment = parse_time(value, "last_accessed")
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment
