"""Query expansion from the household's own vocabulary: names and what they are."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from custom_components.assist_memory.engine.memory.memory_engine import MemoryEngine
from custom_components.assist_memory.engine.search import expansion
from custom_components.assist_memory.engine.search.expansion import relations_in


@pytest.fixture
def engine(store_path: Path) -> Iterator[MemoryEngine]:
    engine = MemoryEngine(store_path)
    engine.init()
    yield engine
    engine.close()


@pytest.mark.parametrize(
    ("text", "relations"),
    [
        ("The user's son Leo plays football on Saturdays", [("son", "leo")]),
        ("My son Leo plays football", [("son", "leo")]),
        ("The household's dog is called Biscuit", [("dog", "biscuit")]),
        ("Our cat's name is Luna", [("cat", "luna")]),
        ("The user's brother Mike lives in Denver", [("brother", "mike")]),
        ("用户的儿子叫小宝", [("儿子", "小宝")]),
        ("用戶家的貓叫小白", [("貓", "小白")]),
        ("我的女儿名字是朵朵。", [("女儿", "朵朵")]),
        # Not a name: a description, a place, a plain statement.
        ("The user's car is a blue Golf", []),
        ("The blue Tupperware belongs to Mrs Patel", []),
        ("The street party is on the second Saturday in June", []),
        ("The spare key is under the mat", []),
        ("Anna takes her coffee black", []),
        ("用户喜欢喝咖啡", []),
    ],
)
def test_relations_said_in_memories(
    text: str, relations: list[tuple[str, str]]
) -> None:
    assert list(relations_in(text)) == relations


def test_the_vocabulary_follows_the_store(engine: MemoryEngine) -> None:
    vocabulary = engine.vocabulary
    son = engine.store.add("The user's son Leo plays football on Saturdays")
    engine.store.add("用户的儿子叫小宝")

    assert vocabulary.related(["son"]) == ["leo"]
    assert vocabulary.related(["leo"]) == ["son"]
    # A Chinese piece of a question holds its words without spaces.
    assert vocabulary.related(["小宝生日"]) == ["儿子"]
    assert vocabulary.related(["儿子"]) == ["小宝"]
    assert vocabulary.related(["football", "saturday"]) == []

    engine.store.update(son.id, "The user's son Max plays football on Saturdays")
    assert vocabulary.related(["son"]) == ["max"]
    assert vocabulary.related(["leo"]) == []

    engine.store.delete(son.id)
    assert vocabulary.related(["son"]) == []
    assert vocabulary.related(["max"]) == []
    assert vocabulary.related(["儿子"]) == ["小宝"]


def test_a_word_said_of_many_gives_only_the_most_said(engine: MemoryEngine) -> None:
    """A second round of many names would cost more than it finds: three at most."""
    for name, times in (("Leo", 3), ("Max", 2), ("Sam", 2), ("Tom", 1), ("Ben", 1)):
        for number in range(times):
            engine.store.add(f"The user's son {name} plays game {number}")

    assert engine.vocabulary.related(["son"]) == ["leo", "max", "sam"]


def test_the_vocabulary_is_learnt_again_at_start(store_path: Path) -> None:
    first = MemoryEngine(store_path)
    first.init()
    first.store.add("Our dog is called Biscuit")
    first.close()

    again = MemoryEngine(store_path)
    again.init()
    try:
        assert again.vocabulary.related(["dog"]) == ["biscuit"]
    finally:
        again.close()


def test_a_start_learns_the_vocabulary_only_when_a_question_needs_it(
    store_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A command-line search answered by its first round never reads every memory
    # for names (at 100 000 memories that was a tenth of a second of each start).
    first = MemoryEngine(store_path)
    first.init()
    first.store.add("Our dog is called Biscuit")
    first.store.add("The user's son Leo plays football")
    first.close()
    read: list[str] = []
    monkeypatch.setattr(
        expansion, "relations_in", counted(expansion.relations_in, read)
    )

    again = MemoryEngine(store_path)
    again.init()
    try:
        assert read == []
        assert again.vocabulary.related(["dog"]) == ["biscuit"]
        assert len(read) == 2
    finally:
        again.close()


def test_changes_before_the_first_question_are_kept(store_path: Path) -> None:
    first = MemoryEngine(store_path)
    first.init()
    son = first.store.add("The user's son Leo plays football")
    dog = first.store.add("Our dog is called Biscuit")
    first.close()

    again = MemoryEngine(store_path)
    again.init()
    try:
        # Changed and forgotten after the start, before anything asked for names.
        again.store.update(son.id, "The user's son Max plays football")
        again.store.delete(dog.id)
        again.store.add("Our cat is called Luna")

        assert again.vocabulary.related(["son"]) == ["max"]
        assert again.vocabulary.related(["leo"]) == []
        assert again.vocabulary.related(["dog"]) == []
        assert again.vocabulary.related(["cat"]) == ["luna"]
    finally:
        again.close()


def counted(
    function: Callable[[str], Iterator[tuple[str, str]]], calls: list[str]
) -> Callable[[str], Iterator[tuple[str, str]]]:
    """`function`, noting each text it is called with."""

    def call(text: str) -> Iterator[tuple[str, str]]:
        calls.append(text)
        return function(text)

    return call


def test_a_question_about_the_son_finds_what_was_said_of_his_name(
    engine: MemoryEngine,
) -> None:
    engine.store.add("用户的儿子叫小宝")
    said = engine.store.add("小宝对花生过敏")
    for number in range(6):
        engine.store.add(f"邻居家的孩子{number}号对猫毛过敏")

    results = engine.search("儿子对什么过敏？", limit=3)

    # Said of 小宝, the son's name: found through the household's own words, below
    # what the question's words found themselves.
    assert said.id in [r.memory.id for r in results]
    found = next(r for r in results if r.memory.id == said.id)
    assert "小宝" in found.matched


def test_a_question_about_leo_finds_what_was_said_of_the_son(
    engine: MemoryEngine,
) -> None:
    engine.store.add("The user's son Leo started school in September")
    said = engine.store.add("The user's son is scared of the dark")
    for name in ("Anna", "Ben", "Cleo", "Dan", "Eve", "Finn"):
        engine.store.add(f"{name} is scared of spiders")

    results = engine.search("Is Leo scared of anything?", limit=3)

    assert said.id in [r.memory.id for r in results]
