"""Compaction previewed, then applied, on LocalBackend and RemoteBackend alike.

The LLM is the chat stand-in of tests/support/compaction_llm.py (its own process on
127.0.0.1, counting the completions asked of it): it keeps one of each repeated fact.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
import json
from pathlib import Path
import subprocess
import sys
import time
import urllib.request

import aiohttp
import pytest
import pytest_socket

from custom_components.assist_memory.engine.backend.local import (
    LocalBackend,
    MemoryBackend,
)
from custom_components.assist_memory.engine.http.remote_backend import RemoteBackend
from custom_components.assist_memory.engine.language.llm import OpenAiChatCaller
from custom_components.assist_memory.engine.memory.compaction import CompactionResult
from custom_components.assist_memory.engine.memory.compaction_preview import (
    CompactionPreview,
)
from tests.support.memory_server import MemoryServer, free_port

ROOT = Path(__file__).parents[2]


@pytest.fixture(scope="module")
def chat_url() -> Iterator[str]:
    """The chat stand-in, as its own process."""
    pytest_socket.enable_socket()
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.support.compaction_llm", str(port)], cwd=ROOT
    )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                calls_of(url)
                break
            except OSError:
                assert time.monotonic() < deadline, "the chat stand-in did not start"
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


def calls_of(url: str) -> int:
    """How many completions the stand-in was asked for."""
    with urllib.request.urlopen(f"{url}/calls", timeout=5) as answer:  # noqa: S310
        return int(json.loads(answer.read())["calls"])


@pytest.fixture(params=["local", "remote"])
async def backend(
    request: pytest.FixtureRequest, tmp_path: Path, chat_url: str
) -> AsyncIterator[MemoryBackend]:
    """Each backend over an empty store, compacting with the stand-in."""
    if request.param == "local":
        local, _ = await LocalBackend.open(tmp_path / "memories.json", watch=False)
        local.set_compaction(OpenAiChatCaller(chat_url, "stand-in"))
        yield local
        await local.close()
        return
    server = MemoryServer(
        tmp_path / "server", llm_url=chat_url, config={"compaction_enabled": True}
    )
    await asyncio.to_thread(server.start)
    try:
        async with aiohttp.ClientSession() as session:
            remote = RemoteBackend(session, server.url, server.token)
            await remote.connect()
            yield remote
            await remote.close()
    finally:
        await asyncio.to_thread(server.stop)


async def contents(backend: MemoryBackend) -> list[str]:
    return sorted(m.content for m in (await backend.list(limit=100)).items)


async def test_preview_then_apply(backend: MemoryBackend, chat_url: str) -> None:
    assert await backend.preview_compaction() is None  # nothing to compact
    assert await backend.apply_compaction("any") is None
    await backend.add("We drink green tea every morning")
    await backend.add("The cat is called Miso")
    repeated = await backend.add("we drink green tea every morning.")
    before = await contents(backend)
    asked = calls_of(chat_url)

    preview = await backend.preview_compaction()

    assert isinstance(preview, CompactionPreview)
    assert [m.content for m in preview.removed] == [repeated.content]
    assert (preview.original_count, preview.compacted_count) == (3, 2)
    assert await contents(backend) == before  # nothing applied yet
    assert calls_of(chat_url) == asked + 1

    result = await backend.apply_compaction(preview.revision)

    assert result == CompactionResult(3, 2)
    assert calls_of(chat_url) == asked + 1  # the plan was not asked for again
    assert await contents(backend) == [
        "The cat is called Miso",
        "We drink green tea every morning",
    ]
    assert await backend.undo_compaction() is not None
    assert await contents(backend) == before


async def test_a_stale_preview_is_answered_with_a_fresh_one(
    backend: MemoryBackend, chat_url: str
) -> None:
    await backend.add("We drink green tea every morning")
    await backend.add("we drink green tea every morning.")
    stale = await backend.preview_compaction()
    assert stale is not None
    await backend.add("The cat is called Miso")

    fresh = await backend.apply_compaction(stale.revision)

    assert isinstance(fresh, CompactionPreview)
    assert fresh.revision != stale.revision
    assert fresh.original_count == 3
    assert len(await contents(backend)) == 3  # nothing applied
    assert isinstance(await backend.apply_compaction(fresh.revision), CompactionResult)
    assert len(await contents(backend)) == 2


async def test_no_preview_without_compaction(tmp_path: Path) -> None:
    server = MemoryServer(tmp_path / "server")
    await asyncio.to_thread(server.start)
    try:
        async with aiohttp.ClientSession() as session:
            remote = RemoteBackend(session, server.url, server.token)
            await remote.connect()
            await remote.add("We drink green tea every morning")
            assert await remote.preview_compaction() is None
            assert await remote.apply_compaction("any") is None
            await remote.close()
    finally:
        await asyncio.to_thread(server.stop)
