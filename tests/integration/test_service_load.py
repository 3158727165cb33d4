"""1 000 concurrent service calls (adds, updates, searches): no error, nothing lost.

The call mix and its checks are `script/load.py`'s `service_load`; `script/bench`
reports its latencies (never asserted here).
"""

from __future__ import annotations

from homeassistant.core import HomeAssistant
import pytest

from custom_components.assist_memory.const import (
    CONF_MAX_CONTENT_LENGTH,
    CONF_MAX_ITEMS,
    DOMAIN,
)
from script.load import REQUESTS, service_load


@pytest.fixture
def entry_options() -> dict[str, int]:
    return {CONF_MAX_ITEMS: 1000, CONF_MAX_CONTENT_LENGTH: 2000}


@pytest.mark.usefixtures("loaded_entry")
async def test_a_thousand_concurrent_service_calls(hass: HomeAssistant) -> None:
    latencies = await service_load(hass, DOMAIN)

    assert len(latencies) == REQUESTS
