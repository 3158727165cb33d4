"""Hostile requests to the real server process: every answer is 2xx or 4xx with JSON.

The server runs as its own process on 127.0.0.1 (`memory_server`). Requests a normal
client cannot make (header bytes that are not text) go over a plain socket.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import pytest

from tests.support.memory_server import MemoryServer

ONE_MIB = 1024 * 1024


def auth(server: MemoryServer) -> dict[str, str]:
    return {"Authorization": f"Bearer {server.token}"}


async def raw_request(server: MemoryServer, request: bytes) -> tuple[int, bytes]:
    """Send the bytes as they are; the status and the body of the answer."""
    address = urlsplit(server.url)
    reader, writer = await asyncio.open_connection(address.hostname, address.port)
    try:
        writer.write(request)
        await writer.drain()
        answer = await reader.read()
    finally:
        writer.close()
        await writer.wait_closed()
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


async def send(
    server: MemoryServer,
    method: str,
    path: str,
    *,
    body: bytes | None = None,
    params: dict[str, str] | None = None,
) -> tuple[int, Any]:
    """A request with the token; the status and the JSON answer."""
    headers = {**auth(server), "Content-Type": "application/json"}
    async with (
        aiohttp.ClientSession() as http,
        http.request(
            method, server.url + path, data=body, params=params, headers=headers
        ) as response,
    ):
        assert response.content_type == "application/json", await response.text()
        return response.status, await response.json()


def assert_error(answer: tuple[int, Any], status: int, words: str = "") -> None:
    code, body = answer
    assert code == status, body
    assert set(body) >= {"error", "code"}, body
    assert words in body["error"]


async def test_header_bytes_that_are_not_text_are_refused_as_unauthorized(
    memory_server: MemoryServer,
) -> None:
    address = urlsplit(memory_server.url)
    request = (
        b"GET /memory/stats HTTP/1.1\r\n"
        + f"Host: {address.netloc}\r\n".encode()
        + b"Authorization: Bearer \xff\xfe\xfd\r\n"
        b"Connection: close\r\n\r\n"
    )

    status, body = await raw_request(memory_server, request)

    assert status == 401
    assert json.loads(body)["code"] == "unauthorized"


@pytest.mark.parametrize("path", ["/api/turns/search", "/api/turns/prompt"])
@pytest.mark.parametrize("limit", [10**30, -1, 0, 101])
async def test_turn_limits_out_of_range_are_bad_requests(
    memory_server: MemoryServer, path: str, limit: int
) -> None:
    body = {"query": "tea", "prompt": "What do I like?", "limit": limit}

    answer = await send(memory_server, "POST", path, body=json.dumps(body).encode())

    assert_error(answer, 400, "limit must be from 1 to 100")


async def test_metadata_nested_100000_deep_is_a_bad_request(
    memory_server: MemoryServer,
) -> None:
    deep = '{"a":' * 100_000 + "1" + "}" * 100_000
    body = f'{{"content": "nested", "metadata": {deep}}}'.encode()

    answer = await send(memory_server, "POST", "/memory/long-term", body=body)

    assert_error(answer, 400, "nests deeper than 64 levels")


async def test_metadata_nested_within_the_body_limit_but_too_deep_for_a_memory(
    memory_server: MemoryServer,
) -> None:
    deep = '{"a":' * 40 + "1" + "}" * 40
    body = f'{{"content": "nested", "metadata": {deep}}}'.encode()

    answer = await send(memory_server, "POST", "/memory/long-term", body=body)

    assert_error(answer, 400, "metadata nests deeper than 32 levels")


@pytest.mark.parametrize(
    "field",
    [
        {"created_at": "0001-01-01T00:00:00+14:00"},
        {"last_accessed": "9999-12-31T23:59:59-12:00"},
    ],
)
async def test_import_with_a_time_out_of_range_is_a_bad_request(
    memory_server: MemoryServer, field: dict[str, str]
) -> None:
    record = {"id": "imported", "content": "out of range", **field}
    body = json.dumps({"document": [record], "mode": "merge"}).encode()

    answer = await send(memory_server, "POST", "/memory/import", body=body)

    assert_error(answer, 400, f"{next(iter(field))} must be an ISO 8601 time")
    status, _ = await send(memory_server, "GET", "/memory/long-term/imported")
    assert status == 404


async def test_a_turn_time_out_of_range_is_a_bad_request(
    memory_server: MemoryServer,
) -> None:
    body = {"session_id": "s1", "text": "hello", "live_since": "0001-01-01T00:00+14:00"}

    answer = await send(
        memory_server, "POST", "/api/turns/begin", body=json.dumps(body).encode()
    )

    assert_error(answer, 400, "live_since must be an ISO 8601 time")


async def test_a_body_over_1_mib_is_a_json_413_naming_the_limit(
    memory_server: MemoryServer,
) -> None:
    body = json.dumps({"content": "x" * ONE_MIB}).encode()

    answer = await send(memory_server, "POST", "/memory/long-term", body=body)

    assert_error(answer, 413, "1048576 bytes")
    assert answer[1]["code"] == "body_too_large"


async def test_an_import_over_1_mib_is_taken_and_one_over_its_cap_is_a_413(
    memory_server: MemoryServer,
) -> None:
    """A whole export: some 2 600 memories are 1 MiB; the import takes 32 MiB."""
    many = [
        {"id": f"{n:016x}", "content": f"Memory number {n} " + "x" * 400}
        for n in range(3000)
    ]
    body = json.dumps({"document": many, "mode": "replace"}).encode()
    assert len(body) > ONE_MIB

    too_many = await send(memory_server, "POST", "/memory/import", body=body)
    too_large = await send(
        memory_server,
        "POST",
        "/memory/import",
        body=json.dumps({"document": [], "pad": "x" * 32 * ONE_MIB}).encode(),
    )

    # Read whole (not a 413), then refused for what it holds, naming the limit.
    assert too_many[0] == 409, too_many
    assert too_many[1]["placeholders"] == {"max_items": "100"}
    assert_error(too_large, 413, f"{32 * ONE_MIB} bytes")


@pytest.mark.parametrize("value", ["٥", "１", "5_0", " 5", "+5", "5.0", ""])
@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("/memory/long-term", "limit"),
        ("/memory/long-term", "offset"),
        ("/api/memory/search", "limit"),
        ("/memory/sessions", "limit"),
    ],
)
async def test_query_integers_are_ascii_digits_only(
    memory_server: MemoryServer, path: str, name: str, value: str
) -> None:
    params = {name: value, "q": "tea"}

    answer = await send(memory_server, "GET", path, params=params)

    assert_error(answer, 400, f"{name} must be a whole number")


async def test_json_with_nan_is_a_bad_request(memory_server: MemoryServer) -> None:
    body = b'{"content": "not a number", "confidence": NaN}'

    answer = await send(memory_server, "POST", "/memory/long-term", body=body)

    assert_error(answer, 400, "the body must be JSON")


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"context_size": 0}, "context_size must be from 500 to 1000000"),
        ({"flush_threshold": 1e308}, "flush_threshold must be from 0.1 to 1.0"),
        ({"min_interval": 1e308}, "min_interval must be from 0 to 3600"),
    ],
)
async def test_turn_settings_out_of_range_are_bad_requests(
    memory_server: MemoryServer, settings: dict[str, float], message: str
) -> None:
    body = {"session_id": "s1", "settings": settings, "used_tokens": 10}

    answer = await send(
        memory_server, "POST", "/api/turns/batch", body=json.dumps(body).encode()
    )

    assert_error(answer, 400, message)


async def test_profile_scopes_that_read_alike_are_kept_apart(
    memory_server: MemoryServer,
) -> None:
    for scope in ("anna.smith", "anna_smith"):
        body = json.dumps({"scope": scope, "content": f"# {scope}\n"}).encode()
        status, _ = await send(memory_server, "PUT", "/memory/profile", body=body)
        assert status == 200

    for scope in ("anna.smith", "anna_smith"):
        status, answer = await send(
            memory_server, "GET", "/memory/profile", params={"scope": scope}
        )
        assert (status, answer["content"]) == (200, f"# {scope}\n")


@pytest.mark.parametrize(
    ("content", "prompt", "query", "shown"),
    [
        (
            "Keeps bees\x1b]0;owned\x07 on the roof\x7f of a 80 m² flat，north",
            "Bees?\x07",
            "bees",
            (
                "- Keeps bees]0;owned on the roof of a 80 m² flat，north\n"
                "</long_term_memory>\n\nBees?"
            ),
        ),
        (
            "zero\u200bwidth\u200d joiner, flag 🏳️\u200d🌈",
            "Flag?\u200d",
            "joiner",
            "- zerowidth joiner, flag 🏳️\u200d🌈\n</long_term_memory>\n\nFlag?",
        ),
    ],
    ids=["terminal controls", "a joiner outside emoji"],
)
async def test_the_prompt_route_leaves_out_what_a_reader_cannot_see(
    memory_server: MemoryServer, content: str, prompt: str, query: str, shown: str
) -> None:
    added = json.dumps({"content": content}).encode()
    status, memory = await send(memory_server, "POST", "/memory/long-term", body=added)
    assert status == 201
    asked = {"prompt": prompt, "query": query, "limit": 1}

    status, answer = await send(
        memory_server, "POST", "/api/turns/prompt", body=json.dumps(asked).encode()
    )

    assert status == 200
    assert answer["prompt"] == "<long_term_memory>\n" + shown
    # The memory itself keeps every character it was given.
    status, kept = await send(memory_server, "GET", f"/memory/long-term/{memory['id']}")
    assert (status, kept["content"]) == (200, content)
    await send(memory_server, "DELETE", f"/memory/long-term/{memory['id']}")
