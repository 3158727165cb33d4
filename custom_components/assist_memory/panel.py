"""The memory manager in Home Assistant's sidebar (administrators only).

The web UI's files (`engine/web/`, the same ones the add-on and `assist-memory serve`
serve) are served at STATIC_URL; the panel's module (`panel.js`) talks to the
integration through the websocket command of `websocket_api.py`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from homeassistant.components import frontend, panel_custom
from homeassistant.components.http.server import StaticPathConfig
from homeassistant.core import HomeAssistant

from .data import AssistMemoryConfigEntry

PANEL_URL_PATH: Final = "assist-memory"
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
    await panel_custom.async_register_panel(
        hass,
        frontend_url_path=PANEL_URL_PATH,
        webcomponent_name=WEBCOMPONENT,
        sidebar_title="Memory",
        sidebar_icon="mdi:brain",
        module_url=f"{STATIC_URL}/panel.js",
        require_admin=True,
    )
    entry.async_on_unload(
        lambda: frontend.async_remove_panel(hass, PANEL_URL_PATH, warn_if_unknown=False)
    )
