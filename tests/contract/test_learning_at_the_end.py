"""Learning from a conversation when it ends, on LocalBackend and RemoteBackend alike.

The throttle batches; a conversation that ended gives all it has left, once: a batch's
messages are in no other batch, and collected once learned from.
"""

from __future__ import annotations

import asyncio

from custom_components.assist_memory.engine.backend.protocol import MemoryBackend
from custom_components.assist_memory.engine.conversation.learning_queue import (
    EndedConversation,
)
from custom_components.assist_memory.engine.conversation.turn_settings import (
    LearnSettings,
    TurnSettings,
)

DEFAULT = LearnSettings()
SAID = "My son Leo plays football on Saturdays."


async def one_turn(
    backend: MemoryBackend, session_id: str, user_id: str | None
) -> None:
    await backend.begin_turn(
        session_id=session_id, text=SAID, user_id=user_id, settings=TurnSettings()
    )
    await asyncio.sleep(0)  # the user's message is written once the loop turns
    await backend.end_turn(
        session_id=session_id, user_text=SAID, reply="OK.", user_id=user_id
    )


async def test_an_ended_conversation_gives_what_the_throttle_left_once(
    backend: MemoryBackend,
) -> None:
    await one_turn(backend, "s1", "anna")
    assert await backend.extraction_batch("s1", DEFAULT) is None  # throttled
    batch = await backend.extraction_batch("s1", DEFAULT, ended=True)
    assert batch is not None
    assert batch.user_texts == (SAID,)
    assert batch.user_id == "anna"
    assert len(batch.message_ids) == 2
    # Taken: no other batch has these messages while they are learned from.
    assert await backend.extraction_batch("s1", DEFAULT, ended=True) is None
    facts = await backend.rule_facts(batch)
    result = await backend.learn(batch, facts, scope="anna", settings=DEFAULT)
    assert result.added == 1
    # Collected: never again, whatever ends it next.
    assert await backend.extraction_batch("s1", DEFAULT, ended=True) is None
    assert await backend.ended_conversations(every=True) == []


async def test_a_stop_ends_every_conversation_with_messages_left(
    backend: MemoryBackend,
) -> None:
    await one_turn(backend, "agent", None)
    await backend.note_message("followed", "user", SAID)
    # Nothing ended yet: the working memory lives, the other agent's is ongoing.
    assert await backend.ended_conversations() == []
    ended = await backend.ended_conversations(every=True)
    # Another agent's conversation (no summary: memory never answered) has an
    # unknown speaker.
    assert sorted(ended, key=lambda e: e.session_id) == [
        EndedConversation("agent", speaker_unknown=False),
        EndedConversation("followed", speaker_unknown=True),
    ]
    for conversation in ended:
        batch = await backend.extraction_batch(
            conversation.session_id, DEFAULT, ended=True
        )
        assert batch is not None
        await backend.learn(batch, [], scope="household", settings=DEFAULT)
    assert await backend.ended_conversations() == []


async def test_a_memory_sentence_is_a_turn_never_learned_from(
    backend: MemoryBackend,
) -> None:
    await backend.record_memory_sentence(
        session_id="s2",
        said="Forget that Leo plays football",
        reply="Done.",
        user_id="anna",
    )
    conversation = await backend.conversation("s2")
    assert conversation is not None
    assert [(m.role, m.content, m.collected) for m in conversation.messages] == [
        ("user", "Forget that Leo plays football", True),
        ("assistant", "Done.", True),
    ]
    assert conversation.title is not None
    assert "Leo" in conversation.title
    assert await backend.ended_conversations(every=True) == []
    assert await backend.extraction_batch("s2", DEFAULT, ended=True) is None


async def test_the_memories_an_answer_said_are_the_turns(
    backend: MemoryBackend,
) -> None:
    """Why did Assist say that: a memory sentence's answer, and an answer from
    memory, name the memories they said (not those a search gave the turn)."""
    key = await backend.add("The spare key is under the blue flowerpot")
    shed = await backend.add("The spare key of the shed is in the drawer")
    await backend.record_memory_sentence(
        session_id="s4",
        said="Forget the spare key",
        reply="Should I forget this: The spare key is under the blue flowerpot?",
        user_id="anna",
        memory_ids=[key.id],
    )
    await backend.begin_turn(
        session_id="s4", text="Where is the spare key", user_id="anna"
    )
    await backend.end_turn(
        session_id="s4",
        user_text="Where is the spare key",
        reply="The spare key of the shed is in the drawer.",
        user_id="anna",
        memory_ids=[shed.id],
    )
    # An answer that said none: none, whatever the turn was given.
    await backend.begin_turn(session_id="s4", text="The spare key", user_id="anna")
    await backend.end_turn(
        session_id="s4",
        user_text="The spare key",
        reply="Sorry, I couldn't understand that",
        user_id="anna",
        memory_ids=[],
    )
    conversation = await backend.conversation("s4")
    assert conversation is not None
    said = [m.memory_ids for m in conversation.messages if m.role == "user"]
    assert said == [(key.id,), (shed.id,), ()]


async def test_a_paused_conversation_keeps_no_memory_sentence(
    backend: MemoryBackend,
) -> None:
    await backend.pause_session("s3", user_id=None)
    await backend.record_memory_sentence(
        session_id="s3", said="Remember that I like tea", reply="OK."
    )
    assert await backend.conversation("s3") is None
