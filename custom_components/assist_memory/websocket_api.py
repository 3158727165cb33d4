"""The memory manager panel's websocket command: the REST API over Home Assistant's websocket.

`assist_memory/request` takes a route of the REST API as plain values (method, the
server's path, query, body) and answers what the REST API would: {"status", "body"}.
Administrators only, as the REST views (memories are the whole household's); another
person's conversations are shown without what was said in them (the engine's
`seen_by.py`).
"""

from __future__ import annotations

from typing import Any, Final

from homeassistant.components.websocket_api import async_register_command
from homeassistant.components.websocket_api.connection import ActiveConnection
from homeassistant.components.websocket_api.decorators import (
    async_response,
    require_admin,
    websocket_command,
)
from homeassistant.core import HomeAssistant, callback
import probatio

from .engine.http.api import dispatch
from .entry_api_host import EntryApiHost, loaded_entry
from .websocket_conversations import async_register_conversation_commands
from .websocket_events import async_register_event_commands
from .websocket_held import async_register_held_commands
from .websocket_import import async_register_import_commands
from .websocket_memories import async_register_memory_commands
from .websocket_people import async_register_people_commands

COMMAND: Final = "assist_memory/request"
METHODS: Final = ("GET", "POST", "PUT", "PATCH", "DELETE")


@callback
def async_register_commands(hass: HomeAssistant) -> None:
    """Register the commands (once, when the integration is set up)."""
    async_register_command(hass, ws_request)
    async_register_memory_commands(hass)
    async_register_conversation_commands(hass)
    async_register_event_commands(hass)
    async_register_import_commands(hass)
    async_register_held_commands(hass)
    async_register_people_commands(hass)


@require_admin
@websocket_command(
    {
        probatio.Required("type"): COMMAND,
        probatio.Required("method"): probatio.In(METHODS),
        probatio.Required("path"): str,
        probatio.Optional("query", default={}): {str: probatio.Coerce(str)},
        probatio.Optional("body"): object,
    }
)
@async_response
async def ws_request(
    hass: HomeAssistant,
    connection: ActiveConnection,
    msg: dict[str, Any],
) -> None:
    """Answer one REST API request of the panel."""
    if (entry := loaded_entry(hass)) is None:
        connection.send_error(msg["id"], "not_loaded", "Assist Memory is not loaded")
        return
    response = await dispatch(
        EntryApiHost(hass, entry),
        msg["method"],
        msg["path"],
        msg["query"],
        msg.get("body"),
        viewer=connection.user.id,
    )
    connection.send_result(
        msg["id"], {"status": int(response.status), "body": response.body}
    )
