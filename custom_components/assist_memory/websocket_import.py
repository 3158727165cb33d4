"""Imports larger than one websocket message: the body sent in chunks, then committed.

Home Assistant closes a websocket that receives a message over 4 MiB; a backup of
thousands of memories is larger. The panel sends the import's body (the REST API's
`POST /memory/import` body as JSON text) in parts:

    assist_memory/import/begin  {size}              -> {upload_id}
    assist_memory/import/chunk  {upload_id, data}   (as many as needed)
    assist_memory/import/commit {upload_id}         -> {status, body} as the REST API

Nothing is applied before the commit, which runs the REST API's import (the same
validation and messages). Administrators only, as the panel's other commands. One
upload per user at a time (a new one replaces it), at most the REST API's import limit;
an upload is dropped when its connection closes or nothing arrives for a while.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Final

from homeassistant.components.websocket_api import async_register_command
from homeassistant.components.websocket_api.connection import ActiveConnection
from homeassistant.components.websocket_api.const import ERR_NOT_FOUND
from homeassistant.components.websocket_api.decorators import (
    async_response,
    require_admin,
    websocket_command,
)
from homeassistant.core import CALLBACK_TYPE, HomeAssistant, callback
from homeassistant.helpers.event import async_call_later
from homeassistant.util.hass_dict import HassKey
from homeassistant.util.ulid import ulid_now
import probatio

from .engine.http.aiohttp_requests import json_body
from .engine.http.api import dispatch
from .engine.http.memory_routes import MAX_IMPORT_BYTES
from .engine.http.routing import ApiError, error_answer
from .entry_api_host import EntryApiHost, loaded_entry

BEGIN: Final = "assist_memory/import/begin"
CHUNK: Final = "assist_memory/import/chunk"
COMMIT: Final = "assist_memory/import/commit"
# An upload nothing arrived for in this long is dropped.
ABANDONED_AFTER: Final = timedelta(minutes=5)
ERR_TOO_LARGE: Final = "body_too_large"

UPLOADS: HassKey[dict[str, Upload]] = HassKey("assist_memory_uploads")


@dataclass
class Upload:
    """One import's body as it arrives."""

    id: str
    user_id: str
    size: int
    parts: list[bytes] = field(default_factory=list)
    received: int = 0
    cancel_timer: CALLBACK_TYPE | None = None
    cancel_on_close: CALLBACK_TYPE | None = None


@callback
def async_register_import_commands(hass: HomeAssistant) -> None:
    """Register the commands (once, when the integration is set up)."""
    for command in (ws_begin, ws_chunk, ws_commit):
        async_register_command(hass, command)


def _uploads(hass: HomeAssistant) -> dict[str, Upload]:
    return hass.data.setdefault(UPLOADS, {})


@callback
def _drop(hass: HomeAssistant, upload: Upload) -> None:
    """Forget an upload and its timers (idempotent)."""
    _uploads(hass).pop(upload.id, None)
    if upload.cancel_timer is not None:
        upload.cancel_timer()
        upload.cancel_timer = None


@callback
def _keep_alive(hass: HomeAssistant, upload: Upload) -> None:
    """Drop the upload when nothing more arrives for ABANDONED_AFTER."""
    if upload.cancel_timer is not None:
        upload.cancel_timer()

    @callback
    def abandoned(_now: Any) -> None:
        upload.cancel_timer = None
        _drop(hass, upload)

    upload.cancel_timer = async_call_later(hass, ABANDONED_AFTER, abandoned)


def _mine(
    hass: HomeAssistant, connection: ActiveConnection, msg: dict[str, Any]
) -> Upload | None:
    """The caller's upload of that id; an error is sent when there is none."""
    upload = _uploads(hass).get(msg["upload_id"])
    user = connection.user
    if upload is None or user is None or upload.user_id != user.id:
        connection.send_error(msg["id"], ERR_NOT_FOUND, "There is no such upload")
        return None
    return upload


def _too_large(connection: ActiveConnection, msg_id: int) -> None:
    connection.send_error(
        msg_id,
        ERR_TOO_LARGE,
        f"An import is at most {MAX_IMPORT_BYTES} bytes",
        translation_placeholders={"max_bytes": str(MAX_IMPORT_BYTES)},
    )


@require_admin
@websocket_command(
    {
        probatio.Required("type"): BEGIN,
        probatio.Required("size"): probatio.All(int, probatio.Range(min=1)),
    }
)
@callback
def ws_begin(
    hass: HomeAssistant, connection: ActiveConnection, msg: dict[str, Any]
) -> None:
    """Start an upload of `size` bytes (the caller's earlier one is dropped)."""
    if msg["size"] > MAX_IMPORT_BYTES:
        _too_large(connection, msg["id"])
        return
    user_id = connection.user.id if connection.user else ""
    for earlier in [u for u in _uploads(hass).values() if u.user_id == user_id]:
        _drop(hass, earlier)
    upload = Upload(ulid_now(), user_id, msg["size"])
    _uploads(hass)[upload.id] = upload
    _keep_alive(hass, upload)
    # Called when the connection closes: an upload never outlives its connection.
    connection.subscriptions[msg["id"]] = lambda: _drop(hass, upload)
    connection.send_result(msg["id"], {"upload_id": upload.id})


@require_admin
@websocket_command(
    {
        probatio.Required("type"): CHUNK,
        probatio.Required("upload_id"): str,
        probatio.Required("data"): str,
    }
)
@callback
def ws_chunk(
    hass: HomeAssistant, connection: ActiveConnection, msg: dict[str, Any]
) -> None:
    """One part of the body, in order."""
    if (upload := _mine(hass, connection, msg)) is None:
        return
    part = msg["data"].encode("utf-8", "surrogatepass")
    upload.received += len(part)
    if upload.received > upload.size:
        _drop(hass, upload)
        _too_large(connection, msg["id"])
        return
    upload.parts.append(part)
    _keep_alive(hass, upload)
    connection.send_result(msg["id"], {"received": upload.received})


@require_admin
@websocket_command(
    {probatio.Required("type"): COMMIT, probatio.Required("upload_id"): str}
)
@async_response
async def ws_commit(
    hass: HomeAssistant, connection: ActiveConnection, msg: dict[str, Any]
) -> None:
    """Import the body received: the REST API's answer, {status, body}."""
    if (upload := _mine(hass, connection, msg)) is None:
        return
    _drop(hass, upload)
    if (entry := loaded_entry(hass)) is None:
        connection.send_error(msg["id"], "not_loaded", "Assist Memory is not loaded")
        return
    try:
        body = json_body(b"".join(upload.parts))
    except ApiError as err:
        response = error_answer(err)
    else:
        response = await dispatch(
            EntryApiHost(hass, entry), "POST", "/memory/import", {}, body
        )
    connection.send_result(
        msg["id"], {"status": int(response.status), "body": response.body}
    )
