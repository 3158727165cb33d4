"""A small OpenAI-compatible chat server on 127.0.0.1, for tests.

POST /v1/chat/completions answers as OpenAI, Ollama and LocalAI do: the first choice's
message is `content` (or `payload`/`raw` as set). Runs in the test's event loop.
"""

from __future__ import annotations

import asyncio
from typing import Any

from aiohttp import web


class ChatServer:
    """POST /v1/chat/completions as OpenAI, Ollama and LocalAI answer it."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.status = 200
        self.raw: bytes | None = None
        self.payload: object | None = None
        self.content = "## Facts\n\n- Anna likes tea"
        self.hold = asyncio.Event()
        self.hold.set()
        self.base_url = ""
        self._runner: web.AppRunner | None = None

    async def _handle(self, request: web.Request) -> web.Response:
        self.requests.append(await request.json())
        self.headers.append(dict(request.headers))
        await self.hold.wait()
        if self.raw is not None:
            return web.Response(status=self.status, body=self.raw)
        payload = self.payload
        if payload is None:
            payload = {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "model": self.requests[-1]["model"],
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": self.content},
                        "finish_reason": "stop",
                    }
                ],
            }
        return web.json_response(payload, status=self.status)

    async def start(self) -> None:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._handle)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        host, port = self._runner.addresses[0][:2]
        self.base_url = f"http://{host}:{port}"

    async def stop(self) -> None:
        self.hold.set()
        assert self._runner is not None
        await self._runner.cleanup()
