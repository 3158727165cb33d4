"""Config flow (single instance, embedded store) and options flow."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from homeassistant.config_entries import SOURCE_USER, ConfigEntryState
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers.selector import (
    BooleanSelector,
    NumberSelector,
    SelectSelector,
)
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.assist_memory.config_flow import OPTION_STEPS
from custom_components.assist_memory.const import (
    CONF_AGENT_ID,
    CONF_ATOMIC_CONTENT_MAX_LENGTH,
    CONF_AUTO_EXTRACT,
    CONF_COMPACTION_ENABLED,
    CONF_CONTEXT_LIMIT,
    CONF_CONTEXT_SIZE,
    CONF_ENABLE_AGENTIC_SEARCH,
    CONF_ENABLE_USER_PROFILE,
    CONF_EVICTION_THRESHOLD,
    CONF_EXTRACT_MIN_INTERVAL,
    CONF_EXTRACT_MIN_MESSAGES,
    CONF_EXTRACTOR_ENTITY,
    CONF_FLUSH_THRESHOLD,
    CONF_LEARN_FROM_OTHER_AGENTS,
    CONF_MAX_CONTENT_LENGTH,
    CONF_MAX_ITEMS,
    CONF_MEMORY_BUDGET,
    CONF_PROMPT_MODE,
    CONF_RAG_TOP_N,
    CONF_SESSION_SUMMARY_LIMIT,
    CONF_STORAGE,
    DOMAIN,
    STORAGE_EMBEDDED,
)
from custom_components.assist_memory.engine.config import SETTINGS_BY_KEY
from custom_components.assist_memory.options import DEFAULT_OPTIONS

from .conftest import STRINGS, assert_placeholders_supplied, configure_options


async def test_user_flow_creates_embedded_entry(hass: HomeAssistant) -> None:
    result = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": SOURCE_USER}
    )
    assert result["type"] is FlowResultType.MENU
    assert result["menu_options"] == ["embedded", "server"]
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {"next_step_id": "embedded"}
    )
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "embedded"
    assert result["description_placeholders"] == {
        "path": hass.config.path("data", "memories.json")
    }
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {})
    await hass.async_block_till_done()
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["title"] == "Assist Memory"
    assert result["data"] == {CONF_STORAGE: STORAGE_EMBEDDED}
    assert result["options"] == DEFAULT_OPTIONS
    assert result["options"][CONF_MAX_ITEMS] == 100
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


async def test_options_flow_changes_limits_at_once(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    result = await configure_options(
        hass,
        loaded_entry,
        "memory",
        {CONF_MAX_ITEMS: 1, CONF_MAX_CONTENT_LENGTH: 20, CONF_EVICTION_THRESHOLD: 0},
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert loaded_entry.options[CONF_MAX_ITEMS] == 1
    assert loaded_entry.options[CONF_MAX_CONTENT_LENGTH] == 20
    result = await configure_options(hass, loaded_entry, "search", {CONF_RAG_TOP_N: 3})
    assert result["type"] is FlowResultType.CREATE_ENTRY
    stats = await loaded_entry.runtime_data.backend.stats()
    assert (stats.max_items, stats.retrieval_limit) == (1, 3)
    # The running store enforces the new limits.
    await hass.services.async_call(DOMAIN, "add", {"content": "short"}, blocking=True)
    with pytest.raises(HomeAssistantError, match="full"):
        await hass.services.async_call(
            DOMAIN, "add", {"content": "more"}, blocking=True
        )


async def test_options_flow_rejects_out_of_range(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    with pytest.raises(Exception, match="max_content_length"):
        await configure_options(
            hass,
            loaded_entry,
            "memory",
            {
                CONF_MAX_ITEMS: 10,
                CONF_MAX_CONTENT_LENGTH: 0,
                CONF_EVICTION_THRESHOLD: 0,
            },
        )


async def test_options_menu_lists_every_part(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    result = await hass.config_entries.options.async_init(loaded_entry.entry_id)
    assert result["type"] is FlowResultType.MENU
    assert result["menu_options"] == [
        "memory",
        "agent",
        "learning",
        "search",
        "privacy",
        "speakers",
    ]


async def test_the_search_step_supplies_its_example_address(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    result = await hass.config_entries.options.async_init(loaded_entry.entry_id)
    result = await hass.config_entries.options.async_configure(
        result["flow_id"], {"next_step_id": "search"}
    )
    assert result["step_id"] == "search"
    assert_placeholders_supplied(result, "options")
    assert "http://" in result["description_placeholders"]["embedding_example"]


async def test_agent_options(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    values = {
        CONF_AGENT_ID: "conversation.home_assistant",
        CONF_PROMPT_MODE: "prefix",
        CONF_MEMORY_BUDGET: 1500,
        CONF_ENABLE_USER_PROFILE: False,
        CONF_SESSION_SUMMARY_LIMIT: 0,
        CONF_ENABLE_AGENTIC_SEARCH: True,
    }
    result = await configure_options(hass, loaded_entry, "agent", values)
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert {k: loaded_entry.options[k] for k in values} == values


async def test_the_memory_agent_cannot_wrap_itself(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    result = await configure_options(
        hass,
        loaded_entry,
        "agent",
        {
            CONF_AGENT_ID: "conversation.assist_memory",
            CONF_PROMPT_MODE: "system",
            CONF_MEMORY_BUDGET: 1500,
            CONF_ENABLE_USER_PROFILE: True,
            CONF_SESSION_SUMMARY_LIMIT: 3,
            CONF_ENABLE_AGENTIC_SEARCH: False,
        },
    )
    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {"base": "agent_is_memory_agent"}


async def test_learning_options_clear_the_extractor(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    values = {
        CONF_AUTO_EXTRACT: False,
        CONF_EXTRACTOR_ENTITY: "ai_task.some_task",
        CONF_EXTRACT_MIN_INTERVAL: 30,
        CONF_EXTRACT_MIN_MESSAGES: 2,
        CONF_ATOMIC_CONTENT_MAX_LENGTH: 300,
        CONF_CONTEXT_SIZE: 4000,
        CONF_FLUSH_THRESHOLD: 80,
        CONF_CONTEXT_LIMIT: 10,
        CONF_LEARN_FROM_OTHER_AGENTS: False,
    }
    await configure_options(hass, loaded_entry, "learning", values)
    assert loaded_entry.options[CONF_EXTRACTOR_ENTITY] == "ai_task.some_task"
    cleared = {k: v for k, v in values.items() if k != CONF_EXTRACTOR_ENTITY}
    await configure_options(hass, loaded_entry, "learning", cleared)
    assert CONF_EXTRACTOR_ENTITY not in loaded_entry.options
    assert loaded_entry.options[CONF_EXTRACT_MIN_MESSAGES] == 2


# -- the options flow derives from the engine's settings table ----------------------

TRANSLATIONS = STRINGS.parent / "translations"


def _flow_settings() -> list[tuple[str, Any]]:
    return [
        (key, selector)
        for fields in OPTION_STEPS.values()
        for key, selector in fields
        if key in SETTINGS_BY_KEY
    ]


def test_every_memory_setting_is_in_the_options_flow() -> None:
    assert {key for key, _ in _flow_settings()} == set(SETTINGS_BY_KEY)


def test_the_flow_fields_follow_the_settings_table() -> None:
    for key, selector in _flow_settings():
        setting = SETTINGS_BY_KEY[key]
        config = selector.config
        if isinstance(setting.default, bool):
            assert isinstance(selector, BooleanSelector), key
        elif isinstance(setting.default, int):
            assert isinstance(selector, NumberSelector), key
            assert (config["min"], config["max"], config["step"]) == (
                setting.minimum,
                setting.maximum,
                1,
            ), key
            assert config.get("unit_of_measurement") == setting.unit, key
        else:
            assert isinstance(selector, SelectSelector), key
            assert list(config["options"]) == list(setting.choices)


@pytest.mark.parametrize(
    "path",
    [
        STRINGS,
        *(TRANSLATIONS / name for name in ("en.json", "zh-Hans.json", "zh-Hant.json")),
    ],
    ids=lambda path: path.name,
)
def test_every_option_the_flow_shows_has_its_strings(path: Path) -> None:
    strings = json.loads(path.read_text(encoding="utf-8"))
    steps = strings["options"]["step"]
    for step, fields in OPTION_STEPS.items():
        for key, selector in fields:
            assert steps[step]["data"].get(key), (path.name, step, key)
            assert steps[step]["data_description"].get(key), (path.name, step, key)
            if unit := selector.config.get("unit_of_measurement"):
                units = strings["selector"][unit]["unit_of_measurement"]
                assert units.get(unit), (path.name, unit)


async def test_options_flow_round_trip(
    hass: HomeAssistant, loaded_entry: MockConfigEntry, hass_client: Any
) -> None:
    changed = {
        key: (
            not setting.default
            if isinstance(setting.default, bool)
            else setting.maximum
            if isinstance(setting.default, int)
            else setting.choices[-1]
        )
        for key, setting in SETTINGS_BY_KEY.items()
        # Compaction needs an LLM to learn with; its own test shows it.
        if key != CONF_COMPACTION_ENABLED
    }
    for step, fields in OPTION_STEPS.items():
        values = {key: changed[key] for key, _ in fields if key in changed}
        result = await configure_options(hass, loaded_entry, step, values)
        assert result["type"] is FlowResultType.CREATE_ENTRY, step
        # The form shows what was saved.
        shown = await hass.config_entries.options.async_init(loaded_entry.entry_id)
        form = await hass.config_entries.options.async_configure(
            shown["flow_id"], {"next_step_id": step}
        )
        defaults = {
            str(marker): marker.default()
            for marker in form["data_schema"].schema
            if str(marker) in values
        }
        assert defaults == values, step
        hass.config_entries.options.async_abort(form["flow_id"])
    assert {key: loaded_entry.options[key] for key in changed} == changed
    client = await hass_client()
    config = await (await client.get("/api/assist_memory/memory/config")).json()
    assert {
        SETTINGS_BY_KEY[key].name: config[SETTINGS_BY_KEY[key].name] for key in changed
    } == {SETTINGS_BY_KEY[key].name: value for key, value in changed.items()}
