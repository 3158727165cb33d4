"""A full disk or a read-only folder: a clear StorageError, earlier memories intact.

The store lives on a small tmpfs mounted for the test (root with mount rights; the
tests are skipped, saying why, where mounting is not permitted).
"""

from __future__ import annotations

from collections.abc import Iterator
import errno
from pathlib import Path
import subprocess

import pytest

from custom_components.assist_memory.engine import MemoryStore, StorageError


def _mount(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["mount", *args], capture_output=True, text=True, check=False)


def _remount(folder: Path, mode: str) -> subprocess.CompletedProcess[str]:
    return _mount("-o", f"remount,{mode}", str(folder))


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    """A 256 KiB tmpfs, unmounted afterwards."""
    folder = tmp_path / "disk"
    folder.mkdir()
    try:
        mounted = _mount("-t", "tmpfs", "-o", "size=256k", "tmpfs", str(folder))
    except FileNotFoundError:
        pytest.skip("no mount command: cannot make a small disk")
    if mounted.returncode != 0:
        pytest.skip(f"mounting a tmpfs is not permitted: {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def fill(folder: Path) -> Path:
    """Write a file until the disk is full; returns it (delete it to free the space)."""
    filler = folder / "filler"
    with pytest.raises(OSError, match="No space left") as full:
        filler.write_bytes(bytes(1 << 20))  # more than the disk holds
    assert full.value.errno == errno.ENOSPC
    return filler


def contents(store: MemoryStore) -> dict[str, str]:
    return {m.id: m.content for m in store.get_all()}


def test_full_disk_refuses_writes_and_keeps_every_memory(disk: Path) -> None:
    path = disk / "memories.json"
    store = MemoryStore(path)
    store.init()
    for n in range(5):
        store.add(f"Memory number {n} about the garden")
    store.checkpoint()  # the earlier memories are in the snapshot
    before = contents(store)
    first = next(iter(before))
    filler = fill(disk)

    # Writes fill the journal's last page, then fail: a clear error each time.
    acknowledged = dict(before)
    failures: list[StorageError] = []
    for n in range(200):
        try:
            memory = store.add(f"Written on a full disk, number {n}")
        except StorageError as err:
            failures.append(err)
            break
        acknowledged[memory.id] = memory.content
    assert failures, "the full disk never refused a write"
    assert "the disk is full" in str(failures[0])
    assert contents(store) == acknowledged  # the refused add is not half there
    # (Longer than what the journal's last page has left, unlike a delete's line.)
    for change in (
        lambda: store.update(first, "Changed on a full disk. " * 60),
        store.checkpoint,
    ):
        with pytest.raises(StorageError, match="the disk is full"):
            change()
    assert contents(store) == acknowledged

    # A restart on the full disk still reads everything.
    again = MemoryStore(path)
    again.init()
    assert contents(again) == acknowledged

    filler.unlink()
    added = again.add("Written once there is space again")
    assert again.update(first, "Changed once there is space") is not None
    again.close()
    reopened = MemoryStore(path)
    reopened.init()
    assert contents(reopened) == {
        **acknowledged,
        added.id: added.content,
        first: "Changed once there is space",
    }


def test_read_only_folder_refuses_writes_and_keeps_every_memory(disk: Path) -> None:
    path = disk / "memories.json"
    store = MemoryStore(path)
    store.init()
    ids = [store.add(f"Memory number {n} about the kitchen").id for n in range(3)]
    before = contents(store)
    assert _remount(disk, "ro").returncode == 0
    try:
        for change in (
            lambda: store.add("Written to a read-only folder"),
            lambda: store.update(ids[0], "Changed in a read-only folder"),
            lambda: store.delete(ids[1]),
        ):
            with pytest.raises(StorageError, match="read-only"):
                change()
        assert contents(store) == before
        # Starting on a read-only folder is refused as clearly (it cannot lock).
        with pytest.raises(StorageError, match="read-only"):
            MemoryStore(path).init()
    finally:
        assert _remount(disk, "rw").returncode == 0
    store.add("Written once the folder is writable")
    store.close()
    reopened = MemoryStore(path)
    reopened.init()
    assert len(contents(reopened)) == 4
    assert before.items() <= contents(reopened).items()
