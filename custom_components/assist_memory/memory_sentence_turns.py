"""Memory sentences ("remember that ...", "forget ...") kept as turns of the conversation.

The memory agent carries them out itself when it wraps Home Assistant's own agent; the
sentence and the answer then go to the conversation log like any turn: shown in
Sessions, titling a conversation they begin, and opened from the memory they stored.
Nothing is learned from them again. "Stop remembering" is not kept (the paused
conversation keeps nothing).
"""

from __future__ import annotations

from homeassistant.core import HomeAssistant, callback

from .const import LOGGER
from .engine import MemoryEngineError
from .runtime_data import AssistMemoryConfigEntry


@callback
def async_keep_memory_sentence(
    hass: HomeAssistant,
    entry: AssistMemoryConfigEntry,
    session_id: str,
    *,
    said: str,
    reply: str,
    user_id: str | None,
    memory_ids: list[str],
) -> None:
    """Keep the sentence, its answer and the memories it said, once it has gone back."""

    async def keep() -> None:
        try:
            await entry.runtime_data.backend.record_memory_sentence(
                session_id=session_id,
                said=said,
                reply=reply,
                user_id=user_id,
                memory_ids=memory_ids,
            )
        except MemoryEngineError as err:
            LOGGER.warning("Assist Memory could not keep a sentence: %s", err.message)

    entry.async_create_task(
        hass, keep(), f"assist_memory_sentence_{session_id}", eager_start=False
    )
