"""Config flow (single instance, embedded store) and options flow."""

from __future__ import annotations

from homeassistant.config_entries import SOURCE_USER, ConfigEntryState
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.exceptions import HomeAssistantError
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.assist_memory.const import (
    CONF_EVICTION_THRESHOLD,
    CONF_MAX_CONTENT_LENGTH,
    CONF_MAX_ITEMS,
    CONF_RAG_TOP_N,
    CONF_STORAGE,
    DOMAIN,
    STORAGE_EMBEDDED,
)


async def test_user_flow_creates_embedded_entry(hass: HomeAssistant) -> None:
    result = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": SOURCE_USER}
    )
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "user"
    assert result["description_placeholders"] == {
        "path": hass.config.path("data", "memories.json")
    }
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {})
    await hass.async_block_till_done()
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["title"] == "Assist Memory"
    assert result["data"] == {CONF_STORAGE: STORAGE_EMBEDDED}
    assert result["options"] == {
        CONF_MAX_ITEMS: 100,
        CONF_MAX_CONTENT_LENGTH: 2000,
        CONF_RAG_TOP_N: 5,
        CONF_EVICTION_THRESHOLD: 0,
    }
    entry = result["result"]
    assert entry.state is ConfigEntryState.LOADED


async def test_only_one_instance(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    result = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": SOURCE_USER}
    )
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "single_instance_allowed"


async def test_options_flow_changes_limits_and_reloads(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    result = await hass.config_entries.options.async_init(loaded_entry.entry_id)
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "init"
    new_options = {
        CONF_MAX_ITEMS: 1,
        CONF_MAX_CONTENT_LENGTH: 20,
        CONF_RAG_TOP_N: 3,
        CONF_EVICTION_THRESHOLD: 0,
    }
    result = await hass.config_entries.options.async_configure(
        result["flow_id"], new_options
    )
    await hass.async_block_till_done()
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert loaded_entry.options == new_options
    stats = await loaded_entry.runtime_data.backend.stats()
    assert (stats.max_items, stats.retrieval_limit) == (1, 3)
    # The reloaded store enforces the new limits.
    await hass.services.async_call(DOMAIN, "add", {"content": "short"}, blocking=True)
    with pytest.raises(HomeAssistantError, match="full"):
        await hass.services.async_call(
            DOMAIN, "add", {"content": "more"}, blocking=True
        )


async def test_options_flow_rejects_out_of_range(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    result = await hass.config_entries.options.async_init(loaded_entry.entry_id)
    with pytest.raises(Exception, match="max_content_length"):
        await hass.config_entries.options.async_configure(
            result["flow_id"],
            {
                CONF_MAX_ITEMS: 10,
                CONF_MAX_CONTENT_LENGTH: 0,
                CONF_RAG_TOP_N: 5,
                CONF_EVICTION_THRESHOLD: 0,
            },
        )
