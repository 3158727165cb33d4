"""`assist-memory serve` searches by meaning with the local model by default (real model).

The server process embeds its memories in the background; a question that shares no
word with a memory finds it, and the stats tell how far the embedding is.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiohttp

from tests.support.server_process import ServerProcess, serve_command

HOUSEHOLD = [
    "Call Dave Pryce the plumber when the boiler breaks down",
    "Anna takes her coffee black",
    "The bins go out on Tuesday night",
]


async def test_the_server_finds_a_memory_by_meaning(tmp_path: Path) -> None:
    # Without EMBEDDING_LOCAL: the server's own default.
    env = {"EMBEDDING_LOCAL": ""}
    async with (
        ServerProcess(serve_command(tmp_path / "data"), env=env) as server,
        aiohttp.ClientSession(server.base_url, headers=server.headers) as http,
    ):
        for text in HOUSEHOLD:
            async with http.post("/memory/long-term", json={"content": text}) as added:
                assert added.status in (200, 201)
        for _ in range(600):
            async with http.get("/memory/stats") as answer:
                stats = await answer.json()
            if stats["embedded"] == len(HOUSEHOLD):
                break
            await asyncio.sleep(0.1)
        assert stats["vectorSearch"] is not None
        assert stats["embedded"] == len(HOUSEHOLD)

        async with http.get(
            "/api/memory/search",
            params={"q": "Who do we ring if the heating packs up?"},
        ) as answer:
            assert answer.status == 200
            results = (await answer.json())["results"]
        assert results[0]["content"] == HOUSEHOLD[0]
        assert results[0]["score_parts"]["bm25"] == 0
        assert await server.stop() == 0
