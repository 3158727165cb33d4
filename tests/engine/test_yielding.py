"""Whole-store work on a thread of its own lets live searches through: it gives the
interpreter's lock away every few hundred items (counted as calls of `time.sleep`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
import sys
import time
from types import FrameType

from custom_components.assist_memory.engine import MemoryStore, StoreSettings
from custom_components.assist_memory.engine.documents.markdown import render_markdown
from custom_components.assist_memory.engine.documents.markdown_incremental import (
    ShownDocument,
)
from custom_components.assist_memory.engine.documents.written_base import first_base
from custom_components.assist_memory.engine.storage.yielding import ITEMS_PER_TURN

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
        document = ShownDocument(first_base(), store.get_all())
    assert turns[0] >= COUNT // ITEMS_PER_TURN
    assert "".join(document.body_pieces()) == render_markdown(store.get_all())


def test_folding_the_journal_gives_turns(
    open_store: Callable[..., MemoryStore],
) -> None:
    """A fold writes every memory into a new snapshot beside live searches."""
    store = store_of(open_store)
    store.add("one more note")  # in the journal only
    with turns_given() as turns:
        assert store.fold()
    assert turns[0] >= COUNT // ITEMS_PER_TURN
