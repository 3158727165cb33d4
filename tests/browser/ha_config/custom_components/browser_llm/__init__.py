"""An LLM for the browser test's Home Assistant: an AI Task entity that compacts.

Linked into the test's config folder by tests/browser/test_home_assistant.py. The
entity answers with `compact` of tests/support/compaction_llm.py (loaded from its file),
as the standalone server's chat stand-in does.
"""

from __future__ import annotations

from homeassistant.config_entries import ConfigEntry
from homeassistant.const import Platform
from homeassistant.core import HomeAssistant

DOMAIN = "browser_llm"


async def async_setup_entry(hass: HomeAssistant, entry: ConfigEntry) -> bool:
    """Set up the AI Task entity."""
    await hass.config_entries.async_forward_entry_setups(entry, [Platform.AI_TASK])
    return True


async def async_unload_entry(hass: HomeAssistant, entry: ConfigEntry) -> bool:
    """Unload it."""
    return await hass.config_entries.async_unload_platforms(entry, [Platform.AI_TASK])
