"""OpenAiChatCaller against a real OpenAI-compatible chat server on 127.0.0.1."""

from __future__ import annotations

from collections.abc import AsyncIterator
import json
import logging

from aiohttp import ClientSession
import pytest

from custom_components.assist_memory.engine.language import llm
from custom_components.assist_memory.engine.language.llm import (
    LlmCaller,
    OpenAiChatCaller,
    chat_endpoint,
)
from tests.support.chat_server import ChatServer

# Home Assistant's test plugin blocks sockets; these tests talk to a local server.
pytestmark = pytest.mark.usefixtures("socket_enabled")

API_KEY = "sk-secret-key-123"


@pytest.fixture
async def server() -> AsyncIterator[ChatServer]:
    running = ChatServer()
    await running.start()
    try:
        yield running
    finally:
        await running.stop()


def test_endpoint_adds_v1_only_when_missing() -> None:
    assert chat_endpoint("http://h:11434") == "http://h:11434/v1/chat/completions"
    assert chat_endpoint("http://h:11434/v1/") == "http://h:11434/v1/chat/completions"


async def test_answers_first_choice_content(server: ChatServer) -> None:
    caller: LlmCaller = OpenAiChatCaller(server.base_url, "llama3.2", api_key=API_KEY)

    answer = await caller.complete("Be brief.", "Tidy these facts")

    assert answer == "## Facts\n\n- Anna likes tea"
    assert server.requests == [
        {
            "model": "llama3.2",
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "Tidy these facts"},
            ],
            "stream": False,
        }
    ]
    assert server.headers[0]["Authorization"] == f"Bearer {API_KEY}"


async def test_uses_given_session_and_leaves_it_open(server: ChatServer) -> None:
    async with ClientSession() as session:
        caller = OpenAiChatCaller(f"{server.base_url}/v1", "m", session=session)

        assert await caller.complete("i", "咖啡 ☕") == "## Facts\n\n- Anna likes tea"
        assert await caller.complete("i", "again") is not None
        assert not session.closed

    assert server.requests[0]["messages"][1]["content"] == "咖啡 ☕"
    assert "Authorization" not in server.headers[0]


def test_repr_hides_the_key() -> None:
    caller = OpenAiChatCaller("http://user:pw@h:1/v1", "m", api_key=API_KEY)

    assert API_KEY not in repr(caller)
    assert "pw" not in repr(caller)
    assert (
        repr(caller) == "OpenAiChatCaller('http://h:1/v1/chat/completions', model='m')"
    )


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ((500, None, {"error": "model crashed"}), "HTTP 500"),
        ((401, None, {"error": "bad key"}), "HTTP 401"),
        ((200, b"<html>not json</html>", None), "not JSON"),
        ((200, b"\xff\xfe", None), "not JSON"),
        ((200, None, {"choices": []}), "no message content"),
        ((200, None, ["not", "an", "object"]), "no message content"),
        (
            (200, None, {"choices": [{"message": {"content": None}}]}),
            "no message content",
        ),
        ((200, None, {"choices": [{"text": "legacy"}]}), "no message content"),
        ((200, None, {"choices": [{"message": {"content": "  "}}]}), "empty"),
    ],
)
async def test_bad_answers_give_none_and_one_log_line(
    server: ChatServer,
    caplog: pytest.LogCaptureFixture,
    reply: tuple[int, bytes | None, object],
    reason: str,
) -> None:
    server.status, server.raw, server.payload = reply
    caller = OpenAiChatCaller(server.base_url, "m", api_key=API_KEY)

    with caplog.at_level(logging.WARNING):
        assert await caller.complete("i", "t") is None

    # Only the caller's own lines: asyncio may add a slow-callback warning under load.
    (record,) = [r for r in caplog.records if r.name == llm.__name__]
    message = record.getMessage()
    assert reason in message
    assert server.base_url in message
    assert API_KEY not in caplog.text


async def test_timeout_gives_none(
    server: ChatServer, caplog: pytest.LogCaptureFixture
) -> None:
    server.hold.clear()  # the server never answers until the test ends
    caller = OpenAiChatCaller(server.base_url, "m", timeout=0.05)

    with caplog.at_level(logging.WARNING):
        assert await caller.complete("i", "t") is None

    assert "no answer within 0.05 s" in caplog.text


async def test_unreachable_server_gives_none(
    server: ChatServer, caplog: pytest.LogCaptureFixture
) -> None:
    base_url = server.base_url
    await server.stop()  # nothing listens on that port any more
    caller = OpenAiChatCaller(base_url, "m")

    with caplog.at_level(logging.WARNING):
        assert await caller.complete("i", "t") is None

    assert "request failed" in caplog.text


async def test_invalid_url_gives_none_without_showing_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caller = OpenAiChatCaller("http://user:pw@127.0.0.1:99999", "m", api_key=API_KEY)

    with caplog.at_level(logging.WARNING):
        assert await caller.complete("i", "t") is None

    assert "the LLM endpoint" in caplog.text
    assert "pw" not in caplog.text


async def test_text_that_cannot_be_sent_gives_none(
    server: ChatServer, caplog: pytest.LogCaptureFixture
) -> None:
    caller = OpenAiChatCaller(server.base_url, "m")

    with caplog.at_level(logging.WARNING):
        assert await caller.complete("i", "lone surrogate \ud800") is None

    assert "unusable request or answer" in caplog.text
    assert server.requests == []


async def test_answer_body_is_parsed_as_utf8_json(server: ChatServer) -> None:
    server.raw = json.dumps(
        {"choices": [{"message": {"content": "## 偏好\n\n- 喜欢绿茶"}}]},
        ensure_ascii=False,
    ).encode()
    caller = OpenAiChatCaller(server.base_url, "m")

    assert await caller.complete("i", "t") == "## 偏好\n\n- 喜欢绿茶"
