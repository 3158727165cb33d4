"""`LocalBackend`: the `MemoryBackend` in this process.

The engine is synchronous (files, fsync, SQLite); `LocalBackend` runs every call on one
worker thread of its own, so calls never block the event loop and changes are
serialised. It also watches the files for changes made by other programs.

Two files are watched (each settles after 1.5 s of quiet): the store's, changed by
another process (reloaded), and MEMORY.md, edited by hand (applied to the store).
"""

from __future__ import annotations

import asyncio
import builtins
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
import contextlib
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
import functools
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Unpack, override

from ..conversation.conversation_log import ConversationLog
from ..conversation.conversation_records import (
    EVERYONE,
    Conversation,
    ConversationPage,
    SessionSummary,
    Speaker,
)
from ..conversation.held_facts import HeldFact
from ..conversation.profile import UserProfile
from ..conversation.prompt import build_prompt_with_memory
from ..conversation.retention import (
    RETENTION_INTERVAL,
    RetentionResult,
    RetentionSettings,
    enforce_retention,
)
from ..conversation.speaker import Speaker as TurnSpeaker
from ..conversation.turn_settings import TurnSettings
from ..conversation.turns import TurnContext, TurnMemory
from ..conversation.working import WorkingMemory, WorkingMemoryManager
from ..documents.daily_log import DEFAULT_SEARCH_LIMIT, LogEntry
from ..documents.markdown_writer import MarkdownWriter
from ..documents.mirror import markdown_folder
from ..documents.watch import ChangeWatcher, TaskFactory, default_task_factory
from ..errors import MemoryFullError
from ..memory.compaction import (
    BACKUP_FOLDER,
    DEFAULT_COOLDOWN,
    DEFAULT_THRESHOLD,
    BackupInfo,
    CompactionResult,
    MemoryCompactor,
)
from ..memory.compaction_preview import CompactionPreview, CompactionPreviews
from ..memory.forgetting import forget, forget_all, forget_ended
from ..memory.memory_engine import MemoryEngine
from ..model.embeddings import EmbeddingConfig, HttpContext
from ..model.local_model import LocalModel
from ..search.scoring import ScoredMemory
from ..storage.durable import keep_private
from ..storage.list_filters import LastUsed, Origin
from ..storage.models import HOUSEHOLD_SCOPE, Memory
from ..storage.settings import StoreSettings
from ..storage.store import (
    ImportMode,
    ImportResult,
    MemoryPage,
    ReconcileResult,
    SortOrder,
)
from ..storage.store_files import LoadReport
from .local_learning import LocalLearning
from .protocol import MemoryBackend, MemoryFields, StoreStats

if TYPE_CHECKING:  # the HTTP client behind LLM calls is not loaded at start
    import aiohttp

    from ..language.llm import LlmCaller

_LOGGER = logging.getLogger(__name__)


CONVERSATIONS_FILE: Final = "conversations.db"
SESSION_SWEEP_SECONDS: Final = 60.0


class LocalBackend(LocalLearning, MemoryBackend):
    """A MemoryEngine in this process, used from asyncio."""

    def __init__(self, engine: MemoryEngine) -> None:
        self.engine = engine
        self.store = engine.store
        folder = engine.store.path.parent
        self.turns = TurnMemory(
            engine,
            ConversationLog(folder / CONVERSATIONS_FILE),
            WorkingMemoryManager(),
            UserProfile(folder),
        )
        self._executor = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="assist_memory"
        )
        self._listeners: builtins.list[Callable[[], None]] = []
        self._rejected_edit_listeners: builtins.list[Callable[[Path], None]] = []
        self._watchers = (
            ChangeWatcher(
                lambda: self._run(self._outside_change), self._reload_outside_change
            ),
            ChangeWatcher(
                lambda: self._run(engine.mirror.outside_change),
                self._reconcile_markdown,
            ),
        )
        self.compactor = MemoryCompactor(engine, None, run=self._run)
        self.compaction_previews = CompactionPreviews(self.compactor)
        self.markdown = MarkdownWriter(engine.mirror)
        # Folding the journal rewrites every memory: on a thread of its own, so no
        # add or read waits for it.
        self._fold_executor = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="assist_memory_fold"
        )
        self._fold: asyncio.Future[None] | None = None
        engine.store.fold_in_background = True
        self._outside_loads_told = 0
        self._session_sweeper: asyncio.Task[None] | None = None
        self._task_factory: TaskFactory | None = None
        self._retention = RetentionSettings()
        self._retention_job: asyncio.Task[None] | None = None
        self._closed = False
        self._flush_scheduled = False

    @classmethod
    async def open(
        cls,
        path: Path,
        settings: StoreSettings | None = None,
        *,
        watch: bool = True,
        embeddings: EmbeddingConfig | LocalModel | None = None,
        create_task: TaskFactory | None = None,
        session: aiohttp.ClientSession | None = None,
        time_zone: str | None = None,
    ) -> tuple[LocalBackend, LoadReport]:
        """Create the backend, load the store and its index off the event loop.

        With `watch`, changes other programs make to the files, and hand edits of
        MEMORY.md, are picked up (after 1.5 s of quiet) and reported to the
        listeners. With `embeddings`, search is hybrid (vectors computed in the
        background). `create_task` makes the background tasks (watchers, the
        idle-session sweep), so a host can track them. `session` is the host's
        aiohttp session for the embedding calls (else one is made for each call);
        they run on this event loop. `time_zone`: the home's (MemoryEngine).
        """
        http = HttpContext(asyncio.get_running_loop(), session)
        engine = MemoryEngine(
            path, settings, embeddings=embeddings, http=http, time_zone=time_zone
        )
        backend = cls(engine)
        try:
            report = await backend._run(backend._init)
        except BaseException:
            await backend._run(backend.engine.close_quietly)
            backend._fold_executor.shutdown(wait=True)
            backend._executor.shutdown(wait=True)
            raise
        # MEMORY.md catches up with changes made while no engine ran (never at start).
        backend.markdown.schedule()
        if watch:
            factory = create_task or default_task_factory
            for watcher in backend._watchers:
                watcher.start(factory)
            backend._session_sweeper = factory(
                backend._sweep_sessions(), "assist_memory_sessions"
            )
            backend._task_factory = factory
        return backend, report

    def _init(self) -> LoadReport:
        """Load, after making private what an earlier version left readable to all."""
        folder = self.store.path.parent
        if folder.is_dir():
            keep_private(
                folder,
                (
                    f"{self.store.path.stem}.*",
                    f"{CONVERSATIONS_FILE}*",
                    markdown_folder(folder).relative_to(folder).parts[0],
                    BACKUP_FOLDER,
                ),
            )
        report = self.engine.init()
        self.engine.mirror.build_lines()
        # What an earlier run left unlearned is learned from first.
        self.turns.recover()
        return report

    async def _sweep_sessions(self) -> None:
        """End idle working memories once a minute."""
        while True:
            await asyncio.sleep(SESSION_SWEEP_SECONDS)
            try:
                if await self._run(self.turns.expire_sessions):
                    self._notify()
            except Exception:
                _LOGGER.exception("Ending idle conversations failed")

    async def set_retention(self, settings: RetentionSettings) -> RetentionResult:
        """How long conversations and daily logs are kept; enforced now, then hourly.

        The first call starts the hourly run (when the backend watches): the host
        gives its settings first, so nothing is ever deleted by a default.
        """
        self._retention = settings
        result = await self.enforce_retention()
        if self._retention_job is None and self._task_factory is not None:
            self._retention_job = self._task_factory(
                self._keep_retention(), "assist_memory_retention"
            )
        return result

    async def enforce_retention(self) -> RetentionResult:
        """Delete the conversations and daily logs older than the settings allow."""
        result = await self._run(
            enforce_retention,
            self.turns.log,
            self.engine.daily_log,
            self._retention,
            held=self.turns.held,
        )
        # The sentences learned memories quote go with their messages.
        if result.messages and await self._run(self.turns.forget_expired_quotes):
            self._changed()
        # Memories that ended are shown as ended for as long as daily logs are kept.
        ended = await self._run(
            forget_ended, self.engine, self._retention.daily_log_days, datetime.now(UTC)
        )
        if ended:
            self._changed()
        result = replace(result, ended_memories=len(ended))
        if result.messages or result.daily_logs or ended:
            _LOGGER.info(
                "Retention: deleted %d messages, %d daily logs and %d ended memories",
                result.messages,
                result.daily_logs,
                len(ended),
            )
        return result

    async def _keep_retention(self) -> None:
        """Enforce retention every hour."""
        while True:
            await asyncio.sleep(RETENTION_INTERVAL.total_seconds())
            try:
                await self.enforce_retention()
            except Exception:
                _LOGGER.exception("Deleting old conversations and daily logs failed")

    async def _run[T](self, func: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self._executor, functools.partial(func, *args, **kwargs)
        )

    async def _change[T](
        self, func: Callable[..., T], /, *args: Any, **kwargs: Any
    ) -> T:
        try:
            result = await self._run(func, *args, **kwargs)
        except MemoryFullError:
            # Nothing changed, but the memory now says it stopped learning.
            self._notify()
            raise
        self._changed()
        return result

    def _changed(self) -> None:
        self._schedule_flush()
        self._notify()

    def _schedule_flush(self) -> None:
        """Bring the index (on the worker) and MEMORY.md (on its own thread) up to date.

        Both after the changes queued behind; MEMORY.md a moment later (one write
        for a burst of changes), never on the worker, where reads would wait for it.
        """
        if self._closed:
            return
        self.markdown.schedule()
        if self.store.fold_due() and (self._fold is None or self._fold.done()):
            self._fold = asyncio.get_running_loop().run_in_executor(
                self._fold_executor, self._fold_journal
            )
        if self._flush_scheduled:
            return
        self._flush_scheduled = True

        def flush() -> None:
            self._flush_scheduled = False
            # On failure (logged), the next change or search flushes again.
            self.engine.flush_index()

        self._in_background(flush)

    def _fold_journal(self) -> None:
        try:
            self.store.fold()
        except Exception:
            # The journal holds every change: the next change tries again.
            _LOGGER.exception("Folding the journal failed")

    async def wait_for_background_jobs(self) -> None:
        """Return once every job queued so far is done (MEMORY.md and folds too)."""
        await asyncio.sleep(0)  # writes a turn left for the loop's next round
        await self._run(lambda: None)
        if self._fold is not None:
            await self._fold
        await self.markdown.wait()

    def _in_background(self, func: Callable[..., object], *args: Any) -> None:
        """Run `func` on the worker after the calls queued before it; nobody waits."""

        def job() -> None:
            try:
                func(*args)
            except Exception:
                _LOGGER.exception("A background job of the memory store failed")

        asyncio.get_running_loop().run_in_executor(self._executor, job)

    def _outside_change(self) -> object | None:
        """A token when another process changed the store, else None.

        Its changes may be in the files still, or loaded already by a call made since
        (a search, a flush) without the listeners being told.
        """
        token = self.store.outside_change()
        if token is None and self.store.outside_loads != self._outside_loads_told:
            return ("loaded", self.store.outside_loads)
        return token

    async def _reload_outside_change(self) -> None:
        def reload() -> None:
            self.store.refresh()
            self._outside_loads_told = self.store.outside_loads

        await self._run(reload)
        self._changed()

    async def _reconcile_markdown(self) -> None:
        result = await self._run(self.engine.reconcile_markdown)
        if result.rejected is not None:
            for rejected_listener in list(self._rejected_edit_listeners):
                try:
                    rejected_listener(result.rejected)
                except Exception:
                    _LOGGER.exception("A rejected edit listener failed")
        if result.changed:
            self._changed()

    def _notify(self) -> None:
        for listener in list(self._listeners):
            try:
                listener()
            except Exception:
                _LOGGER.exception("A memory change listener failed")

    @override
    def add_listener(self, listener: Callable[[], None]) -> Callable[[], None]:
        return _subscribe(self._listeners, listener)

    def add_rejected_edit_listener(
        self, listener: Callable[[Path], None]
    ) -> Callable[[], None]:
        """Call `listener` (in the event loop) when the file watch keeps aside an edit.

        It gets where the edit of MEMORY.md that could not be applied was kept.
        """
        return _subscribe(self._rejected_edit_listeners, listener)

    @override
    async def add(self, content: str, **fields: Unpack[MemoryFields]) -> Memory:
        return await self._change(self.store.add, content, **fields)

    @override
    async def get(self, memory_id: str) -> Memory | None:
        return await self._run(self.store.get, memory_id)

    @override
    async def list(
        self,
        *,
        offset: int = 0,
        limit: int = 50,
        category: str | None = None,
        scope: str | None = None,
        tags: Sequence[str] | str | None = None,
        sort: SortOrder = "newest",
        origin: Origin | None = None,
        last_used: LastUsed | None = None,
        ended: bool | None = False,
    ) -> MemoryPage:
        return await self._run(
            self.store.list,
            offset=offset,
            limit=limit,
            category=category,
            scope=scope,
            tags=tags,
            sort=sort,
            origin=origin,
            last_used=last_used,
            ended=ended,
        )

    @override
    async def update(
        self, memory_id: str, content: str | None = None, **fields: Unpack[MemoryFields]
    ) -> Memory | None:
        return await self._change(self.store.update, memory_id, content, **fields)

    @override
    async def delete(self, memory_id: str) -> bool:
        return bool(await self._change(forget, self.engine, [memory_id]))

    @override
    async def clear(self) -> int:
        return await self._change(forget_all, self.engine)

    @override
    async def search(
        self,
        query: str,
        *,
        limit: int | None = None,
        scopes: Sequence[str] | None = None,
        topic: str | None = None,
        record_access: bool = False,
    ) -> builtins.list[ScoredMemory]:
        return await self._run(
            self.engine.search,
            query,
            limit=limit,
            scopes=scopes,
            topic=topic,
            record_access=record_access,
        )

    @override
    async def same_facts(
        self, memory_ids: Sequence[str]
    ) -> builtins.list[tuple[str, str]]:
        return await self._run(self.engine.same_facts, memory_ids)

    @override
    async def build_prompt(
        self,
        prompt: str,
        *,
        query: str | None = None,
        limit: int | None = None,
        scopes: Sequence[str] | None = None,
    ) -> str:

        def compose() -> str:
            memories = self.engine.prompt_memories(
                query or None, limit=limit, scopes=scopes
            )
            return build_prompt_with_memory(memories, prompt)

        return await self._run(compose)

    @override
    async def reindex(self) -> int:
        return await self._run(self.engine.reindex)

    @override
    async def export(self) -> dict[str, Any]:
        return await self._run(self.store.export)

    @override
    async def import_(
        self, document: object, *, mode: ImportMode = "merge"
    ) -> ImportResult:
        return await self._change(self.store.import_, document, mode=mode)

    @override
    async def stats(self) -> StoreStats:

        def collect() -> StoreStats:
            self.engine.flush_index()
            memories = self.store.get_all()
            settings = self.store.settings
            fullness = self.store.fullness()
            if fullness.full and not fullness.learning_stopped:
                # After a restart: facts still waiting for room mean it stopped.
                waiting = any(f.reason == "memory_full" for f in self.turns.held.all())
                fullness = replace(fullness, learning_stopped=waiting)
            index = self.engine.index
            vectors = self.engine.vectors
            return StoreStats(
                count=len(memories),
                max_items=settings.max_items,
                max_content_length=settings.max_content_length,
                last_changed=self.store.last_changed,
                by_category=dict(Counter(m.category for m in memories)),
                by_source=dict(Counter(m.source for m in memories)),
                scopes=len({m.scope for m in memories}),
                retrieval_limit=settings.retrieval_limit,
                eviction_threshold=settings.eviction_threshold,
                indexed=index.count(),
                full_text_search=index.fts_available,
                search_fallback_reason=index.fallback_reason,
                vector_search=vectors.backend if vectors else None,
                vector_degraded_reason=vectors.degraded_reason if vectors else None,
                fullness=fullness,
                embedded=vectors.progress()[0] if vectors else 0,
            )

        return await self._run(collect)

    @override
    async def read_markdown(self) -> str:
        return await self._run(self.engine.read_markdown)

    @override
    async def write_markdown(self, text: str) -> ReconcileResult:
        result = await self._run(self.engine.write_markdown, text)
        if result.changed:
            self._changed()
        return result

    @override
    async def append_daily_log(
        self, entry: str, now: datetime | None = None
    ) -> LogEntry:
        return await self._run(self.engine.append_daily_log, entry, now)

    @override
    async def read_daily_log(self, day: str | date) -> str:
        return await self._run(self.engine.read_daily_log, day)

    @override
    async def daily_log_dates(self) -> builtins.list[str]:
        return await self._run(self.engine.daily_log_dates)

    @override
    async def search_daily_logs(
        self, query: str, limit: int = DEFAULT_SEARCH_LIMIT
    ) -> builtins.list[LogEntry]:
        return await self._run(self.engine.search_daily_logs, query, limit)

    # -- compaction ---------------------------------------------------------------

    def set_compaction(
        self,
        llm: LlmCaller | None,
        *,
        threshold: int = DEFAULT_THRESHOLD,
        cooldown: timedelta = DEFAULT_COOLDOWN,
    ) -> None:
        """Which LLM compacts the memories (None: compaction off) and when it is due."""
        self.compactor.llm = llm
        self.compactor.threshold = threshold
        self.compactor.cooldown = cooldown

    @property
    @override
    def compaction_enabled(self) -> bool:
        return self.compactor.llm is not None

    @override
    async def compact(self) -> CompactionResult | None:
        result = await self.compactor.compact()
        if result is not None:
            self._changed()
        return result

    @override
    async def maybe_compact(self) -> CompactionResult | None:
        result = await self.compactor.maybe_compact()
        if result is not None:
            self._changed()
        return result

    @override
    async def preview_compaction(self) -> CompactionPreview | None:
        return await self.compaction_previews.preview()

    @override
    async def apply_compaction(
        self, revision: str
    ) -> CompactionResult | CompactionPreview | None:
        answer = await self.compaction_previews.apply(revision)
        if isinstance(answer, CompactionResult):
            self._changed()
        return answer

    @override
    async def undo_compaction(self) -> CompactionResult | None:
        result = await self.compactor.undo()
        if result is not None:
            self._changed()
        return result

    @override
    async def compaction_backups(self) -> builtins.list[BackupInfo]:
        return await self.compactor.backups()

    async def set_time_zone(self, time_zone: str | None) -> None:
        """The home's time zone changed: MEMORY.md says the ends in it."""
        await self._run(self.engine.set_time_zone, time_zone)
        self.markdown.schedule()

    @override
    async def set_settings(self, settings: StoreSettings) -> None:
        await self._run(self.store.set_settings, settings)

    @override
    async def close(self) -> None:
        # Stop watching, fold the journal, close the index and the worker.
        if self._closed:
            return
        self._closed = True
        await self.wait_for_background_jobs()
        try:
            for watcher in self._watchers:
                await watcher.stop()
            for task in (self._session_sweeper, self._retention_job):
                if task is not None:
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
            await self.markdown.close()
            await self._run(self.turns.log.close)
            await self._run(self.engine.close)
        finally:
            self._fold_executor.shutdown(wait=True)
            self._executor.shutdown(wait=True)

    # -- conversation turns -----------------------------------------------------

    @override
    async def begin_turn(
        self,
        *,
        session_id: str,
        text: str,
        user_id: str | None = None,
        settings: TurnSettings | None = None,
        live_since: datetime | None = None,
        speaker: TurnSpeaker | None = None,
    ) -> TurnContext:
        context = await self._run(
            self.turns.begin,
            session_id=session_id,
            text=text,
            user_id=user_id,
            settings=settings,
            live_since=live_since,
            deferred=True,
        )
        # The message and the memories' use are written once the agent has its
        # memory and the event loop turns over (so no thread competes with the
        # agent's first step), before anything its answer queues.
        after = self.turns.after_begin
        asyncio.get_running_loop().call_soon(
            self._in_background,
            functools.partial(after, text=text, user_id=user_id, speaker=speaker),
            context,
        )
        return context

    @override
    async def note_message(self, session_id: str, role: str, text: str) -> None:
        await self._run(self.turns.note_message, session_id, role, text)

    @override
    async def pause_session(self, session_id: str, *, user_id: str | None) -> None:
        await self._run(self.turns.pause, session_id, user_id)

    @override
    @override
    async def held_facts(self) -> builtins.list[HeldFact]:
        return await self._run(self.turns.held.all)

    @override
    async def hold(self, fact: HeldFact) -> HeldFact:
        return await self._run(self.turns.held.hold, fact)

    @override
    async def take_held(self, held_id: str) -> HeldFact | None:
        return await self._run(self.turns.held.take, held_id)

    @override
    async def memory_overview(
        self, *, user_id: str | None, settings: TurnSettings | None = None
    ) -> str:
        return await self._run(
            self.turns.overview, user_id=user_id, settings=settings or TurnSettings()
        )

    @override
    async def working_memory(self, session_id: str) -> WorkingMemory | None:
        return await self._run(self.turns.working.get, session_id)

    @override
    async def working_sessions(self) -> builtins.list[WorkingMemory]:
        return await self._run(self.turns.working.sessions)

    @override
    async def recent_sessions(self, limit: int = 20) -> builtins.list[SessionSummary]:
        return await self._run(self.turns.log.recent_summaries, limit)

    @override
    async def conversations(
        self, *, limit: int = 20, offset: int = 0, owner: str | None = None
    ) -> ConversationPage:
        log, whose = self.turns.log, _owner(owner)

        def page() -> ConversationPage:
            return ConversationPage(
                log.sessions(limit, offset=offset, owner=whose),
                log.session_count(owner=whose),
            )

        return await self._run(page)

    @override
    async def conversation(
        self, session_id: str, *, owner: str | None = None
    ) -> Conversation | None:
        log, whose = self.turns.log, _owner(owner)

        def read() -> Conversation | None:
            messages = log.with_turn_memories(log.messages(session_id, speaker=whose))
            if not messages:
                return None
            summary = log.summary(session_id)
            mine = summary is not None and whose in (EVERYONE, summary.user_id)
            return Conversation(
                session_id, summary.title if summary and mine else None, messages
            )

        return await self._run(read)

    @override
    async def delete_conversation(
        self, session_id: str, *, owner: str | None = None
    ) -> int:
        return await self._run(
            self.turns.delete_conversation, session_id, _owner(owner)
        )

    @override
    async def read_profile(self, scope: str = HOUSEHOLD_SCOPE) -> str:
        return await self._run(self.turns.profile.read, scope)

    @override
    async def write_profile(self, scope: str, text: str) -> None:
        await self._run(self.turns.profile.write, scope, text)


def _subscribe[L](listeners: builtins.list[L], listener: L) -> Callable[[], None]:
    """Add `listener`; returns a function that removes it again."""
    listeners.append(listener)

    def remove() -> None:
        if listener in listeners:
            listeners.remove(listener)

    return remove


def _owner(owner: str | None) -> Speaker:
    """The protocol's owner (None: everyone's) as the conversation log's speaker."""
    return EVERYONE if owner is None else owner
