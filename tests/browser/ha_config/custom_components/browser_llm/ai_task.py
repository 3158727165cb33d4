"""The AI Task entity: answers a compaction request like a careful model."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from homeassistant.components import ai_task, conversation
from homeassistant.config_entries import ConfigEntry
from homeassistant.core import HomeAssistant
from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback

ENTITY_ID = "ai_task.browser_llm"


def _load_compaction_llm() -> ModuleType:
    """tests/support/compaction_llm.py, beside the real (not linked) folder of this."""
    path = Path(__file__).resolve().parents[4] / "support" / "compaction_llm.py"
    spec = importlib.util.spec_from_file_location("browser_compaction_llm", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


compact = _load_compaction_llm().compact


async def async_setup_entry(
    hass: HomeAssistant, entry: ConfigEntry, add: AddConfigEntryEntitiesCallback
) -> None:
    """Add the entity."""
    add([CompactingTask()])


class CompactingTask(ai_task.AITaskEntity):
    """Text tasks get the facts of their instructions without duplicates."""

    _attr_name = "Browser LLM"
    _attr_unique_id = "browser_llm_task"
    _attr_supported_features = ai_task.AITaskEntityFeature.GENERATE_DATA

    def __init__(self) -> None:
        self.entity_id = ENTITY_ID

    async def _async_generate_data(
        self, task: ai_task.GenDataTask, chat_log: conversation.ChatLog
    ) -> ai_task.GenDataTaskResult:
        # Structured tasks (learning facts from a conversation) find nothing.
        data = (
            {"facts": []} if task.structure is not None else compact(task.instructions)
        )
        return ai_task.GenDataTaskResult(
            conversation_id=chat_log.conversation_id, data=data
        )
