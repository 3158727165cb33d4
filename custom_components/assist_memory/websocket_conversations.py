"""Websocket commands for a person's own conversations and working memory.

`assist_memory/conversations/list`, `.../get` and `.../delete` answer any logged-in
user, on their own messages (and the answers to them). A person's conversations are
theirs: an administrator also sees that everyone else's exist (whose, when, how many
turns) and may delete them, but never reads them (the engine's `seen_by.py`: no
title, last answer or messages; a conversation of nobody known is the household's
and readable). With `mine`, an administrator too gets only their own ("About me" is
the viewer's own, whoever views it). A listed conversation comes with its last
answer (`reply`), when the caller may read it.

`assist_memory/working/list` gives the conversations in progress (their working
memory) on the same terms.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
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

from .engine import MemoryEngineError, TurnOperations
from .engine.conversation.seen_by import (
    conversation_seen,
    session_info_seen,
    working_seen,
)
from .entry_api_host import loaded_entry

_CONVERSATION_ID = "conversation_id"
_MAX_PAGE = 100
# Only the caller's own, an administrator's too.
_MINE = probatio.Optional("mine", default=False)

# What a command asks the backend, given whose conversations it covers (None:
# everyone's) and who asks; None is "no such conversation".
type _Ask = Callable[
    [TurnOperations, str | None, str], Awaitable[dict[str, Any] | None]
]


@callback
def async_register_conversation_commands(hass: HomeAssistant) -> None:
    """Register the commands (once, when the integration is set up)."""
    async_register_command(hass, ws_list)
    async_register_command(hass, ws_get)
    async_register_command(hass, ws_delete)
    async_register_command(hass, ws_working)


async def _answer(connection: ActiveConnection, msg: dict[str, Any], ask: _Ask) -> None:
    """Ask the loaded entry's backend for the caller, and send what it answers."""
    if (entry := loaded_entry(connection.hass)) is None:
        connection.send_error(msg["id"], "not_loaded", "Assist Memory is not loaded")
        return
    user = connection.user
    owner = None if user.is_admin and not msg["mine"] else user.id
    try:
        result = await ask(entry.runtime_data.backend, owner, user.id)
    except MemoryEngineError as err:
        connection.send_error(msg["id"], err.code, err.message)
        return
    if result is None:
        connection.send_error(msg["id"], ERR_NOT_FOUND, "No such conversation")
        return
    connection.send_result(msg["id"], result)


@websocket_command(
    {
        probatio.Required("type"): "assist_memory/conversations/list",
        probatio.Optional("limit", default=20): probatio.All(
            int, probatio.Range(min=1, max=_MAX_PAGE)
        ),
        probatio.Optional("offset", default=0): probatio.All(
            int, probatio.Range(min=0)
        ),
        _MINE: bool,
    }
)
@async_response
async def ws_list(
    hass: HomeAssistant, connection: ActiveConnection, msg: dict[str, Any]
) -> None:
    """The caller's conversations (everyone's for an administrator), newest first."""

    async def ask(
        backend: TurnOperations, owner: str | None, viewer: str
    ) -> dict[str, Any]:
        page = await backend.conversations(
            limit=msg["limit"], offset=msg["offset"], owner=owner
        )
        items = []
        for info in page.items:
            item = session_info_seen(info, viewer)
            item["reply"] = await _last_reply(backend, info.session_id, owner, viewer)
            items.append(item)
        return {"items": items, "total": page.total}

    await _answer(connection, msg, ask)


@websocket_command(
    {
        probatio.Required("type"): "assist_memory/conversations/get",
        probatio.Required(_CONVERSATION_ID): str,
        _MINE: bool,
    }
)
@async_response
async def ws_get(
    hass: HomeAssistant, connection: ActiveConnection, msg: dict[str, Any]
) -> None:
    """One conversation's messages: those the caller may read."""

    async def ask(
        backend: TurnOperations, owner: str | None, viewer: str
    ) -> dict[str, Any] | None:
        found = await backend.conversation(msg[_CONVERSATION_ID], owner=owner)
        shown = None if found is None else conversation_seen(found, viewer)
        return None if shown is None else shown.to_dict()

    await _answer(connection, msg, ask)


@websocket_command(
    {
        probatio.Required("type"): "assist_memory/conversations/delete",
        probatio.Required(_CONVERSATION_ID): str,
        _MINE: bool,
    }
)
@async_response
async def ws_delete(
    hass: HomeAssistant, connection: ActiveConnection, msg: dict[str, Any]
) -> None:
    """Delete a conversation (the caller's own messages, unless an administrator)."""
    conversation_id = msg[_CONVERSATION_ID]

    async def ask(
        backend: TurnOperations, owner: str | None, viewer: str
    ) -> dict[str, Any] | None:
        deleted = await backend.delete_conversation(conversation_id, owner=owner)
        return {"deleted": conversation_id, "messages": deleted} if deleted else None

    await _answer(connection, msg, ask)


async def _last_reply(
    backend: TurnOperations, session_id: str, owner: str | None, viewer: str
) -> str | None:
    """What Assist answered last in a conversation, to messages the viewer may read."""
    found = await backend.conversation(session_id, owner=owner)
    shown = None if found is None else conversation_seen(found, viewer)
    replies = [m.content for m in (shown.messages if shown else []) if m.role != "user"]
    return replies[-1] if replies else None


@websocket_command(
    {probatio.Required("type"): "assist_memory/working/list", _MINE: bool}
)
@async_response
async def ws_working(
    hass: HomeAssistant, connection: ActiveConnection, msg: dict[str, Any]
) -> None:
    """The conversations in progress: the caller's (everyone's for an administrator)."""

    async def ask(
        backend: TurnOperations, owner: str | None, viewer: str
    ) -> dict[str, Any]:
        sessions = await backend.working_sessions()
        return {
            "items": [
                working_seen(memory, viewer)
                for memory in sessions
                if owner is None or memory.user_id == owner
            ]
        }

    await _answer(connection, msg, ask)
