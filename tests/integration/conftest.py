"""Fixtures for the Home Assistant integration tests."""

from __future__ import annotations

from collections.abc import Iterator
import json
from pathlib import Path
import re
from typing import Any

from homeassistant.config_entries import ConfigFlowResult
from homeassistant.const import CONF_TOKEN, CONF_URL
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.setup import async_setup_component
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.assist_memory.const import (
    CONF_MAX_CONTENT_LENGTH,
    CONF_MAX_ITEMS,
    CONF_STORAGE,
    DOMAIN,
    STORAGE_EMBEDDED,
    STORAGE_REMOTE,
)
from tests.support.memory_server import MemoryServer

from .agents import LlmEntities, async_setup_test_llm


@pytest.fixture(autouse=True)
async def setup_homeassistant_component(hass: HomeAssistant) -> None:
    """Conversation (our dependency) needs Home Assistant's core component."""
    assert await async_setup_component(hass, "homeassistant", {})


@pytest.fixture
def entry_options() -> dict[str, int]:
    """Options of the entry under test (override in a test module to change them)."""
    return {CONF_MAX_ITEMS: 100, CONF_MAX_CONTENT_LENGTH: 2000}


@pytest.fixture
def config_entry(entry_options: dict[str, int]) -> MockConfigEntry:
    """An Assist Memory entry with embedded storage, not yet added."""
    return MockConfigEntry(
        domain=DOMAIN,
        title="Assist Memory",
        data={CONF_STORAGE: STORAGE_EMBEDDED},
        options=entry_options,
    )


# The add-on's discovery slug, the unique id of an entry using its server.
ADDON_SLUG = "local_assist_memory"


def remote_config_entry(
    server: MemoryServer, entry_options: dict[str, Any]
) -> MockConfigEntry:
    """An entry keeping its memory on the memory server, not yet added."""
    return MockConfigEntry(
        domain=DOMAIN,
        title="Assist Memory",
        unique_id=ADDON_SLUG,
        data={
            CONF_STORAGE: STORAGE_REMOTE,
            CONF_URL: server.url,
            CONF_TOKEN: server.token,
        },
        options=entry_options,
    )


@pytest.fixture
def memory_server(tmp_path: Path) -> Iterator[MemoryServer]:
    """A memory server process over a fresh data folder (needs `socket_enabled`)."""
    with MemoryServer(tmp_path / "server") as server:
        yield server


@pytest.fixture
async def loaded_entry(
    hass: HomeAssistant, config_entry: MockConfigEntry
) -> MockConfigEntry:
    """The entry, set up."""
    config_entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done()
    return config_entry


@pytest.fixture
async def llm(hass: HomeAssistant) -> LlmEntities:
    """The test LLM integration: a recording conversation agent and an AI Task."""
    return await async_setup_test_llm(hass)


@pytest.fixture
def store_file(hass: HomeAssistant) -> Path:
    """Where the embedded store keeps its memories."""
    return Path(hass.config.path("data", "memories.json"))


async def configure_options(
    hass: HomeAssistant, entry: MockConfigEntry, step: str, values: dict[str, Any]
) -> ConfigFlowResult:
    """Open the options menu, choose `step` and submit `values`."""
    result = await hass.config_entries.options.async_init(entry.entry_id)
    assert result["type"] is FlowResultType.MENU
    result = await hass.config_entries.options.async_configure(
        result["flow_id"], {"next_step_id": step}
    )
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == step
    result = await hass.config_entries.options.async_configure(
        result["flow_id"], values
    )
    await hass.async_block_till_done()
    return result


STRINGS = Path(__file__).parents[2] / "custom_components/assist_memory/strings.json"


def assert_placeholders_supplied(result: ConfigFlowResult, flow: str) -> None:
    """The form gives every placeholder its step's texts (in strings.json) use.

    `flow` is "config" or "options". A placeholder left out shows as `{name}`.
    """
    strings = json.loads(STRINGS.read_text(encoding="utf-8"))
    step = strings[flow]["step"][result["step_id"]]
    texts = [
        step.get("title", ""),
        step.get("description", ""),
        *step.get("data", {}).values(),
        *step.get("data_description", {}).values(),
    ]
    used = {name for text in texts for name in re.findall(r"\{(\w+)\}", text)}
    supplied = set(result.get("description_placeholders") or {})
    assert used <= supplied, f"{result['step_id']}: missing {sorted(used - supplied)}"
