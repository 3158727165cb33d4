"""Whether the memory is full, and whether that has stopped Assist learning.

A full memory (the `max_items` limit reached, eviction off) refuses new memories.
What matters to a person is not the count but that something they said was not kept:
the first refusal after there was room "stops learning" until there is room again.
Both moments are logged once, never once per turn, and without any memory's text;
every refused attempt is counted, so a caller that retries can be seen doing it.
"""

from __future__ import annotations

from dataclasses import dataclass
import logging
import threading
from typing import Final

from .settings import StoreSettings

_LOGGER = logging.getLogger(__name__)

# From this share of the limit on, the memory is "nearly full" (a warning to act).
NEARLY_FULL_SHARE: Final = 0.9


@dataclass(frozen=True, slots=True)
class Fullness:
    """How full the memory is; no memory content (safe for diagnostics and logs).

    `learning_stopped`: something was refused since the memory was last not full
    (`stopped_since`: when). `refused`: how many adds were refused since the start.
    """

    full: bool = False
    nearly_full: bool = False
    learning_stopped: bool = False
    stopped_since: str | None = None
    refused: int = 0


def has_limit(settings: StoreSettings) -> bool:
    """True when adds can be refused: a limit is set and eviction does not make room."""
    return bool(settings.max_items) and not settings.eviction_threshold


class FullnessTracker:
    """Notes refusals and rooms made; thread-safe (the store calls it under its lock)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stopped_since: str | None = None
        self._refused = 0

    def refused(self, max_items: int, now: str) -> None:
        """An add met the limit: learning stops (logged the first time only)."""
        with self._lock:
            self._refused += 1
            if self._stopped_since is None:
                self._stopped_since = now
                _LOGGER.warning(
                    "The memory is full (%d memories): new memories are not stored "
                    "until there is room (raise the limit, turn on eviction or "
                    "delete some)",
                    max_items,
                )

    def check(self, count: int, settings: StoreSettings) -> Fullness:
        """The state for `count` memories; a stop ends when there is room again."""
        limited = has_limit(settings)
        full = limited and count >= settings.max_items
        with self._lock:
            if self._stopped_since is not None and not full:
                self._stopped_since = None
                _LOGGER.info("The memory has room again: learning goes on")
            return Fullness(
                full=full,
                nearly_full=limited and count >= settings.max_items * NEARLY_FULL_SHARE,
                learning_stopped=self._stopped_since is not None,
                stopped_since=self._stopped_since,
                refused=self._refused,
            )
