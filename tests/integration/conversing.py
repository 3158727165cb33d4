"""Talking to the memory agent in tests: turns, memories, and what the agent got."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta
from pathlib import Path
from typing import Any

from homeassistant.components import conversation
from homeassistant.core import Context, HomeAssistant
from homeassistant.util import dt as dt_util
from pytest_homeassistant_custom_component.common import (
    MockConfigEntry,
    async_fire_time_changed,
)

from custom_components.assist_memory.const import (
    CONF_EXTRACT_MIN_INTERVAL,
    CONF_EXTRACT_MIN_MESSAGES,
    DATA_FOLDER,
    DOMAIN,
)
from custom_components.assist_memory.engine import LocalBackend
from custom_components.assist_memory.engine.conversation.compose import BLOCK_END
from custom_components.assist_memory.options import DEFAULT_OPTIONS

MEMORY_AGENT = "conversation.assist_memory"
# Who `say` speaks as unless told: someone logged in to the app (a turn without a
# user is an unknown speaker, whose facts about themselves wait in Review).
APP_USER = "app-user"
EAGER = {CONF_EXTRACT_MIN_INTERVAL: 0, CONF_EXTRACT_MIN_MESSAGES: 1}


def options(**changes: Any) -> dict[str, Any]:
    """The default options with some changed."""
    return {**DEFAULT_OPTIONS, **changes}


async def say(
    hass: HomeAssistant,
    text: str,
    conversation_id: str | None = None,
    *,
    extra_system_prompt: str | None = None,
    user_id: str | None = APP_USER,
    language: str = "en",
    device_id: str | None = None,
) -> conversation.ConversationResult:
    """One turn with the memory agent; background work (learning) finishes too.

    `user_id` None and a `device_id`: a voice device's turn, as a satellite sends it.
    """
    result = await conversation.async_converse(
        hass,
        text,
        conversation_id,
        Context(user_id=user_id),
        language=language,
        agent_id=MEMORY_AGENT,
        extra_system_prompt=extra_system_prompt,
        device_id=device_id,
    )
    await hass.async_block_till_done()
    return result


async def forget_chat_logs(hass: HomeAssistant) -> None:
    """Let Home Assistant forget its chat logs, as after 5 minutes of silence."""
    async_fire_time_changed(hass, dt_util.utcnow() + timedelta(minutes=6))
    await hass.async_block_till_done()


def layer(system_prompt: str, title: str) -> list[str]:
    """The lines of one layer of the memory block ([] when it is not there)."""
    _, found, rest = system_prompt.partition(f"## {title}\n")
    if not found:
        return []
    return rest.partition(f"\n{BLOCK_END}")[0].partition("\n## ")[0].splitlines()


def earlier_messages(system_prompt: str) -> list[str]:
    """The conversation's earlier messages in the memory block (the rolling window)."""
    return layer(system_prompt, "Earlier in This Conversation")


def speech(result: conversation.ConversationResult) -> str:
    """What the agent answered."""
    return str(result.response.speech["plain"]["speech"])


async def meaning_caught_up(hass: HomeAssistant) -> None:
    """Wait until every memory has its vector (search by meaning is on by default).

    Memories are embedded in the background: a search before then is by words only.
    """
    for entry in hass.config_entries.async_loaded_entries(DOMAIN):
        backend = entry.runtime_data.backend
        if isinstance(backend, LocalBackend) and backend.engine.vectors is not None:
            vectors = backend.engine.vectors
            assert await hass.async_add_executor_job(vectors.wait_until_idle, 120)


async def add(hass: HomeAssistant, content: str, **fields: Any) -> None:
    """Remember something through the service."""
    await hass.services.async_call(
        DOMAIN, "add", {"content": content, **fields}, blocking=True
    )


async def contents(hass: HomeAssistant) -> list[str]:
    """The contents of every memory, sorted."""
    response = await hass.services.async_call(
        DOMAIN, "list", {}, blocking=True, return_response=True
    )
    assert response is not None
    return sorted(m["content"] for m in response["items"])  # type: ignore[union-attr]


async def data_files_containing(
    hass: HomeAssistant, entry: MockConfigEntry, words: Iterable[str]
) -> dict[str, list[str]]:
    """Every file of the data folder holding one of the words (bytes, any case)."""
    await entry.runtime_data.backend.wait_for_background_jobs()
    folder = Path(hass.config.path(DATA_FOLDER))

    def scan() -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            data = path.read_bytes().lower()
            hits = [w for w in words if w.lower().encode() in data]
            if hits:
                found[str(path.relative_to(folder))] = hits
        return found

    return await hass.async_add_executor_job(scan)
