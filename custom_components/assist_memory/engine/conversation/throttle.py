"""When to extract memories from a conversation, and when to flush before compaction.

The extraction throttle: extraction runs after a turn, but is skipped while less than 60 seconds have
passed since the last extraction of the session or fewer than 4 new messages have
arrived (`ExtractionThrottle`). When the context window is 75 % full, important content
is flushed to memory once per compaction cycle (`FlushTracker`).

Both keep state per session id, in memory only (a restart starts afresh, which is
harmless: at worst one extraction runs early). Neither is thread-safe; Home Assistant
uses them from the event loop. Callers drop a finished session with `forget`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
import math
import re
import time
from typing import Final

DEFAULT_MIN_INTERVAL: Final = timedelta(seconds=60)
DEFAULT_MIN_MESSAGES: Final = 4
DEFAULT_FLUSH_THRESHOLD: Final = 0.75

# Characters that a tokenizer turns into about one token each: CJK ideographs, kana,
# hangul, and full-width punctuation.
_WIDE: Final = re.compile(
    "[\u1100-\u11ff\u2e80-\u9fff\ua960-\ua97f\uac00-\ud7af\uf900-\ufaff"
    "\ufe30-\ufe4f\uff00-\uffef\U00020000-\U0002fa1f]"
)


def estimate_tokens(text: str) -> int:
    """An estimate of the tokens in `text`, without a tokenizer.

    About 1 token per 4 characters of Latin text (spaces included) and 1 per CJK
    character. Real tokenizers differ by model; use it for thresholds, not billing.
    """
    wide = len(_WIDE.findall(text))
    narrow = len(text) - wide
    return wide + math.ceil(narrow / 4)


@dataclass(slots=True)
class _SessionState:
    new_messages: int = 0
    last_extracted: float | None = None


class ExtractionThrottle:
    """The extraction throttle, per session: `min_interval` and `min_messages` between runs.

    `clock` returns monotonic seconds (default `time.monotonic`), so a change of the
    wall clock neither blocks nor rushes extraction.
    """

    def __init__(
        self,
        min_interval: timedelta = DEFAULT_MIN_INTERVAL,
        min_messages: int = DEFAULT_MIN_MESSAGES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if min_interval < timedelta(0):
            raise ValueError("min_interval must not be negative")
        if min_messages < 1:
            raise ValueError("min_messages must be at least 1")
        self.min_interval = min_interval
        self.min_messages = min_messages
        self._clock = clock
        self._sessions: dict[str, _SessionState] = {}

    def note_message(self, session_id: str, count: int = 1) -> None:
        """Count `count` new messages (user or assistant) in the session."""
        if count < 0:
            raise ValueError("count must not be negative")
        self._state(session_id).new_messages += count

    def should_extract(self, session_id: str) -> bool:
        """True when enough messages and enough time since the last extraction.

        The first extraction of a session needs `min_messages` messages too; it does
        not wait for `min_interval`.
        """
        state = self._sessions.get(session_id)
        if state is None or state.new_messages < self.min_messages:
            return False
        if state.last_extracted is None:
            return True
        elapsed = self._clock() - state.last_extracted
        return elapsed >= self.min_interval.total_seconds()

    def mark_extracted(self, session_id: str) -> None:
        """Record an extraction now: the message count and the interval start again."""
        state = self._state(session_id)
        state.new_messages = 0
        state.last_extracted = self._clock()

    def forget(self, session_id: str) -> None:
        """Drop what is known about the session (it ended or was cleared)."""
        self._sessions.pop(session_id, None)

    def _state(self, session_id: str) -> _SessionState:
        state = self._sessions.get(session_id)
        if state is None:
            state = self._sessions[session_id] = _SessionState()
        return state


class FlushTracker:
    """The pre-compaction flush: once per compaction cycle and session.

    `should_flush` turns true once when usage reaches `threshold` of the context;
    `forget` starts a new cycle (the conversation ended or was cleared).
    """

    def __init__(self, threshold: float = DEFAULT_FLUSH_THRESHOLD) -> None:
        if not 0.0 < threshold <= 1.0 or not math.isfinite(threshold):
            raise ValueError("threshold must be greater than 0 and at most 1")
        self.threshold = threshold
        self._flushed: set[str] = set()

    def should_flush(
        self, session_id: str, used_tokens: int, context_size: int
    ) -> bool:
        """True the first time in this cycle that usage reaches the threshold."""
        if context_size <= 0 or session_id in self._flushed:
            return False
        if used_tokens / context_size < self.threshold:
            return False
        self._flushed.add(session_id)
        return True

    def forget(self, session_id: str) -> None:
        """Drop the session: the next threshold flushes again."""
        self._flushed.discard(session_id)
