"""Learning from conversations with other agents, by following the chat logs.

Optional (off by default): people may talk to an agent other than the memory agent.
Their user and assistant messages are persisted like the memory agent's, and the
usual throttled extraction learns from them. Conversations the memory agent handles
itself are skipped, so nothing is learned twice.

Home Assistant's chat-log events say nothing of who spoke (the user is known only
inside the agent's own call), so the messages are kept as those of a turn without a
user, and nothing personal is learned from them: a fact about the speaker ("my
...", "I ...") is held for Review ("Who said this?"), no profile line is kept; only
what concerns the household or someone named is stored. Kept for the household,
anyone's "my dentist appointment" would reach everyone.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from homeassistant.components.conversation.chat_log import async_subscribe_chat_logs
from homeassistant.components.conversation.const import ChatLogEventType
from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers.chat_session import current_session

from .const import CONF_LEARN_FROM_OTHER_AGENTS, LOGGER
from .engine import MemoryEngineError
from .learning import async_schedule_extraction
from .learning_at_the_end import async_learn_when_session_ends
from .runtime_data import AssistMemoryConfigEntry
from .speaker import async_resolve_speaker


@callback
def async_follow_if_asked(hass: HomeAssistant, entry: AssistMemoryConfigEntry) -> None:
    """Start or stop following other agents' conversations, as the options say."""
    data = entry.runtime_data
    if not entry.options.get(CONF_LEARN_FROM_OTHER_AGENTS):
        async_stop_following(entry)
    elif data.stop_following is None:
        data.stop_following = _async_follow_other_agents(hass, entry)


@callback
def async_mark_own_conversation(
    entry: AssistMemoryConfigEntry, conversation_id: str
) -> None:
    """Keep the memory agent's conversation out of following while its session lasts.

    Let go when Home Assistant ends the chat session, so the set stays small.
    """
    own = entry.runtime_data.own_conversations
    if conversation_id in own:
        return
    own.add(conversation_id)
    if (session := current_session.get()) is not None:
        session.async_on_cleanup(lambda: own.discard(conversation_id))


@callback
def async_stop_following(entry: AssistMemoryConfigEntry) -> None:
    """Stop following other agents' conversations (nothing when not following)."""
    if (stop := entry.runtime_data.stop_following) is not None:
        stop()
        entry.runtime_data.stop_following = None


@callback
def _async_follow_other_agents(
    hass: HomeAssistant, entry: AssistMemoryConfigEntry
) -> Callable[[], None]:
    """Follow every chat log; returns the function that stops following.

    A chat log reports its whole transcript when a turn of an existing conversation
    ends; messages not seen before are kept. (The first turn of a conversation is
    reported with the second.)
    """
    seen: dict[str, int] = {}
    # Notes are kept in the order the chat logs reported them.
    in_order = asyncio.Lock()

    @callback
    def on_chat_log(
        conversation_id: str,
        event_type: ChatLogEventType,
        data: dict[str, Any],
    ) -> None:
        if event_type is ChatLogEventType.DELETED:
            seen.pop(conversation_id, None)
            return
        if event_type is not ChatLogEventType.UPDATED:
            return
        if conversation_id in entry.runtime_data.own_conversations:
            return
        messages = [
            (item.get("role"), item.get("content"))
            for item in (data.get("chat_log") or {}).get("content", [])
            if item.get("role") in ("user", "assistant")
            and isinstance(item.get("content"), str)
            and item["content"].strip()
        ]
        new = messages[seen.get(conversation_id, 0) :]
        seen[conversation_id] = len(messages)
        if new:
            entry.async_create_task(
                hass,
                _async_note(hass, entry, conversation_id, new, in_order),
                f"assist_memory_follow_{conversation_id}",
            )

    return async_subscribe_chat_logs(hass, on_chat_log)


async def _async_note(
    hass: HomeAssistant,
    entry: AssistMemoryConfigEntry,
    conversation_id: str,
    messages: list[tuple[str, str]],
    in_order: asyncio.Lock,
) -> None:
    async with in_order:
        try:
            for role, text in messages:
                await entry.runtime_data.backend.note_message(
                    conversation_id, role, text
                )
        except MemoryEngineError as err:
            LOGGER.warning("Could not keep a message of another agent: %s", err.message)
            return
    # The chat-log events do not say who spoke (see the module's docstring).
    speaker = await async_resolve_speaker(hass, entry, user_id=None, device_id=None)
    async_schedule_extraction(hass, entry, conversation_id, speaker)
    async_learn_when_session_ends(hass, entry, conversation_id, speaker_unknown=True)
