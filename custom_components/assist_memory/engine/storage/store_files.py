"""The memory store's files: a snapshot and a journal, loaded, folded and locked.

Files, side by side:
- `memories.json`: the canonical snapshot, `{"format", "version", "generation",
  "memories": [...]}` (a plain JSON list of records is also read).
- `memories.journal`: changes since that snapshot, one fsynced JSON line each. It is
  folded into the snapshot when it grows, at start and at close, so an add costs one
  small append instead of rewriting every record.
- `memories.lock`: an flock that serialises writers across processes (Home Assistant
  and the CLI may share a folder). Each call notices changes made by another process.

A deleted memory leaves both files before `delete` returns: the journal is written
again without its lines, and when the snapshot holds it (it was added before the last
fold), the snapshot is written again without its line, a byte copy (its cost grows
with the store's size, though far less than encoding every record again).
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
import json
import logging
import math
import os
from pathlib import Path
import sys
import threading
from typing import Any, Final
import zlib

from ..errors import InvalidMemoryError, StorageError
from .durable import (
    PRIVATE_FILE,
    append_durably,
    fsync_directory,
    make_private_folder,
    prepare_file,
    process_lock,
    storage_error,
    write_atomically,
)
from .journal import encode_begin, ops_without, read_journal
from .jsonfast import json_loads
from .models import Memory, memory_from_dict, memory_from_trusted, parse_time, utc_now
from .settings import StoreSettings
from .yielding import yielding

_LOGGER = logging.getLogger(__name__)


SNAPSHOT_FORMAT: Final = "assist_memory"


# 2: a memory may have `expires_at` (format 1 files load as memories that never end).
FORMAT_VERSION: Final = 2


# Fold the journal when it is larger than this share of the snapshot (or 64 KiB).
_FOLD_RATIO: Final = 8
_FOLD_MIN_BYTES: Final = 64 * 1024
# With folds in the background, how many times the fold size a write waits for
# before folding itself (only when the background folds keep losing to writes).
_FOLD_BEHIND_FACTOR: Final = 4
# Records already stored are loaded whatever today's content limit is: the limit may
# have been lowered (set_settings) or another process may use other settings.
_STORED_CONTENT_LIMIT: Final = sys.maxsize

_Signature = tuple[tuple[int, int, int] | None, tuple[int, int, int] | None]


@dataclass(slots=True)
class LoadReport:
    """What loading found; `set_aside` lists files moved away instead of lost.

    `rejected_edits`: hand edits of MEMORY.md found at start and kept aside unapplied.
    """

    count: int = 0
    set_aside: list[Path] = field(default_factory=list)
    rejected_edits: list[Path] = field(default_factory=list)
    invalid_records: int = 0
    replayed_ops: int = 0
    dropped_torn_write: bool = False


@dataclass(frozen=True, slots=True)
class StoreChange:
    """What a write or a reload changed, for data derived from the store (the index).

    `reloaded` means anything may have changed: derive again from all records.
    """

    upserted: tuple[Memory, ...] = ()
    deleted: tuple[str, ...] = ()
    reloaded: bool = False


ChangeHook = Callable[[StoreChange, Mapping[str, Memory]], None]


class StoreFiles:
    """The store's files and the records loaded from them: load, journal, fold, locks."""

    def __init__(
        self,
        path: Path,
        settings: StoreSettings | None = None,
        *,
        clock: Callable[[], str] = utc_now,
        read_only: bool = False,
    ) -> None:
        """The store at `path` (loaded by `init`).

        `read_only`: for a reader on a folder another program may own (a CLI
        search): the journal is replayed in memory, never folded, and no file is
        written by loading or closing.
        """
        self.read_only = read_only
        # Set by a host that calls `fold` on a thread of its own: a write then folds
        # the journal itself only when it has grown far past the size for a fold.
        self.fold_in_background = False
        self.path = Path(path)
        self.journal_path = self.path.with_suffix(".journal")
        self.lock_path = self.path.with_suffix(".lock")
        self.settings = settings or StoreSettings()
        self._clock = clock
        self._lock = threading.RLock()
        self._records: dict[str, Memory] = {}
        self._generation = 0
        self._seen: _Signature = (None, None)
        self._journal_valid_size = 0
        self._snapshot_size = 0
        # Memories added since the snapshot was written: their text is in the journal only.
        self._only_in_journal: set[str] = set()
        self._initialized = False
        # True while this store holds the process lock (always under `_lock`).
        self._holding_process_lock = False
        self.last_changed: str | None = None
        self.last_report = LoadReport()
        # Loads of changes another process made (by any call, not only `refresh`):
        # a watcher compares it to tell listeners about changes a read picked up.
        self.outside_loads = 0
        self._hooks: list[ChangeHook] = []

    def add_change_hook(self, hook: ChangeHook) -> None:
        """Call `hook` (under the store's lock) after every change and reload."""
        with self._lock:
            self._hooks.append(hook)

    def _changed(self, change: StoreChange) -> None:
        for hook in self._hooks:
            try:
                hook(change, self._records)
            except Exception:
                # Derived data must never fail a write that is already durable.
                _LOGGER.exception("Updating data derived from the store failed")

    # -- lifecycle -----------------------------------------------------------

    def init(self) -> LoadReport:
        """Create the folder, load the file (or create an empty one) and fold the journal."""
        with self._lock:
            self.ensure_folder()
            with self._process_locked():
                if self.read_only:
                    report = self._load()
                    self._initialized = True
                    return report
                self._remove_stale_temp_files()
                report = self._load()
                if not self.path.exists():
                    self._write_snapshot(self._records)
                elif self._records_in_journal():
                    self._fold()
                self._initialized = True
            return report

    def ensure_folder(self) -> None:
        """Create the store's folder when missing (StorageError when impossible)."""
        make_private_folder(self.path.parent)

    def close(self) -> None:
        """Fold pending journal entries into the snapshot (a reader leaves them)."""
        with self._lock:
            if self._initialized and not self.read_only:
                self.checkpoint()

    def checkpoint(self) -> None:
        """Fold the journal into the snapshot now (also done automatically)."""
        with self._lock, self._process_locked():
            self._refresh_locked()
            if self._records_in_journal():
                self._write_snapshot(self._records)

    def fold_due(self) -> bool:
        """True when the journal has grown enough to be folded (see `fold`)."""
        return self._initialized and not self.read_only and self._journal_is_large()

    def fold(self) -> bool:
        """Fold the journal into a new snapshot, written outside the store's locks.

        For a thread of its own (`fold_in_background`): the records are taken under
        the lock (references only) and written beside the snapshot; the locks are
        taken again only to put it in place, and only if nothing was written
        meanwhile (a change made since is in the journal only; it is tried again
        later). True when folded.
        """
        with self._read() as records:
            if self.read_only or not self._records_in_journal():
                return False
            memories = list(records.values())
            generation, seen = self._generation, self._seen
            journal_size = self._journal_valid_size
        prepared = prepare_file(self.path, _snapshot_chunks(memories, generation + 1))
        try:
            with self._lock, self._process_locked():
                self._refresh_locked()
                if (self._generation, self._journal_valid_size, self._seen) != (
                    generation,
                    journal_size,
                    seen,
                ):
                    return False  # written meanwhile
                prepared.put_in_place()
                self._begin_generation(generation + 1)
                return True
        finally:
            prepared.discard()

    def set_settings(self, settings: StoreSettings) -> None:
        """Apply new limits; existing records are kept even if now over a limit."""
        with self._lock:
            self.settings = settings

    @contextmanager
    def _read(self) -> Iterator[dict[str, Memory]]:
        """The records, reloaded first if another process changed the files."""
        with self._lock:
            self._ensure_initialized()
            if self._signature() != self._seen:
                with self._process_locked():
                    self._refresh_locked()
            yield self._records

    @contextmanager
    def _write(self) -> Iterator[dict[str, Memory]]:
        """The records, for one change made under both locks."""
        with self._lock:
            self._ensure_initialized()
            with self._process_locked():
                self._refresh_locked()
                yield self._records
                limit = _FOLD_BEHIND_FACTOR if self.fold_in_background else 1
                if self._journal_is_large(limit):
                    self._fold()

    @contextmanager
    def _process_locked(self) -> Iterator[None]:
        """The process lock, taken once however deeply calls nest (`_lock` held).

        A second flock on a new descriptor would wait for the first one forever.
        """
        if self._holding_process_lock:
            yield
            return
        with process_lock(self.lock_path):
            self._holding_process_lock = True
            try:
                yield
            finally:
                self._holding_process_lock = False

    def _fold(self) -> None:
        """Fold the journal into the snapshot if the disk lets us (process lock held).

        The changes are already durable in the journal: a failed fold (a full disk)
        is logged, never raised in place of an acknowledged write; it is retried.
        """
        try:
            self._write_snapshot(self._records)
        except StorageError as err:
            _LOGGER.warning("Could not fold the journal: %s", err)

    def _erase(self, memory_id: str) -> None:
        """Take a deleted memory's text out of the files (process lock held).

        The deletion is durable already: a failure (a full disk) is logged, and the
        text goes with the next fold.
        """
        try:
            if memory_id not in self._only_in_journal:
                kept = _without_record(_read_bytes(self.path), memory_id)
                if kept is None:
                    self._write_snapshot(self._records)
                    return
                # The same generation: the journal still applies to it.
                write_atomically(self.path, kept)
                self._snapshot_size = sum(len(part) for part in kept)
            self._only_in_journal.discard(memory_id)
            lines = [
                encode_begin(self._generation),
                *ops_without(read_journal(self.journal_path).ops, memory_id),
            ]
            write_atomically(self.journal_path, [line.decode() for line in lines])
            self._journal_valid_size = sum(len(line) for line in lines)
            self._seen = self._signature()
        except StorageError as err:
            _LOGGER.warning("Could not erase a deleted memory from the files: %s", err)

    def _ensure_initialized(self) -> None:
        if not self._initialized:
            self.init()

    def _signature(self) -> _Signature:
        return (_stat(self.path), _stat(self.journal_path))

    def _refresh_locked(self) -> None:
        """Reload if another process changed the files (process lock held)."""
        if self._signature() != self._seen:
            self._load()
            self.outside_loads += 1

    def _records_in_journal(self) -> bool:
        return self._journal_valid_size > len(encode_begin(self._generation))

    def _journal_is_large(self, factor: int = 1) -> bool:
        limit = max(_FOLD_MIN_BYTES, self._snapshot_size // _FOLD_RATIO)
        return self._journal_valid_size > factor * limit

    def _load(self) -> LoadReport:
        """Read snapshot and journal into memory (process lock held)."""
        report = LoadReport()
        records, generation, needs_rewrite = self._load_snapshot(report)
        journal = read_journal(self.journal_path)
        if journal.size > journal.valid_size:
            report.dropped_torn_write = True
            _LOGGER.warning(
                "Dropped an unacknowledged, half-written change at the end of %s",
                self.journal_path,
            )
        invalid_in_journal = 0
        only_in_journal: set[str] = set()
        if journal.generation == generation:
            before = report.invalid_records
            report.replayed_ops = self._replay(
                records, journal.ops, report, only_in_journal
            )
            invalid_in_journal = report.invalid_records - before
        superseded = journal.generation is not None and journal.generation < generation
        if (
            journal.damaged_lines
            or invalid_in_journal
            or (journal.ops and not superseded and journal.generation != generation)
        ):
            # Damaged lines, or changes that belong to no snapshot we know (the
            # snapshot was replaced by hand): keep the journal for a person to check.
            moved = self._set_aside(self.journal_path, "journal")
            _LOGGER.error(
                "%s could not be fully applied; moved it to %s",
                self.journal_path,
                moved,
            )
            report.set_aside.append(moved)
            needs_rewrite = True
        # A journal of another generation (superseded after a crash between snapshot
        # and journal reset, or a bare header) must be reset before anything is appended.
        needs_rewrite = needs_rewrite or (
            journal.size > 0 and journal.generation != generation
        )
        self._records = records
        self._only_in_journal = only_in_journal
        self._generation = generation
        self._journal_valid_size = journal.valid_size
        self._seen = self._signature()
        self._snapshot_size = self._seen[0][1] if self._seen[0] else 0
        self.last_changed = _files_changed_at(self._seen)
        if needs_rewrite or journal.size > journal.valid_size:
            self._write_snapshot(records)
        report.count = len(records)
        self.last_report = report
        self._changed(StoreChange(reloaded=True))
        return report

    def _load_snapshot(self, report: LoadReport) -> tuple[dict[str, Memory], int, bool]:
        """Parse memories.json; returns records, generation and whether to rewrite it."""
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return {}, 0, False
        except OSError as err:
            raise StorageError(
                f"cannot read {self.path}: {err.strerror}", self.path
            ) from err
        if not raw.strip():
            return {}, 0, False
        if _checksum_matches(raw):
            # As this engine wrote it: read record by record, never all parsed at once.
            loaded = _trusted_snapshot(raw)
            if loaded is not None:
                return loaded[0], loaded[1], False
        try:
            document = json_loads(raw)
        except ValueError:
            document = None
        if isinstance(document, list):
            items, generation = document, 0
        elif isinstance(document, dict) and isinstance(document.get("memories"), list):
            items = document["memories"]
            raw_generation = document.get("generation", 0)
            generation = raw_generation if isinstance(raw_generation, int) else 0
        else:
            moved = self._set_aside(self.path, "corrupt")
            _LOGGER.error(
                "%s is not a valid memory file; moved it to %s and started empty",
                self.path,
                moved,
            )
            report.set_aside.append(moved)
            return {}, 0, True
        records: dict[str, Memory] = {}
        rejected: builtins.list[Any] = []
        for item in items:
            try:
                memory = memory_from_dict(
                    item, max_content_length=_STORED_CONTENT_LIMIT
                )
            except InvalidMemoryError:
                rejected.append(item)
                continue
            if memory.id in records:
                rejected.append(item)
                continue
            records[memory.id] = memory
        if rejected:
            report.invalid_records = len(rejected)
            side = self._side_path("invalid", ".json")
            write_atomically(side, [json.dumps(rejected, ensure_ascii=False, indent=1)])
            report.set_aside.append(side)
            _LOGGER.error(
                "%d invalid records in %s were moved to %s",
                len(rejected),
                self.path,
                side,
            )
        return records, generation, bool(rejected)

    def _replay(
        self,
        records: dict[str, Memory],
        ops: builtins.list[dict[str, Any]],
        report: LoadReport,
        only_in_journal: set[str],
    ) -> int:
        """Apply the journal's operations; notes the memories it added."""
        applied = 0
        deleted: set[str] = set()
        for op in ops:
            if op["op"] == "access":
                applied += _replayed_uses(records, op, report)
                continue
            if op["op"] == "delete":
                memory_id = str(op.get("id"))
                records.pop(memory_id, None)
                only_in_journal.discard(memory_id)
                deleted.add(memory_id)
                applied += 1
                continue
            try:
                memory = memory_from_dict(
                    op.get("memory"), max_content_length=_STORED_CONTENT_LIMIT
                )
            except InvalidMemoryError:
                report.invalid_records += 1
                continue
            if memory.id not in records and memory.id not in deleted:
                only_in_journal.add(memory.id)
            records[memory.id] = memory
            applied += 1
        return applied

    def _append(self, line: bytes, *, durable: bool = True) -> None:
        """Append to the journal (process lock held), first cutting any torn tail."""
        path = self.journal_path
        try:
            if self._journal_valid_size == 0 or not path.exists():
                header = encode_begin(self._generation)
                write_atomically(path, [header.decode()])
                self._journal_valid_size = len(header)
            fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        except OSError as err:
            raise storage_error(err, path) from err
        try:
            if os.fstat(fd).st_size != self._journal_valid_size:
                os.ftruncate(fd, self._journal_valid_size)
            if durable:
                append_durably(fd, line, path)
            else:
                os.write(fd, line)
        except (OSError, StorageError) as err:
            # A full disk may have taken part of the line: cut it, so the journal is
            # as before and a read does not take the failed write for another's.
            with suppress(OSError):
                os.ftruncate(fd, self._journal_valid_size)
            self._seen = self._signature()
            if isinstance(err, StorageError):
                raise
            raise storage_error(err, path) from err
        finally:
            os.close(fd)
        self._journal_valid_size += len(line)
        self._seen = self._signature()
        if durable:
            self.last_changed = self._clock()

    def _write_snapshot(self, records: Mapping[str, Memory]) -> None:
        """Write all records as a new generation, then start its empty journal."""
        generation = self._generation + 1
        write_atomically(self.path, _snapshot_chunks(records.values(), generation))
        self._begin_generation(generation)

    def _begin_generation(self, generation: int) -> None:
        """The snapshot of `generation` is in place: start its empty journal."""
        self._generation = generation
        self._only_in_journal.clear()
        # The old journal is superseded: if resetting it fails, the next append
        # starts a new one rather than add to one a reload would skip.
        self._journal_valid_size = 0
        write_atomically(self.journal_path, [encode_begin(generation).decode()])
        self._journal_valid_size = len(encode_begin(generation))
        self._seen = self._signature()
        self._snapshot_size = self._seen[0][1] if self._seen[0] else 0

    def _remove_stale_temp_files(self) -> None:
        """Temp files of writes a crash interrupted (process lock held: none is live)."""
        for name in (self.path.name, self.journal_path.name):
            for stale in self.path.parent.glob(f".{name}.*.tmp"):
                with suppress(OSError):
                    stale.unlink()

    def _side_path(self, label: str, suffix: str) -> Path:
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        return self.path.with_name(f"{self.path.stem}.{label}-{stamp}{suffix}")

    def _set_aside(self, path: Path, label: str) -> Path:
        """Move a damaged file out of the way, keeping it for a person to inspect."""
        target = self._side_path(label, path.suffix)
        try:
            os.replace(path, target)
            os.chmod(target, PRIVATE_FILE)
            fsync_directory(path.parent)
        except OSError as err:
            raise storage_error(err, path) from err
        return target


# The snapshot ends with a CRC-32 of everything before it. When it matches, the file is
# exactly as the engine wrote it and the records load without checking every field;
# a file edited by hand is checked field by field.
_CHECKSUM_MARKER: Final = '\n], "checksum": "'


def _trusted_snapshot(raw: bytes) -> tuple[dict[str, Memory], int] | None:
    """The records and generation of a snapshot this engine wrote (checksum matched).

    It holds one record per line (see `_snapshot_chunks`): each is parsed and made a
    Memory in turn, so the parsed file never sits in memory whole (at 100 000
    memories that is the peak of a start). None when it is not in that shape.
    """
    header_end = raw.find(b"\n") + 1
    marker = raw.rfind(_CHECKSUM_MARKER.encode())
    try:
        header = json_loads(raw[:header_end] + b"]}")
        generation = header["generation"]
        if header["memories"]:
            return None  # records on the first line: not one per line
        records: dict[str, Memory] = {}
        lines, start = 0, header_end
        while start < marker:
            end = raw.find(b"\n", start, marker)
            end = marker if end < 0 else end
            item = json_loads(raw[start:end].removesuffix(b","))
            records[item["id"]] = memory_from_trusted(item)
            lines, start = lines + 1, end + 1
    except ValueError, KeyError, TypeError:
        return None
    if not isinstance(generation, int) or len(records) != lines:
        return None  # not as this engine writes it: every field is checked instead
    return records, generation


def _count_uses(records: dict[str, Memory], memory_ids: Iterable[str], at: str) -> None:
    """One more use of each memory (that is still there), last used at `at`."""
    for memory_id in memory_ids:
        if (current := records.get(memory_id)) is not None:
            records[memory_id] = current.with_changes(
                last_accessed=at, access_count=current.access_count + 1
            )


def _replayed_uses(
    records: dict[str, Memory], op: dict[str, Any], report: LoadReport
) -> int:
    """Apply a journal line of uses; a damaged one is counted invalid (0 applied)."""
    ids, at = op.get("ids"), op.get("at")
    try:
        parse_time(at, "last_accessed")
    except InvalidMemoryError:
        report.invalid_records += 1
        return 0
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        report.invalid_records += 1
        return 0
    _count_uses(records, ids, str(at))
    return 1


def _snapshot_chunks(records: Iterable[Memory], generation: int) -> Iterator[str]:
    crc = 0

    def counted(chunk: str) -> str:
        nonlocal crc
        crc = zlib.crc32(chunk.encode(), crc)
        return chunk

    yield counted(
        f'{{"format": "{SNAPSHOT_FORMAT}", "version": {FORMAT_VERSION}, '
        f'"generation": {generation}, "memories": [\n'
    )
    separator = ""
    for memory in yielding(records):  # a fold runs beside live searches
        yield counted(separator + json.dumps(memory.to_dict(), ensure_ascii=False))
        separator = ",\n"
    yield f'{_CHECKSUM_MARKER}{crc:08x}"}}\n'


def _without_record(raw: bytes, memory_id: str) -> list[bytes | memoryview] | None:
    """The snapshot without one record's line, its checksum made again (in parts).

    None when the file is not exactly as the engine wrote it (edited by hand) or the
    record is not there or is the only one: then the snapshot is written anew.
    """
    if not _checksum_matches(raw):
        return None
    start = raw.find(f'\n{{"id": {json.dumps(memory_id)}, '.encode()) + 1
    if not start:
        return None
    end = raw.index(b"\n", start)
    marker = raw.rfind(_CHECKSUM_MARKER.encode())
    view = memoryview(raw)
    if raw[end - 1 : end] == b",":  # a record followed by another: its line goes
        parts = [view[:start], view[end + 1 : marker]]
    elif raw[start - 2 : start - 1] == b",":  # the last one: the comma before it too
        parts = [view[: start - 2], view[end:marker]]
    else:
        return None
    crc = zlib.crc32(parts[1], zlib.crc32(parts[0]))
    return [*parts, f'{_CHECKSUM_MARKER}{crc:08x}"}}\n'.encode()]


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as err:
        raise storage_error(err, path) from err


def _checksum_matches(raw: bytes) -> bool:
    marker = raw.rfind(_CHECKSUM_MARKER.encode())
    if marker < 0:
        return False
    stated = raw[marker + len(_CHECKSUM_MARKER) : marker + len(_CHECKSUM_MARKER) + 8]
    return stated == f"{zlib.crc32(raw[:marker]):08x}".encode()


def _stat(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def _files_changed_at(signature: _Signature) -> str | None:
    times = [s[2] for s in signature if s is not None]
    if not times:
        return None
    seconds = max(times) / 1e9
    return datetime.fromtimestamp(math.floor(seconds * 1e6) / 1e6, UTC).isoformat()
