"""Forgetting in a real memory server process: the folder is read while it runs.

`assist-memory serve` on a real folder: a memory is added, searched (indexed), put in
a daily log line, then deleted (and, separately, everything cleared) over HTTP; right
after the answer every file of the data folder is read as bytes.
"""

from __future__ import annotations

from pathlib import Path

import aiohttp

from tests.support.data_folder import files_containing
from tests.support.server_process import ServerProcess, serve_command

WORD = "Zyxwvortle"


async def test_deleted_and_cleared_memories_leave_no_trace(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    async with (
        ServerProcess(serve_command(data_dir)) as server,
        aiohttp.ClientSession(server.base_url, headers=server.headers) as http,
    ):

        async def spread(content: str) -> str:
            async with http.post("/memory/long-term", json={"content": content}) as r:
                assert r.status == 201
                memory_id: str = (await r.json())["id"]
            async with http.get("/api/memory/search", params={"q": content}) as r:
                assert r.status == 200
            async with http.post(
                "/api/turns/daily-log", json={"entry": f"Noted: {content}"}
            ) as r:
                assert r.status == 200
            async with http.get("/api/memory/main") as r:
                assert content in (await r.json())["content"]
            return memory_id

        for n in range(3):
            await spread(f"Memory {n} about the garden")
        memory_id = await spread(f"Anna's cat is called {WORD}")
        assert files_containing(data_dir, WORD)

        async with http.delete(f"/memory/long-term/{memory_id}") as deleted:
            assert deleted.status == 200
        assert files_containing(data_dir, WORD) == []

        await spread(f"Tom's dog is called {WORD}")
        async with http.delete("/memory/long-term") as cleared:
            assert (await cleared.json()) == {"deleted": 4}
        assert files_containing(data_dir, WORD, "garden") == []
        assert await server.stop() == 0
