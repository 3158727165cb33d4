"""The "Learning" switch: off, nothing is learned from conversations.

It is the "Learn from conversations" option, turned from a dashboard or an automation
(changing it does not reload the entry). The memory agent still gives memory while
learning is off, and people can still add memories themselves.
"""

from __future__ import annotations

from typing import Any

from homeassistant.components.switch import SwitchEntity
from homeassistant.const import EntityCategory
from homeassistant.core import HomeAssistant
from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback

from .const import CONF_AUTO_EXTRACT
from .entity import AssistMemoryEntity
from .runtime_data import AssistMemoryConfigEntry

PARALLEL_UPDATES = 0


async def async_setup_entry(
    hass: HomeAssistant,
    entry: AssistMemoryConfigEntry,
    async_add_entities: AddConfigEntryEntitiesCallback,
) -> None:
    """Add the learning switch."""
    async_add_entities([LearningSwitch(entry)])


class LearningSwitch(AssistMemoryEntity, SwitchEntity):
    """On: facts are learned from conversations after each answer."""

    _attr_translation_key = "learning"
    _attr_entity_category = EntityCategory.CONFIG
    _attr_should_poll = False

    def __init__(self, entry: AssistMemoryConfigEntry) -> None:
        self._entry = entry
        super().__init__(entry, "learning")

    @property
    def is_on(self) -> bool:
        """Whether conversations are learned from."""
        return bool(self._entry.options.get(CONF_AUTO_EXTRACT, True))

    async def async_turn_on(self, **kwargs: Any) -> None:
        """Learn from conversations again."""
        self._set_learning(True)

    async def async_turn_off(self, **kwargs: Any) -> None:
        """Pause learning."""
        self._set_learning(False)

    def _set_learning(self, learning: bool) -> None:
        self.hass.config_entries.async_update_entry(
            self._entry, options={**self._entry.options, CONF_AUTO_EXTRACT: learning}
        )
        self.async_write_ha_state()
