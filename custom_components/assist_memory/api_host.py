"""The REST handlers' host inside Home Assistant: the loaded entry and its options."""

from __future__ import annotations

from typing import Any

from homeassistant.core import HomeAssistant

from .const import CONF_LEARN_FROM_OTHER_AGENTS, DOMAIN
from .data import AssistMemoryConfigEntry
from .engine import MemoryBackend
from .options import DEFAULT_OPTIONS, async_apply_options

# Options read only when the entry is set up: changing one reloads the entry.
RELOAD_OPTIONS = frozenset({CONF_LEARN_FROM_OTHER_AGENTS})


def loaded_entry(hass: HomeAssistant) -> AssistMemoryConfigEntry | None:
    """The loaded Assist Memory entry, if any."""
    entries: list[AssistMemoryConfigEntry] = hass.config_entries.async_loaded_entries(
        DOMAIN
    )
    return entries[0] if entries else None


class EntryApiHost:
    """Settings are the entry's options; most apply on the next turn."""

    def __init__(self, hass: HomeAssistant, entry: AssistMemoryConfigEntry) -> None:
        self.hass = hass
        self.entry = entry

    @property
    def backend(self) -> MemoryBackend:
        """The entry's memory backend."""
        return self.entry.runtime_data.backend

    async def read_options(self) -> dict[str, Any]:
        """The options with defaults for missing ones."""
        return {**DEFAULT_OPTIONS, **self.entry.options}

    async def write_options(self, changes: dict[str, Any]) -> None:
        """Save the changes in the entry's options and apply them."""
        before = await self.read_options()
        options = {**self.entry.options, **changes}
        self.hass.config_entries.async_update_entry(self.entry, options=options)
        if any(before[key] != {**before, **changes}[key] for key in RELOAD_OPTIONS):
            self.hass.config_entries.async_schedule_reload(self.entry.entry_id)
            return
        await async_apply_options(self.hass, self.backend, options)
