"""A learnt fact names the person it is about, and is "you" again when said to them."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from custom_components.assist_memory.engine.backend.answers import answer_command
from custom_components.assist_memory.engine.backend.forget_by_voice import (
    propose_forget,
)
from custom_components.assist_memory.engine.backend.protocol import MemoryBackend
from custom_components.assist_memory.engine.backend.question_answers import (
    answer_question,
)
from custom_components.assist_memory.engine.backend.statement_learning import (
    learn_statement,
)
from custom_components.assist_memory.engine.conversation.speaker import (
    Speaker,
    user_speaker,
)
from custom_components.assist_memory.engine.conversation.turn_settings import (
    LearnSettings,
)
from custom_components.assist_memory.engine.conversation.turns import ExtractionBatch
from custom_components.assist_memory.engine.language.commands import MemoryCommand
from custom_components.assist_memory.engine.language.listener import said_to
from custom_components.assist_memory.engine.language.naming import NAMED

EAGER = LearnSettings(min_interval=timedelta(0), min_messages=1)
ANNA = "anna"


async def _learn(
    backend: MemoryBackend, text: str, name: str | None, language: str | None = None
) -> None:
    batch = ExtractionBatch("s1", (), (text,), f"user: {text}", language=language)
    facts = await backend.rule_facts(batch)
    assert facts
    await backend.learn(batch, facts, scope=ANNA, settings=EAGER, name=name)


async def test_a_learnt_fact_names_the_speaker(backend: MemoryBackend) -> None:
    await _learn(backend, "My favourite colour is green", "Anna")
    (memory,) = (await backend.list(scope=ANNA)).items
    assert memory.content == "Anna's favourite colour is green"
    assert memory.metadata[NAMED] == "Anna"
    # Said again: refreshed, not kept twice; said otherwise: replaced, still named.
    await _learn(backend, "My favourite colour is green", "Anna")
    assert (await backend.list(scope=ANNA)).total == 1
    await _learn(backend, "My favourite colour is blue", "Anna")
    (memory,) = (await backend.list(scope=ANNA)).items
    assert memory.content == "Anna's favourite colour is blue"
    assert memory.metadata[NAMED] == "Anna"

    # To Anna it is hers; to anyone else it names her.
    assert said_to([memory], ANNA) == ["Your favourite colour is blue"]
    assert said_to([memory], "tom") == ["Anna's favourite colour is blue"]
    answer = await answer_question(
        backend, "What is my favourite colour?", user_id=ANNA
    )
    assert answer is not None
    assert answer.speech == "Your favourite colour is blue."
    recalled = await answer_command(
        backend,
        MemoryCommand("recall", "me"),
        session_id="s2",
        speaker=user_speaker(ANNA),
        language="en",
    )
    assert "Your favourite colour is blue" in recalled.speech
    assert "Anna" not in recalled.speech
    question = await propose_forget(
        backend,
        MemoryCommand("forget", "my favourite colour"),
        user_id=ANNA,
        language="en",
        may_forget_household=False,
    )
    assert question.speech == "Should I forget this: Your favourite colour is blue?"


async def test_unknown_name_keeps_the_wording(backend: MemoryBackend) -> None:
    await _learn(backend, "My favourite colour is green", None)
    (memory,) = (await backend.list(scope=ANNA)).items
    assert memory.content == "The user's favourite colour is green"
    assert NAMED not in memory.metadata
    # Named later: the same fact, not a second one.
    await _learn(backend, "My favourite colour is green", "Anna")
    assert (await backend.list(scope=ANNA)).total == 1


async def test_chinese_facts_name_the_speaker(backend: MemoryBackend) -> None:
    await _learn(backend, "我对青霉素过敏", "小明", "zh-Hans")
    await _learn(backend, "我太太不吃牛肉", "小明", "zh-Hant")
    contents = sorted(m.content for m in (await backend.list(scope=ANNA)).items)
    assert contents == ["小明对青霉素过敏", "小明的太太不吃牛肉"]
    memories = (await backend.list(scope=ANNA)).items
    assert sorted(said_to(memories, ANNA)) == ["你对青霉素过敏", "你的太太不吃牛肉"]
    # Said again in traditional characters: the same memory.
    await _learn(backend, "我太太不吃牛肉", "小明", "zh-Hant")
    assert (await backend.list(scope=ANNA)).total == 2


async def test_an_acknowledged_statement_names_the_speaker(
    backend: MemoryBackend,
) -> None:
    said = await learn_statement(
        backend,
        "My daughter Lily loves dinosaurs",
        session_id="s1",
        speaker=replace(user_speaker(ANNA), name="Anna"),
        language="en",
        settings=LearnSettings(),
    )
    assert said is not None
    assert said.speech == "Got it: Your daughter Lily loves dinosaurs."
    (memory,) = (await backend.list()).items
    assert memory.content == "Anna's daughter Lily loves dinosaurs"
    assert said.memory_ids == (memory.id,)


async def test_the_household_and_unknown_speakers_are_not_named(
    backend: MemoryBackend,
) -> None:
    text = "Our dog is called Rex"
    batch = ExtractionBatch("s1", (), (text,), f"user: {text}")
    facts = await backend.rule_facts(batch)
    await backend.learn(batch, facts, scope=ANNA, settings=EAGER, name="Anna")
    household = (await backend.list(scope="household")).items
    assert [m.content for m in household] == ["The household's dog is called Rex"]
    unknown = Speaker(None, "unknown", name="Anna")
    said = await learn_statement(
        backend,
        "My favourite colour is green",
        session_id="s3",
        speaker=unknown,
        language="en",
        settings=LearnSettings(),
    )
    assert said is not None
    assert all("Anna" not in m.content for m in (await backend.list()).items)
