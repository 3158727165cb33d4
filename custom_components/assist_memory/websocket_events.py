"""`assist_memory/subscribe`: the memory manager panel hears when the memories change.

An administrator's panel subscribes once; after every change of the loaded entry's
memories, and after every recorded conversation turn, it gets an event
`{"changed": true}` (never any content: the panel asks for what it shows) and
refreshes its list, counts and conversations. The subscription ends with the
websocket or an `unsubscribe_events`; when the entry unloads, a last event says
`ended` and the panel subscribes again.

`assist_memory/me/subscribe` is the same for "About me", for any user: the memories'
changes, and the turns of the caller's own conversations only.
"""

from __future__ import annotations

from typing import Any, Final

from homeassistant.components.websocket_api import async_register_command
from homeassistant.components.websocket_api.connection import ActiveConnection
from homeassistant.components.websocket_api.decorators import (
    require_admin,
    websocket_command,
)
from homeassistant.components.websocket_api.messages import (
    event_message,
    result_message,
)
from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers.dispatcher import async_dispatcher_connect
import probatio

from .const import SIGNAL_TURN_RECORDED
from .entry_api_host import loaded_entry

SUBSCRIBE: Final = "assist_memory/subscribe"
SUBSCRIBE_MINE: Final = "assist_memory/me/subscribe"


@callback
def async_register_event_commands(hass: HomeAssistant) -> None:
    """Register the subscription command."""
    async_register_command(hass, ws_subscribe)
    async_register_command(hass, ws_subscribe_mine)


@require_admin
@websocket_command({probatio.Required("type"): SUBSCRIBE})
@callback
def ws_subscribe(
    hass: HomeAssistant, connection: ActiveConnection, msg: dict[str, Any]
) -> None:
    """Send an event after every change of the memories, until unsubscribed."""
    _subscribe(hass, connection, msg, speaker=None)


@websocket_command({probatio.Required("type"): SUBSCRIBE_MINE})
@callback
def ws_subscribe_mine(
    hass: HomeAssistant, connection: ActiveConnection, msg: dict[str, Any]
) -> None:
    """The same for the caller's own view: their turns, not other people's."""
    _subscribe(hass, connection, msg, speaker=connection.user.id)


@callback
def _subscribe(
    hass: HomeAssistant,
    connection: ActiveConnection,
    msg: dict[str, Any],
    *,
    speaker: str | None,
) -> None:
    """Events after the memories' changes and the turns of `speaker` (None: all)."""
    if (entry := loaded_entry(hass)) is None:
        connection.send_error(msg["id"], "not_loaded", "Assist Memory is not loaded")
        return

    @callback
    def changed() -> None:
        connection.send_message(event_message(msg["id"], {"changed": True}))

    @callback
    def turn(user_id: str | None) -> None:
        if speaker is None or user_id == speaker:
            changed()

    stop_memories = entry.runtime_data.backend.add_listener(changed)
    stop_turns = async_dispatcher_connect(hass, SIGNAL_TURN_RECORDED, turn)

    @callback
    def remove() -> None:
        stop_memories()
        stop_turns()

    @callback
    def ended() -> None:
        """The entry unloads (a reload, new options): the panel subscribes again."""
        remove()
        if connection.subscriptions.pop(msg["id"], None) is not None:
            connection.send_message(
                event_message(msg["id"], {"changed": True, "ended": True})
            )

    connection.subscriptions[msg["id"]] = remove
    entry.async_on_unload(ended)
    connection.send_message(result_message(msg["id"]))
