"""Saving the options flow applies the options to the running memory, as the REST API.

The entry is not reloaded for a setting that can change live: the conversations in
progress keep their working memory, the extraction throttle remembers when it last
learned, and the next turn already uses the new value. Only a setting the memory is
opened with (the embedding endpoint) reloads the entry.
"""

from __future__ import annotations

from homeassistant.config_entries import ConfigEntry, ConfigEntryState
from homeassistant.core import HomeAssistant
import pytest

from custom_components.assist_memory.const import (
    CONF_AGENT_ID,
    CONF_EMBEDDING_MODEL,
    CONF_EMBEDDING_URL,
    CONF_EXTRACT_MIN_INTERVAL,
    CONF_EXTRACT_MIN_MESSAGES,
    CONF_LEARN_FROM_OTHER_AGENTS,
    CONF_MAX_ITEMS,
    CONF_PROMPT_MODE,
)
from tests.support.embedding_server import EmbeddingServer

from .agents import AGENT_ENTITY_ID, LlmEntities
from .conversing import add, contents, options, say
from .test_options_effects import change

# Learns at the first message, then not again for an hour.
THROTTLED = options(
    **{
        CONF_AGENT_ID: AGENT_ENTITY_ID,
        CONF_EXTRACT_MIN_INTERVAL: 3600,
        CONF_EXTRACT_MIN_MESSAGES: 1,
    }
)


@pytest.mark.parametrize("entry_options", [THROTTLED])
async def test_working_memory_and_throttle_survive_an_options_change(
    hass: HomeAssistant, llm: LlmEntities, loaded_entry: ConfigEntry
) -> None:
    backend = loaded_entry.runtime_data.backend
    await add(hass, "Anna takes her coffee black")
    first = await say(hass, "My favourite colour is blue")
    session = first.conversation_id
    assert await contents(hass) == [
        "Anna takes her coffee black",
        "The user's favourite colour is blue",
    ]
    assert await backend.working_memory(session) is not None

    await change(hass, loaded_entry, **{CONF_PROMPT_MODE: "prefix", CONF_MAX_ITEMS: 3})

    assert loaded_entry.state is ConfigEntryState.LOADED
    assert loaded_entry.runtime_data.backend is backend
    assert await backend.working_memory(session) is not None
    assert session in loaded_entry.runtime_data.own_conversations
    # The next turn uses the new prompt mode ...
    await say(hass, "How does Anna take her coffee?", session)
    assert llm.agent.turns[-1].text.startswith("<long_term_memory>\n")
    # ... and the throttle still holds: learned an hour ago at the earliest.
    await say(hass, "My dog is called Rex", session)
    assert "The user's dog is called Rex" not in await contents(hass)
    # The store enforces the new limit at once.
    assert (await backend.stats()).max_items == 3


@pytest.mark.parametrize("entry_options", [options(**{CONF_EXTRACT_MIN_INTERVAL: 0})])
async def test_following_other_agents_is_switched_without_a_reload(
    hass: HomeAssistant, llm: LlmEntities, loaded_entry: ConfigEntry
) -> None:
    backend = loaded_entry.runtime_data.backend
    await change(hass, loaded_entry, **{CONF_LEARN_FROM_OTHER_AGENTS: True})
    await change(hass, loaded_entry, **{CONF_LEARN_FROM_OTHER_AGENTS: False})
    await change(hass, loaded_entry, **{CONF_LEARN_FROM_OTHER_AGENTS: True})
    assert loaded_entry.runtime_data.backend is backend
    assert loaded_entry.state is ConfigEntryState.LOADED


@pytest.mark.usefixtures("socket_enabled")
async def test_a_new_embedding_endpoint_reloads_the_entry(
    hass: HomeAssistant,
    loaded_entry: ConfigEntry,
) -> None:
    backend = loaded_entry.runtime_data.backend
    with EmbeddingServer() as server:
        await change(
            hass,
            loaded_entry,
            **{
                CONF_EMBEDDING_URL: server.base_url,
                CONF_EMBEDDING_MODEL: "nomic-embed-text",
            },
        )
    assert loaded_entry.state is ConfigEntryState.LOADED
    assert loaded_entry.runtime_data.backend is not backend
