"""The memory counts, kept fresh for the sensor: pushed by the store, polled on a server.

An embedded store tells its listeners about every change, so the coordinator never
polls: each change asks for a refresh, and a burst of changes reads the counts at its
start and once more after `REFRESH_COOLDOWN`. A memory server's changes (its web UI,
the CLI) are only seen by asking, so it is polled every `CONNECTED_INTERVAL`, and every
`RECONNECT_INTERVAL` while it is away. While search by meaning is embedding an embedded
store's memories, its progress is read every `PROGRESS_INTERVAL`. Home Assistant's coordinator logs the server
going away once and coming back once; a refused token starts reauthentication.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Final

from homeassistant.core import HomeAssistant, callback
from homeassistant.exceptions import ConfigEntryAuthFailed
from homeassistant.helpers.debounce import Debouncer
from homeassistant.helpers.update_coordinator import DataUpdateCoordinator, UpdateFailed

from .const import DOMAIN, LOGGER
from .engine import MemoryEngineError, MemoryOperations, StoreStats
from .engine.errors import AuthenticationError
from .engine.http.remote_backend import RemoteBackend
from .runtime_data import AssistMemoryConfigEntry

CONNECTED_INTERVAL: Final = timedelta(seconds=30)
RECONNECT_INTERVAL: Final = timedelta(seconds=10)
REFRESH_COOLDOWN: Final = 1.0
PROGRESS_INTERVAL: Final = timedelta(seconds=10)


class MemoryCoordinator(DataUpdateCoordinator[StoreStats]):
    """The store's counts and settings (`StoreStats`), and whether it answers."""

    config_entry: AssistMemoryConfigEntry

    def __init__(
        self,
        hass: HomeAssistant,
        entry: AssistMemoryConfigEntry,
        backend: MemoryOperations,
    ) -> None:
        self.backend = backend
        remote = backend if isinstance(backend, RemoteBackend) else None
        self._embedded_store = remote is None
        super().__init__(
            hass,
            LOGGER,
            config_entry=entry,
            name=entry.title,
            update_interval=None if remote is None else CONNECTED_INTERVAL,
            request_refresh_debouncer=Debouncer(
                hass, LOGGER, cooldown=REFRESH_COOLDOWN, immediate=True
            ),
            always_update=False,
        )
        if remote is not None:
            # A service call that finds the server away tells us at once.
            remote.on_unavailable = self.mark_connection_error
        entry.async_on_unload(backend.add_listener(self._async_store_changed))

    async def _async_update_data(self) -> StoreStats:
        try:
            stats = await self.backend.stats()
        except AuthenticationError as err:
            raise ConfigEntryAuthFailed(
                translation_domain=DOMAIN,
                translation_key=err.code,
                translation_placeholders=err.placeholders,
            ) from err
        except MemoryEngineError as err:
            self._set_polling(RECONNECT_INTERVAL)
            raise UpdateFailed(
                translation_domain=DOMAIN,
                translation_key=err.code,
                translation_placeholders={"error": err.message, **err.placeholders},
            ) from err
        self._set_polling(CONNECTED_INTERVAL)
        if self._embedded_store:
            understanding = bool(stats.vector_search) and stats.embedded < stats.count
            self.update_interval = PROGRESS_INTERVAL if understanding else None
        return stats

    def _set_polling(self, interval: timedelta) -> None:
        if self.update_interval is not None:
            self.update_interval = interval

    @callback
    def mark_connection_error(self, err: MemoryEngineError) -> None:
        """The server did not answer a call: unavailable now, check back sooner."""
        self._set_polling(RECONNECT_INTERVAL)
        if self.last_update_success:
            self.last_update_success = False
            self.logger.error("Error requesting %s data: %s", self.name, err.message)
            self.async_update_listeners()
            if self._listeners and not self.hass.is_stopping:
                self._schedule_refresh()

    @callback
    def _async_store_changed(self) -> None:
        self.config_entry.async_create_task(
            self.hass, self.async_request_refresh(), "assist_memory_refresh_counts"
        )
