"""The snapshot's checksum: files the engine wrote load fast, edited files are checked."""

from __future__ import annotations

import json
from pathlib import Path
import re
import zlib

from custom_components.assist_memory.engine import MemoryStore


def write_store(path: Path) -> list[str]:
    store = MemoryStore(path)
    store.init()
    ids = [
        store.add(
            "Anna takes her coffee black", tags=["anna"], metadata={"room": "kitchen"}
        ).id,
        store.add("我喜欢用 Python 写代码", category="preference").id,
    ]
    store.close()
    return ids


def test_snapshot_ends_with_its_checksum(store_path: Path) -> None:
    write_store(store_path)
    text = store_path.read_text()
    assert re.search(r'\n\], "checksum": "[0-9a-f]{8}"\}\n$', text)
    assert len(json.loads(text)["memories"]) == 2


def test_unchanged_file_loads_every_field(store_path: Path) -> None:
    ids = write_store(store_path)
    before = MemoryStore(store_path)
    before.init()
    records = before.get_all()
    again = MemoryStore(store_path)
    report = again.init()
    assert report.set_aside == []
    assert again.get_all() == records
    memory = again.get(ids[0])
    assert memory is not None
    assert memory.tags == ("anna",)
    assert dict(memory.metadata) == {"room": "kitchen"}


def test_hand_edit_is_checked_field_by_field(store_path: Path) -> None:
    write_store(store_path)
    text = store_path.read_text()
    # A person fixes a typo and, by mistake, invents a category.
    edited = text.replace("coffee black", "coffee with milk").replace(
        '"category": "preference"', '"category": "gossip"'
    )
    store_path.write_text(edited)
    store = MemoryStore(store_path)
    report = store.init()
    assert [m.content for m in store.get_all()] == ["Anna takes her coffee with milk"]
    assert report.invalid_records == 1
    (moved,) = report.set_aside
    assert "gossip" in moved.read_text()
    # The rewritten file carries a fresh checksum again.
    assert json.loads(store_path.read_text())["checksum"]


def test_records_in_another_shape_are_checked(store_path: Path) -> None:
    write_store(store_path)
    document = json.loads(store_path.read_text())
    for record in document["memories"]:
        del record[
            "access_count"
        ]  # still a valid record; not in the engine's own shape
    body = json.dumps(document["memories"], ensure_ascii=False)
    # Recompute a matching checksum, as if a tool rewrote the file faithfully.
    head = f'{{"format": "assist_memory", "version": 1, "generation": 9, "memories": {body[:-1]}'
    store_path.write_text(
        f'{head}\n], "checksum": "{zlib.crc32(head.encode()):08x}"}}\n'
    )
    store = MemoryStore(store_path)
    report = store.init()
    assert report.set_aside == []
    assert [m.access_count for m in store.get_all()] == [0, 0]


def test_an_end_an_earlier_version_kept_as_given_is_read_in_the_stored_form(
    store_path: Path,
) -> None:
    """Earlier versions kept "20261128T120000+00:00" as given: its text sorted wrong."""
    store = MemoryStore(store_path)
    store.init()
    memory_id = store.add("Guests in the attic", expires_at="2026-11-28T12:00:00Z").id
    store.close()
    text = store_path.read_text()
    head, _, _ = text.rpartition('\n], "checksum": "')
    head = head.replace('"2026-11-28T12:00:00+00:00"', '"20261128T120000+00:00"')
    # As the engine wrote it then: one record a line and a matching checksum.
    store_path.write_text(
        f'{head}\n], "checksum": "{zlib.crc32(head.encode()):08x}"}}\n'
    )

    again = MemoryStore(store_path)
    assert again.init().set_aside == []
    memory = again.get(memory_id)
    assert memory is not None
    assert memory.expires_at == "2026-11-28T12:00:00+00:00"
    assert not memory.has_ended("2026-11-28T11:59:59+00:00")
    assert memory.has_ended("2026-11-28T12:00:00+00:00")
