"""Files readable by their owner only: every file the engine writes is 0600, folders 0700.

A real backend on real files, under the usual umask (022, which would make files 0644):
memories, journal, index, conversations (with SQLite's -wal and -shm), profiles, daily
logs, MEMORY.md, compaction backups, a set-aside copy and an export. Files already
there from an earlier version are tightened when the backend opens.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
import json
import os
from pathlib import Path
import stat

import pytest

from custom_components.assist_memory.engine import LocalBackend
from custom_components.assist_memory.engine.host.cli import main

from .test_compaction import FakeLlm


@pytest.fixture(autouse=True)
def usual_umask() -> Iterator[None]:
    """New files would be 0644 and folders 0755 without the engine's own modes."""
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


def modes(folder: Path) -> dict[str, int]:
    """The permission bits of the folder and of everything below it, by path."""
    found = {".": stat.S_IMODE(folder.stat().st_mode)}
    for path in folder.rglob("*"):
        found[str(path.relative_to(folder))] = stat.S_IMODE(path.lstat().st_mode)
    return found


def assert_private(found: dict[str, int], folder: Path) -> None:
    loose = {
        name: oct(mode)
        for name, mode in found.items()
        if mode != (0o700 if (folder / name).is_dir() else 0o600)
    }
    assert not loose, loose


async def test_every_file_the_engine_writes_is_private(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    (data / "memories.json").write_text(
        json.dumps([{"id": "good", "content": "kept"}, {"id": "bad", "content": ""}])
    )
    (data / "memories.json").chmod(0o600)
    backend, report = await LocalBackend.open(data / "memories.json", watch=False)
    try:
        assert report.invalid_records == 1  # a set-aside copy
        for number in range(40):
            await backend.add(f"Anna keeps {number} bees on the roof")
        await backend.search("bees")
        await backend.begin_turn(session_id="s1", text="I keep bees")
        await backend.end_turn(session_id="s1", user_text="I keep bees", reply="Nice")
        await backend.write_profile("anna.smith", "# Anna\n")
        await backend.append_daily_log("Checked the hives", datetime.now(UTC))
        backend.set_compaction(FakeLlm(lambda text: text))
        assert await backend.compact() is not None
        await backend.wait_for_background_jobs()
        found = modes(data)
    finally:
        await backend.close()
    assert main(["--data-dir", str(data), "export", str(data / "export.json")]) == 0

    assert {
        "memories.journal",
        "memories.index.db",
        "conversations.db-wal",
        "prompts/memory/MEMORY.md",
        "compactions",
    } <= set(found)
    assert any(name.startswith("memories.invalid-") for name in found)
    assert any(name.startswith("prompts/memory/daily/") for name in found)
    assert_private(found, data)
    assert_private(modes(data), data)  # after closing, and the export


async def test_files_of_an_earlier_version_are_tightened(tmp_path: Path) -> None:
    data = tmp_path / "data"
    memory = data / "prompts" / "memory"
    memory.mkdir(parents=True)
    for name in ("memories.json", "conversations.db", "memories.index.db"):
        (data / name).touch()
    (memory / "MEMORY.md").write_text("# Memory\n")
    (data / "notes.txt").write_text("not ours")
    for path in (data, data / "prompts", memory):
        path.chmod(0o755)
    for path in (*data.glob("*.*"), memory / "MEMORY.md"):
        path.chmod(0o644)

    backend, _ = await LocalBackend.open(data / "memories.json", watch=False)
    await backend.close()

    found = modes(data)
    assert found.pop("notes.txt") == 0o644  # not the engine's: left as it was
    assert_private(found, data)
