"""Who is speaking in a turn of the memory agent.

One function, so the speaker identification (a voice device assigned to a person,
presence) replaces the Home Assistant user of the turn in one place.
"""

from __future__ import annotations

from homeassistant.components import conversation


async def async_speaker_user_id(
    user_input: conversation.ConversationInput,
) -> str | None:
    """The Home Assistant user speaking, or None when nobody can tell."""
    return user_input.context.user_id
