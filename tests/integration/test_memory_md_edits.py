"""A hand edit of MEMORY.md that cannot be applied safely raises a repair issue."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from homeassistant.core import HomeAssistant
from homeassistant.helpers import issue_registry as ir
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.assist_memory.const import DOMAIN
from tests.support.waiting import eventually

CONTENTS = ("Anna takes her coffee black", "Ben plays the violin", "Carla grows leeks")
PROSE = "We should repaint the garage this summer.\n"
# Guards against a hang only; nothing is asserted about how long anything takes.
PATIENCE = 30.0


async def call(hass: HomeAssistant, service: str, data: dict[str, Any]) -> Any:
    return await hass.services.async_call(
        DOMAIN, service, data, blocking=True, return_response=True
    )


async def contents(hass: HomeAssistant) -> list[str]:
    listed = await call(hass, "list", {})
    return sorted(m["content"] for m in listed["items"])


def memory_md(store_file: Path) -> Path:
    return store_file.parent / "prompts" / "memory" / "MEMORY.md"


def save(path: Path, text: str) -> None:
    """Save as an editor does: a new file renamed over the old one."""
    tmp = path.with_name("editor-save.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def rejected_edit_issues(issue_registry: ir.IssueRegistry) -> list[ir.IssueEntry]:
    return [
        i
        for i in issue_registry.issues.values()
        if i.domain == DOMAIN and i.translation_key == "markdown_edit_rejected"
    ]


def kept_aside(store_file: Path) -> list[Path]:
    return sorted(memory_md(store_file).parent.glob("MEMORY.rejected-*.md"))


async def test_an_edit_kept_aside_while_running_raises_a_repair_issue(
    hass: HomeAssistant,
    loaded_entry: MockConfigEntry,
    store_file: Path,
    issue_registry: ir.IssueRegistry,
) -> None:
    for content in CONTENTS:
        await call(hass, "add", {"content": content})
    path = memory_md(store_file)
    await eventually(
        lambda: all(c in path.read_text(encoding="utf-8") for c in CONTENTS), PATIENCE
    )

    save(path, PROSE)
    await eventually(lambda: bool(rejected_edit_issues(issue_registry)), PATIENCE)

    [issue] = rejected_edit_issues(issue_registry)
    [kept] = kept_aside(store_file)
    assert issue.translation_placeholders == {"kept_as": str(kept)}
    assert issue.is_fixable
    assert kept.read_text(encoding="utf-8") == PROSE
    assert await contents(hass) == sorted(CONTENTS)


async def test_an_edit_kept_aside_at_start_raises_a_repair_issue(
    hass: HomeAssistant,
    config_entry: MockConfigEntry,
    store_file: Path,
    issue_registry: ir.IssueRegistry,
) -> None:
    config_entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(config_entry.entry_id)
    for content in CONTENTS:
        await call(hass, "add", {"content": content})
    assert await hass.config_entries.async_unload(config_entry.entry_id)
    await hass.async_block_till_done()
    save(memory_md(store_file), PROSE)

    assert await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done()

    [issue] = rejected_edit_issues(issue_registry)
    [kept] = kept_aside(store_file)
    assert issue.translation_placeholders == {"kept_as": str(kept)}
    assert await contents(hass) == sorted(CONTENTS)
