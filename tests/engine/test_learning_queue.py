"""What ended and what is taken: the learning queue, and `TurnMemory` around it."""

from __future__ import annotations

from pathlib import Path

from custom_components.assist_memory.engine.backend.local import LocalBackend
from custom_components.assist_memory.engine.conversation.conversation_records import (
    Message,
)
from custom_components.assist_memory.engine.conversation.learning_queue import (
    CLAIM_LIFETIME,
    EndedConversation,
    LearningQueue,
)
from custom_components.assist_memory.engine.conversation.turn_settings import (
    LearnSettings,
)

DEFAULT = LearnSettings()


class Ticks:
    """A monotonic clock that moves only when told."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def message(message_id: int) -> Message:
    return Message(message_id, "s", "user", "hello", "2026-01-01T00:00:00+00:00")


def test_a_claim_keeps_messages_out_of_other_batches_until_it_lapses() -> None:
    ticks = Ticks()
    queue = LearningQueue(ticks)
    assert [m.id for m in queue.claim([message(1), message(2)])] == [1, 2]
    assert [m.id for m in queue.claim([message(2), message(3)])] == [3]
    queue.release([3])
    assert [m.id for m in queue.claim([message(3)])] == [3]
    # Learning failed without a word: the messages are free again later.
    ticks.now += CLAIM_LIFETIME
    assert [m.id for m in queue.claim([message(1)])] == [1]


def test_ended_conversations_are_kept_until_done() -> None:
    queue = LearningQueue(Ticks())
    queue.mark_ended(["b", "a", "b"])
    assert queue.ended() == ["a", "b"]
    queue.done("a")
    assert queue.ended() == ["b"]


async def test_what_an_earlier_run_left_has_ended_at_the_next_start(
    tmp_path: Path,
) -> None:
    path = tmp_path / "memories.json"
    backend, _ = await LocalBackend.open(path, watch=False)
    await backend.note_message("left", "user", "My son Leo plays football.")
    await backend.close()
    backend, _ = await LocalBackend.open(path, watch=False)
    try:
        ended = await backend.ended_conversations()
        assert ended == [EndedConversation("left", speaker_unknown=True)]
    finally:
        await backend.close()
