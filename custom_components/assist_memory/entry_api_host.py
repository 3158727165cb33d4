"""The REST handlers' host inside Home Assistant: the loaded entry and its options."""

from __future__ import annotations

from typing import Any

from homeassistant.core import HomeAssistant

from .const import DOMAIN
from .engine import MemoryBackend
from .options import DEFAULT_OPTIONS, async_apply_options
from .runtime_data import AssistMemoryConfigEntry


def loaded_entry(hass: HomeAssistant) -> AssistMemoryConfigEntry | None:
    """The loaded Assist Memory entry, if any."""
    entries: list[AssistMemoryConfigEntry] = hass.config_entries.async_loaded_entries(
        DOMAIN
    )
    return entries[0] if entries else None


class EntryApiHost:
    """Settings are the entry's options, applied as the options flow applies them."""

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
        options = {**self.entry.options, **changes}
        self.hass.config_entries.async_update_entry(self.entry, options=options)
        await async_apply_options(self.hass, self.entry)
