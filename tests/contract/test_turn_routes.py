"""The server's turn routes refuse malformed bodies with a 400 naming the field."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from custom_components.assist_memory.engine.backend.local import LocalBackend
from custom_components.assist_memory.engine.config import DEFAULT_CONFIG
from custom_components.assist_memory.engine.conversation.turn_settings import (
    LearnSettings,
    TurnSettings,
)
from custom_components.assist_memory.engine.errors import InvalidMemoryError
from custom_components.assist_memory.engine.http.api import dispatch
from custom_components.assist_memory.engine.http.turn_wire import (
    JsonObject,
    learn_settings_from_json,
    learn_settings_json,
    turn_context_from_json,
    turn_settings_from_json,
)


class Host:
    def __init__(self, backend: LocalBackend) -> None:
        self.backend = backend

    async def read_options(self) -> dict[str, Any]:
        return dict(DEFAULT_CONFIG)

    async def write_options(self, changes: dict[str, Any]) -> None:
        raise NotImplementedError


@pytest.fixture
async def host(tmp_path: Path) -> AsyncIterator[Host]:
    backend, _ = await LocalBackend.open(tmp_path / "memories.json", watch=False)
    yield Host(backend)
    await backend.close()


@pytest.mark.parametrize(
    ("path", "body", "error"),
    [
        ("/api/turns/begin", [], "the body must be a JSON object"),
        ("/api/turns/begin", {"text": "hi"}, "session_id is required"),
        ("/api/turns/begin", {"session_id": 1, "text": "hi"}, "session_id must be text"),
        (
            "/api/turns/begin",
            {"session_id": "s", "text": "hi", "settings": {"memory_budget": "x"}},
            "memory_budget must be a whole number",
        ),
        (
            "/api/turns/begin",
            {"session_id": "s", "text": "hi", "settings": {"rag_top_n": True}},
            "rag_top_n must be a whole number",
        ),
        (
            "/api/turns/begin",
            {"session_id": "s", "text": "hi", "settings": {"enable_user_profile": 1}},
            "enable_user_profile must be true or false",
        ),
        (
            "/api/turns/begin",
            {"session_id": "s", "text": "hi", "live_since": "yesterday"},
            "live_since must be an ISO 8601 time",
        ),
        (
            "/api/turns/batch",
            {"session_id": "s", "settings": {"min_interval": "soon"}},
            "min_interval must be a number",
        ),
        ("/api/turns/pause", {}, "session_id is required"),
        ("/api/turns/rule-facts", {"batch": "x"}, "batch must be a JSON object"),
        (
            "/api/turns/rule-facts",
            {"batch": {"session_id": "s", "message_ids": ["1"]}},
            "message_ids must be a list of whole numbers from 0 to 9007199254740991",
        ),
        (
            "/api/turns/rule-facts",
            {"batch": {"session_id": "s", "user_texts": [1]}},
            "user_texts must be a list of texts",
        ),
        (
            "/api/turns/learn",
            {"batch": {"session_id": "s"}, "facts": {"content": "x"}},
            "facts must be a list",
        ),
        (
            "/api/turns/learn",
            {"batch": {"session_id": "s"}, "facts": [{"content": "x", "source": "?"}]},
            "a fact is invalid: unknown source '?'",
        ),
        ("/api/turns/search", {"query": "tea", "scopes": "anna"}, "scopes must be a list"),
        ("/api/turns/daily-log/search", {"query": "tea", "limit": "3"},
         "limit must be a whole number"),
    ],
)  # fmt: skip
async def test_bad_bodies(host: Host, path: str, body: object, error: str) -> None:
    response = await dispatch(host, "POST", path, body=body)  # type: ignore[arg-type]
    assert response.status == 400
    assert response.body == {"error": error, "code": "bad_request"}


async def test_defaults_and_round_trips() -> None:
    assert turn_settings_from_json(None) == TurnSettings()
    assert learn_settings_from_json(None) == LearnSettings()
    settings = LearnSettings(min_interval=timedelta(seconds=1.5), min_messages=2)
    assert learn_settings_from_json(learn_settings_json(settings)) == settings
    with pytest.raises(InvalidMemoryError, match="settings must be a JSON object"):
        turn_settings_from_json("fast")
    with pytest.raises(InvalidMemoryError, match="extra must be a JSON object"):
        turn_context_from_json({"session_id": "s", "extra": [1]})
    body = JsonObject({"n": None, "score": 1})
    assert body.number("score") == 1.0
    assert body.texts("missing") == ()


async def test_compact_if_due_without_an_llm(host: Host) -> None:
    response = await dispatch(host, "POST", "/api/auto-memory/compact-if-due")
    assert (response.status, response.body) == (
        200,
        {"message": "Compaction skipped or failed"},
    )
