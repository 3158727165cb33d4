"""1 000 concurrent mixed requests against a running memory server, checked and timed.

`server_load(url, headers)` seeds memories, then sends every request at once: adds,
updates (each to its own memory, so the final text is known), reads, searches and
lists. It checks that every answer is a success and that no write is lost, and
returns the latency of each request (seconds) for `script/bench`; tests only look at
the correctness.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
import time
from typing import Any

import aiohttp

REQUESTS = 1000
# Shares of the requests: adds, updates, reads, searches; lists get the rest.
_ADDS, _UPDATES, _READS, _SEARCHES = 0.3, 0.3, 0.15, 0.15


class LoadError(AssertionError):
    """An answer was not a success, or a write went missing."""


async def timed_call(call: Awaitable[Any]) -> float:
    """Seconds until the call is done."""
    start = time.perf_counter()
    await call
    return time.perf_counter() - start


async def server_load(
    url: str, headers: dict[str, str], requests: int = REQUESTS
) -> list[float]:
    """Send `requests` mixed requests at once; raise LoadError on any problem."""
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(url, headers=headers, connector=connector) as http:

        async def call(method: str, path: str, status: int = 200, **kw: Any) -> Any:
            async with http.request(method, path, **kw) as answer:
                if answer.status != status:
                    raise LoadError(f"{method} {path}: {answer.status}")
                return await answer.json()

        await call("PUT", "/api/memory/config", json={"maxItems": 1_000_000})
        updates = int(requests * _UPDATES)
        seeded = [
            (
                await call(
                    "POST", "/memory/long-term", 201, json={"content": f"seed {n}"}
                )
            )["id"]
            for n in range(updates)
        ]
        adds = int(requests * _ADDS)
        reads = int(requests * _READS)
        searches = int(requests * _SEARCHES)
        lists = requests - adds - updates - reads - searches
        jobs: list[Callable[[], Awaitable[Any]]] = []
        jobs += [
            lambda n=n: call(  # type: ignore[misc]
                "POST", "/memory/long-term", 201, json={"content": f"load added {n}"}
            )
            for n in range(adds)
        ]
        jobs += [
            lambda n=n, i=i: call(  # type: ignore[misc]
                "PATCH", f"/memory/long-term/{i}", json={"content": f"load changed {n}"}
            )
            for n, i in enumerate(seeded)
        ]
        jobs += [
            lambda i=i: call("GET", f"/memory/long-term/{i}")  # type: ignore[misc]
            for i in seeded[:reads]
        ]
        jobs += [
            lambda n=n: call(  # type: ignore[misc]
                "GET", "/api/memory/search", params={"q": f"seed {n}"}
            )
            for n in range(searches)
        ]
        jobs += [
            lambda: call("GET", "/memory/long-term", params={"limit": "20"})
        ] * lists
        latencies = await asyncio.gather(*(timed_call(job()) for job in jobs))

        exported = await call("GET", "/memory/export")
        contents = {m["id"]: m["content"] for m in exported["memories"]}
        for n, memory_id in enumerate(seeded):
            if contents.get(memory_id) != f"load changed {n}":
                raise LoadError(f"update {n} lost: {contents.get(memory_id)!r}")
        added = {c for c in contents.values() if c.startswith("load added ")}
        if added != {f"load added {n}" for n in range(adds)}:
            raise LoadError(f"{adds - len(added)} adds lost")
        if len(contents) != adds + updates:
            raise LoadError(f"{len(contents)} memories, not {adds + updates}")
    return list(latencies)
