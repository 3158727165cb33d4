"""The panel hears when the memories change: `assist_memory/subscribe`."""

from __future__ import annotations

from typing import Any

from homeassistant.core import HomeAssistant
from pytest_homeassistant_custom_component.common import MockConfigEntry
from pytest_homeassistant_custom_component.typing import WebSocketGenerator

from custom_components.assist_memory.const import DOMAIN


async def subscribe(client: Any) -> int:
    """Subscribe; the subscription's id."""
    await client.send_json_auto_id({"type": "assist_memory/subscribe"})
    answer: dict[str, Any] = await client.receive_json()
    assert answer["success"], answer
    subscription: int = answer["id"]
    return subscription


async def test_a_change_is_an_event_without_content(
    hass: HomeAssistant,
    hass_ws_client: WebSocketGenerator,
    loaded_entry: MockConfigEntry,
) -> None:
    client = await hass_ws_client(hass)
    subscription = await subscribe(client)

    await hass.services.async_call(
        DOMAIN, "add", {"content": "The quokka-coloured door is new"}, blocking=True
    )

    event = await client.receive_json()
    assert event == {"id": subscription, "type": "event", "event": {"changed": True}}

    # A reload ends it with a last event: the panel subscribes again.
    assert await hass.config_entries.async_reload(loaded_entry.entry_id)
    ended = await client.receive_json()
    assert ended["event"] == {"changed": True, "ended": True}
    await subscribe(client)


async def test_only_administrators_subscribe(
    hass: HomeAssistant,
    hass_ws_client: WebSocketGenerator,
    hass_read_only_access_token: str,
    loaded_entry: MockConfigEntry,
) -> None:
    reader = await hass_ws_client(hass, hass_read_only_access_token)
    await reader.send_json_auto_id({"type": "assist_memory/subscribe"})
    refused = await reader.receive_json()
    assert refused["error"]["code"] == "unauthorized"

    assert await hass.config_entries.async_unload(loaded_entry.entry_id)
    client = await hass_ws_client(hass)
    await client.send_json_auto_id({"type": "assist_memory/subscribe"})
    not_loaded = await client.receive_json()
    assert not_loaded["error"]["code"] == "not_loaded"
