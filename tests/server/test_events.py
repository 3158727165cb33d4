"""The memory server's event stream: an open memory manager hears of every change."""

from __future__ import annotations

import asyncio
import json

import aiohttp

from tests.support.memory_server import MemoryServer


async def test_a_change_is_an_event_without_content(
    memory_server: MemoryServer,
) -> None:
    headers = {"Authorization": f"Bearer {memory_server.token}"}
    async with (
        aiohttp.ClientSession(headers=headers) as http,
        http.get(f"{memory_server.url}/memory/events") as stream,
    ):
        assert stream.status == 200
        assert stream.content_type == "text/event-stream"
        assert await stream.content.readuntil(b"\n\n") == b"retry: 3000\n\n"
        async with http.post(
            f"{memory_server.url}/memory/long-term",
            data=json.dumps({"content": "The wombat-brown gate is new"}),
            headers={"Content-Type": "application/json"},
        ) as added:
            assert added.status == 201
        event = await asyncio.wait_for(stream.content.readuntil(b"\n\n"), 30)
        assert event == b"event: changed\ndata: {}\n\n"


async def test_the_stream_needs_the_token(memory_server: MemoryServer) -> None:
    async with (
        aiohttp.ClientSession() as http,
        http.get(f"{memory_server.url}/memory/events") as stream,
    ):
        assert stream.status == 401
