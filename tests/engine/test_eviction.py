"""The memory lifecycle: optional eviction, deleting one memory, clearing all."""

from __future__ import annotations

from collections.abc import Callable, Iterator
import os
from pathlib import Path
from typing import Any

import pytest

from custom_components.assist_memory.engine import (
    InvalidMemoryError,
    MemoryFullError,
    MemoryStore,
    StoreSettings,
)
from custom_components.assist_memory.engine.config import InvalidConfigError
from custom_components.assist_memory.engine.memory.memory_engine import MemoryEngine

from .conftest import SteppingClock, read_snapshot

OpenStore = Callable[..., MemoryStore]


def indexed(engine: MemoryEngine) -> int:
    """Rows in the index once queued changes are applied."""
    engine.flush_index()
    return engine.index.count()


def ids(store: MemoryStore) -> set[str]:
    return {m.id for m in store.get_all()}


def record(
    memory_id: str, content: str, created_at: str, **fields: Any
) -> dict[str, Any]:
    return {"id": memory_id, "content": content, "created_at": created_at, **fields}


@pytest.fixture
def engine(store_path: Path) -> Iterator[MemoryEngine]:
    engine = MemoryEngine(store_path, StoreSettings(eviction_threshold=3))
    engine.init()
    yield engine
    engine.close()


# -- eviction order --------------------------------------------------------------


def test_lowest_confidence_is_evicted_first(
    open_store: OpenStore, clock: SteppingClock, store_path: Path
) -> None:
    store = open_store(settings=StoreSettings(eviction_threshold=3), clock=clock)
    sure = store.add("sure", confidence=0.9)
    unsure = store.add("unsure", confidence=0.4)
    middle = store.add("middle", confidence=0.7)

    newest = store.add("newest", confidence=0.8)

    assert ids(store) == {sure.id, middle.id, newest.id}
    assert store.get(unsure.id) is None
    # The file agrees: another process never sees the evicted memory.
    assert ids(MemoryStore(store_path)) == {sure.id, middle.id, newest.id}
    store.close()
    on_disk = {m["id"] for m in read_snapshot(store_path)["memories"]}
    assert on_disk == {sure.id, middle.id, newest.id}


def test_same_confidence_evicts_the_least_recently_used(
    open_store: OpenStore, clock: SteppingClock
) -> None:
    store = open_store(settings=StoreSettings(eviction_threshold=3), clock=clock)
    first = store.add("first")
    second = store.add("second")
    third = store.add("third")
    # The oldest memory was used recently; the second was never used.
    store.record_access([first.id])

    store.add("fourth")
    assert store.get(second.id) is None
    assert store.get(first.id) is not None

    # Now the third (never used, created before the fourth) is the least recent.
    store.add("fifth")
    assert store.get(third.id) is None
    assert store.get(first.id) is not None


def test_a_used_memory_can_still_go_when_used_longest_ago(
    open_store: OpenStore, clock: SteppingClock
) -> None:
    store = open_store(settings=StoreSettings(eviction_threshold=2), clock=clock)
    early = store.add("early")
    late = store.add("late")
    store.record_access([early.id])
    store.record_access([late.id])

    store.add("newest")

    assert store.get(early.id) is None
    assert store.get(late.id) is not None


def test_never_accessed_counts_from_creation(engine: MemoryEngine) -> None:
    engine.store.import_(
        {
            "memories": [
                record(
                    "used_long_ago",
                    "Used long ago",
                    "2024-01-01T00:00:00+00:00",
                    last_accessed="2024-02-01T00:00:00+00:00",
                ),
                record("created_later", "Created later", "2024-03-01T00:00:00+00:00"),
                record(
                    "used_lately",
                    "Used lately",
                    "2023-01-01T00:00:00+00:00",
                    last_accessed="2024-06-01T00:00:00+00:00",
                ),
            ]
        }
    )

    engine.store.add("A new memory")
    assert engine.store.get("used_long_ago") is None

    engine.store.add("Another new memory")
    assert engine.store.get("created_later") is None
    assert engine.store.get("used_lately") is not None


def test_confidence_wins_over_age(engine: MemoryEngine) -> None:
    engine.store.import_(
        {
            "memories": [
                record("old_sure", "Old but sure", "2020-01-01T00:00:00+00:00"),
                record(
                    "new_unsure",
                    "New but unsure",
                    "2025-01-01T00:00:00+00:00",
                    confidence=0.3,
                    last_accessed="2025-02-01T00:00:00+00:00",
                ),
                record("mid", "Middle", "2022-01-01T00:00:00+00:00"),
            ]
        }
    )

    engine.store.add("A new memory")

    assert engine.store.get("new_unsure") is None
    assert engine.store.get("old_sure") is not None


# -- evicted memories leave the index too ---------------------------------------


def test_evicted_memories_vanish_from_store_file_and_index(
    engine: MemoryEngine, store_path: Path
) -> None:
    weak = engine.store.add("Coffee maybe with milk", confidence=0.2)
    engine.store.add("Coffee black", confidence=0.9)
    engine.store.add("Tea with lemon", confidence=0.9)
    assert len(engine.search("coffee")) == 2

    newest = engine.store.add("Coffee beans from Ethiopia", confidence=0.9)

    assert engine.store.count() == 3
    assert indexed(engine) == 3
    found = {r.memory.id for r in engine.search("coffee")}
    assert weak.id not in found
    assert newest.id in found
    assert engine.search("milk") == []
    assert weak.id not in ids(MemoryStore(store_path))

    # A restart neither brings it back nor leaves it in the index.
    engine.close()
    reopened = MemoryEngine(store_path, StoreSettings(eviction_threshold=3))
    reopened.init()
    try:
        assert reopened.store.get(weak.id) is None
        assert indexed(reopened) == 3
        assert reopened.search("milk") == []
    finally:
        reopened.close()


def test_lowering_the_threshold_evicts_several_on_the_next_add(
    engine: MemoryEngine,
) -> None:
    for n, confidence in enumerate([0.5, 0.9, 0.6]):
        engine.store.add(f"Note {n}", confidence=confidence)
    engine.store.set_settings(StoreSettings(eviction_threshold=2))
    assert engine.store.count() == 3  # nothing is evicted until something is added

    new = engine.store.add("Latest note", confidence=0.1)

    remaining = {m.content for m in engine.store.get_all()}
    assert remaining == {"Note 1", new.content}  # the new memory always stays
    assert indexed(engine) == 2
    assert {r.memory.content for r in engine.search("note")} == remaining


def test_eviction_ignores_max_items(open_store: OpenStore) -> None:
    store = open_store(settings=StoreSettings(max_items=2, eviction_threshold=4))

    for n in range(6):
        store.add(f"Note {n}")

    assert store.count() == 4


# -- without eviction ------------------------------------------------------------


def test_default_rejects_at_max_items(open_store: OpenStore) -> None:
    assert StoreSettings().eviction_threshold == 0
    store = open_store(settings=StoreSettings(max_items=3))
    kept = [store.add(f"Note {n}").id for n in range(3)]

    with pytest.raises(MemoryFullError):
        store.add("One too many")

    assert [m.id for m in store.get_all()] == kept


def test_default_engine_rejects_and_index_is_unchanged(store_path: Path) -> None:
    engine = MemoryEngine(store_path, StoreSettings(max_items=1))
    engine.init()
    try:
        engine.store.add("Black coffee")
        with pytest.raises(MemoryFullError):
            engine.store.add("Green tea")
        assert indexed(engine) == 1
        assert engine.search("tea") == []
    finally:
        engine.close()


# -- settings --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "threshold"),
    [
        ({}, 0),
        ({"MEMORY_EVICTION_THRESHOLD": ""}, 0),
        ({"MEMORY_EVICTION_THRESHOLD": "  "}, 0),
        ({"MEMORY_EVICTION_THRESHOLD": "0"}, 0),
        ({"MEMORY_EVICTION_THRESHOLD": "500"}, 500),
        ({"MEMORY_EVICTION_THRESHOLD": " 12 "}, 12),
    ],
)
def test_eviction_threshold_from_the_environment(
    env: dict[str, str], threshold: int
) -> None:
    assert StoreSettings.from_env(env).eviction_threshold == threshold


@pytest.mark.parametrize("raw", ["-1", "ten", "1.5", "1e3"])
def test_bad_eviction_threshold_is_rejected(raw: str) -> None:
    with pytest.raises(InvalidConfigError) as caught:
        StoreSettings.from_env({"MEMORY_EVICTION_THRESHOLD": raw})

    assert caught.value.placeholders["name"] == "MEMORY_EVICTION_THRESHOLD"


def test_negative_threshold_is_rejected() -> None:
    with pytest.raises(InvalidMemoryError):
        StoreSettings(eviction_threshold=-1)


def test_threshold_from_the_environment_is_applied(
    store_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMORY_EVICTION_THRESHOLD", "2")
    store = MemoryStore(store_path, StoreSettings.from_env(os.environ))
    for n in range(5):
        store.add(f"Note {n}")

    assert store.count() == 2


# -- deleting and clearing through the engine -----------------------------------


def test_delete_one_removes_it_from_the_index(engine: MemoryEngine) -> None:
    coffee = engine.store.add("Black coffee in the morning")
    tea = engine.store.add("Green tea after lunch")

    assert engine.store.delete(coffee.id)
    assert not engine.store.delete(coffee.id)  # already gone

    assert engine.search("coffee") == []
    assert indexed(engine) == 1
    assert [r.memory.id for r in engine.search("tea")] == [tea.id]


def test_clear_all_empties_the_index(engine: MemoryEngine, store_path: Path) -> None:
    engine.store.add("Black coffee in the morning")
    engine.store.add("Green tea after lunch")

    assert engine.store.clear() == 2

    assert indexed(engine) == 0
    assert engine.search("coffee") == []
    assert engine.search("tea") == []
    assert MemoryStore(store_path).count() == 0
    assert engine.store.clear() == 0
