"""What diagnostics and every service answer, kept as snapshots (syrupy).

Time is frozen; the ids the store and Home Assistant make up are replaced by stable
labels (`<id 1>`, `<id 2>`, ... in order of appearance), so a snapshot changes only when
an answer's shape or content does. Update with `pytest --snapshot-update` and review
the `.ambr` diff like code.
"""

from __future__ import annotations

import re
from typing import Any

from freezegun.api import FrozenDateTimeFactory
from homeassistant.components import assist_pipeline
from homeassistant.core import HomeAssistant
from homeassistant.setup import async_setup_component
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry
from pytest_homeassistant_custom_component.components.diagnostics import (
    get_diagnostics_for_config_entry,
)
from pytest_homeassistant_custom_component.typing import ClientSessionGenerator
from syrupy.assertion import SnapshotAssertion

from custom_components.assist_memory.const import (
    CONF_AGENT_ID,
    CONF_COMPACTION_ENABLED,
    CONF_EXTRACTOR_ENTITY,
    DOMAIN,
)

from .agents import AGENT_ENTITY_ID, TASK_ENTITY_ID, LlmEntities
from .conversing import EAGER, meaning_caught_up, options, say

NOW = "2026-03-14 09:26:53+00:00"
# Ids the store and Home Assistant make up: memory ids (16 hex digits), ULIDs.
MADE_UP_ID = re.compile(r"\b(?:[0-9a-f]{16}|(?i:[0-9a-hjkmnp-tv-z]{26}))\b")
ENABLED = options(
    **{
        CONF_AGENT_ID: AGENT_ENTITY_ID,
        CONF_EXTRACTOR_ENTITY: TASK_ENTITY_ID,
        CONF_COMPACTION_ENABLED: True,
        **EAGER,
    }
)


class StableIds:
    """Replaces made-up ids with labels, the same id always with the same label."""

    def __init__(self) -> None:
        self.labels: dict[str, str] = {}

    def __call__(self, value: Any) -> Any:
        if isinstance(value, dict):
            return {self(key): self(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self(item) for item in value]
        if isinstance(value, str):
            return MADE_UP_ID.sub(self._label, value)
        return value

    def _label(self, match: re.Match[str]) -> str:
        return self.labels.setdefault(match[0], f"<id {len(self.labels) + 1}>")


@pytest.fixture(autouse=True)
def frozen_time(freezer: FrozenDateTimeFactory) -> FrozenDateTimeFactory:
    freezer.move_to(NOW)
    return freezer


async def test_diagnostics(
    hass: HomeAssistant,
    hass_client: ClientSessionGenerator,
    loaded_entry: MockConfigEntry,
    snapshot: SnapshotAssertion,
) -> None:
    await hass.services.async_call(
        DOMAIN, "add", {"content": "Anna likes tulips"}, blocking=True
    )
    await meaning_caught_up(hass)
    await loaded_entry.runtime_data.coordinator.async_refresh()
    diagnostics = await get_diagnostics_for_config_entry(
        hass, hass_client, loaded_entry
    )
    assert StableIds()(diagnostics) == snapshot


@pytest.mark.parametrize("entry_options", [ENABLED])
@pytest.mark.usefixtures("loaded_entry")
async def test_service_responses(
    hass: HomeAssistant, llm: LlmEntities, snapshot: SnapshotAssertion
) -> None:
    assert await async_setup_component(hass, "assist_pipeline", {})
    stable = StableIds()

    async def call(service: str, name: str = "", **data: Any) -> None:
        response = await hass.services.async_call(
            DOMAIN, service, data, blocking=True, return_response=True
        )
        assert stable(response) == snapshot(name=f"{service} {name}".strip())

    first = await hass.services.async_call(
        DOMAIN,
        "add",
        {"content": "Anna takes her coffee black", "category": "preference"},
        blocking=True,
        return_response=True,
    )
    assert stable(first) == snapshot(name="add")
    assert first is not None
    memory_id = first["memory"]["id"]
    await call(
        "add", content="Tom likes tea", tags=["drinks"], scope="user-tom", name="fields"
    )
    await call("get", id=memory_id)
    await call("list")
    await call("update", id=memory_id, content="Anna drinks her coffee black")
    await meaning_caught_up(hass)
    await call("search", query="coffee")
    await call("build_prompt", prompt="You help at home.", query="coffee")
    await call("reindex")
    await call("add", content="Anna likes black coffee", name="similar")
    llm.task.answer = "## Preferences\n\n- Anna drinks her coffee black\n"
    await call("compact")
    await call("undo_compaction")
    conversation = await say(hass, "How does Anna like her coffee?")
    await call("get_working_memory", session_id=conversation.conversation_id)
    await call("delete_conversation", conversation_id=conversation.conversation_id)
    await call("delete", id=memory_id)
    await call("clear", confirm=True)
    assert assist_pipeline.async_get_pipeline(hass) is not None
    await call("set_pipeline_agent")
