"""LocalBackend: the store from asyncio, with change listeners."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from dataclasses import asdict
from datetime import tzinfo
import json
import logging
from pathlib import Path
import threading

import pytest

from custom_components.assist_memory.engine import (
    InvalidMemoryError,
    LocalBackend,
    MemoryFullError,
    MemoryStore,
    StorageError,
    StoreSettings,
)
from custom_components.assist_memory.engine.documents import mirror
from custom_components.assist_memory.engine.documents.written_base import WrittenBase
from custom_components.assist_memory.engine.storage.models import Memory

from .conftest import journal_lines, read_snapshot


@pytest.fixture
async def backend(store_path: Path) -> AsyncIterator[LocalBackend]:
    backend, _ = await LocalBackend.open(store_path)
    yield backend
    await backend.close()


async def test_open_creates_store_and_reports_load(store_path: Path) -> None:
    backend, report = await LocalBackend.open(store_path)
    try:
        assert report.count == 0
        assert read_snapshot(store_path)["memories"] == []
    finally:
        await backend.close()


async def test_open_on_unreadable_store_raises_storage_error(tmp_path: Path) -> None:
    (tmp_path / "memories.journal").mkdir()

    with pytest.raises(StorageError, match="cannot read"):
        await LocalBackend.open(tmp_path / "memories.json")


async def test_crud_round_trip(backend: LocalBackend, store_path: Path) -> None:
    memory = await backend.add("likes green tea", category="preference", tags="food")

    assert await backend.get(memory.id) == memory
    updated = await backend.update(memory.id, "likes black tea", confidence=0.5)
    assert updated is not None
    assert updated.content == "likes black tea"
    assert updated.confidence == 0.5
    assert await backend.update("no-such-id", "x") is None
    assert await backend.delete("no-such-id") is False
    assert await backend.delete(memory.id) is True
    assert await backend.get(memory.id) is None
    assert MemoryStore(store_path).get_all() == []


async def test_list_search_and_limit(backend: LocalBackend) -> None:
    for text in ("Green tea", "black TEA", "coffee", "tea cups"):
        await backend.add(
            text, category="preference" if "tea" in text.lower() else "fact"
        )

    page = await backend.list(limit=2, category="preference", sort="oldest")
    assert [m.content for m in page.items] == ["Green tea", "black TEA"]
    assert page.total == 3
    assert sorted(r.memory.content for r in await backend.search("tea")) == [
        "Green tea",
        "black TEA",
        "tea cups",
    ]
    assert len(await backend.search("tea", limit=1)) == 1
    assert await backend.search("juice") == []


async def test_build_prompt_with_all_or_matching_memories(
    backend: LocalBackend,
) -> None:
    assert await backend.build_prompt("Hello") == "Hello"

    await backend.add("likes green tea")
    await backend.add("lives in Berlin")

    assert await backend.build_prompt("Hi") == (
        "<long_term_memory>\n- likes green tea\n- lives in Berlin\n"
        "</long_term_memory>\n\nHi"
    )
    assert await backend.build_prompt("Hi", query="berlin") == (
        "<long_term_memory>\n- lives in Berlin\n</long_term_memory>\n\nHi"
    )
    assert await backend.build_prompt("Hi", limit=1) == (
        "<long_term_memory>\n- likes green tea\n</long_term_memory>\n\nHi"
    )
    assert await backend.build_prompt("Hi", query="nothing") == "Hi"


async def test_clear_export_import(backend: LocalBackend) -> None:
    first = await backend.add("one")
    second = await backend.add("two")
    document = await backend.export()

    assert await backend.clear() == 2
    assert (await backend.list()).total == 0
    result = await backend.import_(document)

    assert result.added == 2
    assert [await backend.get(m.id) for m in (first, second)] == [first, second]
    replaced = await backend.import_(
        [{"id": "only", "content": "only"}], mode="replace"
    )
    assert replaced.total == 1


async def test_errors_reach_the_caller(store_path: Path) -> None:
    backend, _ = await LocalBackend.open(store_path, StoreSettings(max_items=1))
    try:
        with pytest.raises(InvalidMemoryError) as err:
            await backend.add("   ")
        assert err.value.code == "empty_content"
        await backend.add("one")
        with pytest.raises(MemoryFullError, match=r"memory is full \(1 items\)"):
            await backend.add("two")
    finally:
        await backend.close()


async def test_listeners_run_after_each_change(backend: LocalBackend) -> None:
    counts: list[int] = []
    # The listener sees the change already made.
    backend.add_listener(lambda: counts.append(backend.store.count()))

    memory = await backend.add("one")
    await backend.update(memory.id, "uno")
    await backend.add("two")
    await backend.delete(memory.id)
    await backend.import_([{"id": "x", "content": "x"}])
    await backend.clear()

    assert counts == [1, 1, 2, 1, 2, 0]


async def test_listeners_not_called_for_reads(backend: LocalBackend) -> None:
    memory = await backend.add("one")
    calls: list[None] = []
    backend.add_listener(lambda: calls.append(None))

    await backend.get(memory.id)
    await backend.list()
    await backend.search("one")
    await backend.build_prompt("hi")
    await backend.export()
    await backend.stats()

    assert calls == []


async def test_listeners_not_called_when_a_change_fails(backend: LocalBackend) -> None:
    calls: list[None] = []
    backend.add_listener(lambda: calls.append(None))

    with pytest.raises(InvalidMemoryError):
        await backend.add("")

    assert calls == []


async def test_failing_listener_is_logged_not_raised(
    backend: LocalBackend, caplog: pytest.LogCaptureFixture
) -> None:
    later: list[None] = []

    def broken() -> None:
        raise RuntimeError("listener bug")

    backend.add_listener(broken)
    backend.add_listener(lambda: later.append(None))

    with caplog.at_level(logging.ERROR):
        memory = await backend.add("still stored")

    assert await backend.get(memory.id) == memory
    assert later == [None]
    assert "A memory change listener failed" in caplog.text
    assert "listener bug" in caplog.text


async def test_unsubscribe_stops_calls(backend: LocalBackend) -> None:
    calls: list[None] = []
    remove = backend.add_listener(lambda: calls.append(None))
    await backend.add("one")

    remove()
    remove()  # a second call is harmless
    await backend.add("two")

    assert calls == [None]


async def test_stats_counts_without_content(backend: LocalBackend) -> None:
    empty = await backend.stats()
    assert (empty.count, empty.by_category, empty.by_source) == (0, {}, {})

    await backend.add("secret one", category="preference")
    await backend.add("secret two", category="preference", source="inferred")
    await backend.add("secret three", scope="user_1", source="system")

    stats = await backend.stats()

    assert stats.count == 3
    assert stats.max_items == 100
    assert stats.max_content_length == 2000
    assert stats.by_category == {"preference": 2, "fact": 1}
    assert stats.by_source == {"user_stated": 1, "inferred": 1, "system": 1}
    assert stats.scopes == 2
    assert stats.last_changed is not None
    assert "secret" not in json.dumps(asdict(stats))


async def test_set_settings_applies_new_limits(backend: LocalBackend) -> None:
    await backend.add("one")

    await backend.set_settings(StoreSettings(max_items=1))

    with pytest.raises(MemoryFullError):
        await backend.add("two")
    assert (await backend.stats()).max_items == 1


async def test_close_folds_the_journal(store_path: Path) -> None:
    backend, _ = await LocalBackend.open(store_path)
    await backend.add("one")
    await backend.add("two")
    assert len(journal_lines(store_path)) == 3

    await backend.close()

    snapshot = read_snapshot(store_path)
    assert [m["content"] for m in snapshot["memories"]] == ["one", "two"]
    assert journal_lines(store_path) == [
        {"op": "begin", "generation": snapshot["generation"]}
    ]


async def test_200_concurrent_adds_all_land(store_path: Path) -> None:
    settings = StoreSettings(max_items=1000)
    backend, _ = await LocalBackend.open(store_path, settings)
    try:
        added = await asyncio.gather(*(backend.add(f"memory {n}") for n in range(200)))
        assert (await backend.stats()).count == 200
    finally:
        await backend.close()

    assert len({m.id for m in added}) == 200
    reopened = MemoryStore(store_path, settings)
    assert sorted(m.content for m in reopened.get_all()) == sorted(
        f"memory {n}" for n in range(200)
    )


async def test_backend_and_another_store_share_the_file(
    backend: LocalBackend, store_path: Path
) -> None:
    cli = MemoryStore(store_path)
    from_cli = cli.add("added by the CLI")

    assert await backend.get(from_cli.id) == from_cli
    from_ha = await backend.add("added in Home Assistant")
    assert cli.get(from_ha.id) == from_ha


@pytest.mark.parametrize("watch", [True, False])
async def test_a_turn_is_stored_after_the_memory_is_handed_over(
    store_path: Path, watch: bool
) -> None:
    backend, _ = await LocalBackend.open(store_path, watch=watch)
    memory = await backend.add("Anna takes her coffee black")
    context = await backend.begin_turn(
        session_id="s", text="How does Anna take coffee?"
    )
    assert [r.memory.id for r in context.memories] == [memory.id]
    # Handed over before anything is written: nothing stored yet.
    assert backend.turns.log.messages("s") == []
    # Closed at once (an unload right after the turn): the writes still land.
    await backend.close()

    reopened, _ = await LocalBackend.open(store_path, watch=False)
    try:
        assert [m.content for m in reopened.turns.log.messages("s")] == [
            "How does Anna take coffee?"
        ]
        stored = await reopened.get(memory.id)
        assert stored is not None
        assert stored.access_count == 1
    finally:
        await reopened.close()


async def test_waiting_for_background_jobs(backend: LocalBackend) -> None:
    await backend.begin_turn(session_id="s", text="Hello there")
    await backend.wait_for_background_jobs()
    assert [m.content for m in backend.turns.log.messages("s")] == ["Hello there"]


async def test_adds_never_wait_for_a_fold(store_path: Path) -> None:
    """Folding the journal rewrites every memory: done on its own thread, later."""
    backend, _ = await LocalBackend.open(store_path, watch=False)
    journal = store_path.with_suffix(".journal")
    sizes = []
    folding = threading.Event()
    # The fold's thread held up (as by a fold of 100 000 memories).
    backend._fold_executor.submit(folding.wait)
    try:
        # Enough text to pass the size at which the journal is folded, twice over.
        for n in range(60):
            await backend.add(f"Note {n}: " + "a long line of household detail " * 55)
            sizes.append(journal.stat().st_size)
        assert sizes == sorted(sizes)  # never folded inside an add
        folding.set()
        await backend.wait_for_background_jobs()
        assert journal_lines(store_path) == [journal_lines(store_path)[0]]
        assert len(read_snapshot(store_path)["memories"]) == 60
    finally:
        folding.set()
        await backend.close()


async def test_memory_md_lines_are_built_while_opening_not_beside_searches(
    store_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Building MEMORY.md's lines reads every memory: it is done while opening, so
    the first write after a start renders only what changed, and no search waits
    for a whole-store build happening beside it."""
    store = MemoryStore(store_path)
    store.init()
    for number in range(20):
        store.add(f"household note {number}")
    store.close()
    builds: list[int] = []

    class CountedDocument(mirror.ShownDocument):
        def __init__(
            self, base: WrittenBase, memories: Sequence[Memory], zone: tzinfo
        ) -> None:
            builds.append(len(memories))
            super().__init__(base, memories, zone)

    monkeypatch.setattr(mirror, "ShownDocument", CountedDocument)

    backend, _ = await LocalBackend.open(store_path, watch=False)
    try:
        assert builds == [20]
        await backend.add("one more household note")
        await backend._run(backend.engine.mirror.flush)
        assert builds == [20]  # the write followed the change, built nothing again
        assert "- One more household note" in (await backend.read_markdown())
    finally:
        await backend.close()
