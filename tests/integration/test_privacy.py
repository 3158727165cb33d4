"""Memory content never reaches the logs (at DEBUG) or the diagnostics."""

from __future__ import annotations

import json
import logging

from homeassistant.core import HomeAssistant
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry
from pytest_homeassistant_custom_component.components.diagnostics import (
    get_diagnostics_for_config_entry,
)
from pytest_homeassistant_custom_component.typing import ClientSessionGenerator

from custom_components.assist_memory.const import CONF_AGENT_ID, DOMAIN

from .agents import AGENT_ENTITY_ID, LlmEntities
from .conversing import EAGER, add, contents, options, say

MARKER = "quorvath"
LOGGERS = ("custom_components.assist_memory", "assist_memory_engine")


@pytest.mark.parametrize(
    "entry_options", [options(**{CONF_AGENT_ID: AGENT_ENTITY_ID, **EAGER})]
)
async def test_content_is_in_no_log_line_and_no_diagnostics(
    hass: HomeAssistant,
    llm: LlmEntities,
    loaded_entry: MockConfigEntry,
    hass_client: ClientSessionGenerator,
    caplog: pytest.LogCaptureFixture,
) -> None:
    for name in LOGGERS:
        caplog.set_level(logging.DEBUG, logger=name)
    await add(hass, f"Anna's cat is called {MARKER.title()}")
    await say(hass, f"My favourite colour is {MARKER}")  # learnt by the rules
    await say(hass, "What is the name of Anna's cat?")
    found = await hass.services.async_call(
        DOMAIN, "search", {"query": MARKER}, blocking=True, return_response=True
    )
    diagnostics = await get_diagnostics_for_config_entry(
        hass, hass_client, loaded_entry
    )

    # The marker really went through: stored, learnt, found and put in a prompt.
    assert sum(MARKER in c.lower() for c in await contents(hass)) == 2
    assert found is not None
    assert len(found["results"]) == 2  # type: ignore[arg-type]
    assert MARKER in llm.agent.turns[-1].system_prompt.lower()
    ours = [r for r in caplog.records if r.name.startswith(LOGGERS)]
    assert any(r.levelno == logging.DEBUG for r in ours)
    leaks = [r.getMessage() for r in ours if MARKER in r.getMessage().lower()]
    assert leaks == []
    assert MARKER not in json.dumps(diagnostics).lower()
