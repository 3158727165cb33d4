"""Forgetting: a memory a person deletes (or clears, or a compaction undone removes)
is in no file of the data folder once the call returns.

A real Home Assistant with the embedded store: the memory reaches every place a
memory's text goes (the store's snapshot and journal, the search index, MEMORY.md, a
daily-log line, a compaction backup) and the data folder is then read as bytes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from homeassistant.core import HomeAssistant
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.assist_memory.const import (
    CONF_AGENT_ID,
    CONF_COMPACTION_ENABLED,
    CONF_EXTRACTOR_ENTITY,
    DOMAIN,
)
from tests.support.data_folder import files_containing

from .agents import AGENT_ENTITY_ID, TASK_ENTITY_ID, LlmEntities
from .conversing import add, contents, options, say

WORD = "Zyxwvortle"
CAT = f"Anna's cat is called {WORD}"
COMPACTING = options(
    **{
        CONF_AGENT_ID: AGENT_ENTITY_ID,
        CONF_EXTRACTOR_ENTITY: TASK_ENTITY_ID,
        CONF_COMPACTION_ENABLED: True,
    }
)


async def call(hass: HomeAssistant, name: str, **data: Any) -> dict[str, Any]:
    response = await hass.services.async_call(
        DOMAIN, name, data, blocking=True, return_response=True
    )
    assert isinstance(response, dict)
    return response


def data_folder(hass: HomeAssistant) -> Path:
    return Path(hass.config.path("data"))


async def spread_everywhere(
    hass: HomeAssistant, entry: MockConfigEntry, llm: LlmEntities
) -> str:
    """Store the cat's name and let it reach every file; the memory's id."""
    await add(hass, CAT)
    await add(hass, "Anna takes her coffee black", category="preference")
    await add(hass, "Anna drinks black coffee", category="preference")
    # A compaction keeps the cat as it was: its backup holds it.
    llm.task.answer = (
        f"## Facts\n\n- {CAT}\n\n## Preferences\n\n- Anna takes her coffee black\n"
    )
    assert (await call(hass, "compact"))["compacted"]
    # Used in a prompt (its statistics are written again), and in a daily log.
    await say(hass, "What is the name of Anna's cat?")
    assert WORD in llm.agent.turns[-1].system_prompt
    await entry.runtime_data.backend.append_daily_log(f"Noted: {CAT}")
    found = await call(hass, "search", query=WORD)
    # The others may come too, by meaning (on by default).
    (result,) = [r for r in found["results"] if r["content"] == CAT]
    await hass.async_block_till_done()
    everywhere = files_containing(data_folder(hass), WORD)
    assert "memories.index.db" in " ".join(everywhere)
    assert any(name.startswith("compactions/") for name in everywhere)
    assert any(name.startswith("prompts/memory/daily/") for name in everywhere)
    assert "prompts/memory/MEMORY.md" in everywhere
    memory_id: str = result["id"]
    return memory_id


@pytest.mark.parametrize("entry_options", [COMPACTING])
async def test_a_deleted_memory_leaves_no_trace(
    hass: HomeAssistant, llm: LlmEntities, loaded_entry: MockConfigEntry
) -> None:
    memory_id = await spread_everywhere(hass, loaded_entry, llm)
    assert await call(hass, "delete", id=memory_id) == {"deleted": memory_id}
    assert files_containing(data_folder(hass), WORD) == []
    # The rest is untouched, and the compaction can still be undone without it.
    assert await contents(hass) == ["Anna takes her coffee black"]
    assert (await call(hass, "undo_compaction"))["undone"]
    assert await contents(hass) == [
        "Anna drinks black coffee",
        "Anna takes her coffee black",
    ]
    assert files_containing(data_folder(hass), WORD) == []


@pytest.mark.parametrize("entry_options", [COMPACTING])
async def test_cleared_memories_leave_no_trace(
    hass: HomeAssistant, llm: LlmEntities, loaded_entry: MockConfigEntry
) -> None:
    await spread_everywhere(hass, loaded_entry, llm)
    assert await call(hass, "clear", confirm=True) == {"removed": 2}
    assert files_containing(data_folder(hass), WORD, "black coffee") == []
    # Nothing to undo: the compaction's backup went with the memories.
    assert await call(hass, "undo_compaction") == {"undone": False}


@pytest.mark.parametrize("entry_options", [COMPACTING])
async def test_an_undone_compaction_leaves_no_trace_of_what_it_wrote(
    hass: HomeAssistant, llm: LlmEntities, loaded_entry: MockConfigEntry
) -> None:
    merged = "Anna always takes her coffee black, says Qwixbrandle"
    await add(hass, "Anna takes her coffee black", category="preference")
    await add(hass, "Anna drinks black coffee", category="preference")
    llm.task.answer = f"## Preferences\n\n- {merged}\n"
    assert (await call(hass, "compact"))["compacted"]
    await say(hass, "How does Anna take her coffee?")
    assert "Qwixbrandle" in llm.agent.turns[-1].system_prompt
    await hass.async_block_till_done()
    assert files_containing(data_folder(hass), "Qwixbrandle") != []
    assert (await call(hass, "undo_compaction"))["undone"]
    assert files_containing(data_folder(hass), "Qwixbrandle") == []
