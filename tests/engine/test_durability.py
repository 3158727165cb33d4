"""Crash safety and damaged files: nothing acknowledged is lost or silently dropped."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
import errno
import fcntl
import json
import os
from pathlib import Path
import random
import select
import shutil
import subprocess
import sys
import time
from typing import Any

import pytest

from custom_components.assist_memory.engine import (
    MemoryStore,
    StorageError,
    StoreBusyError,
    StoreSettings,
)
from custom_components.assist_memory.engine.storage.durable import (
    process_lock,
    replace_unless_changed,
    storage_error,
    write_atomically,
)
from custom_components.assist_memory.engine.storage.journal import encode_delete

from .conftest import journal_lines, read_snapshot, store_files
from .crash_writer import digest

OpenStore = Callable[..., MemoryStore]


def _journal(path: Path) -> Path:
    return path.with_suffix(".journal")


def _side_files(path: Path, label: str) -> list[Path]:
    return sorted(path.parent.glob(f"{path.stem}.{label}-*"))


# -- a snapshot that is not JSON -----------------------------------------------------


@pytest.mark.parametrize(
    "damage",
    [
        b"{not json at all",
        b'{"memories": 5}',
        b'"just a string"',
        b"\x00\xff\xfe",
        b"[" * 100_000 + b"]" * 100_000,  # deeper than any parser goes
    ],
)
def test_unreadable_snapshot_is_set_aside_and_store_starts_empty(
    store_path: Path, damage: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    store_path.parent.mkdir(parents=True)
    store_path.write_bytes(damage)

    store = MemoryStore(store_path)
    report = store.init()

    corrupt = _side_files(store_path, "corrupt")
    assert len(corrupt) == 1
    assert corrupt[0].suffix == ".json"
    assert corrupt[0].read_bytes() == damage
    assert report.set_aside == corrupt
    assert report.count == 0
    assert store.get_all() == []
    assert read_snapshot(store_path)["memories"] == []
    assert "not a valid memory file" in caplog.text
    # The store works normally afterwards.
    memory = store.add("fresh start")
    assert MemoryStore(store_path).get_all() == [memory]


def test_empty_snapshot_file_is_an_empty_store(store_path: Path) -> None:
    store_path.parent.mkdir(parents=True)
    store_path.write_bytes(b"  \n")

    store = MemoryStore(store_path)
    report = store.init()

    assert report.set_aside == []
    assert store.get_all() == []


def test_invalid_records_are_moved_aside_and_good_ones_kept(
    store_path: Path, open_store: OpenStore
) -> None:
    good = [
        {"id": "good-1", "content": "one", "created_at": "2024-01-01T00:00:00+00:00"},
        {"id": "good-2", "content": "two", "created_at": "2024-01-02T00:00:00+00:00"},
    ]
    bad = [
        {"id": "bad-1", "content": "x", "confidence": 7},
        {"id": "good-1", "content": "duplicate id"},
        "not a record",
    ]
    store_path.parent.mkdir(parents=True)
    store_path.write_text(
        json.dumps({"generation": 3, "memories": [good[0], bad[0], good[1], *bad[1:]]})
    )

    store = MemoryStore(store_path)
    report = store.init()

    assert [m.id for m in store.get_all()] == ["good-1", "good-2"]
    assert report.invalid_records == 3
    invalid = _side_files(store_path, "invalid")
    assert report.set_aside == invalid
    assert len(invalid) == 1
    assert json.loads(invalid[0].read_text()) == bad
    # The live file no longer holds them, and a new instance agrees.
    assert [m["id"] for m in read_snapshot(store_path)["memories"]] == [
        "good-1",
        "good-2",
    ]
    assert open_store().last_report.set_aside == []


# Times that parse but cannot be held in UTC, and other unusable field values.
DEEP = '{"a":' * 40 + "{}" + "}" * 40
OUT_OF_RANGE_RECORDS = [
    {"id": "bad-created", "content": "x", "created_at": "0001-01-01T00:00:00+14:00"},
    {
        "id": "bad-accessed",
        "content": "x",
        "last_accessed": "9999-12-31T23:59:59-12:00",
    },
    {"id": "bad-updated", "content": "x", "updated_at": "9999-12-31T23:59:59-00:01"},
    {"id": "bad-digits", "content": "x", "created_at": "２０２４-01-01T00:00:00"},
    {"id": "bad-long", "content": "x", "created_at": "2024-01-01T00:00:00" + " " * 99},
    {"id": "bad-count", "content": "x", "access_count": 10**400},
    {"id": "bad-deep", "content": "x", "metadata": json.loads(DEEP)},
]


@pytest.mark.parametrize("bad", OUT_OF_RANGE_RECORDS, ids=lambda r: r["id"])
def test_a_record_with_an_out_of_range_field_is_moved_aside(
    store_path: Path, bad: dict[str, Any]
) -> None:
    good = {"id": "good", "content": "kept", "created_at": "2024-01-01T00:00:00Z"}
    store_path.parent.mkdir(parents=True)
    store_path.write_text(json.dumps([good, bad]))

    store = MemoryStore(store_path)
    report = store.init()

    assert [m.id for m in store.get_all()] == ["good"]
    assert report.invalid_records == 1
    (invalid,) = _side_files(store_path, "invalid")
    assert json.loads(invalid.read_text()) == [bad]


def test_a_journal_record_with_an_out_of_range_time_is_kept_aside(
    store_path: Path, open_store: OpenStore
) -> None:
    store = open_store()
    kept = store.add("kept")
    store.close()
    bad = {"id": "bad", "content": "x", "created_at": "0001-01-01T00:00:00+14:00"}
    with _journal(store_path).open("ab") as journal:
        journal.write(json.dumps({"op": "put", "memory": bad}).encode() + b"\n")

    reopened = MemoryStore(store_path)
    report = reopened.init()

    assert reopened.get_all() == [kept]
    assert report.invalid_records == 1
    (moved,) = _side_files(store_path, "journal")
    assert b"0001-01-01T00:00:00+14:00" in moved.read_bytes()


def test_records_over_todays_content_limit_are_kept(
    store_path: Path, open_store: OpenStore
) -> None:
    generous = open_store(settings=StoreSettings(max_content_length=4000))
    long = generous.add("x" * 3000)
    in_journal = generous.add("y" * 3000)
    generous.close()
    generous.update(in_journal.id, "z" * 3000)

    strict = MemoryStore(store_path, StoreSettings(max_content_length=100))
    report = strict.init()

    assert report.set_aside == []
    assert [m.content[0] for m in strict.get_all()] == ["x", "z"]
    assert strict.get(long.id) == long


# -- the journal ---------------------------------------------------------------------


def test_journal_ops_are_replayed_and_folded_at_init(
    store_path: Path, open_store: OpenStore
) -> None:
    writer = open_store()
    kept = writer.add("kept")
    gone = writer.add("gone")
    writer.update(kept.id, "kept and changed")
    # A delete whose line is durable, cut off before its text was erased (a crash).
    with store_path.with_suffix(".journal").open("ab") as journal:
        journal.write(encode_delete(gone.id))
    assert len(journal_lines(store_path)) == 5

    reader = MemoryStore(store_path)
    report = reader.init()

    assert report.replayed_ops == 4
    assert [m.content for m in reader.get_all()] == ["kept and changed"]
    snapshot = read_snapshot(store_path)
    assert [m["content"] for m in snapshot["memories"]] == ["kept and changed"]
    assert journal_lines(store_path) == [
        {"op": "begin", "generation": snapshot["generation"]}
    ]


def test_torn_last_journal_line_is_dropped_and_next_write_works(
    store_path: Path, open_store: OpenStore, caplog: pytest.LogCaptureFixture
) -> None:
    writer = open_store()
    first = writer.add("first")
    second = writer.add("second")
    with _journal(store_path).open("ab") as journal:
        journal.write(b'{"op":"put","memory":{"id":"torn","content":"half')

    store = MemoryStore(store_path)
    report = store.init()

    assert report.dropped_torn_write is True
    assert report.set_aside == []
    assert store.get_all() == [first, second]
    assert "half-written" in caplog.text
    third = store.add("third")
    assert open_store().get_all() == [first, second, third]
    # Every line of the journal is whole again.
    assert all(line["op"] in ("begin", "put") for line in journal_lines(store_path))


def test_writer_cuts_a_torn_tail_left_by_another_process(
    store_path: Path, open_store: OpenStore
) -> None:
    store = open_store()
    first = store.add("first")
    with _journal(store_path).open("ab") as journal:
        journal.write(b'{"op":"put","mem')

    second = store.add("second")

    assert open_store().get_all() == [first, second]


def test_damaged_middle_line_sets_journal_aside_and_applies_good_ops(
    store_path: Path, open_store: OpenStore, caplog: pytest.LogCaptureFixture
) -> None:
    writer = open_store()
    before = writer.add("before the damage")
    writer.add("to be damaged")
    after = writer.add("after the damage")
    journal = _journal(store_path)
    lines = journal.read_bytes().splitlines(keepends=True)
    lines[2] = b'{"op":"put","memory":{garbage\n'
    damaged = b"".join(lines)
    journal.write_bytes(damaged)

    store = MemoryStore(store_path)
    report = store.init()

    assert store.get_all() == [before, after]
    moved = _side_files(store_path, "journal")
    assert len(moved) == 1
    assert moved[0].name.endswith(".journal")
    assert moved[0].read_bytes() == damaged
    assert report.set_aside == moved
    assert "could not be fully applied" in caplog.text
    later = store.add("later")
    assert open_store().get_all() == [before, after, later]


def test_journal_without_begin_line_is_set_aside_not_applied(
    store_path: Path, open_store: OpenStore
) -> None:
    store = open_store()
    kept = store.add("kept")
    store.close()
    stray = b'{"op":"put","memory":{"id":"stray","content":"stray"}}\n'
    _journal(store_path).write_bytes(stray)

    reopened = MemoryStore(store_path)
    report = reopened.init()

    assert reopened.get_all() == [kept]
    moved = _side_files(store_path, "journal")
    assert report.set_aside == moved
    assert moved[0].read_bytes() == stray


def test_superseded_journal_is_not_replayed(
    store_path: Path, open_store: OpenStore
) -> None:
    store = open_store()
    for n in range(3):
        store.add(f"memory {n}")
    old_journal = _journal(store_path).read_bytes()
    assert old_journal.count(b'"op":"put"') == 3

    store.clear()
    # As after a crash between the snapshot rename and the journal reset.
    _journal(store_path).write_bytes(old_journal)

    reopened = MemoryStore(store_path)
    report = reopened.init()

    assert reopened.get_all() == []
    assert report.replayed_ops == 0
    assert report.set_aside == []
    # The stale journal was reset, so the next write is not mixed with it.
    fresh = reopened.add("fresh")
    assert open_store().get_all() == [fresh]


def test_journal_of_an_unknown_newer_generation_is_set_aside(
    store_path: Path, open_store: OpenStore
) -> None:
    store = open_store()
    backed_up = store.add("in the backup")
    store.close()
    backup = store_path.read_bytes()
    store.add("after the backup")
    store.close()
    store.add("only in the journal")
    # Someone restores the older snapshot by hand.
    store_path.write_bytes(backup)

    restored = MemoryStore(store_path)
    report = restored.init()

    assert restored.get_all() == [backed_up]
    moved = _side_files(store_path, "journal")
    assert report.set_aside == moved
    assert b"only in the journal" in moved[0].read_bytes()


def test_journal_is_folded_when_it_grows(
    store_path: Path, open_store: OpenStore
) -> None:
    store = open_store(settings=StoreSettings(max_items=0))
    contents = [f"memory {n} " + "x" * 1900 for n in range(50)]
    journal_sizes = []
    for content in contents:
        store.add(content)
        journal_sizes.append(_journal(store_path).stat().st_size)

    # About 2 KB per add: the 64 KiB threshold is crossed once, then it starts over.
    assert max(journal_sizes) <= 64 * 1024
    drops = [n for n in range(1, 50) if journal_sizes[n] < journal_sizes[n - 1]]
    assert len(drops) == 1
    folded = read_snapshot(store_path)["memories"]
    assert 25 <= len(folded) < 50
    assert [m["content"] for m in folded] == contents[: len(folded)]
    assert [m.content for m in open_store().get_all()] == contents


def test_close_folds_the_journal(store_path: Path, open_store: OpenStore) -> None:
    store = open_store()
    store.add("one")
    store.add("two")
    assert read_snapshot(store_path)["memories"] == []

    store.close()

    snapshot = read_snapshot(store_path)
    assert [m["content"] for m in snapshot["memories"]] == ["one", "two"]
    assert journal_lines(store_path) == [
        {"op": "begin", "generation": snapshot["generation"]}
    ]


def test_close_without_changes_rewrites_nothing(
    store_path: Path, open_store: OpenStore
) -> None:
    store = open_store()
    store.add("one")
    store.close()
    before = store_files(store_path)

    store.close()

    assert store_files(store_path) == before


def test_snapshot_write_leaves_no_temporary_files(
    store_path: Path, open_store: OpenStore
) -> None:
    store = open_store()
    store.add("one")
    store.close()
    store.clear()

    names = sorted(p.name for p in store_path.parent.iterdir())
    assert names == ["memories.journal", "memories.json", "memories.lock"]


# -- writes that fail ---------------------------------------------------------------


@contextmanager
def _blocked(path: Path) -> Iterator[None]:
    """Make `path` a directory, so opening it as a file fails (even for root)."""
    saved = path.read_bytes() if path.exists() else None
    path.unlink(missing_ok=True)
    path.mkdir()
    try:
        yield
    finally:
        path.rmdir()
        if saved is not None:
            path.write_bytes(saved)


def _snapshot_temp(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def test_unwritable_journal_gives_storage_error_and_keeps_data(
    store_path: Path, open_store: OpenStore
) -> None:
    store = open_store()
    kept = store.add("kept")
    store.close()
    before = store_path.read_bytes()

    with _blocked(_journal(store_path)):
        with pytest.raises(StorageError) as err:
            store.add("lost")
        assert str(_journal(store_path)) in str(err.value)
        assert err.value.code == "storage_error"
        assert store_path.read_bytes() == before

    assert open_store().get_all() == [kept]
    assert store.add("works again").content == "works again"


def test_unreadable_journal_at_init_gives_storage_error(store_path: Path) -> None:
    store_path.parent.mkdir(parents=True)
    _journal(store_path).mkdir()

    with pytest.raises(StorageError, match=r"cannot read .*memories\.journal"):
        MemoryStore(store_path).init()


def test_failed_snapshot_write_in_clear_and_import_changes_nothing(
    store_path: Path, open_store: OpenStore
) -> None:
    store = open_store()
    kept = [store.add("one"), store.add("two")]
    before = store_files(store_path)

    with _blocked(_snapshot_temp(store_path)):
        with pytest.raises(StorageError, match="cannot write"):
            store.clear()
        with pytest.raises(StorageError, match="cannot write"):
            store.import_([{"id": "x", "content": "x"}], mode="replace")
        assert store.get_all() == kept

    assert store_files(store_path) == before
    assert open_store().get_all() == kept


def test_failed_fold_does_not_fail_an_acknowledged_add(
    store_path: Path, open_store: OpenStore, caplog: pytest.LogCaptureFixture
) -> None:
    store = open_store(settings=StoreSettings(max_items=0))
    contents = [f"memory {n} " + "x" * 1900 for n in range(40)]

    with _blocked(_snapshot_temp(store_path)):
        # The journal crosses the fold threshold, but the snapshot cannot be written.
        for content in contents[:-1]:
            store.add(content)
        assert "Could not fold the journal" in caplog.text
        assert read_snapshot(store_path)["memories"] == []

    store.add(contents[-1])

    assert len(read_snapshot(store_path)["memories"]) == 40
    assert [m.content for m in open_store().get_all()] == contents


def test_read_only_folder_gives_storage_error_and_keeps_data(
    store_path: Path, open_store: OpenStore
) -> None:
    store = open_store()
    kept = store.add("kept")
    folder = store_path.parent
    files = list(folder.iterdir())
    for file in files:
        file.chmod(0o444)
    folder.chmod(0o555)
    try:
        if os.access(folder, os.W_OK) or os.access(_journal(store_path), os.W_OK):
            pytest.skip("permissions are not enforced for this user (root)")
        before = store_files(store_path)
        with pytest.raises(StorageError, match="permission denied"):
            store.add("lost")
        assert store_files(store_path) == before
    finally:
        folder.chmod(0o755)
        for file in files:
            file.chmod(0o644)
    assert open_store().get_all() == [kept]


def test_store_busy_when_another_process_holds_the_lock(tmp_path: Path) -> None:
    lock = tmp_path / "memories.lock"
    fd = os.open(lock, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with (
            pytest.raises(StoreBusyError, match="locked by another process"),
            process_lock(lock, timeout=0.05),
        ):
            pass
    finally:
        os.close(fd)

    with process_lock(lock, timeout=0.05):
        pass


@pytest.mark.parametrize(
    ("number", "reason"),
    [
        (errno.ENOSPC, "the disk is full"),
        (errno.EROFS, "the folder is read-only"),
        (errno.EACCES, "permission denied"),
        (errno.EIO, os.strerror(errno.EIO)),
    ],
)
def test_storage_error_messages(tmp_path: Path, number: int, reason: str) -> None:
    error = storage_error(OSError(number, os.strerror(number)), tmp_path / "m.json")

    assert str(error) == f"cannot write {tmp_path / 'm.json'}: {reason}"
    assert isinstance(error, OSError)


def test_write_atomically_failure_keeps_old_file_and_removes_temp(
    tmp_path: Path,
) -> None:
    target = tmp_path / "file.json"
    target.write_text("old")

    def chunks() -> Iterator[str]:
        yield "partial"
        raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(StorageError, match="the disk is full"):
        write_atomically(target, chunks())

    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.json"]


def signature_of(path: Path) -> tuple[int, int, int]:
    found = os.lstat(path)
    return (found.st_ino, found.st_size, found.st_mtime_ns)


def editor_save(path: Path, text: str) -> None:
    tmp = path.with_name("editor.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


@pytest.mark.parametrize("existing", [True, False])
def test_replace_unless_changed_writes_and_records_first(
    tmp_path: Path, existing: bool
) -> None:
    target = tmp_path / "MEMORY.md"
    if existing:
        target.write_text("old", encoding="utf-8")
    recorded: list[tuple[int, int, int]] = []

    def record(signature: tuple[int, int, int]) -> None:
        # Not in place yet.
        assert not target.exists() or target.read_text(encoding="utf-8") == "old"
        recorded.append(signature)

    expected = signature_of(target) if existing else None
    assert replace_unless_changed(target, ["new"], expected, record)

    assert target.read_text(encoding="utf-8") == "new"
    assert recorded == [signature_of(target)]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["MEMORY.md"]


@pytest.mark.parametrize("existing", [True, False])
def test_replace_unless_changed_never_replaces_a_save_made_meanwhile(
    tmp_path: Path, existing: bool
) -> None:
    """Someone saves the file at the last moment (here: while the write is recorded)."""
    target = tmp_path / "MEMORY.md"
    if existing:
        target.write_text("old", encoding="utf-8")
    expected = signature_of(target) if existing else None

    def someone_saves(signature: tuple[int, int, int]) -> None:
        editor_save(target, "saved meanwhile")

    assert not replace_unless_changed(target, ["new"], expected, someone_saves)

    assert target.read_text(encoding="utf-8") == "saved meanwhile"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["MEMORY.md"]


def test_replace_unless_changed_after_a_removal_writes_nothing(tmp_path: Path) -> None:
    target = tmp_path / "MEMORY.md"
    target.write_text("old", encoding="utf-8")

    def someone_removes(signature: tuple[int, int, int]) -> None:
        target.unlink()

    assert not replace_unless_changed(
        target, ["new"], signature_of(target), someone_removes
    )
    assert list(tmp_path.iterdir()) == []


def test_replace_unless_changed_failing_to_record_puts_nothing_in_place(
    tmp_path: Path,
) -> None:
    target = tmp_path / "MEMORY.md"
    target.write_text("old", encoding="utf-8")

    def record(signature: tuple[int, int, int]) -> None:
        raise StorageError("cannot write the record: the disk is full", tmp_path)

    with pytest.raises(StorageError, match="the record"):
        replace_unless_changed(target, ["new"], signature_of(target), record)
    assert target.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["MEMORY.md"]

    def disk_full(signature: tuple[int, int, int]) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(StorageError, match="the disk is full"):
        replace_unless_changed(target, ["new"], signature_of(target), disk_full)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["MEMORY.md"]


# -- the crash test --------------------------------------------------------------------

CRASH_ITERATIONS = int(os.environ.get("ASSIST_MEMORY_CRASH_ITERATIONS", "25"))
CRASH_SEED = int(os.environ.get("ASSIST_MEMORY_CRASH_SEED", "4004"))
CRASH_SETTINGS = StoreSettings(max_items=0, max_content_length=4000)
WRITER = Path(__file__).with_name("crash_writer.py")


class _Lines:
    """Complete lines from a child's stdout, read without blocking forever."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdout is not None
        self._fd = proc.stdout.fileno()
        self._buffer = b""

    def next(self, deadline: float) -> dict[str, Any] | None:
        """The next line, or None at end of output."""
        while b"\n" not in self._buffer:
            timeout = deadline - time.monotonic()
            if timeout <= 0 or not select.select([self._fd], [], [], timeout)[0]:
                raise TimeoutError("the crash writer stopped writing")
            chunk = os.read(self._fd, 65536)
            if not chunk:
                return None
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        result: dict[str, Any] = json.loads(line)
        return result

    def rest(self, deadline: float) -> list[dict[str, Any]]:
        """Every complete line up to the end of output (a torn last line is dropped)."""
        lines = []
        while (line := self.next(deadline)) is not None:
            lines.append(line)
        return lines


def _check_raw_files(path: Path) -> None:
    """After a crash: a whole snapshot, and a journal torn at most at its end."""
    snapshot = json.loads(path.read_bytes())
    ids = [record["id"] for record in snapshot["memories"]]
    assert len(ids) == len(set(ids)), "duplicate ids in the snapshot"
    journal = _journal(path)
    if journal.exists():
        whole = journal.read_bytes().split(b"\n")[:-1]
        ops = [json.loads(line) for line in whole]
        assert not ops or ops[0]["op"] == "begin"


def _expected_outcomes(
    state: dict[str, str], pending: dict[str, Any] | None
) -> list[dict[str, str]]:
    """The store contents allowed after a kill, given the write that was in flight."""
    if pending is None or pending["op"] in ("access", "reopen", "checkpoint"):
        return [state]
    if pending["op"] == "update":
        return [state, {**state, pending["id"]: pending["content"]}]
    if pending["op"] == "delete":
        return [state, {k: v for k, v in state.items() if k != pending["id"]}]
    if pending["op"] == "clear":
        return [state, {}]
    return [state]  # an add in flight is matched in _check_outcome


def _difference(actual: dict[str, str], expected: dict[str, str]) -> str:
    missing = sorted(expected.keys() - actual.keys())
    unexpected = sorted(actual.keys() - expected.keys())
    changed = sorted(
        k for k in expected.keys() & actual.keys() if actual[k] != expected[k]
    )
    return f"missing {missing}, unexpected {unexpected}, wrong content {changed}"


def _check_outcome(
    actual: dict[str, str], state: dict[str, str], pending: dict[str, Any] | None
) -> None:
    if pending is not None and pending["op"] == "add":
        # The add may have reached the disk before the kill: one new record at most.
        extra = [v for k, v in actual.items() if k not in state]
        if extra not in ([], [pending["content"]]):
            pytest.fail(f"{len(extra)} unacknowledged records appeared")
        actual = {k: v for k, v in actual.items() if k in state}
    allowed = _expected_outcomes(state, pending)
    if actual not in allowed:
        pytest.fail(_difference(actual, allowed[0]))


def _run_writer_until_killed(
    data_dir: Path, seed: int, stderr: Path, state: dict[str, str]
) -> tuple[dict[str, str], dict[str, Any] | None, int]:
    """Run a writer, kill it at a random moment; return what it acknowledged."""
    rng = random.Random(seed)
    min_acks = rng.randint(3, 60)
    deadline = time.monotonic() + 60
    with stderr.open("wb") as errors:
        proc = subprocess.Popen(
            [sys.executable, str(WRITER), str(data_dir), str(seed)],
            stdout=subprocess.PIPE,
            stderr=errors,
        )
    try:
        lines = _Lines(proc)
        seen: list[dict[str, Any]] = []
        acks = 0
        while acks < min_acks:
            line = lines.next(deadline)
            assert line is not None, stderr.read_text()
            seen.append(line)
            acks += line["event"] == "ack"
        time.sleep(rng.uniform(0, 0.02))
        proc.kill()
        proc.wait()
        seen += lines.rest(deadline)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        assert proc.stdout is not None
        proc.stdout.close()

    assert seen[0] == {"event": "ready", "count": len(state)}
    state = dict(state)
    pending: dict[str, Any] | None = None
    for line in seen[1:]:
        if line["event"] == "intent":
            pending = line
            continue
        pending = None
        if line["op"] in ("add", "update"):
            state[line["id"]] = line["content"]
        elif line["op"] == "delete":
            del state[line["id"]]
        elif line["op"] == "clear":
            state.clear()
    return state, pending, acks


def test_killed_writer_loses_no_acknowledged_write(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    path = data_dir / "memories.json"
    state: dict[str, str] = {}
    total_acks = 0
    for iteration in range(CRASH_ITERATIONS):
        seed = CRASH_SEED * 1000 + iteration
        context = f"crash iteration {iteration}, seed {seed}"
        acknowledged, pending, acks = _run_writer_until_killed(
            data_dir, seed, tmp_path / "writer.err", state
        )
        total_acks += acks
        _check_raw_files(path)

        # Every other time check a copy: the next writer then recovers the crash.
        check_dir = data_dir
        if iteration % 2:
            check_dir = tmp_path / f"copy-{iteration}"
            shutil.copytree(data_dir, check_dir)
        store = MemoryStore(check_dir / "memories.json", CRASH_SETTINGS)
        report = store.init()
        assert report.set_aside == [], context
        assert report.invalid_records == 0, context
        actual = {m.id: digest(m.content) for m in store.get_all()}
        store.close()
        if check_dir != data_dir:
            shutil.rmtree(check_dir)

        try:
            _check_outcome(actual, acknowledged, pending)
        except pytest.fail.Exception as err:
            pytest.fail(f"{context}: {err.msg}; in flight: {pending}")
        state = actual

    assert total_acks >= CRASH_ITERATIONS
