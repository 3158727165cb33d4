"""Input rules: bad input is rejected with the right code and nothing is stored."""

from __future__ import annotations

from collections.abc import Callable
import math
from pathlib import Path
from typing import Any

import pytest

from custom_components.assist_memory.engine import (
    CATEGORIES,
    InvalidMemoryError,
    Memory,
    MemoryStore,
    StoreSettings,
)
from custom_components.assist_memory.engine.storage.models import memory_from_dict

from .conftest import store_files

OpenStore = Callable[..., MemoryStore]

BAD_FIELDS: list[tuple[dict[str, Any], str]] = [
    ({"content": ""}, "empty_content"),
    ({"content": "   \n\t "}, "empty_content"),
    ({"content": "x" * 2001}, "content_too_long"),
    ({"content": "before\x00after"}, "invalid_content"),
    ({"content": 42}, "invalid_content"),
    ({"content": None}, "invalid_content"),
    ({"confidence": 1.01}, "invalid_confidence"),
    ({"confidence": -0.1}, "invalid_confidence"),
    ({"confidence": math.nan}, "invalid_confidence"),
    ({"confidence": math.inf}, "invalid_confidence"),
    ({"confidence": True}, "invalid_confidence"),
    ({"confidence": "0.5"}, "invalid_confidence"),
    ({"category": "gossip"}, "unknown_category"),
    ({"category": 3}, "unknown_category"),
    ({"source": "robot"}, "unknown_source"),
    ({"source": "USER_STATED"}, "unknown_source"),
    ({"scope": ""}, "invalid_scope"),
    ({"scope": "   "}, "invalid_scope"),
    ({"scope": "two words"}, "invalid_scope"),
    ({"scope": "u" * 201}, "invalid_scope"),
    ({"scope": 7}, "invalid_scope"),
    ({"tags": 5}, "invalid_tags"),
    ({"tags": ["ok", 1]}, "invalid_tags"),
    ({"tags": ["a,b"]}, "invalid_tags"),
    ({"tags": ["t" * 51]}, "invalid_tags"),
    ({"tags": [f"tag{n}" for n in range(21)]}, "invalid_tags"),
    ({"tags": ["bad\x00tag"]}, "invalid_tags"),
    ({"metadata": ["not", "an", "object"]}, "invalid_metadata"),
    ({"metadata": {"value": math.nan}}, "invalid_metadata"),
    ({"metadata": {"value": object()}}, "invalid_metadata"),
    ({"metadata": {"value": {1, 2}}}, "invalid_metadata"),
    ({"metadata": {"big": "x" * 9000}}, "invalid_metadata"),
    ({"key": "k" * 201}, "invalid_key"),
    ({"key": 12}, "invalid_key"),
    ({"session_id": 12}, "invalid_session_id"),
]


@pytest.mark.parametrize(("fields", "code"), BAD_FIELDS)
def test_add_rejects_bad_input_and_stores_nothing(
    store: MemoryStore,
    store_path: Path,
    open_store: OpenStore,
    fields: dict[str, Any],
    code: str,
) -> None:
    store.add("already here")
    before = store_files(store_path)
    arguments = {"content": "valid content", **fields}

    with pytest.raises(InvalidMemoryError) as err:
        store.add(**arguments)

    assert err.value.code == code
    assert err.value.message == str(err.value)
    assert store.count() == 1
    assert store_files(store_path) == before
    assert [m.content for m in open_store().get_all()] == ["already here"]


UPDATE_FIELDS = [
    (fields, code)
    for fields, code in BAD_FIELDS
    if "session_id" not in fields and fields.get("content", "") is not None
]


@pytest.mark.parametrize(("fields", "code"), UPDATE_FIELDS)
def test_update_rejects_bad_input_and_changes_nothing(
    store: MemoryStore, store_path: Path, fields: dict[str, Any], code: str
) -> None:
    memory = store.add("already here", tags=["keep"], metadata={"keep": 1})
    before = store_files(store_path)

    with pytest.raises(InvalidMemoryError) as err:
        store.update(memory.id, **fields)

    assert err.value.code == code
    assert store.get(memory.id) == memory
    assert store_files(store_path) == before


def test_content_limit_counts_the_text_as_given(store: MemoryStore) -> None:
    """As the API document's maxLength does; the stored content is trimmed."""
    exact = store.add("  " + "x" * 1997 + "\n")

    assert len(exact.content) == 1997
    with pytest.raises(InvalidMemoryError) as err:
        store.add("  " + "x" * 1998 + "\n")
    assert err.value.code == "content_too_long"


def test_content_limit_is_configurable(open_store: OpenStore) -> None:
    store = open_store(settings=StoreSettings(max_content_length=10))
    store.add("x" * 10)

    with pytest.raises(InvalidMemoryError) as err:
        store.add("x" * 11)

    assert err.value.code == "content_too_long"
    assert err.value.placeholders == {"length": "11", "max_length": "10"}
    assert store.count() == 1


def test_update_content_limit_applies(open_store: OpenStore) -> None:
    store = open_store(settings=StoreSettings(max_content_length=10))
    memory = store.add("short")

    with pytest.raises(InvalidMemoryError) as err:
        store.update(memory.id, "x" * 11)

    assert err.value.code == "content_too_long"
    assert store.get(memory.id) == memory


def test_category_is_case_insensitive_and_every_category_is_accepted(
    store: MemoryStore,
) -> None:
    stored = [store.add(f"memory {c}", category=f" {c.upper()} ") for c in CATEGORIES]

    assert [m.category for m in stored] == list(CATEGORIES)


def test_tags_are_trimmed_lowercased_and_deduplicated(store: MemoryStore) -> None:
    from_text = store.add("one", tags="Kitchen, kitchen , Lights,,")
    from_list = store.add("two", tags=["Tea", " tea", "", "Food"])

    assert from_text.tags == ("kitchen", "lights")
    assert from_list.tags == ("tea", "food")


def test_blank_key_and_session_id_mean_none(store: MemoryStore) -> None:
    memory = store.add("x", key="   ", session_id="")

    assert memory.key is None
    assert memory.session_id is None


def test_metadata_is_stored_as_plain_json(store: MemoryStore) -> None:
    memory = store.add("x", metadata={"n": 1, "list": (1, 2), "nested": {"a": None}})

    assert memory.metadata == {"n": 1, "list": [1, 2], "nested": {"a": None}}


def test_confidence_bounds_are_inclusive(store: MemoryStore) -> None:
    assert store.add("zero", confidence=0).confidence == 0.0
    assert store.add("one", confidence=1).confidence == 1.0


# -- records read from files and imports ------------------------------------------


def test_memory_from_dict_round_trips_to_dict() -> None:
    memory = Memory(
        id="abc-1",
        content="likes tea",
        category="preference",
        key="drink",
        tags=("food",),
        confidence=0.5,
        source="inferred",
        scope="user_1",
        session_id="s",
        metadata={"a": 1},
        created_at="2024-01-01T00:00:00+00:00",
        updated_at="2024-01-02T00:00:00+00:00",
        last_accessed="2024-01-03T00:00:00+00:00",
        access_count=3,
    )

    assert memory_from_dict(memory.to_dict(), max_content_length=2000) == memory


def test_memory_from_dict_accepts_camel_case_aliases() -> None:
    memory = memory_from_dict(
        {
            "id": "1700000000000",
            "value": "likes tea",
            "createdAt": "2024-01-01T00:00:00Z",
            "lastAccessed": "2024-01-03T00:00:00Z",
            "accessCount": 2,
            "sessionId": "s1",
        },
        max_content_length=2000,
    )

    assert memory.content == "likes tea"
    assert memory.created_at == "2024-01-01T00:00:00+00:00"
    assert memory.updated_at == memory.created_at
    assert memory.last_accessed == "2024-01-03T00:00:00+00:00"
    assert memory.access_count == 2
    assert memory.session_id == "s1"


def test_memory_from_dict_takes_time_without_zone_as_utc() -> None:
    memory = memory_from_dict(
        {"id": "a", "content": "x", "created_at": "2024-01-01T12:00:00"},
        max_content_length=2000,
    )

    assert memory.created_at == "2024-01-01T12:00:00+00:00"


def test_memory_from_dict_converts_offsets_to_utc() -> None:
    memory = memory_from_dict(
        {"id": "a", "content": "x", "created_at": "2024-01-01T12:00:00+08:00"},
        max_content_length=2000,
    )

    assert memory.created_at == "2024-01-01T04:00:00+00:00"


@pytest.mark.parametrize(
    ("record", "code"),
    [
        ("not an object", "invalid_record"),
        ({"content": "no id"}, "invalid_id"),
        ({"id": "", "content": "x"}, "invalid_id"),
        ({"id": "has space", "content": "x"}, "invalid_id"),
        ({"id": "i" * 65, "content": "x"}, "invalid_id"),
        ({"id": 5, "content": "x"}, "invalid_id"),
        ({"id": "a", "content": "x", "created_at": "yesterday"}, "invalid_timestamp"),
        ({"id": "a", "content": "x", "updated_at": 1700000000}, "invalid_timestamp"),
        ({"id": "a", "content": "x", "last_accessed": "soon"}, "invalid_timestamp"),
        ({"id": "a", "content": "x", "access_count": -1}, "invalid_access_count"),
        ({"id": "a", "content": "x", "access_count": True}, "invalid_access_count"),
        ({"id": "a", "content": "x", "access_count": 1.5}, "invalid_access_count"),
        ({"id": "a", "content": "x" * 11}, "content_too_long"),
    ],
)
def test_memory_from_dict_rejects_bad_records(record: object, code: str) -> None:
    with pytest.raises(InvalidMemoryError) as err:
        memory_from_dict(record, max_content_length=10)

    assert err.value.code == code


def test_invalid_memory_error_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="content must not be empty"):
        memory_from_dict({"id": "a", "content": " "}, max_content_length=10)


def test_memory_is_immutable() -> None:
    memory = Memory(id="a", content="x")

    with pytest.raises(AttributeError):
        memory.content = "y"  # type: ignore[misc]
    assert memory.with_changes(content="y").content == "y"
    assert memory.content == "x"
