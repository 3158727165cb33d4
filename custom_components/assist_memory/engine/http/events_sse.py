"""Server-sent events of the memory server: the memories changed.

`GET /memory/events` tells an open memory manager that the memories changed, so its
list and counts stay fresh.

Each change is `event: changed` with an empty object: never any content (whoever
listens asks the API for what it may see). A comment every 25 s keeps proxies from
closing a quiet stream. At shutdown every stream ends, so stopping does not wait for
open pages.
"""

from __future__ import annotations

import asyncio
from typing import Final

from aiohttp import web

from ..backend.protocol import MemoryOperations

EVENTS_PATH: Final = "/memory/events"
KEEP_ALIVE_SECONDS: Final = 25.0
_STREAMS: Final = web.AppKey("assist_memory_event_streams", set[asyncio.Event])
_CHANGED: Final = b"event: changed\ndata: {}\n\n"


def add_event_stream(app: web.Application, backend: MemoryOperations) -> None:
    """Serve the change events of `backend` at EVENTS_PATH."""
    app[_STREAMS] = set()

    async def end_streams(_app: web.Application) -> None:
        for stream in app[_STREAMS]:
            stream.set()

    async def events(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store"}
        )
        await response.prepare(request)
        changed = asyncio.Event()
        ending = asyncio.Event()
        app[_STREAMS].add(ending)
        remove = backend.add_listener(changed.set)
        try:
            await response.write(b"retry: 3000\n\n")
            while not ending.is_set():
                await _next(changed, ending)
                if changed.is_set():
                    changed.clear()
                    await response.write(_CHANGED)
                elif not ending.is_set():
                    await response.write(b": still here\n\n")
        except ConnectionResetError:
            pass  # the page went away
        finally:
            remove()
            app[_STREAMS].discard(ending)
        return response

    app.on_shutdown.append(end_streams)
    app.router.add_get(EVENTS_PATH, events)


async def _next(changed: asyncio.Event, ending: asyncio.Event) -> None:
    """Wait for a change, the end, or the keep-alive's time."""
    waits = {
        asyncio.ensure_future(changed.wait()),
        asyncio.ensure_future(ending.wait()),
    }
    _done, pending = await asyncio.wait(
        waits, timeout=KEEP_ALIVE_SECONDS, return_when=asyncio.FIRST_COMPLETED
    )
    for waiting in pending:
        waiting.cancel()
