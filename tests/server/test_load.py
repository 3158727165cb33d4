"""1 000 concurrent mixed requests against the real server: no error, no lost write.

Latencies are reported by `script/bench` (never asserted here).
"""

from __future__ import annotations

from script.load import REQUESTS, server_load
from tests.support.memory_server import MemoryServer


async def test_concurrent_requests_lose_nothing(memory_server: MemoryServer) -> None:
    latencies = await server_load(
        memory_server.url, {"Authorization": f"Bearer {memory_server.token}"}
    )

    assert len(latencies) == REQUESTS
