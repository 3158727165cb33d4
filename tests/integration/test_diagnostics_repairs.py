"""Diagnostics never show memory content; damaged files raise a repair issue."""

from __future__ import annotations

import json
from pathlib import Path

from homeassistant.components.diagnostics import REDACTED
from homeassistant.core import HomeAssistant
from homeassistant.helpers import issue_registry as ir
from homeassistant.setup import async_setup_component
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry
from pytest_homeassistant_custom_component.components.diagnostics import (
    get_diagnostics_for_config_entry,
)
from pytest_homeassistant_custom_component.typing import ClientSessionGenerator

from custom_components.assist_memory.const import (
    CONF_EMBEDDING_API_KEY,
    CONF_EMBEDDING_MODEL,
    CONF_EMBEDDING_URL,
    DOMAIN,
)

PRIVATE_FACT = "The safe code is 4711"


async def test_diagnostics_have_counts_not_content(
    hass: HomeAssistant,
    hass_client: ClientSessionGenerator,
    loaded_entry: MockConfigEntry,
) -> None:
    await hass.services.async_call(
        DOMAIN, "add", {"content": PRIVATE_FACT, "category": "fact"}, blocking=True
    )
    await hass.services.async_call(
        DOMAIN,
        "add",
        {
            "content": "Anna likes tulips",
            "category": "preference",
            "scope": "user-anna",
        },
        blocking=True,
    )
    diagnostics = await get_diagnostics_for_config_entry(
        hass, hass_client, loaded_entry
    )
    assert diagnostics["store"]["count"] == 2
    assert diagnostics["store"]["by_category"] == {"fact": 1, "preference": 1}
    assert diagnostics["store"]["by_source"] == {"user_stated": 2}
    assert diagnostics["store"]["scopes"] == 2
    assert diagnostics["store"]["max_items"] == 100
    assert diagnostics["entry"]["options"]["max_items"] == 100
    assert diagnostics["load_report"]["set_aside_files"] == 0
    text = json.dumps(diagnostics)
    assert "4711" not in text
    assert "tulips" not in text


EMBEDDING_HOST = "embeddings.home.example"


@pytest.mark.parametrize(
    "entry_options",
    [
        {
            CONF_EMBEDDING_URL: f"http://{EMBEDDING_HOST}:11434",
            CONF_EMBEDDING_MODEL: "nomic-embed-text",
            CONF_EMBEDDING_API_KEY: "embedding-secret",
        }
    ],
)
async def test_diagnostics_leave_out_addresses_and_keys(
    hass: HomeAssistant,
    hass_client: ClientSessionGenerator,
    loaded_entry: MockConfigEntry,
) -> None:
    diagnostics = await get_diagnostics_for_config_entry(
        hass, hass_client, loaded_entry
    )
    options = diagnostics["entry"]["options"]
    assert options[CONF_EMBEDDING_URL] == REDACTED
    assert options[CONF_EMBEDDING_API_KEY] == REDACTED
    assert options[CONF_EMBEDDING_MODEL] == "nomic-embed-text"
    text = json.dumps(diagnostics)
    assert EMBEDDING_HOST not in text
    assert "embedding-secret" not in text


async def test_corrupt_store_is_set_aside_with_a_repair_issue(
    hass: HomeAssistant,
    config_entry: MockConfigEntry,
    store_file: Path,
    issue_registry: ir.IssueRegistry,
    hass_client: ClientSessionGenerator,
) -> None:
    assert await async_setup_component(hass, "repairs", {})
    store_file.parent.mkdir(parents=True)
    store_file.write_text('{"memories": [ {"id": "a", "content": "half wri')
    config_entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done()

    moved = list(store_file.parent.glob("memories.corrupt-*.json"))
    assert len(moved) == 1
    assert moved[0].read_text() == '{"memories": [ {"id": "a", "content": "half wri'
    issues = [i for i in issue_registry.issues.values() if i.domain == DOMAIN]
    assert len(issues) == 1
    issue = issues[0]
    assert issue.translation_key == "store_set_aside"
    assert issue.is_fixable
    assert issue.translation_placeholders == {
        "store": str(store_file),
        "moved_to": str(moved[0]),
    }
    diagnostics = await get_diagnostics_for_config_entry(
        hass, hass_client, config_entry
    )
    assert diagnostics["load_report"]["set_aside_files"] == 1

    # The person confirms they have seen it: the issue goes away.
    client = await hass_client()
    resp = await client.post(
        "/api/repairs/issues/fix", json={"handler": DOMAIN, "issue_id": issue.issue_id}
    )
    assert resp.status == 200
    flow_id = (await resp.json())["flow_id"]
    resp = await client.post(f"/api/repairs/issues/fix/{flow_id}", json={})
    assert resp.status == 200
    assert (await resp.json())["type"] == "create_entry"
    assert issue_registry.async_get_issue(DOMAIN, issue.issue_id) is None
