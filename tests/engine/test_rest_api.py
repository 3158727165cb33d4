"""The REST handlers through `dispatch`, on a real LocalBackend over real files.

The HTTP layers (Home Assistant's views, the server) are tested on their own servers;
here every route's answers: success, bad input (400), unknown ids (404).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from custom_components.assist_memory.engine.backend.configure import apply_settings
from custom_components.assist_memory.engine.backend.local import LocalBackend
from custom_components.assist_memory.engine.config import (
    DEFAULT_CONFIG,
    LONGEST_CONTENT,
    SETTINGS,
    InvalidConfigError,
    config_changes,
)
from custom_components.assist_memory.engine.errors import StorageError
from custom_components.assist_memory.engine.http.api import ROUTES, dispatch, find_route
from custom_components.assist_memory.engine.http.memory_routes import (
    NOT_ENABLED,
    NOTHING_TO_UNDO,
    SKIPPED,
)
from custom_components.assist_memory.engine.http.openapi import openapi_document
from custom_components.assist_memory.engine.http.routing import (
    ApiRequest,
    ApiResponse,
    Route,
    run_route,
)
from custom_components.assist_memory.engine.storage.settings import StoreSettings

from .test_compaction import FakeLlm

COMPACTED = """## Preferences

- Anna takes her coffee black
"""


class DictHost:
    """Settings in a dict; applies compaction like the real hosts."""

    def __init__(self, backend: LocalBackend, llm: FakeLlm | None) -> None:
        self.backend = backend
        self.llm = llm
        self.options: dict[str, Any] = dict(DEFAULT_CONFIG)
        self.writes = 0

    async def read_options(self) -> dict[str, Any]:
        return dict(self.options)

    async def write_options(self, changes: dict[str, Any]) -> None:
        self.writes += 1
        self.options.update(changes)
        await apply_settings(self.backend, self.options, compaction_llm=self.llm)
        # No cooldown between two compactions in these tests.
        self.backend.compactor.cooldown = timedelta(0)


@pytest.fixture
async def backend(tmp_path: Path) -> AsyncIterator[LocalBackend]:
    backend, _ = await LocalBackend.open(tmp_path / "memories.json", watch=False)
    yield backend
    await backend.close()


@pytest.fixture
def llm() -> FakeLlm:
    return FakeLlm(COMPACTED)


@pytest.fixture
def host(backend: LocalBackend, llm: FakeLlm) -> DictHost:
    return DictHost(backend, llm)


async def call(
    host: DictHost,
    method: str,
    path: str,
    query: dict[str, str] | None = None,
    body: object = None,
) -> ApiResponse:
    return await dispatch(host, method, path, query, body)


async def add(host: DictHost, content: str, **fields: Any) -> dict[str, Any]:
    response = await call(
        host, "POST", "/memory/long-term", body={"content": content, **fields}
    )
    assert response.status == 201, response.body
    assert isinstance(response.body, dict)
    return response.body


async def test_long_term_paging_and_filters(host: DictHost) -> None:
    for number in range(12):
        await add(host, f"Fact number {number}", category="fact")
    await add(host, "Anna likes tea", category="preference", tags=["drinks"])
    page = await call(host, "GET", "/memory/long-term", {"limit": "5", "offset": "10"})
    assert page.status == 200
    assert isinstance(page.body, dict)
    assert page.body["total"] == 13
    assert (page.body["limit"], page.body["offset"]) == (5, 10)
    assert len(page.body["items"]) == 3
    assert page.body["hasMore"] is False
    first = await call(host, "GET", "/memory/long-term", {"limit": "5"})
    assert isinstance(first.body, dict)
    assert first.body["hasMore"] is True
    assert first.body["items"][0]["content"] == "Anna likes tea"  # newest first
    tagged = await call(host, "GET", "/memory/long-term", {"tag": "drinks"})
    assert isinstance(tagged.body, dict)
    assert [m["content"] for m in tagged.body["items"]] == ["Anna likes tea"]
    facts = await call(host, "GET", "/memory/long-term", {"category": "fact"})
    assert isinstance(facts.body, dict)
    assert facts.body["total"] == 12
    oldest = await call(host, "GET", "/memory/long-term", {"sort": "oldest"})
    assert isinstance(oldest.body, dict)
    assert oldest.body["items"][0]["content"] == "Fact number 0"


@pytest.mark.parametrize(
    ("query", "error"),
    [
        ({"limit": "0"}, "limit must be from 1 to 500"),
        ({"limit": "501"}, "limit must be from 1 to 500"),
        ({"limit": "ten"}, "limit must be a whole number"),
        ({"offset": "-1"}, "offset must be from 0 to 9007199254740991"),
        ({"sort": "random"}, "sort must be one of newest, oldest, updated, most_used"),
    ],
)
async def test_long_term_bad_parameters(
    host: DictHost, query: dict[str, str], error: str
) -> None:
    response = await call(host, "GET", "/memory/long-term", query)
    assert response.status == 400
    assert isinstance(response.body, dict)
    assert response.body == {"error": error, "code": "bad_request"}


async def test_one_memory_get_change_delete(host: DictHost) -> None:
    memory = await add(host, "Tom likes tea", category="preference", key="tom_tea")
    path = f"/memory/long-term/{memory['id']}"
    got = await call(host, "GET", path)
    assert got.status == 200
    assert got.body == memory
    changed = await call(host, "PATCH", path, body={"content": "Tom likes green tea"})
    assert changed.status == 200
    assert isinstance(changed.body, dict)
    assert changed.body["content"] == "Tom likes green tea"
    assert changed.body["created_at"] == memory["created_at"]
    retagged = await call(host, "PATCH", path, body={"tags": ["drinks"]})
    assert isinstance(retagged.body, dict)
    assert retagged.body["tags"] == ["drinks"]
    deleted = await call(host, "DELETE", path)
    assert deleted.status == 200
    assert deleted.body == {"deleted": memory["id"]}
    for method, body in (("GET", None), ("PATCH", {"content": "x"}), ("DELETE", None)):
        missing = await call(host, method, path, body=body)
        assert missing.status == 404
        assert isinstance(missing.body, dict)
        assert missing.body["code"] == "not_found"


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (None, "bad_request"),
        (["content"], "bad_request"),
        ({}, "bad_request"),
        ({"content": 5}, "bad_request"),
        ({"content": "   "}, "empty_content"),
        ({"content": "ok", "category": "gossip"}, "unknown_category"),
        ({"content": "ok", "confidence": 7}, "invalid_confidence"),
        ({"content": "ok", "colour": "red"}, "bad_request"),
    ],
)
async def test_add_bad_bodies(host: DictHost, body: object, code: str) -> None:
    response = await call(host, "POST", "/memory/long-term", body=body)
    assert response.status == 400
    assert isinstance(response.body, dict)
    assert response.body["code"] == code
    listed = await call(host, "GET", "/memory/long-term")
    assert isinstance(listed.body, dict)
    assert listed.body["total"] == 0


async def test_a_change_of_nothing_answers_the_memory_as_it_is(host: DictHost) -> None:
    memory = await add(host, "Tom likes tea")
    for body in ({}, {"content": "", "category": None, "tags": None}):
        response = await call(
            host, "PATCH", f"/memory/long-term/{memory['id']}", body=body
        )
        assert (response.status, response.body) == (200, memory)
    unknown = await call(host, "PATCH", "/memory/long-term/nope", body={})
    assert unknown.status == 404


async def test_errors_carry_their_placeholders(host: DictHost) -> None:
    await host.backend.set_settings(StoreSettings(max_items=1))
    await add(host, "One")
    full = await call(host, "POST", "/memory/long-term", body={"content": "Two"})
    assert full.status == 409  # a well-formed request the store cannot take
    assert full.body == {
        "error": "memory is full (1 items)",
        "code": "memory_full",
        "placeholders": {"max_items": "1"},
    }


async def test_content_over_the_settings_limit_is_a_conflict(host: DictHost) -> None:
    """The document allows what any setting allows; the current setting may refuse."""
    document = openapi_document(lambda path: path)["components"]["schemas"]
    longest = document["NewMemory"]["properties"]["content"]["maxLength"]
    assert longest == LONGEST_CONTENT
    await host.backend.set_settings(StoreSettings(max_content_length=10))
    memory = await add(host, "Tom")

    long_text = "x" * 11
    refused = [
        await call(host, "POST", "/memory/long-term", body={"content": long_text}),
        await call(
            host,
            "PATCH",
            f"/memory/long-term/{memory['id']}",
            body={"content": long_text},
        ),
        await call(
            host,
            "POST",
            "/memory/import",
            body={"document": [{"id": "b", "content": long_text}]},
        ),
        await call(host, "PUT", "/api/memory/main", body={"content": f"- {long_text}"}),
    ]
    assert [r.status for r in refused] == [409, 409, 409, 409]
    assert refused[0].body == {
        "error": "content is 11 characters, the limit is 10",
        "code": "content_too_long",
        "placeholders": {"length": "11", "max_length": "10"},
    }
    # Longer than any setting allows: a bad value, as the document says.
    beyond = "x" * (LONGEST_CONTENT + 1)
    response = await call(host, "POST", "/memory/long-term", body={"content": beyond})
    assert response.status == 400
    assert [m.content for m in (await host.backend.list()).items] == ["Tom"]


async def test_an_import_naming_an_id_twice_is_a_conflict(host: DictHost) -> None:
    records = [{"id": "a", "content": "One"}, {"id": "a", "content": "Two"}]

    response = await call(host, "POST", "/memory/import", body={"document": records})

    assert response.status == 409
    assert isinstance(response.body, dict)
    assert response.body["error"] == "record 2: the id a appears twice"


async def test_clear(host: DictHost) -> None:
    await add(host, "One")
    await add(host, "Two")
    response = await call(host, "DELETE", "/memory/long-term")
    assert response.body == {"deleted": 2}
    listed = await call(host, "GET", "/memory/long-term")
    assert isinstance(listed.body, dict)
    assert listed.body["items"] == []


async def test_search(host: DictHost) -> None:
    await add(host, "Anna takes her coffee black")
    await add(host, "Anna's book club is on Thursday", scope="anna")
    found = await call(host, "GET", "/api/memory/search", {"q": "coffee"})
    assert found.status == 200
    assert isinstance(found.body, dict)
    assert [r["content"] for r in found.body["results"]] == [
        "Anna takes her coffee black"
    ]
    assert found.body["results"][0]["matched"] == ["coffee"]
    tom = await call(
        host, "GET", "/api/memory/search", {"q": "book club", "scope": "tom"}
    )
    assert isinstance(tom.body, dict)
    assert tom.body["results"] == []
    anna = await call(
        host, "GET", "/api/memory/search", {"q": "book club", "scope": "anna"}
    )
    assert isinstance(anna.body, dict)
    assert len(anna.body["results"]) == 1
    for query in ({}, {"q": " "}, {"q": "x", "limit": "101"}):
        bad = await call(host, "GET", "/api/memory/search", query)
        assert bad.status == 400


async def test_main_round_trip(host: DictHost) -> None:
    await add(host, "Anna takes her coffee black", category="preference")
    main = await call(host, "GET", "/api/memory/main")
    assert isinstance(main.body, dict)
    assert "- Anna takes her coffee black" in main.body["content"]
    edited = main.body["content"] + "- Tom walks the dog at seven\n"
    saved = await call(host, "PUT", "/api/memory/main", body={"content": edited})
    assert saved.status == 200
    assert isinstance(saved.body, dict)
    assert (saved.body["added"], saved.body["updated"], saved.body["removed"]) == (
        1,
        0,
        0,
    )
    assert "Tom walks the dog at seven" in saved.body["content"]
    bad = await call(host, "PUT", "/api/memory/main", body={"text": "x"})
    assert bad.status == 400


async def test_config(host: DictHost) -> None:
    current = await call(host, "GET", "/api/memory/config")
    assert isinstance(current.body, dict)
    assert current.body["enabled"] is True
    assert current.body["autoExtract"] is True
    assert current.body["flushThreshold"] == 75
    assert set(current.body) == {field.name for field in SETTINGS}
    changed = await call(
        host,
        "PUT",
        "/api/memory/config",
        body={"autoExtract": False, "flushThreshold": 80},
    )
    assert isinstance(changed.body, dict)
    assert (changed.body["autoExtract"], changed.body["flushThreshold"]) == (False, 80)
    assert host.options["auto_extract"] is False
    writes = host.writes
    for body in (
        {"autoExtract": "no"},
        {"flushThreshold": 5},
        {"flushThreshold": 7.5},
        {"promptMode": "loud"},
        {"unknown": 1},
        {"flushThreshold": 80, "autoExtract": 1},
        "all of them",
    ):
        bad = await call(host, "PUT", "/api/memory/config", body=body)
        assert bad.status == 400, body
        assert isinstance(bad.body, dict)
        assert bad.body["code"] == "invalid_config"
    assert host.writes == writes  # nothing half applied
    assert host.options["flush_threshold"] == 80


def test_config_changes_accepts_whole_floats() -> None:
    assert config_changes({"ragTopN": 7.0}) == {"rag_top_n": 7}
    with pytest.raises(InvalidConfigError):
        config_changes({"ragTopN": True})


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/auto-memory/compact", None),
        ("/api/auto-memory/compact/preview", None),
        ("/api/auto-memory/compact/apply", {"revision": ""}),
    ],
)
async def test_compaction_switched_off_is_a_conflict(
    host: DictHost, path: str, body: object
) -> None:
    """A well-formed request that the settings refuse: 409, as the document says."""
    response = await call(host, "POST", path, body=body)

    assert response.status == 409
    assert response.body == {"error": NOT_ENABLED, "code": "compaction_not_enabled"}
    documented = openapi_document(lambda path: path)["paths"][path]["post"]
    assert "not enabled" in documented["responses"]["409"]["description"]


async def test_compaction(host: DictHost, llm: FakeLlm) -> None:
    await call(host, "PUT", "/api/memory/config", body={"compactionEnabled": True})
    skipped = await call(host, "POST", "/api/auto-memory/compact")
    assert skipped.body == {"message": SKIPPED}  # no facts yet
    await add(host, "Anna takes her coffee black", category="preference")
    await add(host, "Anna drinks black coffee", category="preference")
    done = await call(host, "POST", "/api/auto-memory/compact")
    assert done.status == 200
    assert done.body == {"originalCount": 2, "compactedCount": 1}
    listed = await call(host, "GET", "/api/auto-memory/compactions")
    assert isinstance(listed.body, dict)
    assert listed.body["enabled"] is True
    assert [item["count"] for item in listed.body["items"]] == [2]
    undone = await call(host, "POST", "/api/auto-memory/undo")
    assert undone.body == {"originalCount": 1, "compactedCount": 2}
    again = await call(host, "POST", "/api/auto-memory/undo")
    assert again.body == {"message": NOTHING_TO_UNDO}
    llm.answer = "no bullets at all"
    failed = await call(host, "POST", "/api/auto-memory/compact")
    assert failed.body == {"message": SKIPPED}
    page = await call(host, "GET", "/memory/long-term")
    assert isinstance(page.body, dict)
    assert page.body["total"] == 2


async def test_working_memory_and_sessions(host: DictHost) -> None:
    missing = await call(host, "GET", "/memory/working/nobody")
    assert missing.status == 404
    await host.backend.begin_turn(session_id="kitchen", text="Remember I like tea")
    await host.backend.end_turn(
        session_id="kitchen", user_text="Remember I like tea", reply="Noted"
    )
    found = await call(host, "GET", "/memory/working/kitchen")
    assert found.status == 200
    assert isinstance(found.body, dict)
    assert found.body["session_id"] == "kitchen"
    assert found.body["turn_count"] == 1
    every = await call(host, "GET", "/memory/working")
    assert isinstance(every.body, dict)
    assert [m["session_id"] for m in every.body["items"]] == ["kitchen"]
    sessions = await call(host, "GET", "/memory/sessions", {"limit": "5"})
    assert isinstance(sessions.body, dict)
    assert [s["session_id"] for s in sessions.body["items"]] == ["kitchen"]
    assert (await call(host, "GET", "/memory/sessions", {"limit": "0"})).status == 400


async def test_profile(host: DictHost) -> None:
    saved = await call(
        host, "PUT", "/memory/profile", body={"content": "# Profile\n\nShort answers"}
    )
    assert saved.status == 200
    assert saved.body == {"scope": "household", "content": "# Profile\n\nShort answers"}
    anna = await call(
        host, "PUT", "/memory/profile", body={"scope": "anna", "content": "Anna: tea"}
    )
    assert isinstance(anna.body, dict)
    read = await call(host, "GET", "/memory/profile", {"scope": "anna"})
    assert read.body == {"scope": "anna", "content": "Anna: tea"}
    household = await call(host, "GET", "/memory/profile")
    assert isinstance(household.body, dict)
    assert household.body["content"] == "# Profile\n\nShort answers"
    bad = await call(host, "PUT", "/memory/profile", body={"content": 3})
    assert bad.status == 400


async def test_daily_logs(host: DictHost) -> None:
    entry = await host.backend.append_daily_log("Watered the plants")
    days = await call(host, "GET", "/memory/daily")
    assert days.body == {"dates": [entry.date]}
    day = await call(host, "GET", f"/memory/daily/{entry.date}")
    assert isinstance(day.body, dict)
    assert "Watered the plants" in day.body["content"]
    found = await call(host, "GET", "/memory/daily", {"q": "plants"})
    assert isinstance(found.body, dict)
    assert [e["text"] for e in found.body["entries"]] == ["Watered the plants"]
    bad = await call(host, "GET", "/memory/daily/yesterday")
    assert bad.status == 400


async def test_export_import_stats(host: DictHost) -> None:
    memory = await add(host, "Tom likes tea")
    exported = await call(host, "GET", "/memory/export")
    assert isinstance(exported.body, dict)
    assert exported.body["count"] == 1
    await call(host, "DELETE", "/memory/long-term")
    imported = await call(
        host, "POST", "/memory/import", body={"document": exported.body}
    )
    assert imported.body == {"added": 1, "updated": 0, "total": 1}
    back = await call(host, "GET", f"/memory/long-term/{memory['id']}")
    assert back.body == memory
    for body in (
        {"document": exported.body, "mode": "mix"},
        {"mode": "merge"},
        {"document": {"memories": [{"id": "x"}]}},
    ):
        assert (await call(host, "POST", "/memory/import", body=body)).status == 400
    stats = await call(host, "GET", "/memory/stats")
    assert isinstance(stats.body, dict)
    assert stats.body["count"] == 1
    assert stats.body["byCategory"] == {"fact": 1}


async def test_unknown_route(host: DictHost) -> None:
    response = await call(host, "GET", "/memory/nothing")
    assert response.status == 404
    assert isinstance(response.body, dict)
    assert response.body["code"] == "no_route"
    assert find_route("PUT", "/memory/long-term") is None


async def test_storage_errors_are_503(host: DictHost, tmp_path: Path) -> None:
    async def broken(_host: object, _request: ApiRequest) -> object:
        raise StorageError("the disk is full", tmp_path)

    route = Route("GET", "/broken", "broken", "Always fails", broken)
    response = await run_route(host, route, ApiRequest())
    assert response.status == 503
    assert response.body == {
        "error": "the disk is full",
        "code": "storage_error",
        "placeholders": {"path": str(tmp_path)},
    }


def test_openapi_describes_every_route() -> None:
    document = openapi_document(lambda path: "/prefix" + path)
    operations = {
        (method.upper(), path)
        for path, item in document["paths"].items()
        for method in item
    }
    assert operations == {(r.method, "/prefix" + r.path) for r in ROUTES}
    schemas = document["components"]["schemas"]
    text = repr(document)
    for name in {
        part.split("'")[0] for part in text.split("#/components/schemas/")[1:]
    }:
        assert name in schemas
    compact = document["paths"]["/prefix/api/auto-memory/compact"]["post"]
    assert set(compact["responses"]) >= {"200", "400", "401"}
    one = document["paths"]["/prefix/memory/long-term/{id}"]["get"]
    assert "404" in one["responses"]
    assert one["parameters"][0] == {
        "name": "id",
        "in": "path",
        "required": True,
        "schema": {"type": "string"},
    }


def test_openapi_links_a_new_memory_to_its_own_routes() -> None:
    """What a client (and schemathesis' stateful phase) does next with the id."""
    document = openapi_document(lambda path: path)
    created = document["paths"]["/memory/long-term"]["post"]["responses"]["201"]
    assert {
        name: (link["operationId"], link["parameters"])
        for name, link in created["links"].items()
    } == {
        operation: (operation, {"id": "$response.body#/id"})
        for operation in ("getMemory", "updateMemory", "deleteMemory")
    }
