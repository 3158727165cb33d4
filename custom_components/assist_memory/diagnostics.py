"""Diagnostics: counts and settings, never memory content, keys or addresses."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from homeassistant.components.diagnostics import async_redact_data
from homeassistant.const import CONF_TOKEN, CONF_URL
from homeassistant.core import HomeAssistant

from .const import CONF_EMBEDDING_API_KEY, CONF_EMBEDDING_URL
from .coordinator import MemoryCoordinator
from .engine import MemoryEngineError, StoreStats
from .runtime_data import AssistMemoryConfigEntry

# Keys, and the addresses of the memory server and the embedding endpoint (they
# tell where a person's memories live and may carry credentials).
TO_REDACT = {CONF_EMBEDDING_API_KEY, CONF_EMBEDDING_URL, CONF_TOKEN, CONF_URL}


async def async_get_config_entry_diagnostics(
    hass: HomeAssistant, entry: AssistMemoryConfigEntry
) -> dict[str, Any]:
    """Describe the store without revealing what it remembers."""
    data = entry.runtime_data
    report = data.load_report
    coordinator = data.coordinator
    return {
        "entry": {
            "data": async_redact_data(dict(entry.data), TO_REDACT),
            "options": async_redact_data(dict(entry.options), TO_REDACT),
        },
        "store": asdict(await _stats(coordinator)),
        "coordinator": {
            "last_update_success": coordinator.last_update_success,
            "update_interval": (
                None
                if coordinator.update_interval is None
                else coordinator.update_interval.total_seconds()
            ),
        },
        "learning": {
            "facts_not_said": data.learning.not_said,
            "answers_said_back": data.learning.said_back,
        },
        "load_report": {
            "count": report.count,
            "set_aside_files": len(report.set_aside),
            "invalid_records": report.invalid_records,
            "replayed_ops": report.replayed_ops,
            "dropped_torn_write": report.dropped_torn_write,
        },
    }


async def _stats(coordinator: MemoryCoordinator) -> StoreStats:
    """The counts now; the last ones read while a memory server is away."""
    try:
        return await coordinator.backend.stats()
    except MemoryEngineError:
        return coordinator.data
