"""A learnt fact names its person, and is "you" again to them (`naming`, `listener`)."""

from __future__ import annotations

import pytest

from custom_components.assist_memory.engine.language.listener import (
    for_listener,
    said_to,
)
from custom_components.assist_memory.engine.language.naming import (
    NAMED,
    NAMED_FOR,
    as_learnt,
    clean_name,
    named,
    naming_metadata,
    unnamed,
)
from custom_components.assist_memory.engine.storage.models import Memory


@pytest.mark.parametrize(
    ("learnt", "name", "stored"),
    [
        (
            "The user's favourite colour is green",
            "Sam",
            "Sam's favourite colour is green",
        ),
        ("The user likes their coffee black", "Sam", "Sam likes their coffee black"),
        ("Anna gave the user a book", "Sam", "Anna gave Sam a book"),
        (
            "The user's favourite colour is green",
            "小明",
            "小明's favourite colour is green",
        ),
        ("用户对青霉素过敏", "Sam", "Sam对青霉素过敏"),
        ("用户对青霉素过敏", "小明", "小明对青霉素过敏"),
        ("用户的太太不吃牛肉", "小明", "小明的太太不吃牛肉"),
        ("用戶對青黴素過敏", "小明", "小明對青黴素過敏"),
        ("用戶的太太不吃牛肉", "Sam", "Sam的太太不吃牛肉"),
    ],
)
def test_a_fact_names_the_person_and_back(learnt: str, name: str, stored: str) -> None:
    assert named(learnt, name) == stored
    memory = Memory(id="m1", content=stored, metadata=naming_metadata({}, learnt, name))
    assert as_learnt(memory).content == learnt
    if "用戶" not in learnt:
        assert unnamed(stored, name) == learnt


@pytest.mark.parametrize(
    ("stored", "name", "to_them", "to_others"),
    [
        (
            "Sam's favourite colour is green",
            "Sam",
            "Your favourite colour is green",
            "Sam's favourite colour is green",
        ),
        (
            "Sam likes their coffee black",
            "Sam",
            "You like your coffee black",
            "Sam likes their coffee black",
        ),
        ("小明对青霉素过敏", "小明", "你对青霉素过敏", "小明对青霉素过敏"),
        ("Sam對青黴素過敏", "Sam", "你對青黴素過敏", "Sam對青黴素過敏"),
    ],
)
def test_said_to_its_owner_and_to_others(
    stored: str, name: str, to_them: str, to_others: str
) -> None:
    assert for_listener(stored, own=True, name=name) == to_them
    assert for_listener(stored, own=False, name=name) == to_others
    memory = Memory(id="m1", content=stored, scope="sam", metadata={NAMED: name})
    assert said_to([memory], "sam") == [to_them]
    assert said_to([memory], "ben") == [to_others]
    assert said_to([memory], None) == [to_others]


def test_without_a_name_the_wording_stays() -> None:
    for name in (None, "", "   ", "12", "x" * 61):
        assert named("The user's cat is Tom", name) == "The user's cat is Tom"
        assert unnamed("The user's cat is Tom", name) == "The user's cat is Tom"
    assert clean_name("  Sam   Lee ") == "Sam Lee"
    assert named("The household's dog is Rex", "Sam") == "The household's dog is Rex"


def test_a_name_is_matched_whole() -> None:
    assert unnamed("Samantha visits Sam on Sundays", "Sam") == (
        "Samantha visits the user on Sundays"
    )
    assert unnamed("Dr. O'Neil's dog is Rex", "Dr. O'Neil") == "The user's dog is Rex"


def test_the_name_used_is_in_the_metadata() -> None:
    said = {"said": "My cat is Tom", "speaker": "sam"}
    metadata = naming_metadata(said, "The user's cat is Tom", "Sam")
    assert metadata == {**said, NAMED: "Sam"}
    # Nothing of the user in it, or no name: no name recorded (an old one goes).
    assert naming_metadata(metadata, "Anna's cat is Tom", "Sam") == said
    assert naming_metadata(metadata, "The user's cat is Tom", None) == said
    memory = Memory(id="m1", content="Sam's cat is Tom", metadata=metadata)
    assert as_learnt(memory).content == "The user's cat is Tom"
    assert as_learnt(Memory(id="m2", content="Sam's cat")).content == "Sam's cat"
    # Written alike in both scripts: the metadata says it was 用戶.
    traditional = naming_metadata({}, "用戶的太太不吃牛肉", "小明")
    assert traditional == {NAMED: "小明", NAMED_FOR: "用戶"}
    assert unnamed("小明的太太不吃牛肉", "小明") == "用户的太太不吃牛肉"
    assert unnamed("小明的太太不吃牛肉", "小明", traditional=True) == (
        "用戶的太太不吃牛肉"
    )
