"""Answers, acknowledgements and forgetting by voice, the same with either backend."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from custom_components.assist_memory.engine.backend.answers import answer_command
from custom_components.assist_memory.engine.backend.forget_by_voice import (
    propose_forget,
    propose_forget_memories,
    settle_forget,
)
from custom_components.assist_memory.engine.backend.protocol import MemoryBackend
from custom_components.assist_memory.engine.backend.question_answers import (
    answer_question,
)
from custom_components.assist_memory.engine.backend.statement_learning import (
    learn_statement,
)
from custom_components.assist_memory.engine.conversation.speaker import user_speaker
from custom_components.assist_memory.engine.conversation.turn_settings import (
    LearnSettings,
)
from custom_components.assist_memory.engine.language.commands import MemoryCommand

ANNA = "anna"


async def test_a_question_gets_the_memory_that_answers_it(
    backend: MemoryBackend,
) -> None:
    mine = await backend.add("The user is allergic to penicillin", scope=ANNA)
    await backend.add("The spare key is under the blue flowerpot")
    await backend.add("The spare car key is in the hall drawer")

    answer = await answer_question(backend, "What am I allergic to?", user_id=ANNA)
    assert answer is not None
    assert answer.speech == "You're allergic to penicillin."
    assert [m.id for m in answer.memories] == [mine.id]
    # Someone else hears nothing of Anna's; nor does an unknown speaker.
    assert (
        await answer_question(backend, "What am I allergic to?", user_id="tom") is None
    )
    assert (
        await answer_question(backend, "What am I allergic to?", user_id=None) is None
    )

    answer = await answer_question(backend, "Where is the spare key?", user_id=ANNA)
    assert answer is not None
    assert answer.speech.startswith("The spare key is under the blue flowerpot.")
    # Not a question, or a question no memory answers.
    assert await answer_question(backend, "The spare key", user_id=ANNA) is None
    assert await answer_question(backend, "Where is my umbrella?", user_id=ANNA) is None


async def test_two_memories_that_answer_alike_are_both_said(
    backend: MemoryBackend,
) -> None:
    await backend.add("Lily loves dinosaurs")
    await backend.add("Lily has piano on Wednesdays")
    answer = await answer_question(backend, "What is Lily into?", user_id=None)
    assert answer is not None
    assert len(answer.memories) == 2


async def test_a_statement_is_learnt_and_acknowledged(backend: MemoryBackend) -> None:
    said = await learn_statement(
        backend,
        "My daughter Lily loves dinosaurs",
        session_id="s1",
        speaker=user_speaker(ANNA),
        language="en",
        settings=LearnSettings(),
    )
    assert said is not None
    assert said.speech == "Got it: Your daughter Lily loves dinosaurs."
    (memory,) = (await backend.list()).items
    assert said.memory_ids == (memory.id,)
    assert memory.scope == ANNA
    for nothing in ("Hello there", "My wifi password is hunter2"):
        assert (
            await learn_statement(
                backend,
                nothing,
                session_id="s1",
                speaker=user_speaker(ANNA),
                language="en",
                settings=LearnSettings(),
            )
            is None
        )


async def test_about_me_with_nothing_known(backend: MemoryBackend) -> None:
    said = await answer_command(
        backend,
        MemoryCommand("recall", "me"),
        session_id="s",
        speaker=user_speaker(ANNA),
        language="en",
    )
    assert said.speech == "I don't know anything about you yet."
    assert said.memory_ids == ()
    said = await answer_command(
        backend,
        MemoryCommand("recall", "我们家"),
        session_id="s",
        speaker=user_speaker(ANNA),
        language="zh-Hans",
    )
    assert said.speech == "我还不了解你家。"


async def test_forgetting_asks_and_keeps_what_is_not_chosen(
    backend: MemoryBackend,
) -> None:
    await backend.add("The spare key is under the mat")
    await backend.add("The spare key of the shed is in the drawer")
    await backend.add("The user keeps a spare key at work", scope=ANNA)
    forget = MemoryCommand("forget", "the spare key")

    refused = await propose_forget(
        backend, forget, user_id=None, language="en", may_forget_household=False
    )
    assert refused.proposal is None
    assert refused.speech == (
        "Only an administrator can make me forget the household's memories."
    )
    own = await propose_forget(
        backend, forget, user_id=ANNA, language="en", may_forget_household=False
    )
    assert own.speech == "Should I forget this: You keep a spare key at work?"

    asked = await propose_forget(
        backend, forget, user_id=ANNA, language="en", may_forget_household=True
    )
    assert asked.proposal is not None
    assert len(asked.proposal.memory_ids) == 3
    assert await settle_forget(backend, asked.proposal, "turn on the light") is None
    assert await settle_forget(backend, asked.proposal, "yes") is None
    assert (
        await settle_forget(backend, asked.proposal, "the first and the second") is None
    )
    assert await settle_forget(backend, asked.proposal, "all of them") == (
        "Done, I've forgotten 3 memories."
    )
    assert (await backend.list()).total == 0


async def test_forgetting_nothing(backend: MemoryBackend) -> None:
    none = await propose_forget(
        backend,
        MemoryCommand("forget", "the boiler"),
        user_id=ANNA,
        language="zh-Hant",
        may_forget_household=True,
    )
    assert none.speech == "我不記得關於the boiler的事情。"
    gone = await propose_forget_memories(
        backend, ["no-such-id"], user_id=ANNA, language="en", may_forget_household=True
    )
    assert gone.speech == "I don't remember anything about that."
    assert gone.proposal is None


@pytest.mark.parametrize(
    ("memory", "question", "answer"),
    [
        (
            "The plumber is coming on Friday 4 December at 10:00",
            "When is the plumber coming?",
            "On Friday 4 December at 10:00.",
        ),
        (
            "水管工12月4日（周五）上午10点来",
            "水管工什么时候来？",
            "12月4日（周五）上午10点。",
        ),
    ],
)
async def test_when_is_answered_with_the_day(
    backend: MemoryBackend, memory: str, question: str, answer: str
) -> None:
    await backend.add(memory)
    now = datetime(2026, 11, 30, 9, 0, tzinfo=ZoneInfo("Europe/London"))
    said = await answer_question(backend, question, user_id=None, now=now)
    assert said is not None
    assert said.speech == answer


async def test_when_without_a_day_is_said_as_the_memory(backend: MemoryBackend) -> None:
    await backend.add("The bins go out on Thursday")
    said = await answer_question(backend, "When do the bins go out?", user_id=None)
    assert said is not None
    assert said.speech == "The bins go out on Thursday."


async def test_two_memories_saying_the_same_are_said_once(
    backend: MemoryBackend,
) -> None:
    await backend.add("We drink green tea every morning.")
    await backend.add("We drink green tea every morning")
    said = await answer_question(
        backend, "Which green tea do we drink every morning", user_id=None
    )
    assert said is not None
    assert said.speech == "We drink green tea every morning."


async def test_a_recall_names_the_memories_it_said(backend: MemoryBackend) -> None:
    colour = await backend.add("my favourite colour is green", scope=ANNA)
    key = await backend.add("The spare key is under the blue flowerpot")
    about_me = await answer_command(
        backend,
        MemoryCommand("recall", "me"),
        session_id="s",
        speaker=user_speaker(ANNA),
        language="en",
    )
    assert about_me.speech == (
        "Here is what I know about you: Your favourite colour is green."
    )
    assert about_me.memory_ids == (colour.id,)
    recalled = await answer_command(
        backend,
        MemoryCommand("recall", "the spare key"),
        session_id="s",
        speaker=user_speaker(ANNA),
        language="en",
    )
    assert recalled.memory_ids == (key.id,)


async def test_without_search_by_meaning_no_two_memories_are_the_same_fact(
    backend: MemoryBackend,
) -> None:
    """Judged by meaning only (the route answers, over either backend)."""
    key = await backend.add("The spare key is under the blue flowerpot")
    twin = await backend.add("备用钥匙在蓝色花盆下面")
    assert await backend.same_facts([key.id, twin.id]) == []
