"""Forgetting by voice in Home Assistant: who may, and the question waiting for "yes".

The engine proposes (`forget_by_voice.propose_forget`) and settles; this module keeps
each conversation's proposal until its next sentence (for a few minutes, like Home
Assistant's chat sessions) and applies the option of who may forget the household's
memories by voice: administrators (the default) or anyone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
import time
from typing import Final

from homeassistant.core import HomeAssistant

from .const import CONF_VOICE_FORGET_HOUSEHOLD, VOICE_FORGET_ANYONE
from .engine.backend.forget_by_voice import ForgetProposal
from .runtime_data import AssistMemoryConfigEntry

# An unanswered question is dropped after this long (Home Assistant ends a chat
# session after 5 minutes of silence).
PROPOSAL_SECONDS: Final = 300.0


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


@dataclass
class WaitingForgets:
    """The proposal each conversation waits on, with when it was made."""

    _waiting: dict[str, tuple[ForgetProposal, float]] = field(default_factory=dict)

    def ask(self, conversation_id: str, proposal: ForgetProposal) -> None:
        """Wait for the answer to a proposal in a conversation."""
        self._waiting[conversation_id] = (proposal, time.monotonic())

    def answer(self, conversation_id: str) -> ForgetProposal | None:
        """The proposal this sentence answers (taken away), None when none waits."""
        waiting = self._waiting.pop(conversation_id, None)
        if waiting is None:
            return None
        proposal, asked = waiting
        return proposal if time.monotonic() - asked <= PROPOSAL_SECONDS else None
