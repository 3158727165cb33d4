"""Learning from a conversation when it ends: what the throttle had not learned yet.

The extraction throttle batches messages (by default 60 s and 4 messages between two
extractions); it never drops them. Most voice conversations are one turn, two
messages, so they are learned from here, when the conversation ends:

- Home Assistant ends its chat session (5 minutes of silence);
- its working memory expires (30 minutes), or the memory server restarted: the
  backend is asked every minute;
- Home Assistant starts: every conversation an earlier run left with messages not
  learned (a crash, or a stop cut short) ended;
- Home Assistant stops: every conversation with messages left, before the store
  closes (within `STOP_BUDGET`; what is left then is learned at the next start).

Each runs in the background, stop excepted. The backend hands a message to one batch
only and marks it collected in the conversation log once learned: never twice.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Final

from homeassistant.config_entries import ConfigEntryState
from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers.chat_session import DATA_CHAT_SESSION, current_session
from homeassistant.helpers.event import async_track_time_interval
from homeassistant.helpers.start import async_at_started

from .const import CONF_AUTO_EXTRACT, LOGGER
from .engine import HOUSEHOLD_SCOPE, MemoryEngineError
from .engine.conversation.speaker import UNKNOWN_SPEAKER, owner_speaker
from .engine.conversation.turn_settings import LearnSettings
from .learning import async_learn_batch
from .runtime_data import AssistMemoryConfigEntry

WATCH_INTERVAL: Final = timedelta(minutes=1)
STOP_BUDGET: Final = 30.0


@callback
def async_learn_when_session_ends(
    hass: HomeAssistant,
    entry: AssistMemoryConfigEntry,
    conversation_id: str,
    *,
    speaker_unknown: bool = False,
    language: str | None = None,
) -> None:
    """Learn what is left of the conversation when Home Assistant ends its chat session.

    Nothing when no chat session holds it (its working memory's end learns then).
    """
    watched = entry.runtime_data.learn_at_session_end
    if conversation_id in watched:
        return
    session = current_session.get()
    if session is None or session.conversation_id != conversation_id:
        session = hass.data.get(DATA_CHAT_SESSION, {}).get(conversation_id)
    if session is None:
        return
    watched.add(conversation_id)

    @callback
    def session_ended() -> None:
        watched.discard(conversation_id)
        if entry.state is ConfigEntryState.LOADED:
            entry.async_create_task(
                hass,
                async_learn_from_ended(
                    hass,
                    entry,
                    conversation_id,
                    speaker_unknown=speaker_unknown,
                    language=language,
                ),
                f"assist_memory_ended_{conversation_id}",
            )

    session.async_on_cleanup(session_ended)


@callback
def async_watch_ended_conversations(
    hass: HomeAssistant, entry: AssistMemoryConfigEntry
) -> None:
    """Learn from ended conversations every minute, and once Home Assistant started."""

    @callback
    def look(_now: datetime) -> None:
        entry.async_create_task(
            hass,
            async_learn_from_ended_conversations(hass, entry),
            "assist_memory_ended_conversations",
        )

    @callback
    def started(_hass: HomeAssistant) -> None:
        # Home Assistant's chat sessions of before did not outlive it: every
        # conversation with messages left ended (a crash, or a stop cut short).
        entry.async_create_task(
            hass,
            async_learn_from_ended_conversations(hass, entry, every=True),
            "assist_memory_left_conversations",
        )

    entry.async_on_unload(
        async_track_time_interval(hass, look, WATCH_INTERVAL, cancel_on_shutdown=True)
    )
    # After the start, which it never delays.
    entry.async_on_unload(async_at_started(hass, started))


async def async_learn_before_stop(
    hass: HomeAssistant, entry: AssistMemoryConfigEntry
) -> None:
    """Home Assistant stops: every conversation ends; learn what they have left."""
    try:
        async with asyncio.timeout(STOP_BUDGET):
            await async_learn_from_ended_conversations(hass, entry, every=True)
    except TimeoutError:
        LOGGER.info("Stopping: what is left to learn is learned at the next start")


async def async_learn_from_ended_conversations(
    hass: HomeAssistant, entry: AssistMemoryConfigEntry, *, every: bool = False
) -> None:
    """Learn from each ended conversation (with `every`, from all of them)."""
    try:
        ended = await entry.runtime_data.backend.ended_conversations(every=every)
    except MemoryEngineError as err:
        # A memory server away: asked again in a minute.
        LOGGER.debug("Could not look for ended conversations: %s", err.message)
        return
    for conversation in ended:
        await async_learn_from_ended(
            hass,
            entry,
            conversation.session_id,
            speaker_unknown=conversation.speaker_unknown,
        )


async def async_learn_from_ended(
    hass: HomeAssistant,
    entry: AssistMemoryConfigEntry,
    session_id: str,
    *,
    speaker_unknown: bool = False,
    language: str | None = None,
) -> None:
    """Learn from what an ended conversation has left, whatever the throttle says.

    With learning off (`auto_extract`), it is let go unlearned.
    """
    backend = entry.runtime_data.backend
    settings = LearnSettings.from_options(entry.options)
    try:
        batch = await backend.extraction_batch(session_id, settings, ended=True)
        if batch is not None and not entry.options.get(CONF_AUTO_EXTRACT, True):
            await backend.learn(
                batch,
                [],
                scope=HOUSEHOLD_SCOPE,
                settings=settings,
                speaker_unknown=True,
            )
            return
    except MemoryEngineError as err:
        LOGGER.warning("Learning from a conversation failed: %s", err.message)
        return
    if batch is not None:
        await async_learn_batch(
            hass,
            entry,
            replace(batch, language=language or batch.language),
            UNKNOWN_SPEAKER if speaker_unknown else owner_speaker(batch.user_id),
        )
