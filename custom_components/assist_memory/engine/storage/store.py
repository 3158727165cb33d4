"""MemoryStore: long-term memories, crash-safe and fast.

The operations (add, get, update, delete, search, list, import, export, reconcile) on
the records that `StoreFiles` keeps in files (`store_files`).

The store is synchronous and thread-safe; `LocalBackend` runs it off the event loop.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
import heapq
from pathlib import Path
from typing import Any, Final, Literal

from ..errors import (
    ContentOverLimitError,
    DuplicateIdError,
    InvalidMemoryError,
    MemoryFullError,
)
from .fullness import Fullness, FullnessTracker
from .journal import encode_access, encode_delete, encode_put
from .list_filters import memory_filter
from .models import (
    DEFAULT_CATEGORY,
    DEFAULT_SOURCE,
    HOUSEHOLD_SCOPE,
    Memory,
    ReconcilePlan,
    memory_from_dict,
    new_id,
    split_section,
    validate_category,
    validate_confidence,
    validate_content,
    validate_expires_at,
    validate_key,
    validate_metadata,
    validate_optional_text,
    validate_scope,
    validate_source,
    validate_tags,
)
from .settings import StoreSettings
from .store_files import FORMAT_VERSION, StoreChange, StoreFiles, _count_uses

EXPORT_FORMAT: Final = "assist_memory_export"


SortOrder = Literal["newest", "oldest", "updated", "most_used"]
SORT_ORDERS: Final = ("newest", "oldest", "updated", "most_used")
ImportMode = Literal["merge", "replace"]


@dataclass(frozen=True, slots=True)
class MemoryPage:
    """One page of a listing."""

    items: list[Memory]
    total: int
    offset: int
    limit: int


@dataclass(frozen=True, slots=True)
class ImportResult:
    """What an import changed."""

    added: int
    updated: int
    total: int


@dataclass(frozen=True, slots=True)
class ReconcileResult:
    """What applying an edited MEMORY.md changed (counts of memories).

    `rejected`: where an edit that was not applied is kept (nothing changed then).
    """

    added: int = 0
    updated: int = 0
    removed: int = 0
    rejected: Path | None = None

    @property
    def changed(self) -> bool:
        """True when any memory was added, changed or removed."""
        return bool(self.added or self.updated or self.removed)


class MemoryStore(StoreFiles):
    """Persistent long-term memory: add, get, update, delete, search, clear, and more."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Whether the limit has stopped adds; every change may make room again.
        self.fullness_tracker = FullnessTracker()
        self.add_change_hook(self._check_room)

    def _check_room(self, _change: StoreChange, records: Mapping[str, Memory]) -> None:
        self.fullness_tracker.check(len(records), self.settings)

    def fullness(self) -> Fullness:
        """How full the memory is, and whether the limit has refused an add."""
        with self._read() as records:
            return self.fullness_tracker.check(len(records), self.settings)

    def set_settings(self, settings: StoreSettings) -> None:
        """Apply new limits (a higher one may make room again)."""
        with self._lock:
            super().set_settings(settings)
            self.fullness_tracker.check(len(self._records), settings)

    # -- core API -------------------------------------------------------------

    def add(
        self,
        content: str,
        *,
        category: str = DEFAULT_CATEGORY,
        key: str | None = None,
        tags: Sequence[str] | str = (),
        confidence: float = 1.0,
        source: str = DEFAULT_SOURCE,
        scope: str = HOUSEHOLD_SCOPE,
        session_id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        expires_at: str | None = None,
    ) -> Memory:
        """Store a new memory and return it; MemoryFullError when at the limit."""
        now = self._clock()
        draft = Memory(
            id="",
            content=validate_content(
                content, self.settings.max_content_length, setting=True
            ),
            category=validate_category(category),
            key=validate_key(key),
            tags=validate_tags(tags),
            confidence=validate_confidence(confidence),
            source=validate_source(source),
            scope=validate_scope(scope),
            session_id=validate_optional_text(session_id, "session_id"),
            metadata=validate_metadata({} if metadata is None else metadata),
            created_at=now,
            updated_at=now,
            expires_at=validate_expires_at(expires_at),
        )
        with self._write() as records:
            evicted = self._make_room(records)
            memory_id = new_id()
            while memory_id in records:  # pragma: no cover - 64 random bits
                memory_id = new_id()
            memory = draft.with_changes(id=memory_id)
            # The new record goes first: a torn write can only keep an extra memory.
            self._append(
                encode_put(memory.to_dict())
                + b"".join(encode_delete(old) for old in evicted)
            )
            records[memory_id] = memory
            self._only_in_journal.add(memory_id)
            for old in evicted:
                del records[old]
                self._only_in_journal.discard(old)
            self._changed(StoreChange(upserted=(memory,), deleted=tuple(evicted)))
            return memory

    def _make_room(self, records: Mapping[str, Memory]) -> builtins.list[str]:
        """Ids to evict before an add, or MemoryFullError (the default policy).

        With `eviction_threshold` set (eviction), the lowest confidence goes first,
        then the one used longest ago.
        """
        threshold = self.settings.eviction_threshold
        if not threshold:
            max_items = self.settings.max_items
            if max_items and len(records) >= max_items:
                self.fullness_tracker.refused(max_items, self._clock())
                raise MemoryFullError(max_items)
            return []
        excess = len(records) - threshold + 1
        if excess <= 0:
            return []
        return [
            m.id
            for m in heapq.nsmallest(
                excess,
                records.values(),
                key=lambda m: (m.confidence, m.last_accessed or m.created_at),
            )
        ]

    def get(self, memory_id: str) -> Memory | None:
        """Return one memory, or None."""
        with self._read() as records:
            return records[memory_id] if _known_id(memory_id, records) else None

    def get_many(self, memory_ids: Iterable[str]) -> dict[str, Memory]:
        """The memories with these ids (unknown ids are left out), in the order asked."""
        with self._read() as records:
            return {i: records[i] for i in memory_ids if i in records}

    def outside_change(self) -> object | None:
        """A token when another process changed the files since we last looked, else None."""
        with self._lock:
            signature = self._signature()
            return None if signature == self._seen else signature

    def refresh(self) -> None:
        """Load changes made by another process now (they are also seen on next use)."""
        with self._read():
            pass

    @contextmanager
    def locked_records(self) -> Iterator[Mapping[str, Memory]]:
        """All records, read-only, with every change held off until the block ends."""
        with self._read() as records:
            yield records

    @contextmanager
    def exclusive_records(self) -> Iterator[Mapping[str, Memory]]:
        """All records, read-only and current, with changes in every process held off.

        For files derived from the store that other processes also write (MEMORY.md):
        what is written inside the block matches the store. Changes made inside the
        block (by this thread) are fine; read the records again after one.
        """
        with self._lock:
            self._ensure_initialized()
            with self._process_locked():
                self._refresh_locked()
                yield self._records

    def get_all(self) -> builtins.list[Memory]:
        """Return every memory, oldest first."""
        with self._read() as records:
            return list(records.values())

    def update(
        self,
        memory_id: str,
        content: str | None = None,
        *,
        category: str | None = None,
        key: str | None = None,
        tags: Sequence[str] | str | None = None,
        confidence: float | None = None,
        source: str | None = None,
        scope: str | None = None,
        session_id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        expires_at: str | None = None,
    ) -> Memory | None:
        """Change the given fields (None leaves one as it is); None for an unknown id.

        An empty `key`, `session_id` or `expires_at` removes it; empty `tags` or
        `metadata` clear them.
        """
        changes: dict[str, Any] = {}
        if content is not None:
            changes["content"] = validate_content(
                content, self.settings.max_content_length, setting=True
            )
        if category is not None:
            changes["category"] = validate_category(category)
        if key is not None:
            changes["key"] = validate_key(key)
        if tags is not None:
            changes["tags"] = validate_tags(tags)
        if confidence is not None:
            changes["confidence"] = validate_confidence(confidence)
        if source is not None:
            changes["source"] = validate_source(source)
        if scope is not None:
            changes["scope"] = validate_scope(scope)
        if session_id is not None:
            changes["session_id"] = validate_optional_text(session_id, "session_id")
        if metadata is not None:
            changes["metadata"] = validate_metadata(metadata)
        if expires_at is not None:
            changes["expires_at"] = validate_expires_at(expires_at)
        if not changes:
            raise InvalidMemoryError(
                "nothing_to_update", "give at least one field to change"
            )
        with self._write() as records:
            if not _known_id(memory_id, records):
                return None
            current = records[memory_id]
            updated = current.with_changes(updated_at=self._clock(), **changes)
            self._append(encode_put(updated.to_dict()))
            records[memory_id] = updated
            self._changed(StoreChange(upserted=(updated,)))
            return updated

    def delete(self, memory_id: str) -> bool:
        """Remove one memory, from both files; False when the id is unknown."""
        with self._write() as records:
            if not _known_id(memory_id, records):
                return False
            self._append(encode_delete(memory_id))
            del records[memory_id]
            self._erase(memory_id)
            self._changed(StoreChange(deleted=(memory_id,)))
            return True

    def search(self, keyword: str) -> builtins.list[Memory]:
        """Memories whose content contains `keyword`, ignoring case."""
        if not isinstance(keyword, str) or not keyword.strip():
            raise InvalidMemoryError("empty_query", "the search text must not be empty")
        needle = keyword.strip().casefold()
        with self._read() as records:
            return [m for m in records.values() if needle in m.content.casefold()]

    # -- beyond the core API ------------------------------------------------

    def count(self) -> int:
        """Number of stored memories."""
        with self._read() as records:
            return len(records)

    @property
    def known_count(self) -> int:
        """Number of memories as last loaded or changed here: no lock, no file read.

        For a health check, which must answer while the store is busy.
        """
        return len(self._records)

    def list(
        self,
        *,
        offset: int = 0,
        limit: int = 50,
        category: str | None = None,
        scope: str | None = None,
        tags: Sequence[str] | str | None = None,
        sort: SortOrder = "newest",
        origin: str | None = None,
        last_used: str | None = None,
        ended: bool | None = False,
    ) -> MemoryPage:
        """A page of memories matching every filter given, in the chosen order.

        `origin` and `last_used` are the filters of `list_filters`. `ended`: only the
        memories whose end has come (True), only the others (False), or both (None).
        """
        if not _is_int(offset) or not _is_int(limit) or offset < 0 or limit < 1:
            raise InvalidMemoryError(
                "invalid_paging", "offset must be >= 0 and limit >= 1"
            )
        if sort not in SORT_ORDERS:
            raise InvalidMemoryError(
                "invalid_sort",
                f"sort must be one of: {', '.join(SORT_ORDERS)}",
                sorts=", ".join(SORT_ORDERS),
            )
        wanted_category = validate_category(category) if category else None
        wanted_tags = _tags_to_find(tags)
        now = self._clock()
        passes = memory_filter(origin, last_used, now)
        with self._read() as records:
            matches = [
                m
                for m in records.values()
                if (wanted_category is None or m.category == wanted_category)
                and (scope is None or m.scope == scope)
                and wanted_tags.issubset(m.tags)
                and (passes is None or passes(m))
                and (ended is None or m.has_ended(now) == ended)
            ]
        matches.sort(key=_SORT_KEYS[sort], reverse=sort != "oldest")
        return MemoryPage(
            items=matches[offset : offset + limit],
            total=len(matches),
            offset=offset,
            limit=limit,
        )

    def clear(self) -> int:
        """Remove every memory; returns how many there were."""
        with self._write() as records:
            removed = len(records)
            if removed:
                self._write_snapshot({})
                records.clear()
                self.last_changed = self._clock()
                self._changed(StoreChange(reloaded=True))
            return removed

    def record_access(self, memory_ids: Iterable[str]) -> None:
        """Note that memories were used in a prompt (last_accessed, access_count).

        Access statistics are written to the journal without waiting for the disk,
        as one short line of ids and the time (not the records, so folds stay rare):
        after a crash a few counts may be missing, never a memory.
        """
        with self._write() as records:
            now = self._clock()
            used = [i for i in dict.fromkeys(memory_ids) if i in records]
            if not used:
                return
            _count_uses(records, used, now)
            self._append(encode_access(used, now), durable=False)

    def export(self) -> dict[str, Any]:
        """Every memory with ids and timestamps, as a JSON-ready document."""
        with self._read() as records:
            return {
                "format": EXPORT_FORMAT,
                "version": FORMAT_VERSION,
                "exported_at": self._clock(),
                "count": len(records),
                "memories": [m.to_dict() for m in records.values()],
            }

    def import_(self, document: object, *, mode: ImportMode = "merge") -> ImportResult:
        """Restore an export (or a plain list of records), keeping ids and times.

        `merge` adds new ids and overwrites known ones; `replace` drops everything else.
        The document is checked in full first: one bad record and nothing changes.
        `updated` counts the known ones that differ: importing the same file again
        changes (and writes) nothing.
        """
        if mode not in ("merge", "replace"):
            raise InvalidMemoryError(
                "invalid_import_mode", "mode must be 'merge' or 'replace'"
            )
        incoming = self._parse_import(document)
        with self._write() as records:
            merged = {} if mode == "replace" else dict(records)
            added = sum(1 for memory_id in incoming if memory_id not in records)
            updated = sum(
                1
                for memory_id, memory in incoming.items()
                if memory_id in records and records[memory_id] != memory
            )
            merged.update(incoming)
            if merged == records:
                return ImportResult(added=0, updated=0, total=len(merged))
            max_items = self.settings.max_items
            if max_items and len(merged) > max_items:
                raise MemoryFullError(max_items)
            self._write_snapshot(merged)
            records.clear()
            records.update(merged)
            self.last_changed = self._clock()
            self._changed(StoreChange(reloaded=True))
            return ImportResult(added=added, updated=updated, total=len(merged))

    def apply_plan(self, plan: ReconcilePlan) -> ReconcileResult:
        """Apply the changes of an edited MEMORY.md in one atomic snapshot write.

        Every new text is checked first (InvalidMemoryError naming the bullet) and the
        result must fit `max_items` (MemoryFullError): on error nothing changes. Added
        memories are stated by the user (confidence 1), of their section's scope (the
        household's, or a person's); updated ones keep their id, created_at, access
        statistics and other fields, with a new updated_at (and the scope of the
        section they moved to). Ids that no longer exist are skipped.
        With eviction on (`eviction_threshold`), no cap applies here; the next add
        evicts as usual.
        """
        limit = self.settings.max_content_length
        adds = [
            (*_checked_section(key), _checked_bullet(text, limit))
            for key, text in plan.adds
        ]
        updates = [
            (
                memory_id,
                None if text is None else _checked_bullet(text, limit),
                None if key is None else _checked_section(key),
            )
            for memory_id, text, key in plan.updates
        ]
        with self._write() as records:
            merged = dict(records)
            removed = sum(
                merged.pop(memory_id, None) is not None
                for memory_id in dict.fromkeys(plan.deletes)
            )
            now = self._clock()
            updated = 0
            for memory_id, text, section in updates:
                if (current := merged.get(memory_id)) is None:
                    continue
                changes: dict[str, str] = {}
                if text is not None and text != current.content:
                    changes["content"] = text
                if section is not None and section[0] != current.category:
                    changes["category"] = section[0]
                if section is not None and section[1] != current.scope:
                    changes["scope"] = section[1]
                if changes:
                    merged[memory_id] = current.with_changes(updated_at=now, **changes)
                    updated += 1
            max_items = self.settings.max_items
            if (
                adds
                and max_items
                and not self.settings.eviction_threshold
                and len(merged) + len(adds) > max(max_items, len(records))
            ):
                raise MemoryFullError(max_items)
            for category, scope, text in adds:
                memory_id = new_id()
                while memory_id in merged:  # pragma: no cover - 64 random bits
                    memory_id = new_id()
                merged[memory_id] = Memory(
                    id=memory_id,
                    content=text,
                    category=category,
                    confidence=1.0,
                    source="user_stated",
                    scope=scope,
                    created_at=now,
                    updated_at=now,
                )
            result = ReconcileResult(added=len(adds), updated=updated, removed=removed)
            if result.changed:
                self._write_snapshot(merged)
                records.clear()
                records.update(merged)
                self.last_changed = now
                self._changed(StoreChange(reloaded=True))
            return result

    # -- internals -------------------------------------------------------------

    def _parse_import(self, document: object) -> dict[str, Memory]:
        items = document.get("memories") if isinstance(document, Mapping) else document
        if not isinstance(items, list):
            raise InvalidMemoryError(
                "invalid_import",
                "an import must be a list of memories or an export document",
            )
        incoming: dict[str, Memory] = {}
        for index, item in enumerate(items, start=1):
            try:
                memory = memory_from_dict(
                    item, max_content_length=self.settings.max_content_length
                )
            except InvalidMemoryError as err:
                # Over the content limit stays a refusal of the current settings.
                refused = type(err) if isinstance(err, ContentOverLimitError) else None
                raise (refused or InvalidMemoryError)(
                    "invalid_import_record",
                    f"record {index}: {err.message}",
                    index=index,
                    error=err.message,
                ) from err
            if memory.id in incoming:
                raise DuplicateIdError(
                    "invalid_import_record",
                    f"record {index}: the id {memory.id} appears twice",
                    index=index,
                    error=f"the id {memory.id} appears twice",
                )
            incoming[memory.id] = memory
        return incoming


_SORT_KEYS: Final[dict[str, Callable[[Memory], Any]]] = {
    "newest": lambda m: m.created_at,
    "oldest": lambda m: m.created_at,
    "updated": lambda m: m.updated_at,
    "most_used": lambda m: (m.access_count, m.last_accessed or ""),
}


def _tags_to_find(tags: Sequence[str] | str | None) -> set[str]:
    """Tags to filter by, as they are stored (trimmed, lowercase).

    A filter is never an error: a tag no memory can have (too long, with a comma in
    a list) finds nothing.
    """
    if not tags:
        return set()
    if isinstance(tags, str):
        tags = tags.split(",")
    if not isinstance(tags, list | tuple) or not all(isinstance(t, str) for t in tags):
        raise InvalidMemoryError(
            "invalid_tags", "tags must be a list of text", field="tags"
        )
    return {tag.strip().lower() for tag in tags} - {""}


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _known_id(memory_id: object, records: Mapping[str, Memory]) -> bool:
    """Whether an id given by a caller names a record (anything not text names none)."""
    return isinstance(memory_id, str) and memory_id in records


def _checked_section(key: str) -> tuple[str, str]:
    """A section key's valid (category, scope), or InvalidMemoryError."""
    category, scope = split_section(key)
    return validate_category(category), validate_scope(scope)


def _checked_bullet(text: str, max_length: int) -> str:
    """A bullet's text as content, or InvalidMemoryError naming the bullet."""
    try:
        return validate_content(text, max_length, setting=True)
    except InvalidMemoryError as err:
        shown = text if len(text) <= 60 else f"{text[:57]}..."
        refused = type(err) if isinstance(err, ContentOverLimitError) else None
        raise (refused or InvalidMemoryError)(
            err.code,
            f"bullet {shown!r}: {err.message}",
            **{**err.placeholders, "bullet": shown},
        ) from err
