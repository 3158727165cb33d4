"""MEMORY.md edited beside a running server process, and by the CLI on the same folder.

Black-box: a real `assist-memory serve` over HTTP, the real `assist-memory` command, the
file changed as a person (or an attacker with access to the folder) would.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
import os
from pathlib import Path
import stat

import aiohttp
import pytest

from tests.support.server_process import (
    ASSIST_MEMORY,
    ServerProcess,
    clean_env,
    serve_command,
)
from tests.support.waiting import eventually

# Guards against a hang only; nothing is asserted about how long anything takes.
PATIENCE = 30.0
CONTENTS = [f"Server memory number {n} about the garden" for n in range(6)]


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


def memory_md(data_dir: Path) -> Path:
    return data_dir / "prompts" / "memory" / "MEMORY.md"


def rejected(data_dir: Path) -> list[Path]:
    return sorted(memory_md(data_dir).parent.glob("MEMORY.rejected-*.md"))


def shows(data_dir: Path, *contents: str) -> bool:
    path = memory_md(data_dir)
    try:  # written again, through a rename, at any moment
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return False
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return False
    return all(f"- {content}\n" in text for content in contents)


def save(path: Path, text: str) -> None:
    """Save as an editor does: a new file renamed over the old one."""
    tmp = path.with_name("editor-save.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


async def count(http: aiohttp.ClientSession) -> int:
    async with asyncio.timeout(PATIENCE), http.get("/memory/stats") as response:
        assert response.status == 200
        return int((await response.json())["count"])


async def test_hostile_memory_md_files_change_nothing(data_dir: Path) -> None:
    async with ServerProcess(serve_command(data_dir)) as server:
        async with aiohttp.ClientSession(
            server.base_url, headers=server.headers
        ) as http:
            for content in CONTENTS:
                async with http.post(
                    "/memory/long-term", json={"content": content}
                ) as response:
                    assert response.status == 201
            await eventually(lambda: shows(data_dir, *CONTENTS), PATIENCE)
            path = memory_md(data_dir)
            other = data_dir / "other.md"
            other.write_text("## Facts\n\n- From the other file\n", encoding="utf-8")

            def prose() -> None:
                save(path, "We moved the garden furniture.\nNo list here.\n")

            # Each put in place at once (a rename), as the server may write anytime.
            def symlink(target: str) -> Callable[[], None]:
                def make() -> None:
                    tmp = path.with_name("link.tmp")
                    tmp.symlink_to(target)
                    os.replace(tmp, path)

                return make

            def fifo() -> None:
                tmp = path.with_name("fifo.tmp")
                os.mkfifo(tmp)
                os.replace(tmp, path)

            hostile = [
                prose,
                symlink("/etc/passwd"),
                symlink(str(other)),
                fifo,
                symlink("/dev/zero"),
            ]
            for number, make in enumerate(hostile, start=1):
                make()
                await eventually(
                    lambda n=number: len(rejected(data_dir)) == n, PATIENCE
                )
                await eventually(lambda: shows(data_dir, *CONTENTS), PATIENCE)
                # The server still answers, reads and writes, and lost nothing.
                async with asyncio.timeout(PATIENCE), http.get("/health") as health:
                    assert health.status == 200
                assert await count(http) == len(CONTENTS) + number - 1
                async with (
                    asyncio.timeout(PATIENCE),
                    http.post(
                        "/memory/long-term", json={"content": f"Added after {number}"}
                    ) as response,
                ):
                    assert response.status == 201
            assert await count(http) == len(CONTENTS) + len(hostile)
        log = server.log_text()
        assert await server.stop() == 0
    assert "garden" not in log
    assert "root:" not in log


async def test_a_pending_edit_applied_by_the_cli_keeps_the_servers_writes(
    data_dir: Path,
) -> None:
    async with ServerProcess(serve_command(data_dir)) as server:
        async with aiohttp.ClientSession(
            server.base_url, headers=server.headers
        ) as http:
            ids = []
            for content in CONTENTS:
                async with http.post(
                    "/memory/long-term", json={"content": content}
                ) as response:
                    ids.append((await response.json())["id"])
            await eventually(lambda: shows(data_dir, *CONTENTS), PATIENCE)

            # A bullet appended by hand; at once, before the server's quiet spell
            # is over, a write through the server and a CLI run on the same folder.
            path = memory_md(data_dir)
            save(path, path.read_text(encoding="utf-8") + "- Appended by hand\n")
            async with http.post(
                "/memory/long-term", json={"content": "Added through the server"}
            ) as response:
                assert response.status == 201
                added = (await response.json())["id"]
            async with http.patch(
                f"/memory/long-term/{ids[0]}", json={"content": "Updated meanwhile"}
            ) as response:
                assert response.status == 200
            cli = await asyncio.create_subprocess_exec(
                ASSIST_MEMORY,
                *("--data-dir", str(data_dir), "list"),
                env=clean_env(),
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.PIPE,
            )
            async with asyncio.timeout(PATIENCE):
                _, errors = await cli.communicate()
            assert cli.returncode == 0, errors.decode()

            await eventually(lambda: shows(data_dir, "Appended by hand"), PATIENCE)
            await asyncio.sleep(2.5)  # the server's watch has seen the file since
            async with http.get(f"/memory/long-term/{added}") as response:
                assert response.status == 200
                assert (await response.json())["content"] == "Added through the server"
            async with http.get(f"/memory/long-term/{ids[0]}") as response:
                assert (await response.json())["content"] == "Updated meanwhile"
            async with http.get("/memory/long-term", params={"limit": 100}) as response:
                contents = [m["content"] for m in (await response.json())["items"]]
            assert sorted(contents) == sorted(
                [
                    *CONTENTS[1:],
                    "Updated meanwhile",
                    "Added through the server",
                    "Appended by hand",
                ]
            )
        assert await server.stop() == 0


async def test_an_edit_applied_at_start_uses_the_servers_limits(
    data_dir: Path,
) -> None:
    """Over the default limit of 100 memories, with the server's limit off."""
    env = {"MEMORY_MAX_ITEMS": "0"}
    document = [{"id": f"m{n:03}", "content": f"Imported fact {n}"} for n in range(120)]
    async with ServerProcess(serve_command(data_dir), env=env) as server:
        async with (
            aiohttp.ClientSession(server.base_url, headers=server.headers) as http,
            http.post("/memory/import", json={"document": document}) as response,
        ):
            assert response.status == 200
        await eventually(lambda: shows(data_dir, "Imported fact 119"), PATIENCE)
        assert await server.stop() == 0
    path = memory_md(data_dir)
    save(path, path.read_text(encoding="utf-8") + "- Added while it was stopped\n")

    async with ServerProcess(serve_command(data_dir), env=env) as again:
        async with aiohttp.ClientSession(again.base_url, headers=again.headers) as http:
            assert await count(http) == 121
        assert await again.stop() == 0
    assert rejected(data_dir) == []
