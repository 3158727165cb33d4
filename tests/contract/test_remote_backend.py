"""What only the remote backend does: authentication, availability, bad answers.

Against the real server process; a few odd answers (HTML, a wrong shape, no answer in
time) come from small aiohttp servers on 127.0.0.1 written for that purpose.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
import logging

import aiohttp
from aiohttp import web
import pytest

from custom_components.assist_memory.engine.conversation.turn_settings import (
    LearnSettings,
)
from custom_components.assist_memory.engine.errors import (
    AuthenticationError,
    BackendUnavailableError,
    InvalidMemoryError,
    MemoryEngineError,
)
from custom_components.assist_memory.engine.http.remote_backend import RemoteBackend
from custom_components.assist_memory.engine.memory.compaction import CompactionResult
from custom_components.assist_memory.engine.storage.settings import StoreSettings
from tests.support.memory_server import MemoryServer, free_port

type Routes = dict[str, Callable[[web.Request], Awaitable[web.StreamResponse]]]
REMOTE_LOGGER = "custom_components.assist_memory.engine.http.remote_backend"


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


@pytest.fixture
async def odd_server() -> AsyncIterator[Callable[[Routes], Awaitable[str]]]:
    """Start a small server answering `routes` (path -> handler); returns its URL."""
    runners: list[web.AppRunner] = []

    async def start(routes: Routes) -> str:
        app = web.Application()
        for path, handler in routes.items():
            app.router.add_route("*", path, handler)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        runners.append(runner)
        port = runner.addresses[0][1]
        return f"http://127.0.0.1:{port}"

    yield start
    for runner in runners:
        await runner.cleanup()


async def _health(_request: web.Request) -> web.Response:
    return web.json_response({"status": "ok", "count": 0})


async def test_wrong_token(
    server: MemoryServer, session: aiohttp.ClientSession
) -> None:
    failures: list[str] = []
    remote = RemoteBackend(
        session, server.url, "wrong", on_auth_failed=lambda: failures.append("401")
    )
    with pytest.raises(AuthenticationError) as caught:
        await remote.connect()
    assert caught.value.code == "server_unauthorized"
    assert caught.value.placeholders == {"url": server.url}
    assert failures == []  # connecting only reports it
    with pytest.raises(AuthenticationError):
        await remote.stats()
    assert failures == ["401"]


async def test_server_going_away_and_coming_back(
    server: MemoryServer,
    session: aiohttp.ClientSession,
    caplog: pytest.LogCaptureFixture,
) -> None:
    away: list[BackendUnavailableError] = []
    remote = RemoteBackend(
        session, server.url + "/", server.token, on_unavailable=away.append
    )
    await remote.connect()
    assert remote.url == server.url
    await remote.add("Anna takes her coffee black")

    await asyncio.to_thread(server.stop)
    caplog.clear()
    with caplog.at_level(logging.INFO, logger=REMOTE_LOGGER):
        with pytest.raises(BackendUnavailableError) as caught:
            await remote.add("Tom likes tea")
        assert caught.value.code == "server_unavailable"
        assert caught.value.placeholders == {"url": server.url}
        assert isinstance(caught.value, MemoryEngineError)
        assert await remote.maybe_compact() is None
        with pytest.raises(BackendUnavailableError):
            await remote.stats()
        # Every failing call reports to the host, which logs the change once.
        assert away[0] is caught.value
        assert len(away) == 3
        await asyncio.to_thread(server.start)
        assert (await remote.stats()).count == 1
    assert not [r for r in caplog.records if r.name == REMOTE_LOGGER]


async def test_failing_listener_is_logged(
    server: MemoryServer,
    session: aiohttp.ClientSession,
    caplog: pytest.LogCaptureFixture,
) -> None:
    remote = RemoteBackend(session, server.url, server.token)

    def broken() -> None:
        raise RuntimeError("boom")

    remote.add_listener(broken)
    await remote.add("Anna takes her coffee black")
    assert "A memory change listener failed" in caplog.text


async def test_large_pages_are_asked_in_parts(
    server: MemoryServer, session: aiohttp.ClientSession
) -> None:
    remote = RemoteBackend(session, server.url, server.token)
    await remote.set_settings(StoreSettings(max_items=0))
    document = {
        "memories": [{"id": f"m{n}", "content": f"memory {n}"} for n in range(520)]
    }
    assert (await remote.import_(document)).added == 520
    page = await remote.list(limit=1000, sort="oldest")
    assert page.total == 520
    assert len(page.items) == 520
    assert page.items[0].content == "memory 0"
    tail = await remote.list(offset=510, limit=600, sort="oldest")
    assert [m.content for m in tail.items] == [f"memory {n}" for n in range(510, 520)]


async def test_not_an_assist_memory_server(
    session: aiohttp.ClientSession,
    odd_server: Callable[[Routes], Awaitable[str]],
) -> None:
    async def html(_request: web.Request) -> web.Response:
        return web.Response(text="<html>hello</html>", content_type="text/html")

    async def not_ours(_request: web.Request) -> web.Response:
        return web.json_response({"status": "fine"})

    html_url = await odd_server({"/health": html})
    with pytest.raises(BackendUnavailableError, match="unavailable: HTTP 200"):
        await RemoteBackend(session, html_url, "t").connect()
    other_url = await odd_server({"/health": not_ours})
    with pytest.raises(BackendUnavailableError, match="not an Assist Memory server"):
        await RemoteBackend(session, other_url, "t").connect()
    nothing_url = await odd_server({})
    with pytest.raises(InvalidMemoryError) as caught:
        await RemoteBackend(session, nothing_url, "t").connect()
    assert caught.value.code == "bad_request"
    assert caught.value.message == "HTTP 404"


async def test_odd_answers(
    session: aiohttp.ClientSession,
    odd_server: Callable[[Routes], Awaitable[str]],
) -> None:
    async def wrong_shape(_request: web.Request) -> web.Response:
        return web.json_response({"unexpected": True})

    async def refused(_request: web.Request) -> web.Response:
        return web.json_response(
            {"error": "no", "code": "llm_failed", "placeholders": {"model": "m"}},
            status=400,
        )

    async def broken(_request: web.Request) -> web.Response:
        return web.json_response(
            {"error": "disk full", "code": "storage_error"}, status=503
        )

    release = asyncio.Event()

    async def slow(_request: web.Request) -> web.Response:
        await release.wait()
        return web.json_response({})

    url = await odd_server(
        {
            "/health": _health,
            "/api/auto-memory/compactions": wrong_shape,
            "/api/auto-memory/compact": refused,
            "/memory/stats": broken,
            "/memory/export": slow,
            "/memory/sessions": wrong_shape,
        }
    )
    remote = RemoteBackend(session, url, "t", timeout=0.2)
    with pytest.raises(InvalidMemoryError) as caught:
        await remote.connect()
    assert caught.value.code == "bad_answer"
    with pytest.raises(InvalidMemoryError) as refusal:
        await remote.compact()
    assert (refusal.value.code, refusal.value.message) == ("llm_failed", "no")
    assert refusal.value.placeholders == {"model": "m"}
    with pytest.raises(BackendUnavailableError, match="disk full"):
        await remote.stats()
    with pytest.raises(BackendUnavailableError, match=r"no answer within 0\.2 s"):
        await remote.export()
    release.set()
    with pytest.raises(InvalidMemoryError, match="not understood"):
        await remote.recent_sessions()


async def test_answers_of_a_server_that_compacts(
    session: aiohttp.ClientSession,
    odd_server: Callable[[Routes], Awaitable[str]],
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def counts(_request: web.Request) -> web.Response:
        return web.json_response({"originalCount": 3, "compactedCount": 2})

    async def busy(_request: web.Request) -> web.Response:
        return web.json_response({"error": "busy", "code": "llm_failed"}, status=400)

    async def odd_batch(_request: web.Request) -> web.Response:
        return web.json_response({"batch": {"session_id": 5}})

    async def a_list(_request: web.Request) -> web.Response:
        return web.json_response([1, 2])

    url = await odd_server(
        {
            "/api/auto-memory/compact": counts,
            "/api/auto-memory/undo": counts,
            "/api/auto-memory/compact-if-due": counts,
            "/api/turns/batch": odd_batch,
            "/memory/export": a_list,
        }
    )
    remote = RemoteBackend(session, url, "t")
    told: list[str] = []
    remote.add_listener(lambda: told.append("changed"))
    assert (await remote.compact()) == CompactionResult(3, 2)
    assert (await remote.maybe_compact()) == CompactionResult(3, 2)
    assert (await remote.undo_compaction()) == CompactionResult(3, 2)
    assert told == ["changed"] * 3
    with pytest.raises(InvalidMemoryError, match="session_id must be text"):
        await remote.extraction_batch("s", LearnSettings())
    with pytest.raises(InvalidMemoryError, match="not understood"):
        await remote.export()

    busy_url = await odd_server({"/api/auto-memory/compact-if-due": busy})
    assert await RemoteBackend(session, busy_url, "t").maybe_compact() is None
    assert "Compaction on the memory server failed: busy" in caplog.text


async def test_a_failing_connect_is_left_to_the_caller_to_report(
    session: aiohttp.ClientSession, caplog: pytest.LogCaptureFixture
) -> None:
    remote = RemoteBackend(session, f"http://127.0.0.1:{free_port()}", "t")
    with caplog.at_level(logging.INFO, logger=REMOTE_LOGGER):
        with pytest.raises(BackendUnavailableError, match="Cannot connect"):
            await remote.connect()
        with pytest.raises(BackendUnavailableError):
            await remote.stats()
    assert not [r for r in caplog.records if r.name == REMOTE_LOGGER]
