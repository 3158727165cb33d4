"""Whole-store work on a thread of its own lets live searches through: it gives the
interpreter's lock away every few hundred items (counted as calls of `time.sleep`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC
import gc
import random
import sys
import time
from types import FrameType

from custom_components.assist_memory.engine import MemoryStore, StoreSettings
from custom_components.assist_memory.engine.documents.markdown import (
    render_markdown,
    rendered_order,
)
from custom_components.assist_memory.engine.documents.markdown_incremental import (
    ShownDocument,
)
from custom_components.assist_memory.engine.documents.written_base import first_base
from custom_components.assist_memory.engine.storage.models import CATEGORIES, Memory
from custom_components.assist_memory.engine.storage.yielding import (
    ITEMS_PER_TURN,
    yielding,
)

COUNT = 3000


@contextmanager
def turns_given() -> Iterator[list[int]]:
    """Counts the times the interpreter's lock was given away meanwhile."""
    count = [0]

    def profile(frame: FrameType, event: str, arg: object) -> None:
        if event == "c_call" and arg is time.sleep:
            count[0] += 1

    sys.setprofile(profile)
    try:
        yield count
    finally:
        sys.setprofile(None)


def store_of(open_store: Callable[..., MemoryStore]) -> MemoryStore:
    store = open_store(settings=StoreSettings(max_items=0))
    store.import_(
        [{"id": f"m{n}", "content": f"household note {n}"} for n in range(COUNT)]
    )
    return store


def test_building_memory_md_lines_gives_turns(
    open_store: Callable[..., MemoryStore],
) -> None:
    """After a start or a reload, every line is built again beside live searches."""
    store = store_of(open_store)
    with turns_given() as turns:
        document = ShownDocument(first_base(), store.get_all(), UTC)
    assert turns[0] >= COUNT // ITEMS_PER_TURN
    assert "".join(document.body_pieces()) == render_markdown(store.get_all(), UTC)


def test_folding_the_journal_gives_turns(
    open_store: Callable[..., MemoryStore],
) -> None:
    """A fold writes every memory into a new snapshot beside live searches."""
    store = store_of(open_store)
    store.add("one more note")  # in the journal only
    with turns_given() as turns:
        assert store.fold()
    assert turns[0] >= COUNT // ITEMS_PER_TURN


def test_slow_items_give_a_turn_every_millisecond() -> None:
    """Few items that each take long still let searches through between them."""

    def slow(count: int) -> Iterator[int]:
        for number in yielding(range(count)):
            busy_until = time.perf_counter() + 0.002
            while time.perf_counter() < busy_until:
                pass
            yield number

    with turns_given() as turns:
        assert list(slow(6)) == list(range(6))
    # Far fewer items than ITEMS_PER_TURN: every turn here was given for the time.
    assert turns[0] >= 5


def test_sorting_in_slices_keeps_the_order_of_one_sort() -> None:
    """MEMORY.md's order, sorted in slices and merged, is exactly one stable sort's."""
    rng = random.Random(5)
    memories = [
        Memory(
            id=f"m{number}",
            content=f"note {number}",
            category=rng.choice(CATEGORIES),
            # Few distinct times: many ties, which must keep the store's order.
            created_at=f"2026-01-0{rng.randint(1, 3)}T00:00:00+00:00",
        )
        for number in range(5000)
    ]
    with turns_given() as turns:
        ordered = rendered_order(memories)
    expected = sorted(
        memories, key=lambda m: (CATEGORIES.index(m.category), m.created_at)
    )
    assert [m.id for m in ordered] == [m.id for m in expected]
    assert turns[0] >= 2  # between the slices


def test_the_lines_kept_for_memory_md_are_not_walked_by_the_garbage_collector(
    open_store: Callable[..., MemoryStore],
) -> None:
    """One line is kept per memory for as long as the store is open: as tuples of
    strings and numbers, Python's collector stops tracking them (class instances it
    walks at every full pass, which at 100 000 memories paused searches)."""
    store = store_of(open_store)
    document = ShownDocument(first_base(), store.get_all(), UTC)
    gc.collect()
    lines = document.shown().lines
    assert len(lines) == COUNT
    assert not any(gc.is_tracked(line) for line in lines)
