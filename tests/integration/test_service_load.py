"""1 000 concurrent service calls (adds, updates, searches): no error, nothing lost."""

from __future__ import annotations

import asyncio
from typing import Any

from homeassistant.core import HomeAssistant
import pytest

from custom_components.assist_memory.const import (
    CONF_MAX_CONTENT_LENGTH,
    CONF_MAX_ITEMS,
    DOMAIN,
)

EXISTING = 300  # each updated once in the burst
ADDS = 400
SEARCHES = 1000 - ADDS - EXISTING


@pytest.fixture
def entry_options() -> dict[str, int]:
    return {CONF_MAX_ITEMS: 1000, CONF_MAX_CONTENT_LENGTH: 2000}


async def call(hass: HomeAssistant, service: str, data: dict[str, Any]) -> Any:
    return await hass.services.async_call(
        DOMAIN, service, data, blocking=True, return_response=True
    )


@pytest.mark.usefixtures("loaded_entry")
async def test_a_thousand_concurrent_service_calls(hass: HomeAssistant) -> None:
    existing = await asyncio.gather(
        *(
            call(hass, "add", {"content": f"Shelf {n} holds jam"})
            for n in range(EXISTING)
        )
    )
    ids = [response["memory"]["id"] for response in existing]

    calls = [
        *(call(hass, "add", {"content": f"Box {n} holds tea"}) for n in range(ADDS)),
        *(
            call(hass, "update", {"id": memory_id, "content": f"Shelf {n} holds honey"})
            for n, memory_id in enumerate(ids)
        ),
        *(call(hass, "search", {"query": f"shelf {n}"}) for n in range(SEARCHES)),
    ]
    assert len(calls) == 1000
    # Interleave the kinds, so adds, updates and searches run at the same time.
    mixed = [calls[i] for i in sorted(range(1000), key=lambda i: (i * 7919) % 1000)]
    responses = await asyncio.gather(*mixed)
    assert all(response is not None for response in responses)

    listed = await call(hass, "list", {"limit": 1000})
    stored = {m["id"]: m["content"] for m in listed["items"]}
    assert listed["total"] == len(stored) == EXISTING + ADDS
    expected_contents = {f"Box {n} holds tea" for n in range(ADDS)} | {
        f"Shelf {n} holds honey" for n in range(EXISTING)
    }
    assert set(stored.values()) == expected_contents
    assert all(
        stored[memory_id] == f"Shelf {n} holds honey" for n, memory_id in enumerate(ids)
    )
    found = await call(hass, "search", {"query": "honey", "limit": 100})
    assert len(found["results"]) == 100
