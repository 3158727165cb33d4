"""A sensor with the number of stored memories."""

from __future__ import annotations

from typing import Any

from homeassistant.components.sensor import SensorEntity, SensorStateClass
from homeassistant.core import HomeAssistant
from homeassistant.helpers.debounce import Debouncer
from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback

from .const import LOGGER
from .data import AssistMemoryConfigEntry
from .engine import MemoryEngineError, StoreStats
from .entity import service_device

PARALLEL_UPDATES = 0
# A burst of changes (an import, many service calls) reads the counts at its start and
# once more after this many seconds, not once per change.
REFRESH_COOLDOWN = 1.0


async def async_setup_entry(
    hass: HomeAssistant,
    entry: AssistMemoryConfigEntry,
    async_add_entities: AddConfigEntryEntitiesCallback,
) -> None:
    """Add the memory count sensor."""
    async_add_entities([MemoryCountSensor(entry)], update_before_add=True)


class MemoryCountSensor(SensorEntity):
    """How many memories are stored; refreshed after the changes it hears of."""

    _attr_has_entity_name = True
    _attr_translation_key = "memories"
    _attr_state_class = SensorStateClass.MEASUREMENT
    _attr_should_poll = False

    def __init__(self, entry: AssistMemoryConfigEntry) -> None:
        self._backend = entry.runtime_data.backend
        self._stats: StoreStats | None = None
        self._attr_unique_id = f"{entry.entry_id}_memories"
        self._attr_device_info = service_device(entry)

    async def async_added_to_hass(self) -> None:
        """Follow the store's changes."""
        refresher = Debouncer(
            self.hass,
            LOGGER,
            cooldown=REFRESH_COOLDOWN,
            immediate=True,
            function=self._async_refresh,
        )
        self.async_on_remove(refresher.async_shutdown)
        self.async_on_remove(self._backend.add_listener(refresher.async_schedule_call))

    async def _async_refresh(self) -> None:
        await self.async_update_ha_state(force_refresh=True)

    async def async_update(self) -> None:
        """Read the counts from the store; unavailable while a memory server is away."""
        try:
            self._stats = await self._backend.stats()
        except MemoryEngineError:
            # The backend logs the server going away once, and tells us when it is back.
            self._attr_available = False
        else:
            self._attr_available = True

    @property
    def native_value(self) -> int | None:
        """The number of memories."""
        return None if self._stats is None else self._stats.count

    @property
    def extra_state_attributes(self) -> dict[str, Any]:
        """The limit and the time of the last change."""
        if self._stats is None:
            return {}
        return {
            "max_items": self._stats.max_items,
            "last_changed": self._stats.last_changed,
        }
