"""Who gets in: the token, the public paths and, in the add-on, the ingress proxy.

The server runs in-process here on a real socket of 127.0.0.1. The ingress proxy's
address (172.30.32.2) cannot be bound on this machine, so an outer middleware of the
test stands in for the network: it gives the request the address named in the
X-Test-Remote header, as a request arriving from there would have.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
import pytest

from custom_components.assist_memory.engine.backend.local import LocalBackend
from custom_components.assist_memory.engine.host.server import (
    INGRESS_ADDRESS,
    ServerApiHost,
    create_app,
)

TOKEN = "the-token"  # noqa: S105 (a test token)
Client = Callable[..., Awaitable[TestClient]]


@web.middleware
async def from_address(
    request: web.Request,
    handler: Callable[[web.Request], Awaitable[web.StreamResponse]],
) -> web.StreamResponse:
    if remote := request.headers.get("X-Test-Remote"):
        request = request.clone(remote=remote)
    return await handler(request)


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[Client]:
    backend, _ = await LocalBackend.open(tmp_path / "memories.json", watch=False)
    clients: list[TestClient] = []

    async def make(*, ingress: bool) -> TestClient:
        app = create_app(ServerApiHost(backend, tmp_path, None), TOKEN, ingress=ingress)
        app.middlewares.insert(0, from_address)
        test_client = TestClient(TestServer(app, host="127.0.0.1"))
        await test_client.start_server()
        clients.append(test_client)
        return test_client

    try:
        yield make
    finally:
        for test_client in clients:
            await test_client.close()
        await backend.close()


@pytest.mark.parametrize(
    ("ingress", "remote", "authorization", "status"),
    [
        # The add-on: the ingress proxy needs no token, anyone else does.
        (True, INGRESS_ADDRESS, None, 200),
        (True, "172.30.32.3", None, 401),
        (True, "172.30.33.2", None, 401),
        (True, None, None, 401),  # 127.0.0.1, the real peer
        (True, None, f"Bearer {TOKEN}", 200),
        # Standalone: the ingress address is nobody special.
        (False, INGRESS_ADDRESS, None, 401),
        (False, None, f"Bearer {TOKEN}", 200),
        (False, None, f"bearer {TOKEN}", 200),
        (False, None, f"Bearer {TOKEN}x", 401),
        (False, None, f"Basic {TOKEN}", 401),
        (False, None, "Bearer ", 401),
    ],
)
async def test_who_may_call_the_api(
    client: Client,
    ingress: bool,
    remote: str | None,
    authorization: str | None,
    status: int,
) -> None:
    http = await client(ingress=ingress)
    headers = {}
    if remote:
        headers["X-Test-Remote"] = remote
    if authorization:
        headers["Authorization"] = authorization

    response = await http.get("/memory/stats", headers=headers)

    assert response.status == status
    if status == 401:
        assert (await response.json())["code"] == "unauthorized"


@pytest.mark.parametrize("ingress", [True, False])
async def test_health_is_open_to_anyone(client: Client, ingress: bool) -> None:
    http = await client(ingress=ingress)

    response = await http.get("/health", headers={"X-Test-Remote": "192.0.2.1"})

    assert response.status == 200
    assert (await response.json())["status"] == "ok"


@pytest.mark.parametrize("path", ["/", "/ui/main.js"])
async def test_web_ui_files_are_open_to_anyone(client: Client, path: str) -> None:
    http = await client(ingress=False)

    response = await http.get(path)

    assert response.status == 200
    assert await response.text()


@pytest.mark.parametrize("path", ["/", "/ui/main.js", "/memory/stats"])
@pytest.mark.parametrize(
    ("ingress", "remote", "ancestors", "frame_options"),
    [
        # Standalone: no page of another site (or of this one) may frame the UI.
        (False, None, "frame-ancestors 'none'", "DENY"),
        # The add-on: Home Assistant shows the UI in a frame of its own origin,
        # through the ingress proxy; anyone else gets the standalone answer.
        (True, INGRESS_ADDRESS, "frame-ancestors 'self'", "SAMEORIGIN"),
        (True, None, "frame-ancestors 'none'", "DENY"),
    ],
)
async def test_only_home_assistant_may_frame_the_web_ui(
    client: Client,
    *,
    path: str,
    ingress: bool,
    remote: str | None,
    ancestors: str,
    frame_options: str,
) -> None:
    http = await client(ingress=ingress)
    headers = {"Authorization": f"Bearer {TOKEN}"}
    if remote:
        headers["X-Test-Remote"] = remote

    response = await http.get(path, headers=headers)

    assert response.status == 200
    assert response.headers["Content-Security-Policy"] == ancestors
    assert response.headers["X-Frame-Options"] == frame_options


async def test_through_ingress_a_person_reads_only_their_own_conversations(
    client: Client,
) -> None:
    """The add-on's page through ingress: the Supervisor names the Home Assistant
    user; another person's conversation shows only that it is there. The token
    (Home Assistant's integration) reads everything."""
    http = await client(ingress=True)
    for user, session in (("anna", "annas"), ("dev", "devs")):
        body = {"session_id": session, "text": f"A secret of {user}", "user_id": user}
        headers = {"Authorization": f"Bearer {TOKEN}"}
        assert (await http.post("/api/turns/begin", json=body, headers=headers)).ok
        end = {"session_id": session, "user_text": body["text"], "reply": "Noted."}
        await http.post(
            "/api/turns/end", json={**end, "user_id": user}, headers=headers
        )

    def as_(user: str | None) -> dict[str, str]:
        if user is None:
            return {"Authorization": f"Bearer {TOKEN}"}
        return {"X-Test-Remote": INGRESS_ADDRESS, "X-Remote-User-Id": user}

    listed = await (await http.get("/memory/conversations", headers=as_("dev"))).json()
    annas = next(i for i in listed["items"] if i["session_id"] == "annas")
    assert (annas["private"], annas["title"], annas["user_id"]) == (True, None, "anna")
    assert "secret of anna" not in str(listed)
    assert (await http.get("/memory/sessions/annas", headers=as_("dev"))).status == 404
    assert (await http.get("/memory/sessions/annas", headers=as_("anna"))).status == 200
    assert (await http.get("/memory/sessions/devs", headers=as_(""))).status == 404
    assert (await http.get("/memory/sessions/annas", headers=as_(None))).status == 200
