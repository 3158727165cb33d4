"""Review's "Who said this?" over the websocket, and who speaks at which device.

- `assist_memory/held/list`: the facts held for Review (any reason), each with the
  name of the device it was said at, and the people with their voice devices (the
  memory manager's read-only summary of "Who is speaking").
- `assist_memory/held/assign`: a held fact becomes a person's memory, the household's,
  or is forgotten (`to`: a person's entity id, "household", "forget", or "keep":
  for whom a full memory's fact was meant); the answer
  has the fact as it was and the memory it became, for Undo.
- `assist_memory/held/undo`: the fact is held again and that memory removed.

Administrators only: a held fact is nobody's yet, so only those who decide what is
the household's see it.
"""

from __future__ import annotations

from typing import Any, Final

from homeassistant.components.websocket_api import async_register_command
from homeassistant.components.websocket_api.connection import ActiveConnection
from homeassistant.components.websocket_api.const import (
    ERR_INVALID_FORMAT,
    ERR_NOT_FOUND,
)
from homeassistant.components.websocket_api.decorators import (
    async_response,
    require_admin,
    websocket_command,
)
from homeassistant.core import HomeAssistant, callback
import probatio

from .engine import HOUSEHOLD_SCOPE, MemoryEngineError
from .engine.backend.review import settle_held, undo_settle
from .engine.conversation.held_facts import HeldFact
from .entry_api_host import loaded_entry
from .runtime_data import AssistMemoryConfigEntry
from .speaker import (
    CONF_GUEST_DEVICES,
    CONF_PRESENCE,
    PERSON_DOMAIN,
    devices_option_key,
)
from .voice_devices import device_name

LIST: Final = "assist_memory/held/list"
ASSIGN: Final = "assist_memory/held/assign"
UNDO: Final = "assist_memory/held/undo"
FORGET: Final = "forget"
# A full memory's fact: kept for whom it was meant (its own scope).
KEEP: Final = "keep"


@callback
def async_register_held_commands(hass: HomeAssistant) -> None:
    """Register the commands (once, when the integration is set up)."""
    for command in (ws_list, ws_assign, ws_undo):
        async_register_command(hass, command)


def _entry(
    connection: ActiveConnection, msg: dict[str, Any]
) -> AssistMemoryConfigEntry | None:
    entry = loaded_entry(connection.hass)
    if entry is None:
        connection.send_error(msg["id"], "not_loaded", "Assist Memory is not loaded")
    return entry


def people(hass: HomeAssistant, entry: AssistMemoryConfigEntry) -> list[dict[str, Any]]:
    """Each person, the scope of their memories, and the devices that speak for them."""
    found = []
    for state in sorted(hass.states.async_all(PERSON_DOMAIN), key=lambda s: s.name):
        user_id = state.attributes.get("user_id")
        devices = entry.options.get(devices_option_key(state.entity_id)) or []
        found.append(
            {
                "entity_id": state.entity_id,
                "name": state.name,
                "user_id": user_id,
                "scope": user_id or state.entity_id,
                "home": state.state == "home",
                "devices": [_device(hass, d) for d in devices],
            }
        )
    return found


def _device(hass: HomeAssistant, device_id: str | None) -> dict[str, Any] | None:
    if device_id is None:
        return None
    return {"id": device_id, "name": device_name(hass, device_id)}


@require_admin
@websocket_command({probatio.Required("type"): LIST})
@async_response
async def ws_list(
    hass: HomeAssistant, connection: ActiveConnection, msg: dict[str, Any]
) -> None:
    """The held facts, and who speaks at which device."""
    if (entry := _entry(connection, msg)) is None:
        return
    try:
        held = await entry.runtime_data.backend.held_facts()
    except MemoryEngineError as err:
        connection.send_error(msg["id"], err.code, err.message)
        return
    connection.send_result(
        msg["id"],
        {
            "held": [
                {**fact.as_dict(), "device": _device(hass, fact.device_id)}
                for fact in held
            ],
            "people": people(hass, entry),
            "guest_devices": [
                _device(hass, d) for d in entry.options.get(CONF_GUEST_DEVICES) or []
            ],
            "presence": bool(entry.options.get(CONF_PRESENCE)),
        },
    )


@require_admin
@websocket_command(
    {
        probatio.Required("type"): ASSIGN,
        probatio.Required("held_id"): str,
        probatio.Required("to"): str,
    }
)
@async_response
async def ws_assign(
    hass: HomeAssistant, connection: ActiveConnection, msg: dict[str, Any]
) -> None:
    """Make a held fact a person's memory, the household's, or forget it."""
    if (entry := _entry(connection, msg)) is None:
        return
    to = msg["to"]
    scopes = {p["entity_id"]: p["scope"] for p in people(hass, entry)}
    if to not in (*scopes, HOUSEHOLD_SCOPE, FORGET, KEEP):
        connection.send_error(msg["id"], ERR_INVALID_FORMAT, f"unknown person {to}")
        return
    scope = None if to == FORGET else scopes.get(to, HOUSEHOLD_SCOPE)
    try:
        if to == KEEP:
            # Whose it is is known (a full memory's fact): stored for them.
            scope = await _own_scope(entry, msg["held_id"])
            if scope is None:
                connection.send_error(msg["id"], ERR_NOT_FOUND, "no such held fact")
                return
        settled = await settle_held(entry.runtime_data.backend, msg["held_id"], scope)
    except MemoryEngineError as err:
        connection.send_error(msg["id"], err.code, err.message)
        return
    if settled is None:
        connection.send_error(msg["id"], ERR_NOT_FOUND, "no such held fact")
        return
    connection.send_result(
        msg["id"],
        {
            "held": settled.fact.as_dict(),
            "memory": None if settled.memory is None else settled.memory.to_dict(),
        },
    )


async def _own_scope(entry: AssistMemoryConfigEntry, held_id: str) -> str | None:
    """The scope a held fact was meant for, when it has one."""
    held = await entry.runtime_data.backend.held_facts()
    return next((f.scope for f in held if f.id == held_id), None)


@require_admin
@websocket_command(
    {
        probatio.Required("type"): UNDO,
        probatio.Required("held"): dict,
        probatio.Optional("memory_id"): probatio.Any(str, None),
    }
)
@async_response
async def ws_undo(
    hass: HomeAssistant, connection: ActiveConnection, msg: dict[str, Any]
) -> None:
    """Hold a settled fact again (Undo), removing the memory it became."""
    if (entry := _entry(connection, msg)) is None:
        return
    try:
        fact = HeldFact.from_dict(msg["held"])
        await undo_settle(entry.runtime_data.backend, fact, msg.get("memory_id"))
    except MemoryEngineError as err:
        connection.send_error(msg["id"], err.code, err.message)
        return
    connection.send_result(msg["id"], {"held": fact.as_dict()})
