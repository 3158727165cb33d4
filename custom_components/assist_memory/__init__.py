"""Assist Memory: long-term memory for Home Assistant voice assistants."""

from __future__ import annotations

from pathlib import Path

from homeassistant.const import (
    EVENT_CORE_CONFIG_UPDATE,
    EVENT_HOMEASSISTANT_STOP,
    Platform,
)
from homeassistant.core import CALLBACK_TYPE, Event, HomeAssistant, callback
from homeassistant.exceptions import ConfigEntryNotReady
from homeassistant.helpers import config_validation as cv, llm
from homeassistant.helpers.aiohttp_client import async_get_clientsession
from homeassistant.helpers.typing import ConfigType

from .const import CONF_STORAGE, DOMAIN, STORAGE_REMOTE
from .coordinator import MemoryCoordinator
from .engine import LoadReport, LocalBackend, MemoryBackend, MemoryEngineError
from .engine.backend.configure import apply_settings
from .engine.storage.settings import StoreSettings
from .follow import async_follow_if_asked, async_stop_following
from .full_memory import async_watch_fullness
from .learning_at_the_end import (
    async_learn_before_stop,
    async_watch_ended_conversations,
)
from .llm_tools import AssistMemoryAPI
from .options import (
    async_apply_options,
    async_embedding_choice,
    compaction_llm,
    store_path,
)
from .panel import async_register_panel, async_register_static
from .pipeline import async_set_pipeline_agent_if_asked
from .repairs import async_report_rejected_edit, async_report_set_aside_files
from .rest_views import async_register_views
from .runtime_data import AssistMemoryConfigEntry, AssistMemoryData
from .server_connection import async_open_remote
from .services import async_setup_services
from .websocket_api import async_register_commands

PLATFORMS: list[Platform] = [Platform.CONVERSATION, Platform.SENSOR, Platform.SWITCH]
CONFIG_SCHEMA = cv.config_entry_only_config_schema(DOMAIN)


async def async_setup(hass: HomeAssistant, config: ConfigType) -> bool:
    """Register the services and REST views (they exist even while no entry is loaded)."""
    async_setup_services(hass)
    async_register_views(hass)
    async_register_commands(hass)
    await async_register_static(hass)
    return True


async def async_setup_entry(
    hass: HomeAssistant, entry: AssistMemoryConfigEntry
) -> bool:
    """Open the memory store (embedded, or a memory server) and set up the sensor."""
    if entry.data.get(CONF_STORAGE) == STORAGE_REMOTE:
        backend: MemoryBackend = await async_open_remote(hass, entry)
        store: Path | None = None
        report = LoadReport()
    else:
        backend, store, report = await _async_open_embedded(hass, entry)
    coordinator = MemoryCoordinator(hass, entry, backend)
    entry.runtime_data = AssistMemoryData(backend, store, report, coordinator)
    entry.runtime_data.applied_options = dict(entry.options)
    try:
        await coordinator.async_config_entry_first_refresh()
    except Exception:
        await backend.close()
        raise

    async def _close_on_stop(_event: Event) -> None:
        # Every conversation ends: what the throttle left is learned first.
        await async_learn_before_stop(hass, entry)
        await backend.close()

    # Home Assistant does not unload entries when it stops: fold the journal then.
    # (Not a one-time listener: unloading after the stop must still remove it.)
    entry.async_on_unload(
        hass.bus.async_listen(EVENT_HOMEASSISTANT_STOP, _close_on_stop)
    )
    entry.async_on_unload(llm.async_register_api(hass, AssistMemoryAPI(hass, entry)))
    async_follow_if_asked(hass, entry)
    async_watch_ended_conversations(hass, entry)
    entry.async_on_unload(lambda: async_stop_following(entry))
    # Saved options apply to the running memory (no reload, see options.py).
    entry.async_on_unload(entry.add_update_listener(async_apply_options))
    await async_register_panel(hass, entry)
    async_watch_fullness(hass, entry)
    await hass.config_entries.async_forward_entry_setups(entry, PLATFORMS)
    # After the platforms: the memory agent's entity exists now.
    await async_set_pipeline_agent_if_asked(hass, entry)
    return True


async def _async_open_embedded(
    hass: HomeAssistant, entry: AssistMemoryConfigEntry
) -> tuple[LocalBackend, Path, LoadReport]:
    """The store in Home Assistant's config folder."""
    path = store_path(hass)
    try:
        backend, report = await LocalBackend.open(
            path,
            StoreSettings.from_options(entry.options),
            embeddings=await async_embedding_choice(hass, entry),
            create_task=lambda coro, name: entry.async_create_background_task(
                hass, coro, name
            ),
            session=async_get_clientsession(hass),
            time_zone=hass.config.time_zone,
        )
    except MemoryEngineError as err:
        raise ConfigEntryNotReady(
            translation_domain=DOMAIN,
            translation_key="store_unavailable",
            translation_placeholders={"path": str(path), "error": err.message},
        ) from err
    await apply_settings(
        backend, entry.options, compaction_llm=compaction_llm(hass, entry.options)
    )
    async_report_set_aside_files(hass, path, report)
    entry.async_on_unload(_async_follow_time_zone(hass, entry, backend))
    entry.async_on_unload(
        backend.add_rejected_edit_listener(
            lambda kept_as: async_report_rejected_edit(hass, kept_as)
        )
    )
    return backend, path, report


@callback
def _async_follow_time_zone(
    hass: HomeAssistant, entry: AssistMemoryConfigEntry, backend: LocalBackend
) -> CALLBACK_TYPE:
    """MEMORY.md says a memory's end in the home's time zone, also once it changes."""

    @callback
    def _changed(_: Event) -> None:
        entry.async_create_background_task(
            hass,
            backend.set_time_zone(hass.config.time_zone),
            "assist_memory_time_zone",
        )

    return hass.bus.async_listen(EVENT_CORE_CONFIG_UPDATE, _changed)


async def async_unload_entry(
    hass: HomeAssistant, entry: AssistMemoryConfigEntry
) -> bool:
    """Unload the sensor and close the store."""
    unloaded = await hass.config_entries.async_unload_platforms(entry, PLATFORMS)
    if unloaded:
        await entry.runtime_data.backend.close()
    return unloaded
