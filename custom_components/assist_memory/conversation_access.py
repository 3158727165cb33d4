"""Whose conversations a Home Assistant user may see and delete.

An administrator, or a call without a user (an automation), works on everyone's; any
other person only on their own messages (the conversation log knows who said what).
"""

from __future__ import annotations

from homeassistant.core import HomeAssistant


async def async_conversation_owner(
    hass: HomeAssistant, user_id: str | None
) -> str | None:
    """The owner to limit conversations to, or None for everyone's."""
    if user_id is None:
        return None
    user = await hass.auth.async_get_user(user_id)
    if user is not None and user.is_admin:
        return None
    return user_id
