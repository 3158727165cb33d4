"""Outside changes: the ChangeWatcher's debounce, and LocalBackend picking them up."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
import threading

import pytest

from custom_components.assist_memory.engine import LocalBackend, MemoryStore
from custom_components.assist_memory.engine.documents.watch import (
    DEBOUNCE,
    POLL_INTERVAL,
    ChangeWatcher,
)
from tests.support.waiting import PATIENCE, eventually


class Files:
    """An in-memory stand-in for the store's files: a token that changes on writes.

    `busy_polls` makes the token change on each of the next polls (an editor saving in
    several steps), independent of how fast the machine is.
    """

    def __init__(self) -> None:
        self.token: int | None = None
        self.polls = 0
        self.busy_polls = 0
        self.settled: list[int | None] = []
        self.fail_settles = 0
        self.fail_polls = 0

    async def changed(self) -> object | None:
        self.polls += 1
        if self.fail_polls:
            self.fail_polls -= 1
            raise OSError("stat failed")
        if self.busy_polls:
            self.busy_polls -= 1
            self.token = (self.token or 0) + 1
        return self.token

    async def on_settled(self) -> None:
        self.settled.append(self.token)
        if self.fail_settles:
            self.fail_settles -= 1
            raise RuntimeError("reload failed")
        self.token = None  # reloaded: nothing new any more


def watcher_for(files: Files) -> ChangeWatcher:
    return ChangeWatcher(files.changed, files.on_settled, interval=0.01, debounce=0.05)


def test_default_debounce_and_interval() -> None:
    assert DEBOUNCE == 1.5
    assert POLL_INTERVAL <= DEBOUNCE


async def test_several_quick_changes_settle_once() -> None:
    files = Files()
    files.busy_polls = 10
    watcher = watcher_for(files)
    watcher.start()
    try:
        await eventually(lambda: bool(files.settled))
        # Well after the last change, still only one reload, with the final state.
        polls = files.polls
        await eventually(lambda: files.polls >= polls + 20)
        assert files.settled == [10]
    finally:
        await watcher.stop()


async def test_no_change_no_reload() -> None:
    files = Files()
    watcher = watcher_for(files)
    watcher.start()
    try:
        await eventually(lambda: files.polls >= 20)
        assert files.settled == []
    finally:
        await watcher.stop()


async def test_each_burst_of_changes_settles_once() -> None:
    files = Files()
    watcher = watcher_for(files)
    watcher.start()
    try:
        files.busy_polls = 3
        await eventually(lambda: len(files.settled) == 1)
        files.busy_polls = 4
        await eventually(lambda: len(files.settled) == 2)
        polls = files.polls
        await eventually(lambda: files.polls >= polls + 20)
        assert files.settled == [3, 4]
    finally:
        await watcher.stop()


async def test_failed_reload_is_logged_and_retried(
    caplog: pytest.LogCaptureFixture,
) -> None:
    files = Files()
    files.fail_settles = 1
    files.busy_polls = 1
    watcher = watcher_for(files)
    with caplog.at_level(logging.ERROR):
        watcher.start()
        try:
            await eventually(lambda: len(files.settled) == 2)
        finally:
            await watcher.stop()

    assert files.settled == [1, 1]  # the same change, tried again after a quiet spell
    assert files.token is None
    assert [r.getMessage() for r in caplog.records] == [
        "Reloading the changed memory files failed"
    ]
    assert caplog.records[0].exc_info is not None


async def test_failing_check_is_logged_and_watching_continues(
    caplog: pytest.LogCaptureFixture,
) -> None:
    files = Files()
    files.fail_polls = 2
    files.busy_polls = 1
    watcher = watcher_for(files)
    with caplog.at_level(logging.ERROR):
        watcher.start()
        try:
            await eventually(lambda: bool(files.settled))
        finally:
            await watcher.stop()

    assert len(caplog.records) == 2
    assert files.settled == [1]


async def test_stop_is_idempotent_and_stops_polling() -> None:
    files = Files()
    watcher = watcher_for(files)
    await watcher.stop()  # never started: nothing to do

    watcher.start()
    watcher.start()  # already running: no second poller
    await eventually(lambda: files.polls >= 3)
    await watcher.stop()
    await watcher.stop()

    polls = files.polls
    await asyncio.sleep(0.1)
    assert files.polls == polls


async def test_stop_cancels_a_reload_in_progress() -> None:
    started = asyncio.Event()
    release = asyncio.Event()
    finished = False

    async def changed() -> object | None:
        return "changed"

    async def on_settled() -> None:
        nonlocal finished
        started.set()
        await release.wait()
        finished = True

    watcher = ChangeWatcher(changed, on_settled, interval=0.01, debounce=0.02)
    watcher.start()
    await asyncio.wait_for(started.wait(), PATIENCE)
    await watcher.stop()

    assert not finished


async def test_restart_after_stop() -> None:
    files = Files()
    watcher = watcher_for(files)
    watcher.start()
    await watcher.stop()

    watcher.start()
    try:
        files.busy_polls = 2
        await eventually(lambda: files.settled == [2])
    finally:
        await watcher.stop()


# -- LocalBackend ----------------------------------------------------------------


def worker_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("assist_memory")]


async def test_backend_picks_up_changes_from_another_process(
    store_path: Path,
) -> None:
    backend, _ = await LocalBackend.open(store_path, watch=True)
    try:
        await backend.add("Black coffee in the morning")
        calls: list[int] = []
        backend.add_listener(lambda: calls.append(backend.engine.index.count()))

        # The CLI (another MemoryStore on the same files) adds a memory.
        cli = MemoryStore(store_path)
        from_cli = cli.add("The spare key is under the blue flowerpot")
        cli.close()

        await eventually(lambda: bool(calls))
        assert calls[0] == 2  # the index already follows when listeners run
        results = await backend.search("flowerpot")
        assert [r.memory.id for r in results] == [from_cli.id]

        # A deletion elsewhere is picked up the same way.
        seen = len(calls)
        other = MemoryStore(store_path)
        assert other.delete(from_cli.id)
        await eventually(lambda: len(calls) > seen)
        assert backend.engine.index.count() == 1
        assert await backend.search("flowerpot") == []
    finally:
        await backend.close()
    assert worker_threads() == []


async def test_own_changes_are_not_reported_twice(store_path: Path) -> None:
    backend, _ = await LocalBackend.open(store_path, watch=True)
    try:
        calls: list[None] = []
        backend.add_listener(lambda: calls.append(None))
        memory = await backend.add("Black coffee in the morning")
        await backend.update(memory.id, "Black coffee at noon")
        await backend.search("coffee", record_access=True)
        assert len(calls) == 2
        # Our own writes are not outside changes: nothing to reload.
        assert await backend._run(backend.store.outside_change) is None
    finally:
        await backend.close()


async def test_backend_without_watch_still_sees_changes_on_use(
    store_path: Path,
) -> None:
    backend, _ = await LocalBackend.open(store_path, watch=False)
    try:
        calls: list[None] = []
        backend.add_listener(lambda: calls.append(None))
        from_cli = MemoryStore(store_path).add("The spare key is under the flowerpot")

        results = await backend.search("flowerpot")

        assert [r.memory.id for r in results] == [from_cli.id]
        assert calls == []
    finally:
        await backend.close()
    assert worker_threads() == []


async def test_closing_twice_is_harmless(store_path: Path) -> None:
    backend, _ = await LocalBackend.open(store_path, watch=True)
    await backend.close()
    await backend.close()

    assert worker_threads() == []
