"""Who may forget the household's memories by voice: administrators (the default), or anyone.

The engine proposes and settles (`forget_by_voice.py`); the option is Home Assistant's.
"""

from __future__ import annotations

from homeassistant.core import HomeAssistant

from .const import CONF_VOICE_FORGET_HOUSEHOLD, VOICE_FORGET_ANYONE
from .runtime_data import AssistMemoryConfigEntry


async def async_may_forget_household(
    hass: HomeAssistant, entry: AssistMemoryConfigEntry, user_id: str | None
) -> bool:
    """Whether the speaker may forget the household's memories by voice."""
    if entry.options.get(CONF_VOICE_FORGET_HOUSEHOLD) == VOICE_FORGET_ANYONE:
        return True
    if user_id is None:
        return False
    user = await hass.auth.async_get_user(user_id)
    return user is not None and user.is_admin
