"""1 000 concurrent requests, checked and timed: to the memory server, and in Home Assistant.

`server_load(url, headers)` seeds memories, then sends every request at once: adds,
updates (each to its own memory, so the final text is known), reads, searches and
lists. `service_load(hass, domain)` does the same with the integration's services in a
Home Assistant instance (adds, updates, searches). Each checks that every answer is a
success and that no write is lost, and returns the latency of each request (seconds)
for `script/bench`; tests only look at the correctness.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
import time
from typing import TYPE_CHECKING, Any

import aiohttp

if TYPE_CHECKING:
    from homeassistant.core import HomeAssistant

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


# The service calls: updates of as many existing memories, adds, and searches.
SERVICE_EXISTING = 300
SERVICE_ADDS = 400
SERVICE_SEARCHES = REQUESTS - SERVICE_ADDS - SERVICE_EXISTING


async def service_load(hass: HomeAssistant, domain: str) -> list[float]:
    """`REQUESTS` concurrent service calls of `domain` over an empty store; timed.

    Needs an entry set up with room for 700 memories. Raises LoadError when a call
    fails to answer or a write is missing afterwards.
    """

    async def call(service: str, data: dict[str, Any]) -> Any:
        response = await hass.services.async_call(
            domain, service, data, blocking=True, return_response=True
        )
        if response is None:
            raise LoadError(f"{domain}.{service} gave no response")
        return response

    existing = await asyncio.gather(
        *(
            call("add", {"content": f"Shelf {n} holds jam"})
            for n in range(SERVICE_EXISTING)
        )
    )
    ids = [response["memory"]["id"] for response in existing]
    calls = [
        *(call("add", {"content": f"Box {n} holds tea"}) for n in range(SERVICE_ADDS)),
        *(
            call("update", {"id": memory_id, "content": f"Shelf {n} holds honey"})
            for n, memory_id in enumerate(ids)
        ),
        *(call("search", {"query": f"shelf {n}"}) for n in range(SERVICE_SEARCHES)),
    ]
    # Interleave the kinds, so adds, updates and searches run at the same time.
    mixed = [
        calls[i]
        for i in sorted(range(len(calls)), key=lambda i: (i * 7919) % len(calls))
    ]
    latencies = await asyncio.gather(*(timed_call(c) for c in mixed))

    listed = await call("list", {"limit": 1000})
    stored = {m["id"]: m["content"] for m in listed["items"]}
    if listed["total"] != len(stored) or len(stored) != SERVICE_EXISTING + SERVICE_ADDS:
        raise LoadError(
            f"{listed['total']} memories, not {SERVICE_EXISTING + SERVICE_ADDS}"
        )
    expected = {f"Box {n} holds tea" for n in range(SERVICE_ADDS)} | {
        f"Shelf {n} holds honey" for n in range(SERVICE_EXISTING)
    }
    if set(stored.values()) != expected:
        raise LoadError(f"{len(expected - set(stored.values()))} writes lost")
    for n, memory_id in enumerate(ids):
        if stored[memory_id] != f"Shelf {n} holds honey":
            raise LoadError(f"update {n} lost: {stored[memory_id]!r}")
    found = await call("search", {"query": "honey", "limit": 100})
    if len(found["results"]) != 100:
        raise LoadError(f"a search for honey found {len(found['results'])}, not 100")
    return list(latencies)
