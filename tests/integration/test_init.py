"""Setting up, unloading and stopping the integration."""

from __future__ import annotations

import json
from pathlib import Path

from homeassistant.config_entries import ConfigEntryState
from homeassistant.const import EVENT_HOMEASSISTANT_STOP
from homeassistant.core import HomeAssistant
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.assist_memory.const import DOMAIN


async def test_setup_creates_store_in_config_folder(
    hass: HomeAssistant, loaded_entry: MockConfigEntry, store_file: Path
) -> None:
    assert loaded_entry.state is ConfigEntryState.LOADED
    assert store_file.exists()
    assert json.loads(store_file.read_text())["memories"] == []
    assert loaded_entry.runtime_data.store_path == store_file


async def test_unload_closes_store_and_folds_journal(
    hass: HomeAssistant, loaded_entry: MockConfigEntry, store_file: Path
) -> None:
    await hass.services.async_call(
        DOMAIN, "add", {"content": "The cat is called Miso"}, blocking=True
    )
    assert await hass.config_entries.async_unload(loaded_entry.entry_id)
    await hass.async_block_till_done()
    assert loaded_entry.state is ConfigEntryState.NOT_LOADED
    contents = [m["content"] for m in json.loads(store_file.read_text())["memories"]]
    assert contents == ["The cat is called Miso"]


async def test_memories_survive_reload(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    await hass.services.async_call(
        DOMAIN, "add", {"content": "Movie night is on Fridays"}, blocking=True
    )
    assert await hass.config_entries.async_reload(loaded_entry.entry_id)
    await hass.async_block_till_done()
    response = await hass.services.async_call(
        DOMAIN, "list", {}, blocking=True, return_response=True
    )
    assert [m["content"] for m in response["items"]] == ["Movie night is on Fridays"]


async def test_stop_folds_journal_into_snapshot(
    hass: HomeAssistant, loaded_entry: MockConfigEntry, store_file: Path
) -> None:
    await hass.services.async_call(
        DOMAIN, "add", {"content": "Bins go out on Tuesday"}, blocking=True
    )
    hass.bus.async_fire(EVENT_HOMEASSISTANT_STOP)
    await hass.async_block_till_done()
    contents = [m["content"] for m in json.loads(store_file.read_text())["memories"]]
    assert contents == ["Bins go out on Tuesday"]


async def test_setup_retries_when_store_cannot_be_opened(
    hass: HomeAssistant, config_entry: MockConfigEntry
) -> None:
    # A file where the data folder should be: the folder cannot be created.
    Path(hass.config.path("data")).write_text("not a folder")
    config_entry.add_to_hass(hass)
    await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done()
    assert config_entry.state is ConfigEntryState.SETUP_RETRY
    assert "cannot be opened" in (config_entry.reason or "")
