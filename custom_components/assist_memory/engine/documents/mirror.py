"""MEMORY.md beside the store: always the store's content, and editable by hand.

The store stays the source of truth; `MEMORY.md` is derived from it (like the search
index) and written, atomically, when changes are flushed, never once per add. An edit
made to the file by a person (a text editor) is turned into store changes: new bullets
are added, removed ones deleted, changed ones updated; lines that stay keep their
memory's id and statistics.

Every engine (Home Assistant, the server, the CLI, in any process) records what it
wrote in `.MEMORY.md.base` (see `written_base`), and the file's last line names that
version. An edit is merged three ways (`edit_merge`): against the text it was made on,
applied to the store as it is now, so whatever was added or changed meanwhile, by
this engine or another, survives it, whichever engine applies it and however stale.

Nothing is lost: an edit that cannot be applied safely (no bullets, another file,
too many removals, a conflict with a newer change, a bullet over the content limit,
memory full, not UTF-8, not a regular file, too large) changes nothing; the file
itself is kept as `MEMORY.rejected-<time>.md` (readable by its owner only), one log
line says why (never what it holds), and MEMORY.md is written again from the store.
The file is read without any lock of the store held, and only if it is a regular
file of a bounded size (`untrusted_file`): a FIFO or a link to a device cannot hang
or exhaust anything.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from contextlib import suppress
from dataclasses import replace
from datetime import UTC, datetime, tzinfo
import logging
import os
from pathlib import Path
import stat
import threading
from typing import Final

from ..errors import InvalidMemoryError, MemoryEngineError, MemoryFullError
from ..storage.durable import (
    fsync_directory,
    make_private_folder,
    prepare_file,
    replace_unless_changed,
    storage_error,
    write_atomically,
)
from ..storage.models import Memory
from ..storage.store import MemoryStore, ReconcileResult
from ..storage.store_files import StoreChange
from ..storage.untrusted_file import (
    Signature,
    UntrustedFile,
    file_signature,
    read_untrusted,
    restrict_to_owner,
)
from .markdown import parse_markdown, plan_reconcile, rendered_order
from .markdown_incremental import ShownDocument
from .written_base import (
    WrittenBase,
    encode_base_blocks,
    first_base,
    load_base,
    save_base,
    without_version,
)

_LOGGER = logging.getLogger(__name__)

MEMORY_FILE: Final = "MEMORY.md"
BASE_FILE: Final = ".MEMORY.md.base"
# Earlier versions recorded only the file's signature there.
_OLD_RECORD_FILE: Final = ".MEMORY.md.written"
MISSING: Final = "missing"
# An edit larger than this (or than twice the file as last written, when that is
# more) is kept aside unread.
EDIT_SIZE_LIMIT: Final = 16 * 1024 * 1024


def markdown_folder(store_folder: Path) -> Path:
    """Where MEMORY.md and the daily logs live: `<store folder>/prompts/memory`."""
    return Path(store_folder) / "prompts" / "memory"


class MarkdownMirror:
    """Keeps `prompts/memory/MEMORY.md` equal to the store, and applies edits to it.

    Synchronous and thread-safe. MEMORY.md and its base are written holding the
    store's process lock, so what any engine writes matches the store at that moment;
    an edit is read before that lock is taken.
    """

    def __init__(self, store: MemoryStore, folder: Path, zone: tzinfo) -> None:
        """`folder` is the store's folder; the files go in `prompts/memory/` below it.

        `zone` is the home's time zone, in which a memory's end is said ("until 6 Dec").
        """
        self.store = store
        self.zone = zone
        self.folder = markdown_folder(folder)
        self.path = self.folder / MEMORY_FILE
        self.base_path = self.folder / BASE_FILE
        self.daily_folder = self.folder / "daily"
        self.last_rejected: Path | None = None
        self._lock = threading.RLock()
        self._started = False
        self._dirty = True
        self._base: WrittenBase | None = None
        self._base_signature: Signature | None = None
        # MEMORY.md's signature once this engine wrote it or found it up to date.
        self._written: Signature | None = None
        # The lines shown, changed per memory (see `markdown_incremental`); built
        # again from every memory only after a reload or another engine's write.
        # Lock order: `_lock`, then `_document_lock`, then the store's locks.
        self._document_lock = threading.Lock()
        self._document: ShownDocument | None = None
        # The text `render` gave last, and the document and revision it showed.
        self._rendered: tuple[ShownDocument, int, str] | None = None
        # Under the store's lock: the memories changed since the document last
        # followed (None: deleted), and whether it must be built again.
        self._changes: dict[str, Memory | None] = {}
        self._rebuild = True
        store.add_change_hook(self._follow_store)

    def _follow_store(self, change: StoreChange, records: Mapping[str, Memory]) -> None:
        self._dirty = True
        if change.reloaded:
            self._rebuild = True
            self._changes.clear()
            return
        for memory in change.upserted:
            self._changes[memory.id] = memory
        for memory_id in change.deleted:
            self._changes[memory_id] = None

    # -- lifecycle -------------------------------------------------------------

    def ensure_folders(self) -> None:
        """Create `prompts/memory/` and `prompts/memory/daily/` when missing."""
        make_private_folder(self.daily_folder)

    def start(self) -> ReconcileResult:
        """Create the folders; apply an edit made while nothing ran, or write a missing file.

        An edit made while nothing ran (or one a stopped engine had not applied
        yet) is applied. A file as this or another engine wrote it is left for the
        next `flush` (the store may have changed since: the mirror starts dirty).
        """
        self.ensure_folders()
        with suppress(OSError):
            (self.folder / _OLD_RECORD_FILE).unlink()
        self._started = True
        found = file_signature(self.path)
        if found is not None and found == self._load_base().file:
            # No edit: nothing rendered at start; the next flush brings it up to date.
            self._written = found
            return ReconcileResult()
        return self.reconcile_file()

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

        Only the changed memories' lines are rendered (`ShownDocument`), under the
        document's lock; the file and its base are written beside their places
        outside every lock of the store; the process lock is taken only to check that
        nobody wrote meanwhile and to rename them in place (the base first). The
        file shows the store as it was when its lines were taken; a change made since
        leaves the mirror dirty for the next flush, and an edit of that file is
        merged against what it showed, like any stale edit. A hand edit not yet
        applied is never overwritten (`reconcile_file` applies it, then writes).
        """
        with self._lock:
            if not self._started or not self._dirty:
                return False
            try:
                written = self._publish_document()
            except BaseException:
                self._dirty = True
                self._forget_document()
                raise
            if not written and self._dirty:
                self._forget_document()  # not put in place: built again next time
            return written

    def _publish_document(self) -> bool:
        """Show the store in MEMORY.md (see `flush`); True when it was written."""
        base = self._load_base()
        with self._document_lock:
            document = self._follow(base, writing=True)
            shown = document.shown()
            if shown is base and file_signature(self.path) == base.file:
                self._written = base.file
                return False  # already shown
            text = document.text_pieces(shown)
            encoded = document.encoded_blocks()
            # Changes from here on are against these lines (forgotten if not written).
            document.written(shown)
        page = prepare_file(self.path, text)
        recorded = replace(shown, file=page.signature)
        record = prepare_file(self.base_path, encode_base_blocks(recorded, encoded))
        try:
            with self.store.exclusive_records():
                signature = file_signature(self.path)
                if self._load_base() is not base or signature not in (None, base.file):
                    self._dirty = True
                    return False  # written or edited meanwhile: looked at next
                record.put_in_place()  # recorded before the file is shown
                self._base = recorded
                self._base_signature = file_signature(self.base_path)
                if not page.put_in_place_unless_changed(signature):
                    self._dirty = True
                    return False  # changed at this very moment: looked at next
                self._written = page.signature
        finally:
            page.discard()
            record.discard()
        with self._document_lock:
            document.published = recorded
        return True

    def _follow(self, base: WrittenBase | None, *, writing: bool) -> ShownDocument:
        """The document, following the store's changes (document lock held).

        Built again from every memory when there is none yet, after a reload, or when
        `base` (the one recorded now) is not the one it was last written as.
        `writing`: the lines taken are the ones about to be written (not dirty).
        """
        with self.store.locked_records() as records:
            if writing:
                self._dirty = False
            changes, self._changes = self._changes, {}
            document = self._document
            memories: list[Memory] | None = None
            if (
                document is None
                or self._rebuild
                or (base is not None and base is not document.published)
            ):
                self._rebuild = False
                memories = list(records.values())
        if document is None or memories is not None:
            # Whole-store work, outside the store's lock: once after a start or reload.
            document = ShownDocument(
                base or self._load_base(), memories or [], self.zone
            )
            self._document = document
        else:
            document.follow(changes)
        return document

    def build_lines(self) -> None:
        """Build the lines kept for MEMORY.md from every memory now, not at the first write.

        A host calls it while it starts: at 100 000 memories the build takes about
        half a second, which the first write (a second after a start) would spend
        beside live searches, each of them waiting for the interpreter's lock.
        """
        with self._document_lock:
            self._follow(None, writing=False)

    def set_zone(self, zone: tzinfo) -> None:
        """Say the ends in another time zone from now on (the next flush writes it)."""
        with self._lock:
            if zone == self.zone:
                return
            self.zone = zone
            self._forget_document()
            self._dirty = True

    def _forget_document(self) -> None:
        with self._document_lock:
            self._document = None

    def render(self) -> str:
        """MEMORY.md's text for the store as it is now (without the version line).

        The lines kept are brought up to date with the changes since (not the whole
        store), outside the store's lock.
        """
        with self._document_lock:
            document = self._follow(None, writing=False)
            if self._rendered is not None:
                shown, revision, text = self._rendered
                if shown is document and revision == document.revision:
                    return text
            text = "".join(document.body_pieces())
            self._rendered = (document, document.revision, text)
            return text

    def _publish(self, base: WrittenBase, edit: UntrustedFile | None = None) -> bool:
        """Make MEMORY.md show the store and record it; True when the file was written.

        Never over an edit not applied yet: only a missing file, the one `base`
        recorded, or `edit` (just applied, or holding exactly what would be written)
        is replaced. Called holding the process lock.
        """
        with self.store.exclusive_records() as records:
            signature = file_signature(self.path)
            if signature not in (None, base.file, edit and edit.signature):
                self._dirty = True
                return False  # saved (again) meanwhile: that edit comes first
            shown = base.showing(rendered_order(records.values()), self.zone)
            text = shown.text()
            written = signature is None or not (
                (signature == base.file and shown is base)
                or (edit is not None and edit.data == text.encode())
            )
            if not written:
                self._record(replace(shown, file=signature), base)
            elif not replace_unless_changed(
                self.path,
                [text],
                signature,
                lambda new: self._record(replace(shown, file=new), base),
            ):
                self._dirty = True
                return False  # changed at this very moment: looked at next
            self._written = self._load_base().file
            self._dirty = False
            return written

    def _record(self, shown: WrittenBase, base: WrittenBase) -> None:
        """Record what MEMORY.md shows (before a new text is put in place)."""
        if shown != base:
            save_base(self.base_path, shown)
            self._base_signature = file_signature(self.base_path)
        self._base = shown

    def _load_base(self) -> WrittenBase:
        """The recorded base, read again only when its file changed."""
        signature = file_signature(self.base_path)
        if self._base is None or signature != self._base_signature:
            self._base = load_base(self.base_path) or first_base()
            self._base_signature = signature
        return self._base

    # -- file -> store ---------------------------------------------------------

    def outside_change(self) -> object | None:
        """A token when MEMORY.md was changed (or removed) by someone else, else None.

        `reconcile_file` then applies it (a file another engine wrote is only
        brought up to date).
        """
        if not self._started:
            return None
        signature = file_signature(self.path)
        if signature == self._written:
            return None
        return MISSING if signature is None else signature

    def reconcile_file(self) -> ReconcileResult:
        """Apply an edit of MEMORY.md to the store; then write the file from the store.

        An edit that cannot be applied is kept aside (`last_rejected`, and
        `rejected` in the result) and logged; the store is unchanged. A missing or
        emptied file is written again (remove memories by removing their lines).
        """
        with self._lock:
            if not self._started:
                return ReconcileResult()
            edit = self._read_edit()  # before any lock of the store is taken
            with self.store.exclusive_records():
                base = self._load_base()
                found = file_signature(self.path)
                if found is None or found == base.file:
                    self._publish(base)  # no edit: only bring the file up to date
                    return ReconcileResult()
                if edit is None or found != edit.signature:
                    return ReconcileResult()  # saved again since: applied next time
                return self._apply(edit, base)

    def _read_edit(self) -> UntrustedFile | None:
        """MEMORY.md as found, when it may hold an edit (no lock of the store held)."""
        base = self._load_base()
        signature = file_signature(self.path)
        if signature is None or signature == base.file:
            return None
        written_size = base.file[1] if base.file is not None else 0
        return read_untrusted(self.path, max(EDIT_SIZE_LIMIT, 2 * written_size))

    def _apply(self, edit: UntrustedFile, base: WrittenBase) -> ReconcileResult:
        """Apply an edit read from the file (process lock held), or keep it aside."""
        # Merging (and its diff library) loads only when a person edited the file.
        from .edit_merge import EditRefusedError, merge_edit

        try:
            text = _edit_text(edit)
            if not text.strip():
                _LOGGER.warning(
                    "%s was emptied; wrote it again from the stored memories "
                    "(to forget memories, delete their lines or clear the memory)",
                    self.path,
                )
                self._publish(base, edit)
                return ReconcileResult()
            with self.store.exclusive_records() as records:
                shown = base.showing(rendered_order(records.values()), self.zone)
                if without_version(text) == shown.body():
                    self._publish(base, edit)  # no change to the memories
                    return ReconcileResult()
                plan = merge_edit(text, base, records, self.zone)
            result = self.store.apply_plan(plan)
        except EditRefusedError as refused:
            return self._reject(refused.reason, base)
        except MemoryFullError as err:
            return self._reject(err.message, base)
        except InvalidMemoryError as err:
            return self._reject(_without_content(err), base)
        self._publish(base, edit)
        return result

    def write_text(self, text: str) -> ReconcileResult:
        """Make the store hold the bullets of `text` (the API's PUT of MEMORY.md).

        Errors are raised (InvalidMemoryError, MemoryFullError) and nothing changes.
        """
        if not isinstance(text, str):
            raise InvalidMemoryError("invalid_markdown", "MEMORY.md must be text")
        with self._lock:
            if self.outside_change() is not None:
                self.reconcile_file()  # an edit in the file first, never lost
            with self.store.exclusive_records() as records:
                plan = plan_reconcile(
                    list(records.values()), parse_markdown(text), self.zone
                )
                result = self.store.apply_plan(plan)
            self.flush()
            return result

    def _reject(self, reason: str, base: WrittenBase) -> ReconcileResult:
        """Keep the edit (the file, link or FIFO itself) aside; write MEMORY.md again."""
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        target = self.path.with_name(f"{self.path.stem}.rejected-{stamp}.md")
        try:
            os.replace(self.path, target)
            fsync_directory(self.folder)
        except OSError as err:
            raise storage_error(err, self.path) from err
        restrict_to_owner(target)
        self.last_rejected = target
        # The reason names no content: an edit may hold anything.
        _LOGGER.warning(
            "The edit of %s was not applied: %s. Nothing changed; the edit is kept "
            "as %s and MEMORY.md was written again from the stored memories",
            self.path,
            reason,
            target,
        )
        self._publish(base)
        return ReconcileResult(rejected=target)

    def forget_in_rejected(self, texts: Collection[str] | None) -> None:
        """Take forgotten memories' lines out of the edits kept aside; None: remove them.

        A line holding one of `texts` goes; the rest of a kept edit stays. Only
        regular files are read (a link or FIFO kept aside holds no text of ours).
        """
        for path in self.folder.glob(f"{self.path.stem}.rejected-*.md"):
            try:
                if texts is None:
                    path.unlink(missing_ok=True)
                    continue
                if not stat.S_ISREG(os.lstat(path).st_mode):
                    continue
                with open(path, "rb") as handle:
                    lines = handle.readlines()
            except OSError as err:
                raise storage_error(err, path) from err
            needles = [text.encode() for text in texts if text]
            kept = [line for line in lines if not any(n in line for n in needles)]
            if len(kept) != len(lines):
                write_atomically(path, kept)
        if texts is None:
            fsync_directory(self.folder)


def _edit_text(edit: UntrustedFile) -> str:
    """The edit as text; EditRefusedError when it was not read or is not UTF-8."""
    from .edit_merge import EditRefusedError  # see `_apply`

    if edit.data is None:
        raise EditRefusedError(f"it is {edit.refusal}")
    try:
        return edit.data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise EditRefusedError(f"it is not UTF-8 text ({err.reason})") from None


def _without_content(err: InvalidMemoryError) -> str:
    """Why a bullet cannot be stored, without the bullet (the store's message names it)."""
    cause = err.__cause__
    detail = cause.message if isinstance(cause, MemoryEngineError) else err.code
    return f"a bullet cannot be stored ({detail})"
