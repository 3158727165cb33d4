"""The memory manager in Home Assistant's sidebar (administrators), and "About me".

"About me" is for every user: their own memories and conversations, through the
websocket commands scoped to the caller (`websocket_memories.py`,
`websocket_conversations.py`).

The web UI's files (`engine/web/`, the same ones the add-on and `assist-memory serve`
serve) are served at STATIC_URL; the panel's module (`panel.js`) talks to the
integration through the websocket command of `websocket_api.py`. The sidebar shows
a custom panel's title as given, so it is given in Home Assistant's language (from
strings.json, `common.panel_title`) and given again when that language changes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from homeassistant.components import frontend, panel_custom
from homeassistant.components.http.server import StaticPathConfig
from homeassistant.config_entries import ConfigEntryState
from homeassistant.const import EVENT_CORE_CONFIG_UPDATE
from homeassistant.core import Event, HomeAssistant
from homeassistant.helpers.translation import async_get_translations

from .const import DOMAIN
from .runtime_data import AssistMemoryConfigEntry

PANEL_URL_PATH: Final = "assist-memory"
# "About me": every user's own memories and conversations (the scoped websocket API).
ME_URL_PATH: Final = "assist-memory-me"
ME_WEBCOMPONENT: Final = "assist-memory-me-panel"
STATIC_URL: Final = "/assist_memory_static"
WEB_FOLDER: Final = Path(__file__).parent / "engine" / "web"
WEBCOMPONENT: Final = "assist-memory-panel"


async def async_register_static(hass: HomeAssistant) -> None:
    """Serve the web UI's files (once: aiohttp routes cannot be removed)."""
    await hass.http.async_register_static_paths(
        [StaticPathConfig(STATIC_URL, str(WEB_FOLDER), cache_headers=False)]
    )


async def async_register_panel(
    hass: HomeAssistant, entry: AssistMemoryConfigEntry
) -> None:
    """Add the sidebar panel while the entry is loaded."""
    await _async_show_panel(hass, await _async_title(hass))

    async def _retitle(event: Event) -> None:
        if "language" not in event.data:
            return
        title = await _async_title(hass)
        if entry.state is ConfigEntryState.LOADED:
            _remove_panel(hass)
            await _async_show_panel(hass, title)

    entry.async_on_unload(hass.bus.async_listen(EVENT_CORE_CONFIG_UPDATE, _retitle))
    entry.async_on_unload(lambda: _remove_panel(hass))


async def _async_title(hass: HomeAssistant) -> tuple[str, str]:
    """The panels' titles in Home Assistant's language (English when untranslated)."""
    texts = await async_get_translations(hass, hass.config.language, "common", [DOMAIN])
    return (
        texts[f"component.{DOMAIN}.common.panel_title"],
        texts[f"component.{DOMAIN}.common.me_panel_title"],
    )


async def _async_show_panel(hass: HomeAssistant, titles: tuple[str, str]) -> None:
    await panel_custom.async_register_panel(
        hass,
        frontend_url_path=PANEL_URL_PATH,
        webcomponent_name=WEBCOMPONENT,
        sidebar_title=titles[0],
        sidebar_icon="mdi:brain",
        module_url=f"{STATIC_URL}/panel.js",
        require_admin=True,
    )
    await panel_custom.async_register_panel(
        hass,
        frontend_url_path=ME_URL_PATH,
        webcomponent_name=ME_WEBCOMPONENT,
        sidebar_title=titles[1],
        sidebar_icon="mdi:account-heart",
        module_url=f"{STATIC_URL}/panel.js",
        require_admin=False,
    )


def _remove_panel(hass: HomeAssistant) -> None:
    for path in (PANEL_URL_PATH, ME_URL_PATH):
        frontend.async_remove_panel(hass, path, warn_if_unknown=False)
