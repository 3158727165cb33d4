"""Files damaged while Home Assistant was stopped: repaired or set aside, never lost.

Covers what test_diagnostics_repairs.py does not: a store of the wrong shape, one
invalid record, a half-written or damaged journal, and an index that disagrees with
the store.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import closing
import json
import logging
from pathlib import Path
import sqlite3
from typing import Any

from homeassistant.core import HomeAssistant
from homeassistant.helpers import issue_registry as ir
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry
from pytest_homeassistant_custom_component.components.diagnostics import (
    get_diagnostics_for_config_entry,
)
from pytest_homeassistant_custom_component.typing import ClientSessionGenerator

from custom_components.assist_memory.const import DOMAIN
from custom_components.assist_memory.engine.storage.journal import (
    encode_begin,
    encode_put,
)

CONTENTS = ("Anna takes her coffee black", "Ben plays the violin", "Carla grows leeks")
WORDS = ("coffee", "violin", "leeks")


async def call(hass: HomeAssistant, service: str, data: dict[str, Any]) -> Any:
    return await hass.services.async_call(
        DOMAIN, service, data, blocking=True, return_response=True
    )


async def stopped_with_memories(
    hass: HomeAssistant, entry: MockConfigEntry, store_file: Path
) -> dict[str, Any]:
    """Store CONTENTS, stop the entry; returns the snapshot document."""
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    for content in CONTENTS:
        await call(hass, "add", {"content": content})
    assert await hass.config_entries.async_unload(entry.entry_id)
    await hass.async_block_till_done()
    document: dict[str, Any] = json.loads(store_file.read_text())
    return document


async def start(hass: HomeAssistant, entry: MockConfigEntry) -> list[str]:
    """Start the entry again; returns the stored contents."""
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    listed = await call(hass, "list", {})
    return sorted(m["content"] for m in listed["items"])


def set_aside_issues(issue_registry: ir.IssueRegistry) -> list[ir.IssueEntry]:
    return [
        i
        for i in issue_registry.issues.values()
        if i.domain == DOMAIN and i.translation_key == "store_set_aside"
    ]


async def test_store_of_the_wrong_shape_is_set_aside(
    hass: HomeAssistant,
    config_entry: MockConfigEntry,
    store_file: Path,
    issue_registry: ir.IssueRegistry,
) -> None:
    document = await stopped_with_memories(hass, config_entry, store_file)
    wrong = json.dumps({"memories": {"by": "hand"}, "was": document["memories"]})
    store_file.write_text(wrong)
    store_file.with_suffix(".journal").unlink(missing_ok=True)

    assert await start(hass, config_entry) == []
    [moved] = store_file.parent.glob("memories.corrupt-*.json")
    assert moved.read_text() == wrong
    [issue] = set_aside_issues(issue_registry)
    assert issue.translation_placeholders == {
        "store": str(store_file),
        "moved_to": str(moved),
    }


async def test_one_invalid_record_is_set_aside_the_others_kept(
    hass: HomeAssistant,
    config_entry: MockConfigEntry,
    store_file: Path,
    issue_registry: ir.IssueRegistry,
    hass_client: ClientSessionGenerator,
) -> None:
    document = await stopped_with_memories(hass, config_entry, store_file)
    bad = {**document["memories"][1], "confidence": "very"}
    document["memories"][1] = bad
    store_file.write_text(json.dumps(document))

    assert await start(hass, config_entry) == sorted([CONTENTS[0], CONTENTS[2]])
    [side] = store_file.parent.glob("memories.invalid-*.json")
    assert json.loads(side.read_text()) == [bad]
    [issue] = set_aside_issues(issue_registry)
    assert issue.translation_placeholders == {
        "store": str(store_file),
        "moved_to": str(side),
    }
    diagnostics = await get_diagnostics_for_config_entry(
        hass, hass_client, config_entry
    )
    assert diagnostics["load_report"]["invalid_records"] == 1
    assert diagnostics["load_report"]["set_aside_files"] == 1


def journal_of(document: dict[str, Any], *lines: bytes) -> bytes:
    return encode_begin(document["generation"]) + b"".join(lines)


def new_record(document: dict[str, Any]) -> dict[str, Any]:
    return {**document["memories"][0], "id": "d" * 16, "content": "Dora bakes bread"}


async def test_half_written_last_journal_line_is_dropped_with_a_warning(
    hass: HomeAssistant,
    *,
    config_entry: MockConfigEntry,
    store_file: Path,
    issue_registry: ir.IssueRegistry,
    hass_client: ClientSessionGenerator,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A torn last line was never acknowledged; every complete line is applied."""
    document = await stopped_with_memories(hass, config_entry, store_file)
    torn = encode_put(new_record(document) | {"id": "e" * 16})[:40]
    journal = journal_of(document, encode_put(new_record(document)), torn)
    store_file.with_suffix(".journal").write_bytes(journal)

    with caplog.at_level(logging.WARNING):
        stored = await start(hass, config_entry)
    assert stored == sorted([*CONTENTS, "Dora bakes bread"])
    assert "half-written change" in caplog.text
    diagnostics = await get_diagnostics_for_config_entry(
        hass, hass_client, config_entry
    )
    assert diagnostics["load_report"]["dropped_torn_write"] is True
    assert set_aside_issues(issue_registry) == []


async def test_damaged_journal_line_sets_the_journal_aside(
    hass: HomeAssistant,
    config_entry: MockConfigEntry,
    store_file: Path,
    issue_registry: ir.IssueRegistry,
) -> None:
    """A damaged line in the middle: the good lines are applied, the file kept."""
    document = await stopped_with_memories(hass, config_entry, store_file)
    journal = journal_of(
        document, b'{"op": "put", "memo\n', encode_put(new_record(document))
    )
    store_file.with_suffix(".journal").write_bytes(journal)

    assert await start(hass, config_entry) == sorted([*CONTENTS, "Dora bakes bread"])
    [moved] = store_file.parent.glob("memories.journal-*")
    assert moved.read_bytes() == journal
    [issue] = set_aside_issues(issue_registry)
    assert issue.translation_placeholders == {
        "store": str(store_file),
        "moved_to": str(moved),
    }


def delete_rows(db: sqlite3.Connection) -> None:
    db.execute("DELETE FROM docs WHERE rowid IN (SELECT rowid FROM docs LIMIT 2)")


def add_stray_rows(db: sqlite3.Connection) -> None:
    cursor = db.execute(
        "INSERT INTO docs(id, version, scope, category, text)"
        " VALUES ('stray', 'x', 'household', 'fact', 'coffee violin leeks')"
    )
    db.execute(
        "INSERT INTO fts(rowid, terms, memory_id, scope)"
        " VALUES (?, 'coffee violin leeks', 'stray', 'household')",
        (cursor.lastrowid,),
    )


def empty_full_text_table(db: sqlite3.Connection) -> None:
    db.execute("DELETE FROM fts")


def change_versions(db: sqlite3.Connection) -> None:
    db.execute("UPDATE docs SET version = 'old', text = 'nothing'")


@pytest.mark.parametrize(
    "damage",
    [delete_rows, add_stray_rows, empty_full_text_table, change_versions, None],
    ids=["rows-deleted", "stray-rows", "fts-emptied", "stale-rows", "garbage-file"],
)
async def test_index_that_disagrees_with_the_store_is_repaired_at_start(
    hass: HomeAssistant,
    config_entry: MockConfigEntry,
    store_file: Path,
    issue_registry: ir.IssueRegistry,
    damage: Callable[[sqlite3.Connection], None] | None,
) -> None:
    document = await stopped_with_memories(hass, config_entry, store_file)
    index_file = store_file.with_suffix(".index.db")
    if damage is None:
        index_file.write_bytes(b"not a database at all " * 100)
    else:
        with closing(sqlite3.connect(index_file)) as db, db:
            damage(db)

    assert await start(hass, config_entry) == sorted(CONTENTS)
    for word, content in zip(WORDS, CONTENTS, strict=True):
        results = (await call(hass, "search", {"query": word}))["results"]
        # Found by its word, alone (the others may follow by meaning).
        assert [r["content"] for r in results if r["matched"]] == [content]
        assert results[0]["content"] == content
    assert await hass.config_entries.async_unload(config_entry.entry_id)
    with closing(sqlite3.connect(index_file)) as db:
        ids = {row[0] for row in db.execute("SELECT id FROM docs")}
        fts_rows = db.execute("SELECT count(*) FROM fts").fetchone()[0]
    assert ids == {m["id"] for m in document["memories"]}
    assert fts_rows == len(ids)
    # The index is derived data: rebuilt quietly, no issue for a person.
    assert set_aside_issues(issue_registry) == []
