"""`assist-memory serve` for real: a server process on 127.0.0.1, spoken to over HTTP."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
import stat

import aiohttp
import pytest

from tests.support.chat_server import ChatServer
from tests.support.embedding_server import EmbeddingServer
from tests.support.ha_process import ROOT
from tests.support.server_process import ServerProcess, serve_command

SCRIPT_SERVER = str(ROOT / "script" / "server")


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


async def test_token_is_made_once_shown_once_and_required(data_dir: Path) -> None:
    async with (
        ServerProcess(serve_command(data_dir)) as server,
        aiohttp.ClientSession(server.base_url) as http,
    ):
        token = server.token
        assert server.printed_token == token
        assert len(token) >= 32
        assert stat.S_IMODE((data_dir / "token").stat().st_mode) == 0o600

        async with http.get("/health") as health:
            assert health.status == 200
            assert await health.json() == {
                "status": "ok",
                "count": 0,
                "learningStopped": False,
            }
        async with http.get("/memory/stats") as anonymous:
            assert anonymous.status == 401
            assert (await anonymous.json())["code"] == "unauthorized"
        wrong = {"Authorization": f"Bearer {token[:-1]}x"}
        async with http.get("/memory/stats", headers=wrong) as guessed:
            assert guessed.status == 401
        async with http.get("/memory/stats", headers=server.headers) as allowed:
            assert allowed.status == 200
        async with http.get("/openapi.json", headers=server.headers) as document:
            assert "/memory/long-term" in (await document.json())["paths"]
        async with http.put(
            "/api/memory/config", json={"ragTopN": 7}, headers=server.headers
        ) as changed:
            assert changed.status == 200
        assert stat.S_IMODE((data_dir / "config.json").stat().st_mode) == 0o600
        assert stat.S_IMODE(data_dir.stat().st_mode) == 0o700

        assert await server.stop() == 0

    async with ServerProcess(serve_command(data_dir)) as again:
        assert again.printed_token is None  # shown at the first start only
        assert again.token == token
        async with (
            aiohttp.ClientSession(again.base_url) as http,
            http.get(
                "/memory/stats", headers={"Authorization": f"Bearer {token}"}
            ) as r,
        ):
            assert r.status == 200
        assert await again.stop() == 0


async def test_serves_a_store_with_an_out_of_range_record(data_dir: Path) -> None:
    data_dir.mkdir()
    good = {"id": "good", "content": "A valid memory"}
    bad = {"id": "bad1", "content": "x", "last_accessed": "9999-12-31T23:59:59-12:00"}
    (data_dir / "memories.json").write_text(json.dumps([good, bad]), "utf-8")

    async with (
        ServerProcess(serve_command(data_dir)) as server,
        aiohttp.ClientSession(server.base_url, headers=server.headers) as http,
    ):
        async with http.get("/memory/long-term") as listed:
            assert listed.status == 200
            assert [m["id"] for m in (await listed.json())["items"]] == ["good"]
        assert await server.stop() == 0
    (invalid,) = data_dir.glob("memories.invalid-*.json")
    assert json.loads(invalid.read_text("utf-8")) == [bad]


async def test_no_memory_or_search_text_in_the_log_at_debug(data_dir: Path) -> None:
    marker = "Zyxwvuqa"
    async with (
        ServerProcess(serve_command(data_dir), env={"LOG_LEVEL": "debug"}) as server,
        aiohttp.ClientSession(server.base_url, headers=server.headers) as http,
    ):
        async with http.post(
            "/memory/long-term", json={"content": f"The {marker} hides the key"}
        ) as added:
            assert added.status == 201
        async with http.get("/api/memory/search", params={"q": marker}) as found:
            assert len((await found.json())["results"]) == 1
        async with http.get("/memory/long-term", params={"tag": marker}) as listed:
            assert listed.status == 200
        async with http.get("/memory/daily", params={"q": marker}) as daily:
            assert daily.status == 200
        assert await server.stop() == 0

    log = server.log_text()
    assert '"GET /api/memory/search" 200' in log  # requests are logged, at debug
    assert marker.casefold() not in log.casefold()


async def test_sigterm_during_writes_loses_no_acknowledged_memory(
    data_dir: Path,
) -> None:
    env = {"MEMORY_MAX_ITEMS": "0"}
    acknowledged: list[str] = []
    enough = asyncio.Event()

    async with ServerProcess(serve_command(data_dir), env=env) as server:

        async def writer(http: aiohttp.ClientSession, number: int) -> None:
            for i in range(1000):
                try:
                    async with http.post(
                        "/memory/long-term",
                        json={"content": f"writer {number} memory {i}"},
                        headers=server.headers,
                    ) as response:
                        if response.status >= 300:
                            return  # refused while stopping: not acknowledged
                        acknowledged.append((await response.json())["id"])
                except aiohttp.ClientError:
                    return  # the server went away
                if len(acknowledged) >= 50:
                    enough.set()

        async with aiohttp.ClientSession(server.base_url) as http:
            writers = [asyncio.create_task(writer(http, n)) for n in range(6)]
            async with asyncio.timeout(120):  # a hang guard only
                await enough.wait()
            assert await server.stop() == 0  # SIGTERM while the writers go on
            await asyncio.gather(*writers)

    assert len(acknowledged) >= 50
    async with ServerProcess(serve_command(data_dir), env=env) as again:
        async with (
            aiohttp.ClientSession(again.base_url) as http,
            http.get("/memory/export", headers=again.headers) as response,
        ):
            stored = {memory["id"] for memory in (await response.json())["memories"]}
        assert set(acknowledged) <= stored
        assert await again.stop() == 0


async def test_settings_put_through_the_api_survive_a_restart(data_dir: Path) -> None:
    async with ServerProcess(serve_command(data_dir)) as server:
        async with (
            aiohttp.ClientSession(server.base_url, headers=server.headers) as http,
            http.put(
                "/api/memory/config", json={"ragTopN": 7, "autoExtract": False}
            ) as response,
        ):
            assert response.status == 200
        assert await server.stop() == 0

    async with ServerProcess(serve_command(data_dir)) as again:
        async with (
            aiohttp.ClientSession(again.base_url, headers=again.headers) as http,
            http.get("/api/memory/config") as response,
        ):
            config = await response.json()
        assert (config["ragTopN"], config["autoExtract"]) == (7, False)
        assert await again.stop() == 0


async def test_settings_from_flags_and_environment_reach_the_server(
    data_dir: Path,
) -> None:
    env = {"MEMORY_MAX_ITEMS": "3", "MEMORY_RAG_TOP_N": "9"}
    command = serve_command(data_dir, "--max-items", "4")
    async with ServerProcess(command, env=env) as server:
        async with aiohttp.ClientSession(
            server.base_url, headers=server.headers
        ) as http:
            async with http.get("/api/memory/config") as response:
                config = await response.json()
            async with http.get("/memory/stats") as response:
                stats = await response.json()
        assert (config["maxItems"], config["ragTopN"]) == (4, 9)  # the flag wins
        assert stats["maxItems"] == 4
        assert await server.stop() == 0


async def test_compaction_with_a_local_openai_compatible_llm(data_dir: Path) -> None:
    chat = ChatServer()
    chat.content = (
        "## Facts\n\n- Anna likes green tea, every morning\n- The cat is Miso"
    )
    await chat.start()
    try:
        env = {"MEMORY_COMPACTION_ENABLED": "true", "LLM_API_KEY": "sk-local"}
        command = serve_command(
            data_dir, "--llm-url", chat.base_url, "--llm-model", "llama3.2"
        )
        async with ServerProcess(command, env=env) as server:
            async with aiohttp.ClientSession(
                server.base_url, headers=server.headers
            ) as http:
                for text in (
                    "Anna likes green tea",
                    "Anna drinks tea every morning",
                    "The cat is called Miso",
                ):
                    body = {"content": text, "category": "fact"}
                    async with http.post("/memory/long-term", json=body) as response:
                        assert response.status in (200, 201)
                async with http.post("/api/auto-memory/compact") as response:
                    assert response.status == 200
                    assert await response.json() == {
                        "originalCount": 3,
                        "compactedCount": 2,
                    }
                async with http.get("/memory/long-term") as response:
                    contents = {m["content"] for m in (await response.json())["items"]}
            assert contents == {
                "Anna likes green tea, every morning",
                "The cat is Miso",
            }
            assert await server.stop() == 0
    finally:
        await chat.stop()

    assert chat.requests[0]["model"] == "llama3.2"
    assert chat.headers[0]["Authorization"] == "Bearer sk-local"


async def test_hybrid_search_with_a_local_embedding_endpoint(data_dir: Path) -> None:
    with EmbeddingServer() as embeddings:
        command = serve_command(
            data_dir,
            "--embedding-url",
            embeddings.base_url,
            "--embedding-model",
            "nomic-embed-text",
        )
        async with ServerProcess(command) as server:
            async with aiohttp.ClientSession(
                server.base_url, headers=server.headers
            ) as http:
                for text in ("Anna takes her coffee black", "The boiler is serviced"):
                    body = {"content": text}
                    async with http.post("/memory/long-term", json=body) as response:
                        assert response.status in (200, 201)
                # Memories are embedded in the background: search until they are.
                for _attempt in range(200):
                    query = {"q": "hot beverage"}
                    async with http.get("/api/memory/search", params=query) as found:
                        results = (await found.json())["results"]
                    if results and results[0]["score_parts"]["vector"]:
                        break
                    await asyncio.sleep(0.05)
            assert results[0]["content"] == "Anna takes her coffee black"
            assert results[0]["score_parts"]["vector"] > 0
            assert await server.stop() == 0
    assert "hot beverage" in embeddings.texts_embedded()


async def test_compaction_is_refused_without_an_llm(data_dir: Path) -> None:
    env = {"MEMORY_COMPACTION_ENABLED": "true"}
    async with ServerProcess(serve_command(data_dir), env=env) as server:
        async with (
            aiohttp.ClientSession(server.base_url, headers=server.headers) as http,
            http.post("/api/auto-memory/compact") as response,
        ):
            assert response.status == 409
            assert (await response.json())["code"] == "compaction_not_enabled"
        assert await server.stop() == 0
    assert "no LLM is set" in server.log_text()


async def test_a_busy_port_is_one_error_line(data_dir: Path, tmp_path: Path) -> None:
    async with ServerProcess(serve_command(data_dir)) as server:
        port = server.base_url.rsplit(":", 1)[1]
        command = serve_command(tmp_path / "other")
        command[command.index("--port") + 1] = port
        second = await asyncio.create_subprocess_exec(
            *command,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
            env=server.env,
        )
        _, err = await second.communicate()
        assert await server.stop() == 0

    assert second.returncode == 1
    lines = err.decode().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("error: ")
    assert port in lines[0]


async def test_addon_mode_without_a_supervisor_token_still_serves(
    data_dir: Path, tmp_path: Path
) -> None:
    command = serve_command(
        data_dir, "--addon", "--host", "127.0.0.1",
        "--options-file", str(tmp_path / "options.json"),
    )  # fmt: skip
    async with ServerProcess(command) as server:
        async with aiohttp.ClientSession(server.base_url) as http:
            async with http.get("/memory/stats") as response:
                assert response.status == 401  # 127.0.0.1 is not the ingress proxy
            async with http.get("/memory/stats", headers=server.headers) as response:
                assert response.status == 200
        assert await server.stop() == 0
    assert "not announcing the server" in server.log_text()


async def test_script_server_prints_a_link_that_opens_the_web_ui(
    data_dir: Path,
) -> None:
    command = [SCRIPT_SERVER, "--port", "0", "--data-dir", str(data_dir)]
    for start in ("first", "later"):
        async with ServerProcess(command) as server:
            assert server.process is not None
            assert server.process.stdout is not None
            async with asyncio.timeout(60):  # guards against a hang only
                line = (await server.process.stdout.readline()).decode().strip()
            link = f"{server.base_url}/#token={server.token}"
            assert line == f"Open the web UI: {link}", start
            # The page, and the API with the token the page takes from the link.
            page, fragment = link.split("#token=")
            async with aiohttp.ClientSession() as http:
                async with http.get(page) as response:
                    assert response.status == 200
                    assert "text/html" in response.headers["Content-Type"]
                headers = {"Authorization": f"Bearer {fragment}"}
                async with http.get(f"{page}memory/stats", headers=headers) as response:
                    assert response.status == 200
            assert await server.stop() == 0
