"""MEMORY.md is written off the store's worker: reads and writes never wait for it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from custom_components.assist_memory.engine import LocalBackend
from custom_components.assist_memory.engine.documents.written_base import load_base

# Generous: only a read stuck behind MEMORY.md (forever, here) runs out of it.
STUCK_SECONDS = 30


@pytest.fixture
async def backend(store_path: Path) -> AsyncIterator[LocalBackend]:
    backend, _ = await LocalBackend.open(store_path, watch=False)
    yield backend
    await backend.close()


async def test_reads_and_writes_do_not_wait_for_memory_md(
    backend: LocalBackend,
) -> None:
    mirror = backend.engine.mirror
    # MEMORY.md cannot be written while this is held (as during a long render).
    with mirror._lock:
        first = await asyncio.wait_for(backend.add("Likes green tea"), STUCK_SECONDS)
        found = await asyncio.wait_for(backend.search("green tea"), STUCK_SECONDS)
        second = await asyncio.wait_for(backend.add("Owns a bike"), STUCK_SECONDS)
        assert [r.memory.id for r in found] == [first.id]
        assert await backend.get(second.id) == second
    await backend.wait_for_background_jobs()

    shown = mirror.path.read_text(encoding="utf-8")
    assert "- Likes green tea" in shown
    assert "- Owns a bike" in shown


async def test_a_burst_of_changes_shares_writes_of_memory_md(
    backend: LocalBackend,
) -> None:
    await backend.wait_for_background_jobs()
    base_path = backend.engine.mirror.base_path
    before = load_base(base_path)
    changes = 10
    for n in range(changes):
        await backend.add(f"Note number {n}")
    await backend.wait_for_background_jobs()

    after = load_base(base_path)
    assert after is not None
    assert len(after.lines) == changes
    # Each write of new lines is a new version: fewer versions than changes.
    assert after.version - (before.version if before else 0) < changes
    shown = backend.engine.mirror.path.read_text(encoding="utf-8")
    assert all(f"- Note number {n}" in shown for n in range(changes))


async def test_closing_writes_what_is_due(store_path: Path) -> None:
    backend, _ = await LocalBackend.open(store_path, watch=False)
    await backend.add("Likes green tea")
    await backend.close()

    shown = backend.engine.mirror.path.read_text(encoding="utf-8")
    assert "- Likes green tea" in shown
