"""The async API every caller uses: `MemoryBackend`, the same in and out of process.

It is the union of four protocols, one per job: `MemoryOperations` (the memories),
`DocumentOperations` (MEMORY.md, daily logs, the profile), `CompactionOperations` and
`TurnOperations` (conversation turns). Each operation is documented here, once.

`LocalBackend` (`local`) runs it in this process; `RemoteBackend`
(`http/remote_backend`) speaks to the add-on's server with the same protocol.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Protocol, TypedDict, Unpack

from ..conversation.conversation_records import (
    Conversation,
    ConversationPage,
    SessionSummary,
)
from ..conversation.held_facts import HeldFact
from ..conversation.learning_queue import EndedConversation
from ..conversation.speaker import Speaker as TurnSpeaker
from ..conversation.turn_settings import LearnSettings, TurnSettings
from ..conversation.turns import ExtractionBatch, LearnResult, TurnContext
from ..conversation.working import WorkingMemory
from ..documents.daily_log import DEFAULT_SEARCH_LIMIT, LogEntry
from ..language.facts import Fact
from ..memory.compaction import BackupInfo, CompactionResult
from ..memory.compaction_preview import CompactionPreview
from ..search.scoring import ScoredMemory
from ..storage.fullness import Fullness
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


class MemoryFields(TypedDict, total=False):
    """Optional fields of a memory given on add or update."""

    category: str
    key: str
    tags: Sequence[str] | str
    confidence: float
    source: str
    scope: str
    session_id: str
    metadata: Mapping[str, Any]
    expires_at: str


@dataclass(frozen=True, slots=True)
class StoreStats:
    """Counts and settings, without any memory content (safe for diagnostics)."""

    count: int
    max_items: int
    max_content_length: int
    last_changed: str | None
    by_category: dict[str, int] = field(default_factory=dict)
    by_source: dict[str, int] = field(default_factory=dict)
    scopes: int = 0
    retrieval_limit: int = 5
    eviction_threshold: int = 0
    indexed: int = 0
    full_text_search: bool = True
    search_fallback_reason: str | None = None
    vector_search: str | None = None
    vector_degraded_reason: str | None = None
    fullness: Fullness = field(default_factory=Fullness)
    # Search by meaning: memories with their vector so far ("1 234 of 5 000").
    embedded: int = 0


class MemoryOperations(Protocol):
    """The memories: add, read, change, search, export and import; limits; listeners."""

    async def add(self, content: str, **fields: Unpack[MemoryFields]) -> Memory:
        """Store a new memory."""

    async def get(self, memory_id: str) -> Memory | None:
        """One memory, or None."""

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
        """A filtered page of memories (`origin`, `last_used`: see `list_filters`).

        `ended`: only memories whose end has come (True), the others (False), or all.
        """

    async def update(
        self, memory_id: str, content: str | None = None, **fields: Unpack[MemoryFields]
    ) -> Memory | None:
        """Change fields of a memory; None for an unknown id."""

    async def delete(self, memory_id: str) -> bool:
        """Remove a memory and every copy of its text; False for an unknown id."""

    async def clear(self) -> int:
        """Remove every memory and every copy of their text; returns how many."""

    async def search(
        self,
        query: str,
        *,
        limit: int | None = None,
        scopes: Sequence[str] | None = None,
        topic: str | None = None,
        record_access: bool = False,
    ) -> builtins.list[ScoredMemory]:
        """Ranked memories for a message, with the parts of the scoring formula."""

    async def same_facts(
        self, memory_ids: Sequence[str]
    ) -> builtins.list[tuple[str, str]]:
        """The pairs of these memories that say the same thing in two languages.

        Judged by meaning (`Neighbours.same_fact`); none without search by meaning.
        """

    async def build_prompt(
        self,
        prompt: str,
        *,
        query: str | None = None,
        limit: int | None = None,
        scopes: Sequence[str] | None = None,
    ) -> str:
        """The prompt with the `<long_term_memory>` block in front.

        The block holds the best memories for `query` (all of them without one).
        """

    async def reindex(self) -> int:
        """Rebuild the search index from the store; returns how many memories it holds."""

    async def export(self) -> dict[str, Any]:
        """Every memory as an export document."""

    async def import_(
        self, document: object, *, mode: ImportMode = "merge"
    ) -> ImportResult:
        """Restore an export document."""

    async def stats(self) -> StoreStats:
        """Counts, settings and the search index's state (no content)."""

    def add_listener(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call `listener` (in the event loop) after every change.

        Returns a function that unsubscribes.
        """

    async def close(self) -> None:
        """Flush and release everything (once)."""

    async def set_settings(self, settings: StoreSettings) -> None:
        """Apply new limits."""


class DocumentOperations(Protocol):
    """The files people read and edit: MEMORY.md, the daily logs, the user profile."""

    async def read_markdown(self) -> str:
        """MEMORY.md: every memory under its category header."""

    async def write_markdown(self, text: str) -> ReconcileResult:
        """Make the memories match an edited MEMORY.md (errors raised, nothing changed)."""

    async def append_daily_log(
        self, entry: str, now: datetime | None = None
    ) -> LogEntry:
        """Append a time-stamped line to today's log (`now` decides the day).

        Memory listeners are not told.
        """

    async def read_daily_log(self, day: str | date) -> str:
        """One day's log ("" when there is none)."""

    async def daily_log_dates(self) -> builtins.list[str]:
        """The days that have a log, newest first."""

    async def search_daily_logs(
        self, query: str, limit: int = DEFAULT_SEARCH_LIMIT
    ) -> builtins.list[LogEntry]:
        """Log entries sharing keywords with the query, best first."""

    async def read_profile(self, scope: str = HOUSEHOLD_SCOPE) -> str:
        """The user profile document."""

    async def write_profile(self, scope: str, text: str) -> None:
        """Replace the user profile document."""


class CompactionOperations(Protocol):
    """Compaction: an LLM merges related memories; the state before is kept to undo it."""

    @property
    def compaction_enabled(self) -> bool:
        """True when an LLM is set for compaction."""

    async def compact(self) -> CompactionResult | None:
        """Compact now; None when skipped, not enabled or the LLM failed.

        When it returns None, nothing changed.
        """

    async def maybe_compact(self) -> CompactionResult | None:
        """Compact when due (threshold, cooldown); never raises (a failure is logged)."""

    async def preview_compaction(self) -> CompactionPreview | None:
        """What compacting now would change, nothing written; None when it cannot."""

    async def apply_compaction(
        self, revision: str
    ) -> CompactionResult | CompactionPreview | None:
        """Apply a preview unchanged, or a fresh preview when the memories changed."""

    async def undo_compaction(self) -> CompactionResult | None:
        """Put back what the newest compaction changed; None when there is none."""

    async def compaction_backups(self) -> builtins.list[BackupInfo]:
        """The saved states before the last compactions, newest first."""


class TurnOperations(Protocol):
    """Conversation turns: before and after a turn, learning, working memory, the log."""

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
        """Record the user's message and gather memory for the agent.

        `live_since`: when the oldest message the agent's host still holds was
        written (see `TurnMemory.begin`). `speaker`: who spoke and how that is
        known (kept with the turn: "why did Assist say that?").
        """

    async def end_turn(
        self,
        *,
        session_id: str,
        user_text: str,
        reply: str,
        user_id: str | None = None,
        memory_ids: Sequence[str] | None = None,
    ) -> None:
        """Record the agent's reply.

        `memory_ids`: the memories an answer from memory said, kept as the turn's
        memories instead of those it was given (None keeps those).
        """

    async def note_message(self, session_id: str, role: str, text: str) -> None:
        """Persist a message of another agent's conversation."""

    async def record_memory_sentence(
        self,
        *,
        session_id: str,
        said: str,
        reply: str,
        user_id: str | None = None,
        memory_ids: Sequence[str] = (),
    ) -> None:
        """Keep a memory sentence, carried out already, and its answer as a turn.

        Nothing is learned from it again. `memory_ids`: the memories the answer
        said (what a recall read back, what "forget" asks about).
        """

    async def pause_session(self, session_id: str, *, user_id: str | None) -> None:
        """Keep the conversation out of the log and of learning from now on.

        What the speaker (`user_id`; None: turns without a user) said in it before
        is erased.
        """

    async def extraction_batch(
        self,
        session_id: str,
        settings: LearnSettings,
        *,
        used_tokens: int = 0,
        ended: bool = False,
    ) -> ExtractionBatch | None:
        """The messages to learn from now, or None while throttled.

        When the conversation `ended`, all that is left, whatever the throttle says.
        None too when another batch has them.
        """

    async def ended_conversations(
        self, *, every: bool = False
    ) -> builtins.list[EndedConversation]:
        """Conversations that ended with messages left to learn from.

        Ended: their working memory expired, or an earlier run (a crash) left them;
        with `every`, each with messages left (the host stops).
        """

    async def rule_facts(self, batch: ExtractionBatch) -> builtins.list[Fact]:
        """Facts found by the rule-based extractor."""

    async def learn(
        self,
        batch: ExtractionBatch,
        facts: builtins.list[Fact],
        *,
        scope: str,
        settings: LearnSettings,
        speaker_unknown: bool = False,
        device_id: str | None = None,
        name: str | None = None,
    ) -> LearnResult:
        """Write learned facts back.

        `speaker_unknown`: none about the speaker is stored; each is held for Review
        with the voice device (`device_id`) it was said at. `name`: the speaker's
        name, when known: their own facts name them ("Sam's favourite colour is
        green") rather than "The user".
        """

    async def memory_overview(
        self, *, user_id: str | None, settings: TurnSettings | None = None
    ) -> str:
        """The memory block without a message (the LLM API's prompt)."""

    async def working_memory(self, session_id: str) -> WorkingMemory | None:
        """A conversation's working memory, or None when unknown or ended."""

    async def working_sessions(self) -> builtins.list[WorkingMemory]:
        """The working memory of every active conversation."""

    async def recent_sessions(self, limit: int = 20) -> builtins.list[SessionSummary]:
        """Summaries of the latest conversations, newest first."""

    async def conversations(
        self, *, limit: int = 20, offset: int = 0, owner: str | None = None
    ) -> ConversationPage:
        """Conversations, the most recently active first (only `owner`'s, if given)."""

    async def conversation(
        self, session_id: str, *, owner: str | None = None
    ) -> Conversation | None:
        """A conversation's messages (only `owner`'s, if given); None when none."""

    async def delete_conversation(
        self, session_id: str, *, owner: str | None = None
    ) -> int:
        """Delete a conversation (only `owner`'s part, if given); messages deleted.

        Its text is in no file once this returns.
        """


class HeldOperations(Protocol):
    """Facts held back from the memories, waiting in Review (see `held_facts`)."""

    async def held_facts(self) -> builtins.list[HeldFact]:
        """The facts held now, newest first (expired ones are gone)."""

    async def hold(self, fact: HeldFact) -> HeldFact:
        """Hold a fact (a new one, or one put back by Undo)."""

    async def take_held(self, held_id: str) -> HeldFact | None:
        """Remove a held fact, leaving no trace of it; None when it is not held."""


class MemoryBackend(
    MemoryOperations,
    DocumentOperations,
    CompactionOperations,
    TurnOperations,
    HeldOperations,
    Protocol,
):
    """Everything Home Assistant, the server and the CLI need from a memory store.

    A caller that needs one part takes only that protocol.
    """
