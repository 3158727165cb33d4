"""MEMORY.md beside the store: always the store's content, and editable by hand.

The store stays the source of truth; `MEMORY.md` is derived from it (like the search
index) and written, atomically, when changes are flushed, never once per add. An edit
made to the file by a person (a text editor) or through the API is turned into store
changes: new bullets are added, removed ones deleted, changed ones updated; lines that
stay keep their memory's id and statistics.

Telling writes apart: after writing MEMORY.md, an engine (in any process: Home
Assistant, the CLI) records the file's `stat` signature in `.MEMORY.md.written` beside
it, so neither its own writes nor another engine's are ever taken for a hand edit.

An edit is compared with what the file showed when this engine last wrote it, and the
result applied to the store as it is now, so a memory the assistant added in the
meantime survives a hand edit made on the older text. An edit that cannot be applied
(a bullet over the content limit, memory full, not UTF-8) is kept as
`MEMORY.rejected-<time>.md` beside it, and MEMORY.md is written again from the store:
nothing is lost either way.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import suppress
from datetime import UTC, datetime
import logging
import os
from pathlib import Path
from typing import Final

from .durable import (
    fsync_directory,
    make_private_folder,
    storage_error,
    write_atomically,
)
from .errors import InvalidMemoryError, MemoryFullError
from .markdown import (
    parse_markdown,
    plan_reconcile,
    rebase_plan,
    render_markdown,
    render_ordered,
    rendered_order,
)
from .models import Memory
from .store import MemoryStore, ReconcileResult, StoreChange

_LOGGER = logging.getLogger(__name__)

MEMORY_FILE: Final = "MEMORY.md"
RECORD_FILE: Final = ".MEMORY.md.written"
MISSING: Final = "missing"

_Signature = tuple[int, int, int] | None


def markdown_folder(store_folder: Path) -> Path:
    """Where MEMORY.md and the daily logs live: `<store folder>/prompts/memory`."""
    return Path(store_folder) / "prompts" / "memory"


class MarkdownMirror:
    """Keeps `prompts/memory/MEMORY.md` equal to the store, and applies edits to it.

    Synchronous and thread-safe: every method runs under the store's lock; writes to
    MEMORY.md also hold the store's process lock, so what any engine writes matches
    the store at that moment.
    """

    def __init__(self, store: MemoryStore, folder: Path) -> None:
        """`folder` is the store's folder; the files go in `prompts/memory/` below it."""
        self.store = store
        self.folder = markdown_folder(folder)
        self.path = self.folder / MEMORY_FILE
        self.record_path = self.folder / RECORD_FILE
        self.daily_folder = self.folder / "daily"
        self.last_rejected: Path | None = None
        self._started = False
        self._dirty = True
        # What this engine last wrote (or found already written there): the text,
        # the memories it shows, in order, and the file's signature.
        self._text: str | None = None
        self._base: list[Memory] = []
        self._written: _Signature = None
        store.add_change_hook(self._follow_store)

    def _follow_store(self, change: StoreChange, records: Mapping[str, Memory]) -> None:
        self._dirty = True

    # -- lifecycle -------------------------------------------------------------

    def ensure_folders(self) -> None:
        """Create `prompts/memory/` and `prompts/memory/daily/` when missing."""
        make_private_folder(self.daily_folder)

    def edited_offline(self) -> bool:
        """True when MEMORY.md was edited since an engine last wrote it.

        Without a record (a file written before the first start), when the file is
        newer than the store's. Call before the store loads (loading may rewrite its
        files); `start` then applies the edit.
        """
        edited = _stat(self.path)
        if edited is None:
            return False
        if (recorded := self._recorded()) is not None:
            return edited != recorded
        stored = [
            signature[2]
            for signature in (_stat(self.store.path), _stat(self.store.journal_path))
            if signature is not None
        ]
        return edited[2] > max(stored, default=-1)

    def start(self, *, edited_offline: bool = False) -> ReconcileResult:
        """Create the folders and bring MEMORY.md up to date (applying an offline edit)."""
        self.ensure_folders()
        self._started = True
        if edited_offline:
            return self.reconcile_file()
        with self.store.exclusive_records() as records:
            self._publish(records)
        return ReconcileResult()

    def close(self) -> ReconcileResult:
        """Apply an edit still waiting for its quiet spell, then write what is due."""
        result = ReconcileResult()
        if self.outside_change() is not None:
            result = self.reconcile_file()
        self.flush()
        return result

    # -- store -> file ---------------------------------------------------------

    def flush(self) -> bool:
        """Write MEMORY.md if the store changed since; True when it was written.

        A hand edit not yet applied is never overwritten (`reconcile_file` applies
        it, then writes the file).
        """
        with self.store.exclusive_records() as records:
            if not self._started or not self._dirty or self._edit_pending():
                return False
            return self._publish(records)

    def render(self) -> str:
        """MEMORY.md's text for the store as it is now."""
        with self.store.exclusive_records() as records:
            if self._dirty or self._text is None:
                return render_markdown(records.values())
            return self._text

    def _publish(self, records: Mapping[str, Memory]) -> bool:
        """Render and write, unless the file holds exactly that; True when written.

        Called holding the store's process lock (`exclusive_records`).
        """
        base = rendered_order(records.values())
        text = render_ordered(base)
        signature = _stat(self.path)
        if signature is not None and signature == self._written:
            current = self._text
        else:
            current = _read_text(self.path)
        written = current != text
        if written:
            write_atomically(self.path, [text])
            signature = _stat(self.path)
        if signature != self._recorded():
            self._record(signature)
        self._text, self._base, self._written = text, base, signature
        self._dirty = False
        return written

    def _recorded(self) -> _Signature:
        """MEMORY.md's signature as an engine (in any process) last wrote it."""
        try:
            ino, size, mtime = self.record_path.read_text(encoding="ascii").split()
            return (int(ino), int(size), int(mtime))
        except OSError, ValueError, UnicodeDecodeError:
            return None

    def _record(self, signature: _Signature) -> None:
        # Not fsynced: after a crash, a lost record only makes `edited_offline`
        # compare times instead.
        write_atomically(
            self.record_path, [" ".join(map(str, signature or ()))], sync=False
        )

    # -- file -> store ---------------------------------------------------------

    def outside_change(self) -> object | None:
        """A token when MEMORY.md was changed (or removed) by someone else, else None.

        `reconcile_file` then applies it (a file another engine wrote is only
        brought up to date).
        """
        if not self._started:
            return None
        signature = _stat(self.path)
        if signature == self._written:
            return None
        return MISSING if signature is None else signature

    def _edit_pending(self) -> bool:
        """True when the file holds an edit not yet applied (by a person or the API)."""
        signature = _stat(self.path)
        return (
            self._started
            and signature is not None
            and signature != self._written
            and signature != self._recorded()
        )

    def reconcile_file(self) -> ReconcileResult:
        """Apply an edit of MEMORY.md to the store; then write the canonical file.

        An edit that cannot be applied is set aside (`last_rejected`) and logged;
        the store is unchanged and MEMORY.md is written again from it. A missing or
        emptied file is written again too (remove memories by removing their lines).
        """
        with self.store.locked_records():
            with self.store.exclusive_records() as records:
                if self.outside_change() is None:
                    return ReconcileResult()
                seen = _stat(self.path)
                raw = None if seen is None else _read_bytes(self.path)
                if raw is None or seen == self._recorded():
                    # Removed, or written by another engine: no edit to apply.
                    self._publish(records)
                    return ReconcileResult()
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as err:
                return self._reject(f"it is not UTF-8 text ({err.reason})", seen)
            if not text.strip():
                _LOGGER.warning(
                    "%s was emptied; wrote it again from the stored memories "
                    "(to forget them, delete their lines or clear the memory)",
                    self.path,
                )
                return self._finish(ReconcileResult(), seen)
            base = None if self._text is None else self._base
            try:
                result = self._apply(text, base=base)
            except (InvalidMemoryError, MemoryFullError) as err:
                return self._reject(err.message, seen)
            return self._finish(result, seen)

    def write_text(self, text: str) -> ReconcileResult:
        """Make the store hold the bullets of `text` (the API's PUT of MEMORY.md).

        Errors are raised (InvalidMemoryError, MemoryFullError) and nothing changes.
        """
        if not isinstance(text, str):
            raise InvalidMemoryError("invalid_markdown", "MEMORY.md must be text")
        with self.store.locked_records():
            if self._edit_pending():
                self.reconcile_file()  # an edit in the file first, never lost
            seen = _stat(self.path)
            return self._finish(self._apply(text, base=None), seen)

    def _apply(self, text: str, *, base: list[Memory] | None) -> ReconcileResult:
        """Plan against `base` (what the editor saw; None: the store now) and apply."""
        with self.store.locked_records() as records:
            shown = rendered_order(records.values()) if base is None else base
            plan = rebase_plan(
                plan_reconcile(shown, parse_markdown(text)), shown, records
            )
            return self.store.apply_plan(plan)

    def _finish(self, result: ReconcileResult, seen: _Signature) -> ReconcileResult:
        """Write the canonical file, unless it was saved again since it was read."""
        with self.store.exclusive_records() as records:
            if _stat(self.path) in (seen, None):
                self._publish(records)
            else:
                # Saved again meanwhile: the newer edit is applied next, against the
                # memories as they are now (which the editor's text already shows).
                self._base = rendered_order(records.values())
                self._dirty = True
        return result

    def _reject(self, reason: str, seen: _Signature) -> ReconcileResult:
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        target = self.path.with_name(f"{self.path.stem}.rejected-{stamp}.md")
        try:
            os.replace(self.path, target)
            fsync_directory(self.folder)
        except OSError as err:
            raise storage_error(err, self.path) from err
        self.last_rejected = target
        _LOGGER.error(
            "The edit of %s could not be applied (%s); kept it as %s and wrote "
            "MEMORY.md again from the stored memories",
            self.path,
            reason,
            target,
        )
        return self._finish(ReconcileResult(), seen)


def _stat(path: Path) -> _Signature:
    try:
        st = os.stat(path)
    except FileNotFoundError, NotADirectoryError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def _read_bytes(path: Path) -> bytes | None:
    """The file's content, or None when it is missing."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as err:
        raise storage_error(err, path) from err


def _read_text(path: Path) -> str | None:
    """The file's text, or None when it is missing or not UTF-8."""
    raw = _read_bytes(path)
    with suppress(UnicodeDecodeError):
        return None if raw is None else raw.decode("utf-8")
    return None
