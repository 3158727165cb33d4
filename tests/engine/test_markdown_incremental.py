"""MEMORY.md kept line by line: each change renders its own line, and the file is
byte for byte what rendering every memory again gives."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
import random
import sys
from types import FrameType

import pytest

from custom_components.assist_memory.engine import MemoryStore, StoreSettings
from custom_components.assist_memory.engine.documents import (
    markdown,
    markdown_incremental,
)
from custom_components.assist_memory.engine.documents.markdown import (
    CATEGORY_TITLES,
    render_markdown,
    rendered_order,
)
from custom_components.assist_memory.engine.documents.markdown_incremental import (
    ShownDocument,
)
from custom_components.assist_memory.engine.documents.mirror import MarkdownMirror
from custom_components.assist_memory.engine.documents.written_base import (
    WrittenBase,
    first_base,
    load_base,
)
from custom_components.assist_memory.engine.memory.forgetting import forget, forget_all
from custom_components.assist_memory.engine.memory.memory_engine import MemoryEngine
from custom_components.assist_memory.engine.storage.untrusted_file import file_signature
from tests.support.data_folder import files_containing

CATEGORIES = list(CATEGORY_TITLES)
STEPS = 200
WORD = "Zyxwvortle"
SECRET = f"Anna's cat is called {WORD}"


class TiedClock:
    """A store clock that often gives the same instant again (equal created_at)."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self._now = datetime(2025, 1, 1, tzinfo=UTC)

    def __call__(self) -> str:
        if self._rng.random() < 0.5:
            self._now += timedelta(seconds=self._rng.choice([1, 60, 3600]))
        return self._now.isoformat()


@contextmanager
def lines_rendered() -> Iterator[list[int]]:
    """Counts the bullets rendered meanwhile (calls of `markdown.one_line`)."""
    count = [0]
    code = markdown.one_line.__code__

    def profile(frame: FrameType, event: str, arg: object) -> None:
        if event == "call" and frame.f_code is code:
            count[0] += 1

    sys.setprofile(profile)
    try:
        yield count
    finally:
        sys.setprofile(None)


def expected_after_write(store: MemoryStore, before: WrittenBase) -> WrittenBase:
    """The base a full render of every memory gives after `before`."""
    return before.showing(rendered_order(store.get_all()), UTC)


def recorded(mirror: MarkdownMirror) -> WrittenBase:
    return load_base(mirror.base_path) or first_base()


def random_step(store: MemoryStore, rng: random.Random, number: int) -> None:
    """One random change: add, edit, recategorise, rescope, delete, or a reload."""
    memories = store.get_all()
    roll = rng.random()
    if not memories or roll < 0.35:
        store.add(
            f"note {number} {rng.choice(['tea', 'key', '钥匙', 'bins'])}",
            category=rng.choice(CATEGORIES),
        )
        return
    memory = rng.choice(memories)
    if roll < 0.5:
        store.update(memory.id, f"{memory.content} (v{number})")
    elif roll < 0.6:
        # Back to a text it had: the line as written before, if nothing else moved.
        store.update(memory.id, memory.content.split(" (v")[0])
    elif roll < 0.7:
        store.update(memory.id, category=rng.choice(CATEGORIES))
    elif roll < 0.78:
        store.update(memory.id, scope=rng.choice(["household", "person:anna"]))
    elif roll < 0.95:
        store.delete(memory.id)
    elif roll < 0.98:
        # A reload: every memory again, in another order.
        records = [m.to_dict() for m in memories]
        rng.shuffle(records)
        store.import_(records, mode="replace")
    else:
        store.clear()


@pytest.mark.parametrize(("seed", "block_lines"), [(7, 3), (2024, 3), (7, 500)])
def test_random_changes_write_exactly_what_a_full_render_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int, block_lines: int
) -> None:
    # Small blocks: lines move between blocks, blocks split and empty.
    monkeypatch.setattr(markdown_incremental, "BLOCK_LINES", block_lines)
    rng = random.Random(seed)
    store = MemoryStore(
        tmp_path / "memories.json",
        StoreSettings(max_items=0),
        clock=TiedClock(rng),
    )
    store.init()
    mirror = MarkdownMirror(store, tmp_path, UTC)
    mirror.start()
    writes = 0
    for number in range(STEPS):
        for _ in range(rng.choice([1, 1, 2, 5])):
            random_step(store, rng, number)
        if rng.random() < 0.3:
            assert mirror.render() == render_markdown(store.get_all(), UTC)
        if rng.random() < 0.5:
            before = recorded(mirror)
            expected = expected_after_write(store, before)
            written = mirror.flush()
            assert written == (expected is not before), number
            if written:
                writes += 1
                signature = file_signature(mirror.path)
                assert recorded(mirror) == replace(expected, file=signature)
                assert mirror.path.read_bytes() == expected.text().encode()
    assert writes > STEPS / 5


def test_a_change_renders_its_own_line_not_the_store(
    open_store: Callable[..., MemoryStore],
) -> None:
    store = open_store(settings=StoreSettings(max_items=0))
    mirror = MarkdownMirror(store, store.path.parent, UTC)
    mirror.start()
    for number in range(300):
        store.add(f"household note {number}", category=CATEGORIES[number % 7])
    mirror.flush()  # the lines are kept from here on
    steps: list[Callable[[], object]] = [
        lambda: store.add("one more note", category="fact"),
        lambda: store.update(store.get_all()[5].id, "an edited note"),
        lambda: store.update(store.get_all()[6].id, category="event"),
        lambda: store.delete(store.get_all()[7].id),
    ]
    for step in steps:
        step()
        with lines_rendered() as written:
            assert mirror.flush()
        with lines_rendered() as read:
            text = mirror.render()
        assert written[0] <= 1
        assert read[0] == 0
        assert text == render_markdown(store.get_all(), UTC)


def test_forgetting_renders_no_line_and_leaves_no_trace(store_path: Path) -> None:
    """Forget and clear follow the kept lines (no whole render) and, before they
    return, MEMORY.md and its base hold nothing of what was forgotten."""
    engine = MemoryEngine(store_path, StoreSettings(max_items=0))
    engine.init()
    try:
        for number in range(300):
            engine.store.add(
                f"household note {number}", category=CATEGORIES[number % 7]
            )
        doomed = engine.store.add(SECRET, category="fact")
        engine.flush()  # the lines are kept from here on
        with lines_rendered() as rendered:
            assert forget(engine, [doomed.id]) == [doomed.id]
        assert rendered[0] == 0
        assert files_containing(store_path.parent, WORD) == []
        assert engine.mirror.path.read_text() == recorded(engine.mirror).text()
        assert engine.read_markdown() == render_markdown(engine.store.get_all(), UTC)

        engine.store.add(SECRET)
        engine.flush()
        with lines_rendered() as rendered:
            assert forget_all(engine) == 301
        assert rendered[0] == 0
        assert files_containing(store_path.parent, WORD, "household") == []
    finally:
        engine.close()


def test_forgetting_takes_the_line_out_of_an_edit_not_applied_yet(
    store_path: Path,
) -> None:
    """A hand edit of MEMORY.md still waiting for its quiet spell is applied first
    (nothing of it is lost), then the memory is forgotten: no copy of it stays."""
    engine = MemoryEngine(store_path, StoreSettings(max_items=0))
    engine.init()
    try:
        kept = engine.store.add("Tea in the morning", category="preference")
        doomed = engine.store.add(SECRET, category="fact")
        engine.flush()
        path = engine.mirror.path
        path.write_text(path.read_text().replace("- Tea in the morning", "- Tea at 7"))
        assert forget(engine, [doomed.id]) == [doomed.id]
        assert files_containing(store_path.parent, WORD) == []
        assert [m.content for m in engine.store.get_all()] == ["Tea at 7"]
        assert engine.store.get(kept.id) is not None
    finally:
        engine.close()


def test_forgetting_takes_the_line_out_of_an_edit_that_cannot_be_applied(
    store_path: Path,
) -> None:
    engine = MemoryEngine(store_path, StoreSettings(max_items=0))
    engine.init()
    try:
        doomed = engine.store.add(SECRET, category="fact")
        engine.flush()
        path = engine.mirror.path
        path.write_bytes(b"\xff not UTF-8\n" + path.read_bytes())
        assert forget(engine, [doomed.id]) == [doomed.id]
        assert files_containing(store_path.parent, WORD) == []
        kept_aside = engine.mirror.last_rejected
        assert kept_aside is not None
        assert kept_aside.read_bytes().startswith(b"\xff not UTF-8\n")
    finally:
        engine.close()


def test_a_write_joins_again_only_the_block_that_changed(
    open_store: Callable[..., MemoryStore], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The text of the lines around a change is kept: writing the file after one
    change joins one block of lines again, not the store."""
    monkeypatch.setattr(markdown_incremental, "BLOCK_LINES", 10)
    store = open_store(settings=StoreSettings(max_items=0))
    for number in range(300):
        store.add(f"household note {number}", category=CATEGORIES[number % 2])
    document = ShownDocument(first_base(), store.get_all(), UTC)
    before = [*document.body_pieces(), *document.encoded_blocks()]
    assert len(before) > 30

    changed = store.update(store.get_all()[150].id, "an edited note")
    document.change(changed.id, changed)
    after = [*document.body_pieces(), *document.encoded_blocks()]

    made_again = [
        piece
        for piece in after
        if len(piece) > 100 and not any(piece is kept for kept in before)
    ]
    assert len(made_again) == 2  # its block's bullets and their encoding
    assert "".join(document.body_pieces()) == render_markdown(store.get_all(), UTC)
