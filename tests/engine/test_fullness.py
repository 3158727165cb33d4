"""How full the store is: nearly full, full, stopped, said once in the log."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from custom_components.assist_memory.engine.errors import MemoryFullError
from custom_components.assist_memory.engine.storage.settings import StoreSettings
from custom_components.assist_memory.engine.storage.store import MemoryStore


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    memory_store = MemoryStore(tmp_path / "memories.json", StoreSettings(max_items=10))
    memory_store.init()
    return memory_store


def test_nearly_full_from_nine_tenths_then_full(store: MemoryStore) -> None:
    for n in range(8):
        store.add(f"Memory number {n}")
    assert not store.fullness().nearly_full
    store.add("Memory number 8")
    assert store.fullness().nearly_full
    assert not store.fullness().full
    store.add("Memory number 9")
    state = store.fullness()
    assert state.full
    assert not state.learning_stopped  # full, but nothing was refused
    assert state.refused == 0


def test_a_refusal_stops_learning_until_there_is_room(
    store: MemoryStore, caplog: pytest.LogCaptureFixture
) -> None:
    ids = [store.add(f"Memory number {n}").id for n in range(10)]
    with caplog.at_level(logging.INFO):
        for _ in range(5):
            with pytest.raises(MemoryFullError):
                store.add("Anna's secret recipe")
        state = store.fullness()
        assert state.learning_stopped
        assert state.stopped_since is not None
        assert state.refused == 5
        store.delete(ids[0])
        assert not store.fullness().learning_stopped
    text = caplog.text
    assert text.count("The memory is full (10 memories)") == 1
    assert text.count("The memory has room again") == 1
    assert "secret recipe" not in text
    assert store.fullness().refused == 5  # counted since the start


def test_a_higher_limit_makes_room(store: MemoryStore) -> None:
    for n in range(10):
        store.add(f"Memory number {n}")
    with pytest.raises(MemoryFullError):
        store.add("One too many")
    store.set_settings(StoreSettings(max_items=20))
    state = store.fullness()
    assert not state.learning_stopped
    assert not state.full
    assert not state.nearly_full


@pytest.mark.parametrize(
    "settings",
    [StoreSettings(max_items=0), StoreSettings(max_items=10, eviction_threshold=10)],
    ids=["no limit", "eviction"],
)
def test_never_full_without_a_limit_that_refuses(
    tmp_path: Path, settings: StoreSettings
) -> None:
    store = MemoryStore(tmp_path / "memories.json", settings)
    store.init()
    for n in range(12):
        store.add(f"Memory number {n}")
    state = store.fullness()
    assert not state.full
    assert not state.nearly_full
    assert not state.learning_stopped
