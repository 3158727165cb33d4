"""Ranked search, scopes, reindex and embeddings through Home Assistant."""

from __future__ import annotations

from collections.abc import Iterator
import json
from typing import Any

from homeassistant.config_entries import ConfigEntryState
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.helpers.aiohttp_client import SERVER_SOFTWARE
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry
from pytest_homeassistant_custom_component.components.diagnostics import (
    get_diagnostics_for_config_entry,
)
from pytest_homeassistant_custom_component.typing import ClientSessionGenerator

from custom_components.assist_memory.const import (
    CONF_EMBEDDING_API_KEY,
    CONF_EMBEDDING_MODEL,
    CONF_EMBEDDING_URL,
    CONF_EVICTION_THRESHOLD,
    CONF_MAX_CONTENT_LENGTH,
    CONF_MAX_ITEMS,
    CONF_RAG_TOP_N,
    DOMAIN,
)
from custom_components.assist_memory.engine.search.background import BACKGROUND
from tests.support.embedding_server import EmbeddingServer

from .conftest import configure_options
from .conversing import meaning_caught_up

BASE_OPTIONS = {
    CONF_MAX_ITEMS: 100,
    CONF_MAX_CONTENT_LENGTH: 2000,
    CONF_RAG_TOP_N: 5,
    CONF_EVICTION_THRESHOLD: 0,
}


async def call(
    hass: HomeAssistant, service: str, data: dict[str, Any]
) -> dict[str, Any]:
    response = await hass.services.async_call(
        DOMAIN, service, data, blocking=True, return_response=True
    )
    assert response is not None
    return dict(response)


@pytest.mark.usefixtures("loaded_entry")
async def test_search_is_ranked_and_explains_itself(hass: HomeAssistant) -> None:
    await call(
        hass,
        "add",
        {"content": "Anna likes her coffee black", "category": "preference"},
    )
    await call(hass, "add", {"content": "Coffee beans are in the left cupboard"})
    await call(hass, "add", {"content": "我喜欢用 Python 写代码"})
    await meaning_caught_up(hass)
    results = (await call(hass, "search", {"query": "What coffee does Anna prefer?"}))[
        "results"
    ]
    # Those with the question's words first, in order; then by meaning only.
    assert [r["content"] for r in results][:2] == [
        "Anna likes her coffee black",
        "Coffee beans are in the left cupboard",
    ]
    assert all(not r["matched"] for r in results[2:])
    best = results[0]
    assert best["matched"] == ["coffee", "anna"]
    assert (
        best["score_parts"]["category"] == 1.0
    )  # a preference, asked about preferences
    assert best["score"] > results[1]["score"]
    chinese = (await call(hass, "search", {"query": "谁喜欢写代码"}))["results"]
    assert [r["content"] for r in chinese if r["matched"]] == ["我喜欢用 Python 写代码"]
    assert chinese[0]["content"] == "我喜欢用 Python 写代码"


@pytest.mark.usefixtures("loaded_entry")
async def test_search_scope_and_limit(hass: HomeAssistant) -> None:
    for scope in ("household", "user-anna", "user-tom"):
        await call(hass, "add", {"content": f"{scope} likes tea", "scope": scope})
    results = (await call(hass, "search", {"query": "tea", "scope": "user-anna"}))[
        "results"
    ]
    assert sorted(r["scope"] for r in results) == ["household", "user-anna"]
    assert (
        len((await call(hass, "search", {"query": "tea", "limit": 1}))["results"]) == 1
    )


@pytest.mark.parametrize("entry_options", [{**BASE_OPTIONS, CONF_RAG_TOP_N: 2}])
@pytest.mark.usefixtures("loaded_entry")
async def test_rag_top_n_limits_results(hass: HomeAssistant) -> None:
    for n in range(4):
        await call(hass, "add", {"content": f"tea fact {n}"})
    assert len((await call(hass, "search", {"query": "tea"}))["results"]) == 2
    prompt = (await call(hass, "build_prompt", {"prompt": "Hi", "query": "tea"}))[
        "prompt"
    ]
    assert prompt.count("\n- ") == 2


@pytest.mark.usefixtures("loaded_entry")
async def test_build_prompt_records_access_but_search_does_not(
    hass: HomeAssistant,
) -> None:
    memory = (await call(hass, "add", {"content": "The cat is called Miso"}))["memory"]
    await call(hass, "search", {"query": "cat"})
    assert (await call(hass, "get", {"id": memory["id"]}))["memory"][
        "access_count"
    ] == 0
    await call(hass, "build_prompt", {"prompt": "Hi", "query": "cat"})
    touched = (await call(hass, "get", {"id": memory["id"]}))["memory"]
    assert touched["access_count"] == 1
    assert touched["last_accessed"] is not None


@pytest.mark.usefixtures("loaded_entry")
async def test_reindex(hass: HomeAssistant) -> None:
    await call(hass, "add", {"content": "The cat is called Miso"})
    assert await call(hass, "reindex", {}) == {"indexed": 1}
    assert len((await call(hass, "search", {"query": "Miso"}))["results"]) == 1


@pytest.mark.parametrize(
    "entry_options", [{**BASE_OPTIONS, CONF_EVICTION_THRESHOLD: 2}]
)
@pytest.mark.usefixtures("loaded_entry")
async def test_eviction_option(hass: HomeAssistant) -> None:
    await call(hass, "add", {"content": "unsure", "confidence": 0.2})
    await call(hass, "add", {"content": "sure", "confidence": 0.9})
    await call(hass, "add", {"content": "newest", "confidence": 0.9})
    page = await call(hass, "list", {})
    assert sorted(m["content"] for m in page["items"]) == ["newest", "sure"]


@pytest.fixture
def server() -> Iterator[EmbeddingServer]:
    with EmbeddingServer() as running:
        yield running


@pytest.mark.usefixtures("socket_enabled")
async def test_options_flow_sets_up_embeddings(
    hass: HomeAssistant,
    loaded_entry: MockConfigEntry,
    server: EmbeddingServer,
    hass_client: ClientSessionGenerator,
) -> None:
    embedding = {
        CONF_EMBEDDING_URL: server.base_url,
        CONF_EMBEDDING_MODEL: "nomic-embed-text",
        CONF_EMBEDDING_API_KEY: "sk-secret",
    }
    result = await configure_options(
        hass, loaded_entry, "search", {CONF_RAG_TOP_N: 5, **embedding}
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY
    # The connection test; the background sentences may follow (`background.py`).
    assert server.texts_embedded()[0] == "Assist Memory connection test"
    assert set(server.texts_embedded()[1:]) <= set(BACKGROUND)

    backend = loaded_entry.runtime_data.backend
    await call(hass, "add", {"content": "Anna takes her coffee black"})
    await call(hass, "add", {"content": "The boiler is serviced in October"})
    assert backend.engine.vectors is not None
    assert await hass.async_add_executor_job(backend.engine.vectors.wait_until_idle, 10)
    results = (await call(hass, "search", {"query": "hot beverage"}))["results"]
    assert results[0]["content"] == "Anna takes her coffee black"
    assert results[0]["score_parts"]["vector"] > 0

    diagnostics = await get_diagnostics_for_config_entry(
        hass, hass_client, loaded_entry
    )
    assert diagnostics["store"]["vector_search"] == "in-process"
    assert diagnostics["store"]["vector_degraded_reason"] is None
    assert diagnostics["entry"]["options"][CONF_EMBEDDING_API_KEY] == "**REDACTED**"
    assert "sk-secret" not in json.dumps(diagnostics)
    # Every request (the flow's test, memories, the query) went through Home
    # Assistant's shared aiohttp session.
    agents = {headers.get("User-Agent", "") for headers in server.headers}
    assert agents == {SERVER_SOFTWARE}


@pytest.mark.usefixtures("socket_enabled")
async def test_options_flow_rejects_a_failing_endpoint(
    hass: HomeAssistant, loaded_entry: MockConfigEntry, server: EmbeddingServer
) -> None:
    server.fail_with = 401
    values = {
        CONF_RAG_TOP_N: 5,
        CONF_EMBEDDING_URL: server.base_url,
        CONF_EMBEDDING_MODEL: "m",
    }
    result = await configure_options(hass, loaded_entry, "search", values)
    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {"base": "embedding_failed"}
    server.fail_with = None
    result = await hass.config_entries.options.async_configure(
        result["flow_id"], values
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY
    # The entry reloads with the endpoint: not left half set up when the test ends.
    await hass.async_block_till_done()
    assert loaded_entry.state is ConfigEntryState.LOADED


async def test_options_flow_needs_url_and_model_together(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    result = await configure_options(
        hass,
        loaded_entry,
        "search",
        {CONF_RAG_TOP_N: 5, CONF_EMBEDDING_URL: "http://127.0.0.1:1"},
    )
    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {"base": "embedding_incomplete"}
