"""The memory manager in Home Assistant: its websocket command and its sidebar panel."""

from __future__ import annotations

from typing import Any

from homeassistant.components import frontend
from homeassistant.config_entries import ConfigEntryState
from homeassistant.core import HomeAssistant
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry
from pytest_homeassistant_custom_component.typing import (
    ClientSessionGenerator,
    WebSocketGenerator,
)

from custom_components.assist_memory.panel import (
    ME_URL_PATH,
    PANEL_URL_PATH,
    STATIC_URL,
)


async def request(
    ws_client: Any, method: str, path: str, **fields: object
) -> dict[str, Any]:
    """Send one assist_memory/request; the whole answer message."""
    await ws_client.send_json_auto_id(
        {"type": "assist_memory/request", "method": method, "path": path, **fields}
    )
    answer: dict[str, Any] = await ws_client.receive_json()
    return answer


@pytest.mark.usefixtures("loaded_entry")
async def test_request_answers_as_the_rest_api(
    hass: HomeAssistant, hass_ws_client: WebSocketGenerator
) -> None:
    client = await hass_ws_client(hass)
    added = await request(
        client,
        "POST",
        "/memory/long-term",
        body={"content": "Anna likes green tea", "tags": ["drinks"]},
    )
    assert added["success"]
    assert added["result"]["status"] == 201
    memory_id = added["result"]["body"]["id"]

    page = await request(
        client, "GET", "/memory/long-term", query={"tag": "drinks", "limit": 5}
    )
    assert page["result"]["status"] == 200
    assert [m["id"] for m in page["result"]["body"]["items"]] == [memory_id]

    found = await request(client, "GET", "/api/memory/search", query={"q": "tea"})
    assert found["result"]["body"]["results"][0]["matched"]

    missing = await request(client, "DELETE", "/memory/long-term/nope")
    assert missing["result"]["status"] == 404
    assert missing["result"]["body"]["code"]
    unknown = await request(client, "GET", "/no/such/path")
    assert unknown["result"]["status"] == 404

    config = await request(
        client, "PUT", "/api/memory/config", body={"autoExtract": False}
    )
    assert config["result"]["body"]["autoExtract"] is False


@pytest.mark.usefixtures("loaded_entry")
async def test_request_rejects_bad_messages_and_non_admins(
    hass: HomeAssistant,
    hass_ws_client: WebSocketGenerator,
    hass_read_only_access_token: str,
) -> None:
    client = await hass_ws_client(hass)
    bad = await request(client, "BREW", "/memory/long-term")
    assert not bad["success"]
    assert bad["error"]["code"] == "invalid_format"

    reader = await hass_ws_client(hass, hass_read_only_access_token)
    refused = await request(reader, "GET", "/memory/long-term")
    assert not refused["success"]
    assert refused["error"]["code"] == "unauthorized"


async def test_request_while_not_loaded(
    hass: HomeAssistant,
    hass_ws_client: WebSocketGenerator,
    loaded_entry: MockConfigEntry,
) -> None:
    assert await hass.config_entries.async_unload(loaded_entry.entry_id)
    assert loaded_entry.state is ConfigEntryState.NOT_LOADED
    client = await hass_ws_client(hass)
    answer = await request(client, "GET", "/memory/long-term")
    assert not answer["success"]
    assert answer["error"]["code"] == "not_loaded"


async def test_panel_while_loaded_and_its_files(
    hass: HomeAssistant,
    hass_client: ClientSessionGenerator,
    loaded_entry: MockConfigEntry,
) -> None:
    panel = hass.data[frontend.DATA_PANELS][PANEL_URL_PATH]
    assert panel.to_response()["require_admin"] is True
    assert panel.sidebar_icon == "mdi:brain"
    assert panel.sidebar_title == "Memory"
    module_url = panel.config["_panel_custom"]["module_url"]

    client = await hass_client()
    for url in (module_url, f"{STATIC_URL}/app.js", f"{STATIC_URL}/index.html"):
        response = await client.get(url)
        assert response.status == 200, url

    # "About me": every user's own memories and conversations.
    me = hass.data[frontend.DATA_PANELS][ME_URL_PATH]
    assert me.to_response()["require_admin"] is False
    assert me.sidebar_title == "About me"
    assert me.config["_panel_custom"]["module_url"] == module_url

    assert await hass.config_entries.async_unload(loaded_entry.entry_id)
    assert PANEL_URL_PATH not in hass.data.get(frontend.DATA_PANELS, {})
    assert ME_URL_PATH not in hass.data.get(frontend.DATA_PANELS, {})


async def test_panel_title_in_the_language_of_home_assistant(
    hass: HomeAssistant, config_entry: MockConfigEntry
) -> None:
    await hass.config.async_update(language="zh-Hans")
    config_entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done()
    assert hass.data[frontend.DATA_PANELS][PANEL_URL_PATH].sidebar_title == "记忆"

    # The person switches Home Assistant's language: the sidebar follows.
    await hass.config.async_update(language="zh-Hant")
    await hass.async_block_till_done()
    panel = hass.data[frontend.DATA_PANELS][PANEL_URL_PATH]
    assert panel.sidebar_title == "記憶"
    assert panel.to_response()["require_admin"] is True
    assert hass.data[frontend.DATA_PANELS][ME_URL_PATH].sidebar_title == "關於我"

    # Other settings leave the panel as it is.
    await hass.config.async_update(location_name="Home")
    await hass.async_block_till_done()
    assert hass.data[frontend.DATA_PANELS][PANEL_URL_PATH] is panel

    # A language without a translation gets the English title.
    await hass.config.async_update(language="de")
    await hass.async_block_till_done()
    assert hass.data[frontend.DATA_PANELS][PANEL_URL_PATH].sidebar_title == "Memory"

    assert await hass.config_entries.async_unload(config_entry.entry_id)
    await hass.config.async_update(language="en")
    await hass.async_block_till_done()
    assert PANEL_URL_PATH not in hass.data.get(frontend.DATA_PANELS, {})
