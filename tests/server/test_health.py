"""/health answers at once: never queued behind the store's work, never over all memories."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
import threading

from aiohttp.test_utils import TestClient, TestServer
import pytest

from custom_components.assist_memory.engine.backend.local import LocalBackend
from custom_components.assist_memory.engine.host.server import ServerApiHost, create_app

# Generous: only an answer stuck behind the worker (forever, here) runs out of it.
STUCK_SECONDS = 30


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[tuple[LocalBackend, TestClient]]:
    backend, _ = await LocalBackend.open(tmp_path / "memories.json", watch=False)
    app = create_app(ServerApiHost(backend, tmp_path, None), "the-token")
    client = TestClient(TestServer(app, host="127.0.0.1"))
    await client.start_server()
    try:
        yield backend, client
    finally:
        await client.close()
        await backend.close()


async def test_health_answers_while_the_worker_is_busy(
    served: tuple[LocalBackend, TestClient],
) -> None:
    backend, client = served
    await backend.add("Likes green tea")
    await backend.add("Owns a bike")
    await backend.delete((await backend.add("Gone soon")).id)
    busy = threading.Event()
    # The store's worker taken by a long job (as a fold or an import at 100 000).
    backend._executor.submit(busy.wait)
    try:
        answer = await asyncio.wait_for(client.get("/health"), STUCK_SECONDS)
        assert answer.status == 200
        assert await answer.json() == {
            "status": "ok",
            "count": 2,
            "learningStopped": False,
        }
    finally:
        busy.set()
