"""A person's own memories over the websocket: list, get, add, update, delete, restore.

Scoped to the calling Home Assistant user: everyone sees and changes the memories of
their own scope (their user id); administrators see and change every memory and may
list one scope. Someone who is not an administrator adds memories to their own scope
only, never to the household's: a household memory goes into everyone's
conversations, which is the administrators' to decide. Everyone may read a household
memory by its id (Assist tells it to anyone who asks, and "Why did Assist say that?"
shows the ones an answer was given), without where it came from (a sentence of
someone's conversation); changing or deleting it is refused. Restoring (the undo of a
delete) puts back memories of their own scope, with their ids, and never over a
memory of someone else. A memory of someone else is answered as unknown, so nobody learns
that it exists. (The panel's `assist_memory/request` serves administrators.)
Errors come with the translation keys of the services' errors.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Final

from homeassistant.components.websocket_api import async_register_command
from homeassistant.components.websocket_api.connection import ActiveConnection
from homeassistant.components.websocket_api.const import (
    ERR_HOME_ASSISTANT_ERROR,
    ERR_INVALID_FORMAT,
    ERR_NOT_FOUND,
    ERR_UNAUTHORIZED,
)
from homeassistant.components.websocket_api.decorators import (
    async_response,
    websocket_command,
)
from homeassistant.core import HomeAssistant, callback
from homeassistant.exceptions import Unauthorized
import probatio

from .const import DOMAIN
from .ends import expires_at_given
from .engine import (
    HOUSEHOLD_SCOPE,
    InvalidMemoryError,
    Memory,
    MemoryEngineError,
    MemoryFields,
    MemoryOperations,
)
from .engine.storage.list_filters import LAST_USED, LIST_STATES, ORIGINS
from .engine.storage.store import SORT_ORDERS
from .entry_api_host import loaded_entry

LIST: Final = "assist_memory/memories/list"
GET: Final = "assist_memory/memories/get"
UPDATE: Final = "assist_memory/memories/update"
DELETE: Final = "assist_memory/memories/delete"
ADD: Final = "assist_memory/memories/add"
RESTORE: Final = "assist_memory/memories/restore"
MAX_PAGE: Final = 200
# What a caller may do with a memory they may know of.
CHANGE: Final = "change"
READ: Final = "read"

type Handler = Callable[
    [HomeAssistant, ActiveConnection, dict[str, Any], MemoryOperations],
    Awaitable[dict[str, Any] | None],
]


@callback
def async_register_memory_commands(hass: HomeAssistant) -> None:
    """Register the commands (once, when the integration is set up)."""
    for command in (ws_list, ws_get, ws_add, ws_update, ws_delete, ws_restore):
        async_register_command(hass, command)


def _answer(handler: Handler) -> Any:
    """Run a command with the loaded entry's backend; engine errors as errors."""

    async def answer(
        hass: HomeAssistant, connection: ActiveConnection, msg: dict[str, Any]
    ) -> None:
        if (entry := loaded_entry(hass)) is None:
            connection.send_error(
                msg["id"], "not_loaded", "Assist Memory is not loaded"
            )
            return
        try:
            result = await handler(hass, connection, msg, entry.runtime_data.backend)
        except Unauthorized:
            connection.send_error(
                msg["id"],
                ERR_UNAUTHORIZED,
                "Only an administrator may do that with memories not your own",
            )
            return
        except MemoryEngineError as err:
            code = (
                ERR_INVALID_FORMAT
                if isinstance(err, InvalidMemoryError)
                else ERR_HOME_ASSISTANT_ERROR
            )
            connection.send_error(
                msg["id"],
                code,
                err.message,
                translation_key=err.code,
                translation_domain=DOMAIN,
                translation_placeholders={"error": err.message, **err.placeholders},
            )
            return
        if result is None:
            connection.send_error(
                msg["id"],
                ERR_NOT_FOUND,
                f"There is no memory with the ID {msg['memory_id']}.",
                translation_key="not_found",
                translation_domain=DOMAIN,
                translation_placeholders={"memory_id": msg["memory_id"]},
            )
            return
        connection.send_result(msg["id"], result)

    return async_response(answer)


def _access(connection: ActiveConnection, memory: Memory | None) -> str | None:
    """What the caller may do with the memory; None: it is not theirs to know of.

    CHANGE: their own, or any for an administrator; READ: a household memory.
    """
    user = connection.user
    if memory is None or user is None:
        return None
    if user.is_admin or memory.scope == user.id:
        return CHANGE
    return READ if memory.scope == HOUSEHOLD_SCOPE else None


def _mine(connection: ActiveConnection, memory: Memory | None) -> Memory | None:
    """The memory when the caller may change it, else None (as if unknown).

    A household memory, which everyone may read, is refused outright instead.
    """
    access = _access(connection, memory)
    if access == READ:
        raise Unauthorized
    return memory if access == CHANGE else None


def _readable(connection: ActiveConnection, memory: Memory | None) -> Memory | None:
    """The memory as the caller may read it, else None (as if unknown).

    Someone who is not an administrator reads a household memory without its origin:
    the conversation, sentence and speaker it was learned from may be someone else's.
    """
    access = _access(connection, memory)
    if memory is None or access is None:
        return None
    return (
        memory
        if access == CHANGE
        else memory.with_changes(session_id=None, metadata={})
    )


@websocket_command(
    {
        probatio.Required("type"): LIST,
        probatio.Optional("offset", default=0): probatio.All(
            int, probatio.Range(min=0)
        ),
        probatio.Optional("limit", default=50): probatio.All(
            int, probatio.Range(min=1, max=MAX_PAGE)
        ),
        probatio.Optional("category"): str,
        probatio.Optional("tags"): probatio.Any(str, [str]),
        probatio.Optional("sort", default="newest"): probatio.In(SORT_ORDERS),
        probatio.Optional("scope"): str,
        probatio.Optional("origin"): probatio.In(ORIGINS),
        probatio.Optional("last_used"): probatio.In(LAST_USED),
        # Current memories (the default), the ended ones (the Ended view), or all.
        probatio.Optional("state", default="current"): probatio.In(LIST_STATES),
    }
)
@_answer
async def ws_list(
    hass: HomeAssistant,
    connection: ActiveConnection,
    msg: dict[str, Any],
    backend: MemoryOperations,
) -> dict[str, Any] | None:
    """A page of the caller's memories (an administrator's: all, or one scope)."""
    user = connection.user
    scope = msg.get("scope")
    if user is None or not (user.is_admin or scope in (None, user.id)):
        raise Unauthorized
    page = await backend.list(
        offset=msg["offset"],
        limit=msg["limit"],
        category=msg.get("category"),
        scope=scope if user.is_admin else user.id,
        tags=msg.get("tags"),
        sort=msg["sort"],
        origin=msg.get("origin"),
        last_used=msg.get("last_used"),
        ended=LIST_STATES[msg["state"]],
    )
    return {
        "items": [memory.to_dict() for memory in page.items],
        "total": page.total,
        "offset": page.offset,
        "limit": page.limit,
    }


@websocket_command(
    {probatio.Required("type"): GET, probatio.Required("memory_id"): str}
)
@_answer
async def ws_get(
    hass: HomeAssistant,
    connection: ActiveConnection,
    msg: dict[str, Any],
    backend: MemoryOperations,
) -> dict[str, Any] | None:
    """One memory of the caller's, or of the household's."""
    memory = _readable(connection, await backend.get(msg["memory_id"]))
    return None if memory is None else {"memory": memory.to_dict()}


@websocket_command(
    {
        probatio.Required("type"): UPDATE,
        probatio.Required("memory_id"): str,
        probatio.Optional("content"): str,
        probatio.Optional("category"): str,
        probatio.Optional("key"): str,
        probatio.Optional("tags"): probatio.Any(str, [str]),
        # "Until …": a day or a time in the home's time zone; "" or null: no end.
        probatio.Optional("expires_at"): probatio.Any(str, None),
    }
)
@_answer
async def ws_update(
    hass: HomeAssistant,
    connection: ActiveConnection,
    msg: dict[str, Any],
    backend: MemoryOperations,
) -> dict[str, Any] | None:
    """Change a memory of the caller's (its scope stays)."""
    if _mine(connection, await backend.get(msg["memory_id"])) is None:
        return None
    fields: MemoryFields = {}
    for name in ("category", "key", "tags"):
        if name in msg:
            fields[name] = msg[name]
    if "expires_at" in msg:
        fields["expires_at"] = expires_at_given(msg["expires_at"] or "")
    memory = await backend.update(msg["memory_id"], msg.get("content"), **fields)
    return None if memory is None else {"memory": memory.to_dict()}


@websocket_command(
    {probatio.Required("type"): DELETE, probatio.Required("memory_id"): str}
)
@_answer
async def ws_delete(
    hass: HomeAssistant,
    connection: ActiveConnection,
    msg: dict[str, Any],
    backend: MemoryOperations,
) -> dict[str, Any] | None:
    """Forget a memory of the caller's: every copy of its text is erased."""
    if _mine(connection, await backend.get(msg["memory_id"])) is None:
        return None
    if not await backend.delete(msg["memory_id"]):
        return None
    return {"deleted": msg["memory_id"]}


def _own_scope(connection: ActiveConnection, scope: str | None) -> str:
    """The scope the caller may write to: their own, or any for an administrator."""
    user = connection.user
    if user is None or not (user.is_admin or scope in (None, user.id)):
        raise Unauthorized
    return user.id if scope is None else scope


@websocket_command(
    {
        probatio.Required("type"): ADD,
        probatio.Required("content"): str,
        probatio.Optional("category"): str,
        probatio.Optional("tags"): probatio.Any(str, [str]),
        probatio.Optional("scope"): str,
        probatio.Optional("expires_at"): probatio.Any(str, None),
    }
)
@_answer
async def ws_add(
    hass: HomeAssistant,
    connection: ActiveConnection,
    msg: dict[str, Any],
    backend: MemoryOperations,
) -> dict[str, Any] | None:
    """A new memory of the caller's (an administrator's: of any scope)."""
    fields: MemoryFields = {"scope": _own_scope(connection, msg.get("scope"))}
    for name in ("category", "tags"):
        if name in msg:
            fields[name] = msg[name]
    if msg.get("expires_at"):
        fields["expires_at"] = expires_at_given(msg["expires_at"])
    memory = await backend.add(msg["content"], **fields)
    return {"memory": memory.to_dict()}


@websocket_command(
    {
        probatio.Required("type"): RESTORE,
        probatio.Required("memories"): probatio.All(
            [dict], probatio.Length(min=1, max=MAX_PAGE)
        ),
    }
)
@_answer
async def ws_restore(
    hass: HomeAssistant,
    connection: ActiveConnection,
    msg: dict[str, Any],
    backend: MemoryOperations,
) -> dict[str, Any] | None:
    """Put deleted memories of the caller's back as they were (ids, times, origin)."""
    for record in msg["memories"]:
        memory_id, scope = record.get("id"), record.get("scope")
        if not isinstance(memory_id, str) or not isinstance(scope, str):
            raise InvalidMemoryError(
                "invalid_import", "each memory needs its id and scope"
            )
        _own_scope(connection, scope)
        existing = await backend.get(memory_id)
        if existing is not None and _mine(connection, existing) is None:
            raise Unauthorized
    result = await backend.import_({"memories": msg["memories"]}, mode="merge")
    return {"restored": result.added + result.updated}
