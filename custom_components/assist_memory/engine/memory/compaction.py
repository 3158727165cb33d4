"""MemoryCompactor: an LLM tidies the memories up, merging and pruning facts.

`compact()` shows the LLM every household fact as a Markdown list (`## Category`
headers, `- [date] fact` bullets), asks it to merge duplicates, drop facts a newer one
contradicts and organise the rest by category, checks the answer, and makes the store
hold its bullets. The answer is applied like an edit of MEMORY.md: bullets left as they
were keep their memory (id, creation time, access statistics); the store is written in
one atomic snapshot, the search index follows through the store's change hook, and
MEMORY.md is written again right after.

Rules worth knowing:
- Only household memories are compacted. A person's memories (scope = a user id) are
  left as they are: a merged bullet is stored as a household memory, which would show
  one person's facts to everyone. The threshold counts household memories too.
- An answer is rejected (logged, nothing changes) unless it has at least one `- `
  bullet under a `##` header naming a category. As a guard against a runaway model it
  is also rejected when it drops more than 90 % of the facts (keeps fewer than a
  tenth: with 10 facts or fewer one bullet always passes), or when it holds more facts
  than it was given (a compaction never grows).
- The LLM is asked without holding any store lock. The answer is planned against the
  facts it was shown and applied to the store as it is then: memories added during
  the call are kept, memories changed during the call keep their change (a rewrite
  the model made of them is added beside them), and a memory deleted during the call
  stays deleted unless the model rewrote it.
- Before applying, the previous state is saved as `compactions/<time>.json` beside the
  store (the last `keep`, default 5). `undo()` puts back what the newest compaction
  changed or removed and takes away what it added; memories added or changed since
  are kept. A compaction interrupted before its backup recorded what it did (a
  crash) cannot be undone: its backup is set aside as `<time>.interrupted.json`.
- The cooldown starts after every attempt that asked the LLM, also a failed one, so
  a broken model is not asked again on every turn.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable, Collection, Iterable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
import functools
import json
import logging
import os
from pathlib import Path
import re
from typing import TYPE_CHECKING, Any, Final, Protocol

from ..config import COMPACTION_THRESHOLD
from ..documents.markdown import (
    CATEGORY_TITLES,
    header_category,
    one_line,
    parse_markdown,
    plan_reconcile,
    rebase_plan,
    rendered_order,
)
from ..errors import InvalidMemoryError, MemoryFullError, StorageError
from ..storage.durable import (
    fsync_directory,
    make_private_folder,
    storage_error,
    write_atomically,
)
from ..storage.models import CATEGORIES, HOUSEHOLD_SCOPE, Memory, ReconcilePlan
from .memory_engine import MemoryEngine

if TYPE_CHECKING:  # the HTTP client behind LLM calls is not loaded at start
    from ..language.llm import LlmCaller

_LOGGER = logging.getLogger(__name__)

DEFAULT_THRESHOLD: Final = COMPACTION_THRESHOLD.default
DEFAULT_COOLDOWN: Final = timedelta(minutes=5)
DEFAULT_KEEP: Final = 5
# The runaway guard: an answer keeping fewer than this share of the facts is rejected.
MIN_KEPT_SHARE: Final = 0.1
BACKUP_FOLDER: Final = "compactions"
_STAMP_FORMAT: Final = "%Y%m%dT%H%M%S%fZ"
_BACKUP_NAME: Final = re.compile(r"^\d{8}T\d{12}Z\.json$")
# A backup set aside because its compaction was interrupted (never undone).
_SET_ASIDE_NAME: Final = re.compile(r"^\d{8}T\d{12}Z\.interrupted\.json$")

_HEADERS: Final = ", ".join(f"`## {CATEGORY_TITLES[c]}`" for c in CATEGORIES)
COMPACTION_INSTRUCTIONS: Final = f"""\
You maintain the long-term memory of a home voice assistant. You get every remembered \
fact as a Markdown list grouped under `## Category` headers. Each fact starts with the \
date it was last stated, in brackets: `- [2025-03-02] Anna likes green tea`.

Rewrite the list so that it is shorter and better organised:
- Merge duplicate and similar facts into one fact that keeps every detail.
- Remove outdated facts: when a newer fact contradicts an older one, keep the newer \
one and drop the older (compare their dates).
- Keep every other fact. Leave a fact that needs no change word for word as it is. \
Do not invent facts, advice or comments.
- Organise the facts by category under these headers only: {_HEADERS}.
- Write one fact per `- ` bullet, on one line, without its date, in the language it \
was written in.

Answer with the Markdown only: no introduction, no explanation, no code fence.
"""

_THINKING: Final = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_FENCED: Final = re.compile(
    r"```[ \t]*(?:markdown|md)?[ \t]*\n(.*?)(?:\n[ \t]*```|\Z)",
    re.DOTALL | re.IGNORECASE,
)
_DATED_BULLET: Final = re.compile(
    r"^([ \t]*[-*+][ \t]+)\[\d{4}-\d{2}-\d{2}\][ \t]*", re.MULTILINE
)
_HEADER_LINE: Final = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t#]*$")
_DASH_BULLET: Final = re.compile(r"^[ \t]*-[ \t]+\S")


@dataclass(frozen=True, slots=True)
class CompactionResult:
    """How many facts there were before and after."""

    original_count: int
    compacted_count: int

    def to_dict(self) -> dict[str, int]:
        """The JSON form the REST API returns."""
        return {
            "originalCount": self.original_count,
            "compactedCount": self.compacted_count,
        }


@dataclass(frozen=True, slots=True)
class BackupInfo:
    """One saved state before a compaction; `count` is None for an unreadable file."""

    id: str
    created_at: datetime
    count: int | None


class SyncRunner(Protocol):
    """Runs a blocking function away from the event loop (`asyncio.to_thread`)."""

    def __call__[T](self, func: Callable[[], T], /) -> Awaitable[T]:
        """The function's result."""
        ...


def _utc_now() -> datetime:
    return datetime.now(UTC)


def facts_for_prompt(memories: Iterable[Memory]) -> str:
    """The facts as the LLM sees them: `## Category` sections of `- [date] fact`.

    The date is when the fact was last stated or changed (`updated_at`).
    """
    lines: list[str] = []
    category: str | None = None
    for memory in rendered_order(memories):
        if memory.category != category:
            if category is not None:
                lines.append("")
            category = memory.category
            lines.extend((f"## {CATEGORY_TITLES.get(category, category.title())}", ""))
        stated = (memory.updated_at or memory.created_at)[:10]
        lines.append(f"- [{stated}] {one_line(memory.content)}")
    lines.append("")
    return "\n".join(lines)


def clean_answer(answer: str) -> str:
    """The Markdown of an answer: without reasoning, code fences or bullet dates."""
    text = _THINKING.sub("", answer)
    if (fenced := _FENCED.search(text)) is not None:
        text = fenced.group(1)
    return _DATED_BULLET.sub(r"\1", text)


def has_categorised_bullet(text: str) -> bool:
    """True when a `- ` bullet stands under a `##` header that names a category."""
    known = False
    for line in text.splitlines():
        if (header := _HEADER_LINE.match(line)) is not None:
            title = header.group(2) or ""
            known = len(header.group(1)) == 2 and header_category(title) is not None
        elif known and _DASH_BULLET.match(line):
            return True
    return False


def parse_compaction(answer: str, original_count: int) -> list[tuple[str, str]]:
    """The (category, fact) bullets of an acceptable answer, or ValueError (why not)."""
    text = clean_answer(answer)
    if not has_categorised_bullet(text):
        raise ValueError("it has no '- ' bullet under a '## Category' header")
    bullets = parse_markdown(text)
    kept = len(bullets)
    if kept < original_count * MIN_KEPT_SHARE:
        raise ValueError(
            f"it keeps only {kept} of {original_count} facts (the limit is "
            f"{MIN_KEPT_SHARE:.0%})"
        )
    if kept > original_count:
        raise ValueError(f"it holds {kept} facts, more than the {original_count} given")
    return bullets


def plan_compaction(
    base: Sequence[Memory],
    bullets: Sequence[tuple[str, str]],
    current: Mapping[str, Memory],
) -> ReconcilePlan:
    """The changes that make the store hold `bullets`, made for the store as it is now.

    `base` is what the LLM was shown, `current` the compacted memories now. Memories
    not in `base` (added meanwhile) are never touched; a memory changed meanwhile keeps
    its change, and a rewrite of it becomes a new memory (nothing is lost).
    """
    # What a compaction works on never ends (`_compacted`): no day is shown, in any zone.
    plan = plan_reconcile(base, bullets, UTC)
    base_by_id = {m.id: m for m in base}
    edited = {
        memory_id
        for memory_id, old in base_by_id.items()
        if (now := current.get(memory_id)) is not None and _edited(old, now)
    }
    adds = list(plan.adds)
    updates: list[tuple[str, str | None, str | None]] = []
    for memory_id, text, category in plan.updates:
        if memory_id not in edited:
            updates.append((memory_id, text, category))
        elif text is not None:
            adds.append((category or base_by_id[memory_id].category, text))
    deletes = [memory_id for memory_id in plan.deletes if memory_id not in edited]
    return rebase_plan(ReconcilePlan(adds, updates, deletes), base, current, UTC)


def _edited(old: Memory, now: Memory) -> bool:
    return (
        old.content != now.content
        or old.category != now.category
        or old.updated_at != now.updated_at
    )


def _compacted(records: Mapping[str, Memory]) -> dict[str, Memory]:
    """The memories a compaction works on: the household's that do not end.

    One that ends is left as it is (merged into another, its end would be lost); it
    goes on its own.
    """
    return {
        i: m
        for i, m in records.items()
        if m.scope == HOUSEHOLD_SCOPE and m.expires_at is None
    }


class MemoryCompactor:
    """Compacts the memories of a `MemoryEngine` with an LLM.

    Async methods run the engine's blocking work through `run` (default
    `asyncio.to_thread`; `LocalBackend` can pass its own worker thread). One
    compaction (or undo) at a time: a second call while one runs returns None at once.
    """

    def __init__(
        self,
        engine: MemoryEngine,
        llm: LlmCaller | None,
        *,
        threshold: int = DEFAULT_THRESHOLD,
        cooldown: timedelta = DEFAULT_COOLDOWN,
        keep: int = DEFAULT_KEEP,
        clock: Callable[[], datetime] = _utc_now,
        run: SyncRunner = asyncio.to_thread,
    ) -> None:
        if keep < 1:
            raise ValueError("keep must be at least 1")
        self.engine = engine
        self.llm = llm
        self.threshold = threshold
        self.cooldown = cooldown
        self.keep = keep
        self.backup_folder = backup_folder(engine.store.path)
        self._clock = clock
        self._run = run
        self._running = False
        self._last_attempt: datetime | None = None

    @property
    def is_running(self) -> bool:
        """True while a compaction or an undo runs."""
        return self._running

    def fact_count(self) -> int:
        """How many memories a compaction would work on (blocking)."""
        with self.engine.store.locked_records() as records:
            return sum(1 for m in records.values() if m.scope == HOUSEHOLD_SCOPE)

    def should_compact(self) -> bool:
        """True when a compaction is due (blocking: it counts the memories).

        Due: an LLM is set, none runs, the cooldown is over and the facts reach the
        threshold.
        """
        if self.llm is None or self._running:
            return False
        last = self._last_attempt
        if last is not None and self._clock() - last < self.cooldown:
            return False
        return self.fact_count() >= self.threshold

    async def maybe_compact(self) -> CompactionResult | None:
        """Compact when `should_compact()`; for a fire-and-forget task after a turn.

        Never raises: a failure is logged as an error and answered with None.
        """
        try:
            if not await self._run(self.should_compact):
                return None
            return await self.compact()
        except Exception:  # must never reach the conversation
            _LOGGER.exception("Memory compaction failed")
            return None

    async def compact(self) -> CompactionResult | None:
        """Compact now, whatever the threshold and cooldown say.

        None when skipped (no LLM, no facts, one already running) or when the LLM
        failed or its answer was rejected: then nothing changed.
        """
        llm = self.llm
        if llm is None or self._running:
            return None
        self._running = True
        try:
            return await self._compact(llm)
        finally:
            self._running = False

    async def _compact(self, llm: LlmCaller) -> CompactionResult | None:
        base = await self._run(self._snapshot)
        if not base:
            _LOGGER.debug("No memories to compact")
            return None
        bullets = await self.ask(llm, base)
        if bullets is None:
            return None
        return await self._applied(base, bullets)

    async def ask(
        self, llm: LlmCaller, base: list[Memory]
    ) -> list[tuple[str, str]] | None:
        """The LLM's bullets for these facts; None when it failed or was rejected."""
        try:
            answer = await llm.complete(COMPACTION_INSTRUCTIONS, facts_for_prompt(base))
        finally:
            self._last_attempt = self._clock()
        if answer is None:
            _LOGGER.warning("Memory compaction skipped: the LLM gave no answer")
            return None
        try:
            return parse_compaction(answer, len(base))
        except ValueError as err:
            _LOGGER.warning("Rejected the LLM's memory compaction: %s", err)
            return None

    async def apply(
        self, base: list[Memory], bullets: list[tuple[str, str]]
    ) -> CompactionResult | None:
        """Make the store hold bullets the LLM gave for `base` (a planned compaction).

        None when one already runs, or the plan cannot be stored.
        """
        if self._running:
            return None
        self._running = True
        try:
            return await self._applied(base, bullets)
        finally:
            self._running = False

    async def _applied(
        self, base: list[Memory], bullets: list[tuple[str, str]]
    ) -> CompactionResult | None:
        result = await self._run(functools.partial(self._apply, base, bullets))
        if result is not None:
            _LOGGER.info(
                "Compacted the memories: %d facts before, %d after",
                result.original_count,
                result.compacted_count,
            )
        return result

    def _snapshot(self) -> list[Memory]:
        """The facts to show the LLM; a pending hand edit of MEMORY.md goes in first."""
        self.engine.reconcile_markdown()
        return self.facts()

    def facts(self) -> list[Memory]:
        """The facts a compaction shows the LLM, as stored now (blocking; no write)."""
        with self.engine.store.locked_records() as records:
            return rendered_order(_compacted(records).values())

    def run[T](self, func: Callable[[], T]) -> Awaitable[T]:
        """Run blocking work as this compactor does (on the backend's worker)."""
        return self._run(func)

    def _apply(
        self, base: list[Memory], bullets: list[tuple[str, str]]
    ) -> CompactionResult | None:
        store = self.engine.store
        with store.locked_records() as records:
            before = dict(records)
            plan = plan_compaction(base, bullets, _compacted(before))
            document = store.export()
            backup = self._write_backup(document)
            try:
                result = store.apply_plan(plan)
            except (InvalidMemoryError, MemoryFullError) as err:
                # Checked before anything is written: the store is unchanged.
                self._remove(backup)
                _LOGGER.warning("Rejected the LLM's memory compaction: %s", err.message)
                return None
            # A fresh read: the write may have reloaded the records first.
            after = _compacted({m.id: m for m in store.get_all()})
            if not result.changed:
                self._remove(backup)
            else:
                added = Counter(
                    (category, one_line(text)) for category, text in plan.adds
                )
                created = [
                    memory_id
                    for memory_id, memory in after.items()
                    if memory_id not in before
                    and added[(memory.category, one_line(memory.content))] > 0
                ]
                changed = {memory_id for memory_id, _, _ in plan.updates}
                changed.update(plan.deletes)
                # What undo takes away and puts back; a backup without this record
                # (a crash came first) is restored as a whole. `left` is how the
                # compaction left each fact it changed (when it was changed), so undo
                # leaves alone a fact changed again since.
                document["compaction"] = {
                    "created": created,
                    "changed": sorted(changed & before.keys()),
                    "left": {
                        memory_id: after[memory_id].updated_at
                        for memory_id in sorted(changed & before.keys() & after.keys())
                    },
                }
                _write_json(backup, document)
        if result.changed:
            self._prune()
            self.engine.flush()
        return CompactionResult(len(base), len(after))

    # -- backups -----------------------------------------------------------------

    async def backups(self) -> list[BackupInfo]:
        """The saved states, newest first."""
        return await self._run(self._list_backups)

    async def undo(self) -> CompactionResult | None:
        """Reverse the newest compaction and remove its backup.

        Counts are the facts before and after the undo. None when there is no backup
        or a compaction is running.
        """
        if self._running:
            return None
        self._running = True
        try:
            return await self._run(self._undo)
        finally:
            self._running = False

    def _backup_paths(self) -> list[Path]:
        """Backup files, newest first (their names are times)."""
        return backup_paths(self.backup_folder)

    def _list_backups(self) -> list[BackupInfo]:
        infos: list[BackupInfo] = []
        for path in self._backup_paths():
            try:
                memories = _read_json(path).get("memories")
            except InvalidMemoryError:
                memories = None
            infos.append(
                BackupInfo(
                    id=path.stem,
                    created_at=_stamp_time(path.stem),
                    count=len(memories) if isinstance(memories, list) else None,
                )
            )
        return infos

    def _write_backup(self, document: dict[str, Any]) -> Path:
        make_private_folder(self.backup_folder)
        stamp = self._clock().astimezone(UTC)
        path = self.backup_folder / f"{stamp.strftime(_STAMP_FORMAT)}.json"
        newest = self._backup_paths()
        if newest and newest[0].name >= path.name:
            # Never overwrite (or sort before) an earlier backup: one tick later.
            later = _stamp_time(newest[0].stem) + timedelta(microseconds=1)
            path = self.backup_folder / f"{later.strftime(_STAMP_FORMAT)}.json"
        _write_json(path, document)
        return path

    def _prune(self) -> None:
        for old in self._backup_paths()[self.keep :]:
            self._remove(old)

    def _remove(self, path: Path) -> None:
        with suppress(FileNotFoundError):
            path.unlink()
        fsync_directory(self.backup_folder)

    def _undo(self) -> CompactionResult | None:
        paths = self._backup_paths()
        if not paths:
            return None
        document = _read_json(paths[0])
        if not _has_record(document):
            # Restoring it whole would revert (and lose) everything done since.
            kept = paths[0].with_suffix(".interrupted.json")
            try:
                os.replace(paths[0], kept)
            except OSError as err:
                raise storage_error(err, paths[0]) from err
            fsync_directory(self.backup_folder)
            _LOGGER.warning(
                "The newest memory compaction was interrupted before it recorded "
                "what it changed; it cannot be undone (its backup is kept as %s)",
                kept,
            )
            return None
        store = self.engine.store
        with store.locked_records() as records:
            original = len(_compacted(records))
            store.import_(_undo_document(document, records), mode="replace")
            compacted = len(_compacted({m.id: m for m in store.get_all()}))
        self._remove(paths[0])
        self.engine.flush()
        _LOGGER.info(
            "Undid the last memory compaction: %d facts before, %d after",
            original,
            compacted,
        )
        return CompactionResult(original, compacted)


def backup_folder(store_path: Path) -> Path:
    """Where the backups of the store at `store_path` are kept."""
    return store_path.parent / BACKUP_FOLDER


def backup_paths(folder: Path, name: re.Pattern[str] = _BACKUP_NAME) -> list[Path]:
    """The backup files in `folder`, newest first (their names are times)."""
    try:
        names = [p.name for p in folder.iterdir()]
    except FileNotFoundError:
        return []
    except OSError as err:
        raise storage_error(err, folder) from err
    return [folder / found for found in sorted(filter(name.match, names), reverse=True)]


def forget_in_backups(folder: Path, memory_ids: Collection[str] | None) -> None:
    """Take memories a person deleted out of every backup; None (clear): all backups.

    Backups set aside as interrupted included.

    Undoing a compaction then never brings them back. A backup that does not name
    one of them is left as it is.
    """
    for path in backup_paths(folder) + backup_paths(folder, _SET_ASIDE_NAME):
        try:
            if memory_ids is None:
                path.unlink(missing_ok=True)
                continue
            raw = path.read_bytes()
        except OSError as err:
            raise storage_error(err, path) from err
        if not any(f'"{memory_id}"'.encode() in raw for memory_id in memory_ids):
            continue
        document = _read_json(path)
        memories = document.get("memories")
        if isinstance(memories, list):
            document["memories"] = [
                item
                for item in memories
                if not (isinstance(item, dict) and item.get("id") in memory_ids)
            ]
        record = document.get("compaction")
        if isinstance(record, dict):
            for name in ("created", "changed"):
                if isinstance(ids := record.get(name), list):
                    record[name] = [i for i in ids if i not in memory_ids]
        _write_json(path, document)
    if memory_ids is None:
        with suppress(FileNotFoundError):
            fsync_directory(folder)


def _undo_document(
    document: Mapping[str, Any], records: Mapping[str, Memory]
) -> object:
    """The records after undoing the compaction a backup was taken before.

    Memories the compaction changed or removed come back as they were (unless changed
    or added again since: a later change is never reverted), those it created go;
    every other memory stays as it is now (added, changed or deleted since the
    compaction). The document has the compaction's record (`_has_record`).
    """
    record = document["compaction"]
    memories = document["memories"]
    created, changed = record["created"], record["changed"]
    gone = set(created)
    left = record.get("left")
    if isinstance(left, dict):  # older backups put back every fact they changed
        changed = [i for i in changed if _as_compacted(i, left, records)]
    restored = set(changed)
    items: list[object] = []
    in_backup: set[object] = set()
    for item in memories:
        memory_id = item.get("id") if isinstance(item, dict) else None
        in_backup.add(memory_id)
        if memory_id in restored:
            items.append(item)
        elif isinstance(memory_id, str) and (now := records.get(memory_id)):
            items.append(now.to_dict())
    items.extend(
        memory.to_dict()
        for memory_id, memory in records.items()
        if memory_id not in in_backup and memory_id not in gone
    )
    return {"memories": items}


def _has_record(document: Mapping[str, Any]) -> bool:
    """Whether a backup says what its compaction changed (not cut off by a crash)."""
    record = document.get("compaction")
    return (
        isinstance(record, dict)
        and isinstance(document.get("memories"), list)
        and isinstance(record.get("created"), list)
        and isinstance(record.get("changed"), list)
    )


def _as_compacted(
    memory_id: object, left: Mapping[object, object], records: Mapping[str, Memory]
) -> bool:
    """Whether a fact the compaction changed is still as it left it.

    `left` maps the facts it rewrote to their `updated_at` after it; the others it
    removed, and they must still be gone.
    """
    now = records.get(memory_id) if isinstance(memory_id, str) else None
    if memory_id not in left:
        return now is None
    return now is not None and now.updated_at == left[memory_id]


def _stamp_time(stem: str) -> datetime:
    return datetime.strptime(stem, _STAMP_FORMAT).replace(tzinfo=UTC)


def _write_json(path: Path, document: Mapping[str, Any]) -> None:
    write_atomically(path, [json.dumps(document, ensure_ascii=False, indent=1)])


def _read_json(path: Path) -> dict[str, Any]:
    """A backup document, or InvalidMemoryError naming the file."""
    try:
        document = json.loads(path.read_bytes())
    except OSError as err:
        raise StorageError(f"cannot read {path}: {err.strerror}", path) from err
    except ValueError as err:
        raise InvalidMemoryError(
            "invalid_backup", f"{path.name} is not a valid backup", path=str(path)
        ) from err
    if not isinstance(document, dict):
        raise InvalidMemoryError(
            "invalid_backup", f"{path.name} is not a valid backup", path=str(path)
        )
    return document
