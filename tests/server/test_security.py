"""Security of the real server process: the token guards every route; scopes hold.

The server runs as its own process on 127.0.0.1 (`memory_server`); requests are real
HTTP. Home Assistant's side of the 401s is in tests/integration/test_http.py.
"""

from __future__ import annotations

import re

import aiohttp
import pytest

from custom_components.assist_memory.engine.http.api import ROUTES
from custom_components.assist_memory.engine.http.routing import Route
from tests.support.memory_server import MemoryServer


def concrete(path: str) -> str:
    """A route's path with its parameters filled in."""
    return re.sub(r"\{\w+\}", "x", path)


@pytest.mark.parametrize("route", ROUTES, ids=lambda r: f"{r.method} {r.path}")
@pytest.mark.parametrize(
    "authorization", [None, "Bearer wrong", "Bearer ", "Basic x", "bearer"]
)
async def test_every_route_needs_the_token(
    memory_server: MemoryServer, route: Route, authorization: str | None
) -> None:
    headers = {"Authorization": authorization} if authorization else {}
    async with (
        aiohttp.ClientSession() as http,
        http.request(
            route.method,
            memory_server.url + concrete(route.path),
            headers=headers,
            json={},
        ) as response,
    ):
        assert response.status == 401
        assert (await response.json())["code"] == "unauthorized"


async def test_the_document_needs_the_token(memory_server: MemoryServer) -> None:
    async with (
        aiohttp.ClientSession() as http,
        http.get(f"{memory_server.url}/openapi.json") as response,
    ):
        assert response.status == 401


async def test_search_with_a_scope_sees_that_person_and_the_household(
    memory_server: MemoryServer,
) -> None:
    headers = {"Authorization": f"Bearer {memory_server.token}"}
    said = {
        "anna": "Anna keeps her zebrafinch diary in the attic",
        "tom": "Tom keeps his zebrafinch photos on the laptop",
        "household": "The zebrafinch cage is cleaned on Sundays",
    }
    async with aiohttp.ClientSession(memory_server.url, headers=headers) as http:
        for scope, content in said.items():
            async with http.post(
                "/memory/long-term", json={"content": content, "scope": scope}
            ) as response:
                assert response.status == 201

        async def found(scope: str | None) -> set[str]:
            query = {"q": "zebrafinch", **({"scope": scope} if scope else {})}
            async with http.get("/api/memory/search", params=query) as response:
                assert response.status == 200
                body = await response.json()
            return {r["content"] for r in body["results"]}

        assert await found("anna") == {said["anna"], said["household"]}
        assert await found("tom") == {said["tom"], said["household"]}
        assert await found("household") == {said["household"]}
