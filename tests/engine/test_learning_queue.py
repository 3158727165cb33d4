"""What ended and what is taken: the learning queue, and `TurnMemory` around it."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from custom_components.assist_memory.engine.backend.local import LocalBackend
from custom_components.assist_memory.engine.conversation.conversation_log import (
    ConversationLog,
)
from custom_components.assist_memory.engine.conversation.conversation_records import (
    Message,
)
from custom_components.assist_memory.engine.conversation.learning_queue import (
    CLAIM_LIFETIME,
    EndedConversation,
    LearningQueue,
)
from custom_components.assist_memory.engine.conversation.profile import UserProfile
from custom_components.assist_memory.engine.conversation.turns import (
    LearnSettings,
    TurnMemory,
)
from custom_components.assist_memory.engine.conversation.working import (
    WorkingMemoryManager,
)
from custom_components.assist_memory.engine.memory.memory_engine import MemoryEngine
from custom_components.assist_memory.engine.storage.settings import StoreSettings

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


class Clock:
    """Wall-clock time for working memories, moved by the test."""

    def __init__(self) -> None:
        self.now = datetime(2026, 11, 28, 12, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def turns(store_path: Path, clock: Clock) -> Iterator[TurnMemory]:
    engine = MemoryEngine(store_path, StoreSettings(max_items=0))
    engine.init()
    log = ConversationLog(store_path.parent / "conversations.db")
    log.open()
    try:
        yield TurnMemory(
            engine,
            log,
            WorkingMemoryManager(clock=clock),
            UserProfile(store_path.parent),
        )
    finally:
        log.close()
        engine.close()


def test_an_expired_working_memory_ends_its_conversation(
    turns: TurnMemory, clock: Clock
) -> None:
    turns.begin(session_id="s", text="My son Leo plays football on Saturdays.")
    turns.end(session_id="s", user_text="...", reply="OK.")
    turns.expire_sessions()
    assert turns.ended_conversations() == []
    clock.now += timedelta(minutes=31)
    turns.expire_sessions()
    assert turns.ended_conversations() == [EndedConversation("s")]
    batch = turns.extraction_batch("s", DEFAULT, ended=True)
    assert batch is not None
    turns.learn(batch, turns.rule_facts(batch), scope="household", settings=DEFAULT)
    # Learned: the next look finds nothing left and lets it go.
    assert turns.extraction_batch("s", DEFAULT, ended=True) is None
    assert turns.ended_conversations() == []


def test_a_batch_the_throttle_handed_out_is_not_in_the_one_at_the_end(
    turns: TurnMemory,
) -> None:
    eager = LearnSettings(min_interval=timedelta(0), min_messages=1)
    turns.note_message("s", "user", "My son Leo plays football on Saturdays.")
    first = turns.extraction_batch("s", eager)
    assert first is not None
    turns.note_message("s", "user", "My daughter Lily loves dinosaurs.")
    at_the_end = turns.extraction_batch("s", DEFAULT, ended=True)
    assert at_the_end is not None
    assert at_the_end.user_texts == ("My daughter Lily loves dinosaurs.",)


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
