"""A sensor with the number of stored memories, read by the entry's coordinator."""

from __future__ import annotations

from typing import Any

from homeassistant.components.sensor import (
    SensorEntity,
    SensorEntityDescription,
    SensorStateClass,
)
from homeassistant.core import HomeAssistant
from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback
from homeassistant.helpers.update_coordinator import CoordinatorEntity

from .coordinator import MemoryCoordinator
from .entity import AssistMemoryEntity
from .runtime_data import AssistMemoryConfigEntry

# The coordinator reads the counts; entities only show them.
PARALLEL_UPDATES = 0

MEMORIES = SensorEntityDescription(
    key="memories",
    translation_key="memories",
    state_class=SensorStateClass.MEASUREMENT,
)


async def async_setup_entry(
    hass: HomeAssistant,
    entry: AssistMemoryConfigEntry,
    async_add_entities: AddConfigEntryEntitiesCallback,
) -> None:
    """Add the memory count sensor."""
    async_add_entities([MemoryCountSensor(entry, MEMORIES)])


class MemoryCountSensor(
    AssistMemoryEntity, CoordinatorEntity[MemoryCoordinator], SensorEntity
):
    """How many memories are stored; unavailable while a memory server is away."""

    def __init__(
        self, entry: AssistMemoryConfigEntry, description: SensorEntityDescription
    ) -> None:
        AssistMemoryEntity.__init__(self, entry, description.key)
        CoordinatorEntity.__init__(self, entry.runtime_data.coordinator)
        self.entity_description = description

    @property
    def native_value(self) -> int:
        """The number of memories."""
        return self.coordinator.data.count

    @property
    def extra_state_attributes(self) -> dict[str, Any]:
        """The limit, how full the memory is, and the time of the last change."""
        stats = self.coordinator.data
        return {
            "max_items": stats.max_items,
            "last_changed": stats.last_changed,
            "nearly_full": stats.fullness.nearly_full,
            "full": stats.fullness.full,
            "learning_stopped": stats.fullness.learning_stopped,
            # Search by meaning: how many memories it understands so far (None: off).
            "search_by_meaning": stats.vector_search,
            "understood": stats.embedded if stats.vector_search else None,
        }
