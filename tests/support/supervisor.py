"""A stand-in for the Home Assistant Supervisor's discovery API on 127.0.0.1.

Records each POST /discovery (its JSON body and Authorization header) and answers as
the Supervisor does: `{"result": "ok", "data": {"uuid": ...}}`, or the next status of
`statuses` when set (to play a Supervisor that refuses or is not ready).
"""

from __future__ import annotations

import asyncio
from typing import Any, Self
import uuid

from aiohttp import web


class SupervisorStandIn:
    """Run with `async with SupervisorStandIn() as supervisor:`; `supervisor.url`."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.authorizations: list[str] = []
        self.statuses: list[int] = []
        self.received = asyncio.Event()
        self.url = ""
        self._runner: web.AppRunner | None = None

    async def _discovery(self, request: web.Request) -> web.Response:
        self.messages.append(await request.json())
        self.authorizations.append(request.headers.get("Authorization", ""))
        status = self.statuses.pop(0) if self.statuses else 200
        if status != 200:
            return web.json_response({"result": "error"}, status=status)
        self.received.set()
        return web.json_response({"result": "ok", "data": {"uuid": uuid.uuid4().hex}})

    async def __aenter__(self) -> Self:
        app = web.Application()
        app.router.add_post("/discovery", self._discovery)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", 0).start()
        host, port = self._runner.addresses[0][:2]
        self.url = f"http://{host}:{port}"
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._runner is not None
        await self._runner.cleanup()
