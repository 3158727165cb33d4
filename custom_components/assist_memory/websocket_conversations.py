"""Websocket commands for a person's own conversations.

`assist_memory/conversations/list`, `.../get` and `.../delete` answer any logged-in
user: an administrator sees and deletes everyone's conversations, anyone else only
the messages they said themselves (and their answers).
"""

from __future__ import annotations

from typing import Any

from homeassistant.components.websocket_api import async_register_command
from homeassistant.components.websocket_api.connection import ActiveConnection
from homeassistant.components.websocket_api.const import ERR_NOT_FOUND
from homeassistant.components.websocket_api.decorators import (
    async_response,
    websocket_command,
)
from homeassistant.core import HomeAssistant, callback
import probatio

from .api_host import loaded_entry
from .engine import MemoryBackend, MemoryEngineError

_CONVERSATION_ID = "conversation_id"
_MAX_PAGE = 100


@callback
def async_register_conversation_commands(hass: HomeAssistant) -> None:
    """Register the commands (once, when the integration is set up)."""
    async_register_command(hass, ws_list)
    async_register_command(hass, ws_get)
    async_register_command(hass, ws_delete)


def _owner(connection: ActiveConnection) -> str | None:
    """None for an administrator (everyone's), else the person's own."""
    return None if connection.user.is_admin else connection.user.id


def _backend(connection: ActiveConnection, msg: dict[str, Any]) -> MemoryBackend | None:
    if (entry := loaded_entry(connection.hass)) is None:
        connection.send_error(msg["id"], "not_loaded", "Assist Memory is not loaded")
        return None
    return entry.runtime_data.backend


@websocket_command(
    {
        probatio.Required("type"): "assist_memory/conversations/list",
        probatio.Optional("limit", default=20): probatio.All(
            int, probatio.Range(min=1, max=_MAX_PAGE)
        ),
        probatio.Optional("offset", default=0): probatio.All(
            int, probatio.Range(min=0)
        ),
    }
)
@async_response
async def ws_list(
    hass: HomeAssistant, connection: ActiveConnection, msg: dict[str, Any]
) -> None:
    """The caller's conversations (everyone's for an administrator), newest first."""
    if (backend := _backend(connection, msg)) is None:
        return
    try:
        page = await backend.conversations(
            limit=msg["limit"], offset=msg["offset"], owner=_owner(connection)
        )
    except MemoryEngineError as err:
        connection.send_error(msg["id"], err.code, err.message)
        return
    connection.send_result(msg["id"], page.to_dict())


@websocket_command(
    {
        probatio.Required("type"): "assist_memory/conversations/get",
        probatio.Required(_CONVERSATION_ID): str,
    }
)
@async_response
async def ws_get(
    hass: HomeAssistant, connection: ActiveConnection, msg: dict[str, Any]
) -> None:
    """One conversation's messages (the caller's own, unless an administrator)."""
    if (backend := _backend(connection, msg)) is None:
        return
    try:
        found = await backend.conversation(
            msg[_CONVERSATION_ID], owner=_owner(connection)
        )
    except MemoryEngineError as err:
        connection.send_error(msg["id"], err.code, err.message)
        return
    if found is None:
        connection.send_error(msg["id"], ERR_NOT_FOUND, "No such conversation")
        return
    connection.send_result(msg["id"], found.to_dict())


@websocket_command(
    {
        probatio.Required("type"): "assist_memory/conversations/delete",
        probatio.Required(_CONVERSATION_ID): str,
    }
)
@async_response
async def ws_delete(
    hass: HomeAssistant, connection: ActiveConnection, msg: dict[str, Any]
) -> None:
    """Delete a conversation (the caller's own messages, unless an administrator)."""
    if (backend := _backend(connection, msg)) is None:
        return
    conversation_id = msg[_CONVERSATION_ID]
    try:
        deleted = await backend.delete_conversation(
            conversation_id, owner=_owner(connection)
        )
    except MemoryEngineError as err:
        connection.send_error(msg["id"], err.code, err.message)
        return
    if not deleted:
        connection.send_error(msg["id"], ERR_NOT_FOUND, "No such conversation")
        return
    connection.send_result(msg["id"], {"deleted": conversation_id, "messages": deleted})
