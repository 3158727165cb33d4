"""Which conversations have ended with messages left to learn from, and which are taken.

The extraction throttle batches messages; it never drops them. Whatever it has not
learned from when a conversation ends is learned from then. A conversation has ended
when its working memory expired, or when it was left by an earlier run (it is in the
conversation log with messages not collected: a crash, or a stop before learning
finished). The host's own end of a conversation (Home Assistant's chat session) asks
directly.

Never twice for the same message: the durable marker is the log's `collected`, set
when learning wrote its facts back. Between handing a batch out and that moment the
batch's messages are taken (`claim`): no other batch gets them. A take lapses after
`CLAIM_LIFETIME` (learning failed without saying so), so they are learned later.

In memory only, not thread-safe: `TurnMemory` holds it under its lock.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Final

from .conversation_records import Message

# Longer than any extraction takes (an LLM call times out well before).
CLAIM_LIFETIME: Final = 600.0


class LearningQueue:
    """Ended conversations with messages left, and the messages being learned from.

    `clock` returns monotonic seconds.
    """

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._ended: set[str] = set()
        self._claimed: dict[int, float] = {}

    def mark_ended(self, session_ids: Iterable[str]) -> None:
        """These conversations ended: learn from what they have left."""
        self._ended.update(session_ids)

    def ended(self) -> list[str]:
        """The conversations marked ended, in no particular order."""
        return sorted(self._ended)

    def done(self, session_id: str) -> None:
        """Nothing is left to learn from the conversation."""
        self._ended.discard(session_id)

    def claim(self, messages: Iterable[Message]) -> list[Message]:
        """The messages not taken by another batch; they are taken now."""
        now = self._clock()
        for message_id, since in list(self._claimed.items()):
            if now - since >= CLAIM_LIFETIME:
                del self._claimed[message_id]
        free = [m for m in messages if m.id not in self._claimed]
        self._claimed.update((m.id, now) for m in free)
        return free

    def release(self, message_ids: Iterable[int]) -> None:
        """The messages were learned from (or given up): no longer taken."""
        for message_id in message_ids:
            self._claimed.pop(message_id, None)


@dataclass(frozen=True, slots=True)
class EndedConversation:
    """A conversation to learn from now that it ended.

    `speaker_unknown`: its speaker cannot be told (another agent's conversation).
    """

    session_id: str
    speaker_unknown: bool = False
