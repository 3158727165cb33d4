"""People in tests: real Home Assistant users who are not administrators, on websockets."""

from __future__ import annotations

from typing import Any

from homeassistant.auth.const import GROUP_ID_USER
from homeassistant.core import HomeAssistant
from pytest_homeassistant_custom_component.common import CLIENT_ID, MockUser
from pytest_homeassistant_custom_component.typing import (
    MockHAClientWebSocket,
    WebSocketGenerator,
)


class Person:
    """A user who is not an administrator, with an open websocket connection."""

    def __init__(self, user: MockUser, client: MockHAClientWebSocket) -> None:
        self.user = user
        self.client = client

    async def ask(self, command: str, **data: Any) -> dict[str, Any]:
        """Send one of our websocket commands; the answer."""
        return await self.send({"type": f"assist_memory/{command}", **data})

    async def send(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send any websocket message; the answer."""
        await self.client.send_json_auto_id(message)
        answer: dict[str, Any] = await self.client.receive_json()
        return answer


async def person(
    hass: HomeAssistant, hass_ws_client: WebSocketGenerator, name: str
) -> Person:
    """A new user in the "Users" group, logged in over the websocket API."""
    return await connect(hass, hass_ws_client, await user_named(hass, name))


async def user_named(hass: HomeAssistant, name: str) -> MockUser:
    """A new user in the "Users" group (not logged in yet)."""
    user = MockUser(name=name, groups=[await hass.auth.async_get_group(GROUP_ID_USER)])
    user.add_to_hass(hass)
    return user


async def connect(
    hass: HomeAssistant, hass_ws_client: WebSocketGenerator, user: MockUser
) -> Person:
    """`user` logged in over the websocket API."""
    refresh = await hass.auth.async_create_refresh_token(user, CLIENT_ID)
    token = hass.auth.async_create_access_token(refresh)
    return Person(user, await hass_ws_client(hass, token))
