"""Compaction in Home Assistant: services, options, the trigger after learning.

The LLM is the test AI Task entity (a stand-in for a cloud model): it answers the
extraction with structured facts and the compaction with Markdown.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from freezegun.api import FrozenDateTimeFactory
from homeassistant.components import ai_task
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.exceptions import ServiceValidationError
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry
from pytest_homeassistant_custom_component.typing import WebSocketGenerator

from custom_components.assist_memory.const import (
    CONF_AGENT_ID,
    CONF_COMPACTION_ENABLED,
    CONF_COMPACTION_THRESHOLD,
    CONF_EXTRACTOR_ENTITY,
    DOMAIN,
)
from custom_components.assist_memory.ha_llm import FACTS_STRUCTURE

from .agents import AGENT_ENTITY_ID, TASK_ENTITY_ID, LlmEntities
from .conftest import configure_options
from .conversing import EAGER, add, contents, options, say

COMPACTED = "## Preferences\n\n- Anna takes her coffee black\n"
ENABLED = options(
    **{
        CONF_AGENT_ID: AGENT_ENTITY_ID,
        CONF_EXTRACTOR_ENTITY: TASK_ENTITY_ID,
        CONF_COMPACTION_ENABLED: True,
        CONF_COMPACTION_THRESHOLD: 3,
        **EAGER,
    }
)


async def call(hass: HomeAssistant, name: str) -> dict[str, Any]:
    response = await hass.services.async_call(
        DOMAIN, name, {}, blocking=True, return_response=True
    )
    assert isinstance(response, dict)
    return response


@pytest.mark.usefixtures("loaded_entry")
async def test_compact_service_needs_it_enabled(hass: HomeAssistant) -> None:
    with pytest.raises(ServiceValidationError) as caught:
        await call(hass, "compact")
    assert caught.value.translation_key == "compaction_not_enabled"
    assert await call(hass, "undo_compaction") == {"undone": False}


@pytest.mark.parametrize("entry_options", [ENABLED])
@pytest.mark.usefixtures("loaded_entry")
async def test_compact_and_undo_services(hass: HomeAssistant, llm: LlmEntities) -> None:
    await add(hass, "Anna takes her coffee black", category="preference")
    await add(hass, "Anna drinks black coffee", category="preference")
    llm.task.answer = COMPACTED
    assert await call(hass, "compact") == {
        "compacted": True,
        "original_count": 2,
        "compacted_count": 1,
    }
    assert await contents(hass) == ["Anna takes her coffee black"]
    llm.task.answer = "I merged them for you."  # no bullets: rejected
    assert await call(hass, "compact") == {"compacted": False}
    assert await call(hass, "undo_compaction") == {
        "undone": True,
        "original_count": 1,
        "compacted_count": 2,
    }
    assert await contents(hass) == [
        "Anna drinks black coffee",
        "Anna takes her coffee black",
    ]


@pytest.mark.parametrize("entry_options", [ENABLED])
@pytest.mark.usefixtures("loaded_entry")
async def test_learning_triggers_compaction(
    hass: HomeAssistant, llm: LlmEntities, caplog: pytest.LogCaptureFixture
) -> None:
    await add(hass, "Anna takes her coffee black", category="preference")
    await add(hass, "Anna drinks black coffee", category="preference")

    def answer(task: ai_task.GenDataTask) -> object:
        if task.structure is not None:  # the extraction
            return {
                "facts": [
                    {
                        # In the person's words: grounding keeps only those.
                        "content": "Anna never takes milk in her coffee",
                        "category": "preference",
                    }
                ]
            }
        return COMPACTED

    llm.task.answer = answer
    # Said at a voice device: a fact about Anna is the household's.
    await say(hass, "Anna never takes milk in her coffee", user_id=None)
    assert await contents(hass) == ["Anna takes her coffee black"]
    assert "3 facts before, 1 after" in caplog.text
    # The extraction asked for the facts' structure.
    assert llm.task.structures[0] is FACTS_STRUCTURE
    # Within the cooldown the next turn learns but does not compact again.
    asked = len(llm.task.instructions)
    await say(hass, "Tom likes green tea")
    assert len(llm.task.instructions) == asked + 1


@pytest.mark.parametrize("entry_options", [ENABLED])
@pytest.mark.usefixtures("loaded_entry")
async def test_a_failing_compaction_never_reaches_the_conversation(
    hass: HomeAssistant, llm: LlmEntities
) -> None:
    for number in range(3):
        await add(hass, f"Fact number {number}")

    def answer(task: ai_task.GenDataTask) -> object:
        if task.structure is not None:
            return {"facts": []}
        raise ai_task.HomeAssistantError("the model is down")

    llm.task.answer = answer
    result = await say(hass, "Hello there")
    assert result.response.speech["plain"]["speech"]
    assert len(await contents(hass)) == 3


async def test_options_flow_needs_an_llm_for_compaction(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    result = await configure_options(
        hass, loaded_entry, "learning", {CONF_COMPACTION_ENABLED: True}
    )
    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {"base": "compaction_needs_llm"}


@pytest.mark.parametrize(
    "entry_options",
    [
        options(
            **{CONF_AGENT_ID: AGENT_ENTITY_ID, CONF_EXTRACTOR_ENTITY: TASK_ENTITY_ID}
        )
    ],
)
async def test_compaction_options_through_the_flow(
    hass: HomeAssistant,
    llm: LlmEntities,
    loaded_entry: MockConfigEntry,
    freezer: FrozenDateTimeFactory,
) -> None:
    await add(hass, "Anna takes her coffee black", category="preference")
    await add(hass, "Anna drinks black coffee", category="preference")
    llm.task.answer = COMPACTED
    with pytest.raises(ServiceValidationError):
        await call(hass, "compact")
    learning = {
        CONF_EXTRACTOR_ENTITY: TASK_ENTITY_ID,
        CONF_COMPACTION_ENABLED: True,
        CONF_COMPACTION_THRESHOLD: 50,
    }
    result = await configure_options(hass, loaded_entry, "learning", learning)
    assert result["type"] is FlowResultType.CREATE_ENTRY
    backend = loaded_entry.runtime_data.backend
    # Below the threshold it is not due; by hand it runs.
    assert await backend.maybe_compact() is None
    assert await call(hass, "compact") == {
        "compacted": True,
        "original_count": 2,
        "compacted_count": 1,
    }
    await call(hass, "undo_compaction")
    await configure_options(
        hass, loaded_entry, "learning", {**learning, CONF_COMPACTION_THRESHOLD: 2}
    )
    # Applied to the running memory: the cooldown after the compaction by hand holds.
    assert loaded_entry.runtime_data.backend is backend
    assert await backend.maybe_compact() is None
    freezer.tick(timedelta(minutes=6))
    result_now = await backend.maybe_compact()
    assert result_now is not None
    assert result_now.compacted_count == 1


@pytest.mark.parametrize("entry_options", [ENABLED])
@pytest.mark.usefixtures("loaded_entry")
async def test_the_panel_previews_a_compaction_before_applying_it(
    hass: HomeAssistant, hass_ws_client: WebSocketGenerator, llm: LlmEntities
) -> None:
    await add(hass, "Anna takes her coffee black", category="preference")
    await add(hass, "Anna drinks black coffee", category="preference")
    llm.task.answer = COMPACTED
    admin = await hass_ws_client(hass)

    async def request(path: str, body: object = None) -> Any:
        message = {"type": "assist_memory/request", "method": "POST", "path": path}
        if body is not None:
            message["body"] = body
        await admin.send_json_auto_id(message)
        answer = await admin.receive_json()
        assert answer["result"]["status"] == 200, answer
        return answer["result"]["body"]

    preview = await request("/api/auto-memory/compact/preview")
    assert [m["content"] for m in preview["removed"]] == ["Anna drinks black coffee"]
    assert await contents(hass) == [
        "Anna drinks black coffee",
        "Anna takes her coffee black",
    ]
    asked = len(llm.task.instructions)
    applied = await request(
        "/api/auto-memory/compact/apply", {"revision": preview["revision"]}
    )
    assert applied == {"applied": True, "originalCount": 2, "compactedCount": 1}
    assert len(llm.task.instructions) == asked  # the previewed plan, not a new one
    assert await contents(hass) == ["Anna takes her coffee black"]
