"""The REST API on Home Assistant's HTTP server, with real authentication."""

from __future__ import annotations

from homeassistant.core import HomeAssistant
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry
from pytest_homeassistant_custom_component.typing import ClientSessionGenerator

from custom_components.assist_memory.const import (
    CONF_AUTO_EXTRACT,
    CONF_EXTRACTOR_ENTITY,
    CONF_MAX_ITEMS,
    DOMAIN,
)
from custom_components.assist_memory.engine.http.memory_routes import ROUTES
from custom_components.assist_memory.engine.http.routing import Route
from custom_components.assist_memory.rest_views import ha_path

from .agents import TASK_ENTITY_ID, LlmEntities
from .conversing import meaning_caught_up

PREFIX = "/api/assist_memory"
URL = f"{PREFIX}/memory/search"
pytestmark = pytest.mark.usefixtures("loaded_entry")


async def test_ranked_results_with_their_parts(
    hass: HomeAssistant, hass_client: ClientSessionGenerator
) -> None:
    for content in (
        "Anna takes her coffee black",
        "Coffee beans are in the cupboard",
        "Tom likes tea",
    ):
        await hass.services.async_call(
            DOMAIN, "add", {"content": content}, blocking=True
        )
    await meaning_caught_up(hass)
    client = await hass_client()
    response = await client.get(URL, params={"q": "How does Anna take her coffee?"})
    assert response.status == 200
    body = await response.json()
    # Those with the question's words first, in order; then by meaning only.
    assert [r["content"] for r in body["results"]][:2] == [
        "Anna takes her coffee black",
        "Coffee beans are in the cupboard",
    ]
    assert all(not r["matched"] for r in body["results"][2:])
    assert (
        body["results"][0]["matched"] == ["anna", "coffee"]
        or body["results"][0]["matched"]
    )
    assert set(body["results"][0]["score_parts"]) >= {"keyword", "recency", "frequency"}
    limited = await (await client.get(URL, params={"q": "coffee", "limit": "1"})).json()
    assert len(limited["results"]) == 1
    whisky = await (await client.get(URL, params={"q": "whisky"})).json()
    assert all(not r["matched"] for r in whisky["results"])  # no memory has the word


async def test_scope(hass: HomeAssistant, hass_client: ClientSessionGenerator) -> None:
    await hass.services.async_call(
        DOMAIN,
        "add",
        {"content": "Anna's book club is on Thursday", "scope": "anna"},
        blocking=True,
    )
    client = await hass_client()
    tom = await (
        await client.get(URL, params={"q": "book club", "scope": "tom"})
    ).json()
    assert tom["results"] == []
    anna = await (
        await client.get(URL, params={"q": "book club", "scope": "anna"})
    ).json()
    assert len(anna["results"]) == 1


@pytest.mark.parametrize(
    ("params", "error"),
    [
        ({}, "the query parameter q is required"),
        ({"q": "  "}, "the query parameter q is required"),
        ({"q": "tea", "limit": "many"}, "limit must be a whole number"),
        ({"q": "tea", "limit": "500"}, "limit must be from 1 to 100"),
    ],
)
async def test_bad_parameters(
    hass_client: ClientSessionGenerator, params: dict[str, str], error: str
) -> None:
    response = await (await hass_client()).get(URL, params=params)
    assert response.status == 400
    assert await response.json() == {"error": error, "code": "bad_request"}


@pytest.mark.parametrize("route", ROUTES, ids=[f"{r.method} {r.path}" for r in ROUTES])
async def test_every_route_needs_credentials(
    hass_client_no_auth: ClientSessionGenerator, route: Route
) -> None:
    path = ha_path(route.path).replace("{id}", "x").replace("{session_id}", "x")
    path = path.replace("{day}", "2026-01-01")
    client = await hass_client_no_auth()
    response = await client.request(route.method, path, json={})
    assert response.status == 401


async def test_administrators_only(
    hass_client: ClientSessionGenerator, hass_read_only_access_token: str
) -> None:
    client = await hass_client(hass_read_only_access_token)
    response = await client.get(f"{PREFIX}/memory/long-term")
    assert response.status == 401


async def test_memories_over_http(
    hass: HomeAssistant, hass_client: ClientSessionGenerator
) -> None:
    client = await hass_client()
    created = await client.post(
        f"{PREFIX}/memory/long-term",
        json={"content": "Anna takes her coffee black", "category": "preference"},
    )
    assert created.status == 201
    memory = await created.json()
    # The same store as the services'.
    listed = await hass.services.async_call(
        DOMAIN, "list", {}, blocking=True, return_response=True
    )
    assert [m["id"] for m in listed["items"]] == [memory["id"]]
    page = await (await client.get(f"{PREFIX}/memory/long-term?limit=10")).json()
    assert (page["total"], page["limit"], page["offset"]) == (1, 10, 0)
    one = await client.get(f"{PREFIX}/memory/long-term/{memory['id']}")
    assert await one.json() == memory
    changed = await client.patch(
        f"{PREFIX}/memory/long-term/{memory['id']}", json={"content": "Anna likes tea"}
    )
    assert (await changed.json())["content"] == "Anna likes tea"
    main = await (await client.get(f"{PREFIX}/memory/main")).json()
    assert "- Anna likes tea" in main["content"]
    deleted = await client.delete(f"{PREFIX}/memory/long-term/{memory['id']}")
    assert await deleted.json() == {"deleted": memory["id"]}
    missing = await client.get(f"{PREFIX}/memory/long-term/{memory['id']}")
    assert missing.status == 404
    assert (await missing.json())["code"] == "not_found"
    unknown_session = await client.get(f"{PREFIX}/memory/working/nobody")
    assert unknown_session.status == 404
    bad_json = await client.post(
        f"{PREFIX}/memory/long-term",
        data=b"{not json",
        headers={"Content-Type": "application/json"},
    )
    assert bad_json.status == 400
    assert await bad_json.json() == {
        "error": "the body must be JSON",
        "code": "invalid_json",
    }
    bad_page = await client.get(f"{PREFIX}/memory/long-term?offset=-3")
    assert bad_page.status == 400
    document = await (await client.get(f"{PREFIX}/openapi.json")).json()
    assert f"{PREFIX}/memory/long-term/{{id}}" in document["paths"]
    assert f"{PREFIX}/auto-memory/compact" in document["paths"]


async def test_config_is_the_entry_options(
    hass: HomeAssistant,
    hass_client: ClientSessionGenerator,
    loaded_entry: MockConfigEntry,
) -> None:
    client = await hass_client()
    config = await (await client.get(f"{PREFIX}/memory/config")).json()
    assert config["autoExtract"] is True
    assert config["maxItems"] == 100  # the entry's option
    response = await client.put(
        f"{PREFIX}/memory/config", json={"autoExtract": False, "maxItems": 1}
    )
    assert response.status == 200
    assert (await response.json())["autoExtract"] is False
    assert loaded_entry.options[CONF_AUTO_EXTRACT] is False
    assert loaded_entry.options[CONF_MAX_ITEMS] == 1
    # Applied at once, without a reload.
    await client.post(f"{PREFIX}/memory/long-term", json={"content": "One"})
    full = await client.post(f"{PREFIX}/memory/long-term", json={"content": "Two"})
    assert full.status == 409, await full.text()
    assert (await full.json())["code"] == "memory_full"
    bad = await client.put(f"{PREFIX}/memory/config", json={"maxItems": "many"})
    assert bad.status == 400
    assert loaded_entry.options[CONF_MAX_ITEMS] == 1


async def test_following_other_agents_starts_without_a_reload(
    hass: HomeAssistant,
    hass_client: ClientSessionGenerator,
    loaded_entry: MockConfigEntry,
) -> None:
    backend = loaded_entry.runtime_data.backend
    client = await hass_client()
    response = await client.put(
        f"{PREFIX}/memory/config", json={"learnFromOtherAgents": True}
    )
    assert response.status == 200
    await hass.async_block_till_done()
    assert loaded_entry.runtime_data.backend is backend
    assert loaded_entry.runtime_data.stop_following is not None


async def test_compaction_over_http(
    hass: HomeAssistant,
    hass_client: ClientSessionGenerator,
    loaded_entry: MockConfigEntry,
    llm: LlmEntities,
) -> None:
    client = await hass_client()
    off = await client.post(f"{PREFIX}/auto-memory/compact")
    assert off.status == 409
    assert await off.json() == {
        "error": "LLM compaction not enabled",
        "code": "compaction_not_enabled",
    }
    hass.config_entries.async_update_entry(
        loaded_entry,
        options={**loaded_entry.options, CONF_EXTRACTOR_ENTITY: TASK_ENTITY_ID},
    )
    await client.put(f"{PREFIX}/memory/config", json={"compactionEnabled": True})
    for content in ("Anna takes her coffee black", "Anna drinks black coffee"):
        await client.post(
            f"{PREFIX}/memory/long-term",
            json={"content": content, "category": "preference"},
        )
    llm.task.answer = "## Preferences\n\n- Anna takes her coffee black\n"
    done = await client.post(f"{PREFIX}/auto-memory/compact")
    assert await done.json() == {"originalCount": 2, "compactedCount": 1}
    assert "Anna drinks black coffee" in llm.task.instructions[-1]
    llm.task.answer = "Sorry, I cannot help with that."
    failed = await client.post(f"{PREFIX}/auto-memory/compact")
    assert await failed.json() == {"message": "Compaction skipped or failed"}
    undone = await client.post(f"{PREFIX}/auto-memory/undo")
    assert await undone.json() == {"originalCount": 1, "compactedCount": 2}


async def test_not_loaded(
    hass: HomeAssistant,
    hass_client: ClientSessionGenerator,
    loaded_entry: MockConfigEntry,
) -> None:
    await hass.config_entries.async_unload(loaded_entry.entry_id)
    response = await (await hass_client()).get(f"{PREFIX}/memory/long-term")
    assert response.status == 503
    assert (await response.json())["code"] == "not_loaded"


# One valid request per route (ids filled in from a memory added first) and its status.
VALID_REQUESTS: list[tuple[str, str, dict[str, str], object, int]] = [
    ("GET", "/memory/main", {}, None, 200),
    ("PUT", "/memory/main", {}, {"content": "## Facts\n\n- The sky is blue\n"}, 200),
    ("GET", "/memory/search", {"q": "sky"}, None, 200),
    ("GET", "/memory/config", {}, None, 200),
    ("PUT", "/memory/config", {}, {"ragTopN": 6}, 200),
    ("POST", "/auto-memory/undo", {}, None, 200),
    ("GET", "/auto-memory/compactions", {}, None, 200),
    ("GET", "/memory/long-term", {"limit": "5"}, None, 200),
    ("POST", "/memory/long-term", {}, {"content": "Tom likes tea"}, 201),
    ("GET", "/memory/long-term/{id}", {}, None, 200),
    ("PATCH", "/memory/long-term/{id}", {}, {"tags": ["tea"]}, 200),
    ("GET", "/memory/working", {}, None, 200),
    ("GET", "/memory/sessions", {}, None, 200),
    ("GET", "/memory/conversations", {"limit": "5"}, None, 200),
    ("GET", "/memory/sessions/{session_id}", {}, None, 404),
    ("DELETE", "/memory/sessions/{session_id}", {}, None, 404),
    ("GET", "/memory/profile", {}, None, 200),
    ("PUT", "/memory/profile", {}, {"content": "Short answers"}, 200),
    ("GET", "/memory/daily", {}, None, 200),
    ("GET", "/memory/daily/{day}", {}, None, 200),
    ("GET", "/memory/export", {}, None, 200),
    ("POST", "/memory/import", {}, {"document": []}, 200),
    ("GET", "/memory/stats", {}, None, 200),
    ("DELETE", "/memory/long-term/{id}", {}, None, 200),
    ("DELETE", "/memory/long-term", {}, None, 200),
]


async def test_every_route_answers(hass_client: ClientSessionGenerator) -> None:
    client = await hass_client()
    added = await client.post(f"{PREFIX}/memory/long-term", json={"content": "Sky"})
    memory_id = (await added.json())["id"]
    for method, path, query, body, status in VALID_REQUESTS:
        url = PREFIX + path.replace("{id}", memory_id).replace("{day}", "2026-01-31")
        url = url.replace("{session_id}", "no-such-conversation")
        response = await client.request(method, url, params=query, json=body)
        assert response.status == status, (method, path, await response.text())
    served = {(m, p) for m, p, *_ in VALID_REQUESTS}
    served |= {
        ("POST", "/auto-memory/compact"),
        ("GET", "/memory/working/{session_id}"),
    }
    assert served == {(r.method, r.path.removeprefix("/api")) for r in ROUTES}
