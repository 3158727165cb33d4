"""`assist_memory/people`: the names the memory manager shows for memories' owners.

A memory's scope is a Home Assistant user's id, or, for a person without a user (a
child with only a person entity, see "Who is speaking"), the person's entity id. The
panel names it as Home Assistant does: the person entity of that user (its name and
picture) when there is one, else the user's own name; never a number. An
administrator gets every user who is not a system user and every person without a
user; anyone else only themselves ("About me" shows nobody else).
"""

from __future__ import annotations

from typing import Any, Final

from homeassistant.auth.models import User
from homeassistant.components.websocket_api import async_register_command
from homeassistant.components.websocket_api.connection import ActiveConnection
from homeassistant.components.websocket_api.decorators import (
    async_response,
    websocket_command,
)
from homeassistant.core import HomeAssistant, callback
import probatio

PEOPLE: Final = "assist_memory/people"


@callback
def async_register_people_commands(hass: HomeAssistant) -> None:
    """Register the command (once, when the integration is set up)."""
    async_register_command(hass, ws_people)


def _people_entities(hass: HomeAssistant) -> dict[str, dict[str, Any]]:
    """Each user's person entity, by user id: its name and picture."""
    found: dict[str, dict[str, Any]] = {}
    for state in hass.states.async_all("person"):
        if user_id := state.attributes.get("user_id"):
            found[user_id] = {
                "name": state.name,
                "picture": state.attributes.get("entity_picture"),
            }
    return found


def describe(user: User, entities: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """A user as the panel names them: the person entity first, else the user."""
    entity = entities.get(user.id, {})
    return {
        "id": user.id,
        "name": entity.get("name") or user.name or "",
        "picture": entity.get("picture"),
        "is_admin": user.is_admin,
    }


@websocket_command({probatio.Required("type"): PEOPLE})
@async_response
async def ws_people(
    hass: HomeAssistant, connection: ActiveConnection, msg: dict[str, Any]
) -> None:
    """The people the caller may see, each with their name and picture."""
    caller = connection.user
    entities = _people_entities(hass)
    if caller.is_admin:
        users = [
            user
            for user in await hass.auth.async_get_users()
            if not user.system_generated and user.is_active
        ]
    else:
        users = [caller]
    described = [describe(user, entities) for user in users]
    if caller.is_admin:
        described += [
            {
                "id": state.entity_id,
                "name": state.name,
                "picture": state.attributes.get("entity_picture"),
                "is_admin": False,
            }
            for state in hass.states.async_all("person")
            if not state.attributes.get("user_id")
        ]
    people = sorted(described, key=lambda person: person["name"].casefold())
    connection.send_result(msg["id"], {"people": people, "me": caller.id})
