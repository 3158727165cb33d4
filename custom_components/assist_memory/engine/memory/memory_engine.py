"""MemoryEngine: the store, its search index, retrieval and Markdown view, kept in step.

The store is the source of truth; the index follows every change through the store's
change hook (and resynchronises after a reload). Single changes are queued and applied
in one batch before the next search (or when `flush_index` is called): an add is
acknowledged once it is durable, without waiting for derived data, and a search never
misses a memory the store has. `MEMORY.md` (`prompts/memory/` beside the store) is
derived data too: rewritten by `flush` (`LocalBackend` has its own thread write it a
moment after changes, off the worker that answers reads and writes);
edits made to it are applied to the store (`reconcile_markdown`, `write_markdown`).
Daily logs live beside it. Synchronous and thread-safe; `LocalBackend` runs it off the
event loop.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import date, datetime
import functools
from pathlib import Path
import threading
from typing import TYPE_CHECKING

from ..documents.daily_log import DEFAULT_SEARCH_LIMIT, DailyLog, LogEntry
from ..documents.mirror import MarkdownMirror
from ..errors import InvalidMemoryError
from ..language.time_phrases import home_zone_or_local
from ..search.expansion import HouseholdVocabulary
from ..search.index import SearchIndex
from ..search.retrieval import Retriever
from ..search.scoring import ScoredMemory
from ..storage.models import Memory, utc_now
from ..storage.settings import StoreSettings
from ..storage.store import MemoryStore, ReconcileResult
from ..storage.store_files import LoadReport, StoreChange

if TYPE_CHECKING:
    # numpy and the modules of search by meaning load only when it is on: a search
    # by keywords (the command line) starts without them.
    from ..model.embeddings import HttpContext
    from ..model.heads import Head
    from ..model.local_model import EmbeddingChoice
    from ..search.vectors import VectorIndex


def index_path_for(store_path: Path) -> Path:
    """The index file beside the store: memories.json -> memories.index.db."""
    return store_path.with_suffix(".index.db")


def _no_head() -> Head | None:
    return None


class MemoryEngine:
    """Everything that answers "what do we remember about this?"."""

    def __init__(
        self,
        path: Path,
        settings: StoreSettings | None = None,
        *,
        use_fts: bool = True,
        embeddings: EmbeddingChoice | None = None,
        http: HttpContext | None = None,
        read_only: bool = False,
        time_zone: str | None = None,
    ) -> None:
        """`embeddings` turns on search by meaning: an endpoint or the local model.

        `time_zone` is the home's (an IANA name), in which MEMORY.md says the day a
        memory ends; without one, this computer's.

        `http` is the host's aiohttp session and event loop, for an endpoint's calls.
        `read_only`: a reader (the CLI's search, list, get, export) on a folder
        another program may own: the journal is replayed in memory and neither the
        store's files nor MEMORY.md are written (not at start, not at close).
        """
        self.read_only = read_only
        self.store = MemoryStore(path, settings, read_only=read_only)
        self.index = SearchIndex(index_path_for(self.store.path), use_fts=use_fts)
        self.vectors: VectorIndex | None = None
        relevance_head: Callable[[], Head | None] = _no_head
        if embeddings is not None:
            # Loaded here only: see TYPE_CHECKING above.
            from ..model.heads import trained_head
            from ..model.local_model import embedder_for
            from ..search.relevance import RELEVANCE_HEAD
            from ..search.vectors import VectorIndex

            self.vectors = VectorIndex(
                self.index, embedder_for(embeddings, http), self.store.get_many
            )
            relevance_head = functools.partial(
                trained_head, RELEVANCE_HEAD, self.vectors.model
            )
        # Names and what they are, for the retriever's second round.
        self.vocabulary = HouseholdVocabulary()
        self.store.add_change_hook(self.vocabulary.follow)
        self.retriever = Retriever(
            self.index,
            self.store.get_many,
            vectors=None if self.vectors is None else self.vectors.scores,
            related=self.vocabulary.related,
            relevance_head=relevance_head,
        )
        self._pending_lock = threading.Lock()
        self._pending_upserts: dict[str, Memory] = {}
        self._pending_deletes: set[str] = set()
        self.store.add_change_hook(self._follow_store)
        if self.vectors is not None:
            self.store.add_change_hook(self.vectors.follow)
        self.mirror = MarkdownMirror(
            self.store, self.store.path.parent, home_zone_or_local(time_zone)
        )
        self.daily_log = DailyLog(self.mirror.daily_folder)

    @property
    def settings(self) -> StoreSettings:
        """The current limits."""
        return self.store.settings

    def init(self) -> LoadReport:
        """Load the store; the index catches up with it (a full build the first time).

        Creates `prompts/memory/` and `daily/` and writes MEMORY.md; an edit made to
        MEMORY.md while nothing ran is applied first (or kept aside: `rejected_edits`).
        """
        if self.vectors is not None:
            self.store.ensure_folder()
            self.vectors.start()
        report = self.store.init()
        if self.read_only:
            return report
        if (rejected := self.mirror.start().rejected) is not None:
            report.rejected_edits.append(rejected)
        return report

    def close(self) -> None:
        """Stop the embedding worker, apply a pending MEMORY.md edit, fold the journal.

        Then bring the index and MEMORY.md up to date.
        """
        try:
            if self.vectors is not None:
                self.vectors.stop()
            if self.read_only:
                return
            self.mirror.close()
            self.store.close()
            self.flush()
        finally:
            self.index.close()

    def close_quietly(self) -> None:
        """Release threads and files after a failed init (nothing to fold)."""
        if self.vectors is not None:
            self.vectors.stop()
        self.index.close()

    def _follow_store(self, change: StoreChange, records: Mapping[str, Memory]) -> None:
        with self._pending_lock:
            if change.reloaded:
                # Anything may have changed (start, another program, clear, import):
                # compare everything now, under the store's lock.
                self._pending_upserts.clear()
                self._pending_deletes.clear()
                self.index.sync(records)
                return
            for memory_id in change.deleted:
                self._pending_upserts.pop(memory_id, None)
                self._pending_deletes.add(memory_id)
            for memory in change.upserted:
                self._pending_deletes.discard(memory.id)
                self._pending_upserts[memory.id] = memory

    def set_time_zone(self, time_zone: str | None) -> None:
        """MEMORY.md says the ends in this time zone from its next write."""
        self.mirror.set_zone(home_zone_or_local(time_zone))

    def flush(self) -> int:
        """Apply queued derived work: the index (returns how many) and MEMORY.md."""
        count = self.flush_index()
        self.mirror.flush()
        return count

    def flush_index(self) -> int:
        """Apply the queued changes to the index in one batch; returns how many."""
        with self.store.locked_records(), self._pending_lock:
            upserts = list(self._pending_upserts.values())
            deletes = list(self._pending_deletes)
            if deletes:
                self.index.remove(deletes)
            if upserts:
                self.index.upsert(upserts)
            # Left queued when the index failed (another process kept it busy past
            # the wait): the next flush applies them again.
            self._pending_upserts.clear()
            self._pending_deletes.clear()
            return len(upserts) + len(deletes)

    def same_facts(self, memory_ids: Sequence[str]) -> list[tuple[str, str]]:
        """The pairs of these memories that say the same thing in two languages."""
        if self.vectors is None:
            return []
        ids = list(dict.fromkeys(memory_ids))
        return [
            (first, second)
            for at, first in enumerate(ids)
            for second in ids[at + 1 :]
            if self.vectors.same_fact(first, second)
        ]

    def search(
        self,
        query: str,
        *,
        limit: int | None = None,
        scopes: Sequence[str] | None = None,
        topic: str | None = None,
        record_access: bool = False,
    ) -> list[ScoredMemory]:
        """Ranked memories for a message (the scoring formula), best first.

        `record_access` is for memories that go into a prompt: it updates their
        `last_accessed` and `access_count`. A person searching leaves them alone.
        """
        if not isinstance(query, str) or not query.strip():
            raise InvalidMemoryError("empty_query", "the search text must not be empty")
        self.flush_index()
        results = self.retriever.retrieve(
            query,
            limit=limit or self.settings.retrieval_limit,
            scopes=scopes,
            topic=topic,
        )
        if record_access and results:
            self.store.record_access(r.memory.id for r in results)
        return results

    def prompt_memories(
        self,
        query: str | None = None,
        *,
        limit: int | None = None,
        scopes: Sequence[str] | None = None,
    ) -> list[Memory]:
        """The memories a prompt built outside a conversation gets, in its order.

        With a `query`, the most relevant to it (their use is recorded); without one,
        every memory in `scopes` (None: all), oldest first. Never one whose end has
        come. At most `limit`.
        """
        if query is not None:
            found = self.search(query, limit=limit, scopes=scopes, record_access=True)
            return [result.memory for result in found]
        now = utc_now()
        current = [
            memory
            for memory in self.store.get_all()
            if (scopes is None or memory.scope in scopes) and not memory.has_ended(now)
        ]
        return current if limit is None else current[:limit]

    def reindex(self) -> int:
        """Rebuild the search index from the store; returns how many memories it holds."""
        with self.store.locked_records() as records, self._pending_lock:
            self._pending_upserts.clear()
            self._pending_deletes.clear()
            self.index.rebuild(records)
            return len(records)

    # -- Markdown view and daily logs ------------------------------------------

    def read_markdown(self) -> str:
        """MEMORY.md's text: every memory under its category header.

        The lines kept for the file, brought up to date with the changes since; the
        file itself is written by `flush` (in the background in the hosts).
        """
        return self.mirror.render()

    def write_markdown(self, text: str) -> ReconcileResult:
        """Make the memories match an edited MEMORY.md (the REST API's PUT).

        New bullets are added, removed ones deleted, changed ones updated; unchanged
        lines keep their memory. InvalidMemoryError or MemoryFullError: nothing changed.
        """
        return self.mirror.write_text(text)

    def reconcile_markdown(self) -> ReconcileResult:
        """Apply a hand edit of MEMORY.md (the file watch calls this).

        An edit that cannot be applied is set aside and logged, never raised.
        """
        return self.mirror.reconcile_file()

    def append_daily_log(self, entry: str, now: datetime | None = None) -> LogEntry:
        """Append a time-stamped line to today's log (`now`: local time, default now)."""
        return self.daily_log.append(entry, now or datetime.now().astimezone())

    def read_daily_log(self, day: str | date) -> str:
        """One day's log ("" when there is none)."""
        return self.daily_log.read(day)

    def daily_log_dates(self) -> list[str]:
        """The days that have a log, newest first."""
        return self.daily_log.dates()

    def search_daily_logs(
        self, query: str, limit: int = DEFAULT_SEARCH_LIMIT
    ) -> list[LogEntry]:
        """Log entries sharing keywords with `query`, best first."""
        return self.daily_log.search(query, limit)
