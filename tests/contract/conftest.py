"""The same tests against every `MemoryBackend`: in-process, and over HTTP to a server.

`backend` is parametrised: `LocalBackend` on a fresh folder, and `RemoteBackend`
talking to a real server process on 127.0.0.1 (its own fresh folder).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from custom_components.assist_memory.engine.backend.local import LocalBackend
from custom_components.assist_memory.engine.backend.protocol import MemoryBackend
from custom_components.assist_memory.engine.http.remote_backend import RemoteBackend
from tests.support.memory_server import MemoryServer


@pytest.fixture(autouse=True)
def auto_enable_custom_integrations(socket_enabled: None) -> None:
    """No Home Assistant here (overrides the root conftest); sockets for the server."""


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[MemoryServer]:
    """A running memory server over a fresh data folder."""
    server = MemoryServer(tmp_path / "server")
    await asyncio.to_thread(server.start)
    yield server
    await asyncio.to_thread(server.stop)


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


@pytest.fixture(params=["local", "remote"])
async def backend(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[MemoryBackend]:
    """Each backend over an empty store."""
    if request.param == "local":
        local, _ = await LocalBackend.open(tmp_path / "memories.json", watch=False)
        yield local
        await local.close()
        return
    server = MemoryServer(tmp_path / "server")
    await asyncio.to_thread(server.start)
    try:
        async with aiohttp.ClientSession() as session:
            remote = RemoteBackend(session, server.url, server.token)
            await remote.connect()
            yield remote
            await remote.close()
    finally:
        await asyncio.to_thread(server.stop)
