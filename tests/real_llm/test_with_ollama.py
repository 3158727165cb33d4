"""Assist Memory wrapping Home Assistant's `ollama` agent, on a real small model.

Home Assistant's own `ollama` integration (a config entry with a conversation
subentry given the Assist API and Assist Memory's tools, and an AI Task subentry)
talks to the model over the Ollama API; the memory agent wraps the Ollama agent and
learns with the Ollama AI Task. The model answers greedily with a fixed seed, so a
run gives the same answers; what is asserted is what must hold whatever it says:
nothing nobody said is kept, an answer is never learnt back, and what a person said
is.
"""

from __future__ import annotations

import re
from typing import Any

from homeassistant.config_entries import ConfigSubentryData
from homeassistant.const import CONF_LLM_HASS_API, CONF_MODEL, CONF_URL
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er, llm
from homeassistant.setup import async_setup_component
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

# Home Assistant's ollama integration needs the `ollama` package, which only
# `script/test-real-llm` installs: without it the tier is skipped, as without the model.
pytest.importorskip("ollama", reason="the real-LLM tier: run script/test-real-llm")
from homeassistant.components.ollama.config_flow import OllamaConfigFlow

from custom_components.assist_memory.const import (
    CONF_AGENT_ID,
    CONF_EXTRACTOR_ENTITY,
    DOMAIN,
)
from custom_components.assist_memory.diagnostics import (
    async_get_config_entry_diagnostics,
)
from tests.integration.conversing import (
    EAGER,
    add,
    contents,
    forget_chat_logs,
    options,
    say,
)

from .conftest import MODEL_NAME, OllamaProcess

USER = "real-llm-user"
# Home Assistant's ollama client reaches the model's API on 127.0.0.1.
pytestmark = pytest.mark.usefixtures("socket_enabled")


async def _set_up(
    hass: HomeAssistant, api: OllamaProcess
) -> tuple[MockConfigEntry, str, str]:
    """The Ollama entry (agent and AI Task), and Assist Memory wrapping its agent."""
    assert await async_setup_component(hass, "homeassistant", {})
    ollama_entry = MockConfigEntry(
        domain="ollama",
        # As its config flow makes it today (an older version is migrated first).
        version=OllamaConfigFlow.VERSION,
        minor_version=OllamaConfigFlow.MINOR_VERSION,
        data={CONF_URL: api.url},
        subentries_data=[
            ConfigSubentryData(
                data={
                    CONF_MODEL: MODEL_NAME,
                    CONF_LLM_HASS_API: [llm.LLM_API_ASSIST, DOMAIN],
                },
                subentry_type="conversation",
                title="Ollama Conversation",
                unique_id=None,
            ),
            ConfigSubentryData(
                data={CONF_MODEL: MODEL_NAME},
                subentry_type="ai_task_data",
                title="Ollama AI Task",
                unique_id=None,
            ),
        ],
    )
    ollama_entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(ollama_entry.entry_id)
    await hass.async_block_till_done()
    entities = er.async_entries_for_config_entry(
        er.async_get(hass), ollama_entry.entry_id
    )
    agent = next(e.entity_id for e in entities if e.domain == "conversation")
    task = next(e.entity_id for e in entities if e.domain == "ai_task")
    memory = MockConfigEntry(
        domain=DOMAIN,
        title="Assist Memory",
        data={"storage": "embedded"},
        options=options(**{CONF_AGENT_ID: agent, CONF_EXTRACTOR_ENTITY: task}, **EAGER),
    )
    memory.add_to_hass(hass)
    assert await hass.config_entries.async_setup(memory.entry_id)
    await hass.async_block_till_done()
    return memory, agent, task


async def _end_conversations(hass: HomeAssistant) -> None:
    """Home Assistant ends its chat sessions; learning at their end finishes."""
    await forget_chat_logs(hass)
    await hass.async_block_till_done()


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.casefold()))


# What a person says, and the words a memory learnt from it may be about.
SAID = [
    "My son Leo plays football on Saturdays.",
    "By the way, our wifi password is hunter2.",
    "We got a new dishwasher last week.",
]
SAID_WORDS = _words(" ".join(SAID))
# Words of what the model invented in an earlier run, or its instructions' examples.
NOT_SAID = {"kitchen", "study", "router", "switch", "shed", "flowerpot", "oat"}


async def test_a_conversation_keeps_what_people_said_and_nothing_else(
    hass: HomeAssistant, ollama_api: OllamaProcess
) -> None:
    memory, _, _ = await _set_up(hass, ollama_api)
    for text in SAID:
        result = await say(hass, text, "home", user_id=USER)
        assert result.response.speech["plain"]["speech"]
    await _end_conversations(hass)

    kept = await contents(hass)
    assert any({"leo", "football"} <= _words(m) for m in kept), kept
    for content in kept:
        assert "hunter2" not in content
        assert not _words(content) & NOT_SAID, content
        # Most words of a kept memory were said (the subject words aside).
        words = _words(content) - {"the", "user", "s", "household", "is", "a", "on"}
        assert len(words & SAID_WORDS) * 2 >= len(words), content
    report = await async_get_config_entry_diagnostics(hass, memory)
    assert set(report["learning"]) == {"facts_not_said", "answers_said_back"}


async def test_an_answer_uses_a_memory_and_is_not_learnt_back(
    hass: HomeAssistant, ollama_api: OllamaProcess
) -> None:
    await _set_up(hass, ollama_api)
    await add(hass, "The spare key is under the blue flowerpot")

    result = await say(hass, "Where is the spare key?", "key", user_id=USER)
    await _end_conversations(hass)

    assert "flowerpot" in result.response.speech["plain"]["speech"].casefold()
    kept = await contents(hass)
    assert [m for m in kept if "spare key" in m.casefold()] == [
        "The spare key is under the blue flowerpot"
    ]


def _calls(asked: list[dict[str, Any]], tool: str) -> list[dict[str, Any]]:
    """The calls of one of our tools in the requests' answers.

    Home Assistant names a tool by its API ("assist-memory__append_memory").
    """
    return [
        call["function"]
        for request in asked
        for call in request["tool_calls"]
        if call["function"]["name"].rsplit("__", 1)[-1] == tool
    ]


def _tool_results(asked: list[dict[str, Any]]) -> list[str]:
    """What the tools answered, as the model was given it next."""
    return [
        message["content"]
        for request in asked
        for message in request["messages"] or []
        if message.get("role") == "tool"
    ]


async def test_the_memory_tools_are_called_when_asked(
    hass: HomeAssistant, ollama_api: OllamaProcess
) -> None:
    await _set_up(hass, ollama_api)
    before = len(ollama_api.requests())

    await say(
        hass,
        "Call the append_memory tool to remember this: the recycling bin goes out"
        " on Thursdays.",
        "tools",
        user_id=USER,
    )

    asked = ollama_api.requests()[before:]
    calls = _calls(asked, "append_memory")
    assert calls, [r["content"] for r in asked]
    # The tool ran: its answer went back to the model, and the memory is there.
    assert any(
        '"stored"' in result and "recycling" in result.casefold()
        for result in _tool_results(asked)
    )
    assert any("recycling" in m.casefold() for m in await contents(hass))


@pytest.mark.xfail(
    reason="Qwen2.5-Coder 0.5B names the tool assist__search_memory (the Assist API's"
    " prefix) instead of assist-memory__search_memory, so Home Assistant has no such"
    " tool to run; with plain tool names it calls search_memory (script/bench"
    " --real-llm)",
    strict=False,
)
async def test_a_search_tool_call_reaches_the_answer(
    hass: HomeAssistant, ollama_api: OllamaProcess
) -> None:
    await _set_up(hass, ollama_api)
    await add(hass, "The spare key is under the blue flowerpot")
    before = len(ollama_api.requests())

    await say(
        hass, "Use the search_memory tool to find where the spare key is.", "search"
    )

    asked = ollama_api.requests()[before:]
    assert _calls(asked, "search_memory"), [r["content"] for r in asked]
    # What the search found was given to the model.
    assert any("flowerpot" in result for result in _tool_results(asked))
