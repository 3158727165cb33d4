"""What memory does around one conversation turn, for any agent host.

`begin` runs before the agent answers: working memory is touched, the most
relevant memories are retrieved for the household and the speaking user, and the memory
block is composed from the profile, those memories, recent session summaries and the
earlier messages of the rolling window that the agent does not have. The
user's message is persisted and the memories' use recorded by `after_begin`,
which a host in a hurry runs once the agent has its memory.
`end` runs after the answer: the reply is persisted, a new session gets its summary
after the first reply, and the topic is updated for the next retrieval.
A paused conversation ("stop remembering", `pause`) still gets its memory, but what
the speaker said in it before is erased, and from then on nothing of it is logged,
kept in working memory or learned from, until it has been idle as long as a working
memory lives.

What a conversation keeps belongs to the user who spoke (None: turns without a user):
the window, the working memory and the summaries of another user's turns never reach
a prompt, even in the same conversation id. Everything kept is redacted first.

Home Assistant's conversation agent and the server call these through the backend;
neither holds memory logic of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
import threading
import time
from typing import Final

from ..errors import MemoryFullError
from ..language.commands import about_the_speaker
from ..language.extractors import Extractor, extractor_here
from ..language.fact_scope import placed
from ..language.facts import Fact
from ..language.naming import as_learnt, named, naming_metadata
from ..language.provenance import SaidMessage, learned_from
from ..language.rule_extraction import RuleBasedExtractor
from ..language.secrets_by_meaning import withheld
from ..language.secrets_filter import mentions_secret, redact
from ..language.time_phrases import end_of, home_now, with_time
from ..language.write_back import plan_write_back, states_replaced_fact
from ..memory.memory_engine import MemoryEngine
from ..search.scoring import ScoredMemory
from ..storage.models import HOUSEHOLD_SCOPE, Memory
from .compose import MessageLine, SummaryLine, compose_memory_block
from .conversation_log import ConversationLog
from .conversation_records import EVERYONE, Message, Speaker, timestamp
from .grounded_facts import grounded_facts
from .held_facts import HeldFacts, hold_facts
from .learning_queue import EndedConversation, LearningQueue
from .moved_ends import move_ends, renamed
from .named_memories import name_learnt_memories
from .profile import UserProfile, profile_updates
from .prompt import build_prompt_with_memory
from .quotes import forget_expired_quotes, forget_quotes
from .session_titles import summarize_first_exchange
from .speaker import Speaker as TurnSpeaker
from .throttle import ExtractionThrottle, FlushTracker
from .turn_settings import LearnSettings, TurnSettings
from .working import WorkingMemoryManager, important_items, topic_of

# How many of a speaker's newest summaries a replaced fact is looked for in (older
# ones never reach a prompt again).
_SUMMARIES_CHECKED: Final = 100


@dataclass(frozen=True, slots=True)
class ExtractionBatch:
    """The not yet learned messages of a session."""

    session_id: str
    message_ids: tuple[int, ...]
    user_texts: tuple[str, ...]
    transcript: str
    # The conversation's language (a tag such as "zh-Hant"), when the caller knows it.
    language: str | None = None
    # Who said the batch's newest user message (None: a turn without a user).
    user_id: str | None = None


@dataclass(frozen=True, slots=True)
class LearnResult:
    """What learning from a batch changed."""

    added: int = 0
    refreshed: int = 0
    replaced: int = 0
    skipped: int = 0
    profile_updates: int = 0
    # New facts the memory had no room for (its limit reached, eviction off).
    not_stored: int = 0
    # Facts about an unknown speaker, held for Review ("Who said this?").
    held: int = 0
    # An LLM's facts no user's words in the batch support (`grounded_facts`).
    not_said: int = 0
    # An LLM's facts saying back a memory the conversation was given.
    said_back: int = 0


@dataclass(frozen=True, slots=True)
class TurnContext:
    """What the agent gets for this turn."""

    session_id: str
    scopes: tuple[str, ...]
    memories: tuple[ScoredMemory, ...]
    memory_block: str
    prefixed_text: str
    new_session: bool
    topic: str | None = None
    profile_used: bool = False
    summaries_used: int = 0
    messages_used: int = 0
    # The host's own history of the conversation (since `live_since`) holds another
    # speaker's messages: the host must not hand it to this one.
    others_in_history: bool = False
    extra: dict[str, object] = field(default_factory=dict)


def scopes_for(user_id: str | None) -> tuple[str, ...]:
    """A turn sees the household's memories and, when known, the speaking user's."""
    return (HOUSEHOLD_SCOPE, user_id) if user_id else (HOUSEHOLD_SCOPE,)


class TurnMemory:
    """Memory around conversation turns; thread-safe, synchronous."""

    def __init__(
        self,
        engine: MemoryEngine,
        log: ConversationLog,
        working: WorkingMemoryManager,
        profile: UserProfile,
        *,
        held: HeldFacts | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """`clock` (seconds) times how long a paused conversation stays paused.

        `held`: where facts about an unknown speaker wait (beside the log).
        """
        self.engine = engine
        self.log = log
        self.working = working
        self.profile = profile
        self.held = held or HeldFacts(log.path.parent)
        self._lock = threading.Lock()
        self._throttle = ExtractionThrottle()
        self._flush = FlushTracker()
        self._extractor: Extractor | None = None
        # Paused conversations: session id -> when their last turn came (`clock`).
        self._clock = clock
        self._paused: dict[str, float] = {}
        self._learning = LearningQueue(clock)

    def pause(self, session_id: str, user_id: str | None) -> None:
        """Keep the conversation out of the log, working memory and learning from now.

        What the speaker (`user_id`) said in it before is erased as deleting their
        part of the conversation does; its working memory goes unarchived, and what
        others said in it is not learned from either.
        """
        with self._lock:
            self._paused[session_id] = self._clock()
            self.working.forget(session_id)
            self.log.mark_collected([m.id for m in self.log.uncollected(session_id)])
        self.delete_conversation(session_id, user_id)

    def _still_paused(self, session_id: str) -> bool:
        """Whether the session is paused; a turn keeps it so (lock held)."""
        if session_id not in self._paused:
            return False
        self._paused[session_id] = self._clock()
        return True

    def begin(
        self,
        *,
        session_id: str,
        text: str,
        user_id: str | None = None,
        settings: TurnSettings | None = None,
        live_since: datetime | None = None,
        deferred: bool = False,
        speaker: TurnSpeaker | None = None,
    ) -> TurnContext:
        """Record the user's message and gather the memory for the agent.

        A caller in a hurry passes `deferred`: then only reads happen here (the
        message is checked, not stored) and it calls `after_begin` once the agent has
        its memory, which stores the message and the memories' use; the agent waits
        on no write (or checkpoint of the conversation log). Otherwise `begin` calls
        it itself.

        The rolling window is the conversation's last `context_limit` messages,
        whole turns, counting the one being answered. The agent's host may still
        hold the newest of them (Home Assistant's chat log, which forgets a
        conversation after 5 minutes or a restart): `live_since` is when the oldest
        message it holds was written. Messages of the window persisted before that
        moment go into the block; the others, and the message being answered, reach
        the agent anyway and are not repeated. Without `live_since` every earlier
        message of the window goes into the block. When the host's history holds
        another speaker's messages, `others_in_history` says so: the host drops it.
        `speaker`: who spoke and how that is known, kept with the turn's record.
        """
        settings = settings or TurnSettings()
        scopes = scopes_for(user_id)
        with self._lock:
            paused = self._still_paused(session_id)
            said = self.log.check(session_id, "user", text, user_id)
            previous = self.working.get(session_id)
            if previous is not None and previous.user_id != user_id:
                previous = None  # another user's: nothing of it for this one
            new_session = previous is None and not self.log.messages(
                session_id, limit=1, speaker=user_id
            )
            # Retrieval is boosted by the topic so far; this message sets the next one.
            topic = previous.current_topic if previous else None
            if not paused:
                self.working.touch(
                    session_id, topic=topic_of(said) or None, user_id=user_id
                )
            # The message being answered counts in the window (and is not stored
            # yet): the earlier messages fill the rest.
            before = self.log.window(
                session_id, max(settings.context_limit - 1, 0), speaker=user_id
            )
            others_in_history = live_since is not None and self.log.others_spoke(
                session_id, user_id, timestamp(live_since)
            )
        # A history the host drops (another speaker's in it) holds nothing to skip.
        conversation = _unseen(before, None if others_in_history else live_since)
        results = self.engine.search(
            text,
            limit=settings.rag_top_n,
            scopes=scopes,
            topic=topic,
            record_access=False,
        )
        memories = [r.memory for r in results]
        profile = self._profile(scopes, settings)
        summaries = self._summaries(session_id, settings, user_id)
        block = compose_memory_block(
            profile=profile,
            memories=memories,
            summaries=summaries,
            conversation=conversation,
            budget=settings.memory_budget,
        )
        context = TurnContext(
            session_id=session_id,
            scopes=scopes,
            memories=tuple(results),
            memory_block=block,
            prefixed_text=build_prompt_with_memory(memories, text),
            new_session=new_session,
            topic=topic,
            profile_used=bool(profile),
            summaries_used=len(summaries),
            messages_used=len(conversation),
            others_in_history=others_in_history,
        )
        if not deferred:
            self.after_begin(context, text=text, user_id=user_id, speaker=speaker)
        return context

    def after_begin(
        self,
        context: TurnContext,
        *,
        text: str,
        user_id: str | None = None,
        speaker: TurnSpeaker | None = None,
    ) -> None:
        """Store what a deferred `begin` left: the user's message, the memories' use."""
        with self._lock:
            if not self._still_paused(context.session_id):
                message = self.log.append(
                    context.session_id, "user", text, user_id=user_id
                )
                # What "why did Assist say that?" shows for this turn.
                self.log.record_turn_memories(
                    message.id, (r.memory.id for r in context.memories)
                )
                if speaker is not None:
                    self.log.record_turn_speaker(
                        message.id,
                        speaker.source,
                        speaker.device_id,
                        speaker.person_entity_id,
                    )
        if context.memories:
            self.engine.store.record_access([r.memory.id for r in context.memories])

    def end(
        self,
        *,
        session_id: str,
        user_text: str,
        reply: str,
        user_id: str | None = None,
        memory_ids: Iterable[str] | None = None,
    ) -> None:
        """Record the agent's reply; summarise a new session after its first reply.

        `memory_ids`: the memories the answer said (an answer from memory), instead of
        those the turn was given; None keeps those.
        """
        with self._lock:
            if self._still_paused(session_id):
                return
            last = self.log.messages(session_id, limit=1, speaker=user_id)
            if memory_ids is not None and last and last[0].role == "user":
                self.log.record_turn_memories(last[0].id, memory_ids, replace=True)
            if reply.strip():
                self.log.append(session_id, "assistant", reply, user_id=user_id)
                # The agent's reply is unchecked: the summary keeps to what was said.
                self._summarize_first(session_id, user_text, None, user_id)
            self._throttle.note_message(session_id, 2 if reply.strip() else 1)

    def record_memory_sentence(
        self,
        *,
        session_id: str,
        said: str,
        reply: str,
        user_id: str | None = None,
        memory_ids: Iterable[str] = (),
    ) -> None:
        """Keep a memory sentence ("remember that ...") and its answer as a turn.

        It was carried out already: nothing is learned from either message again
        (both are stored collected). Not in a paused conversation. `memory_ids`: the
        memories the answer said ("why did Assist say that?").
        """
        with self._lock:
            if self._still_paused(session_id):
                return
            message = self.log.append(
                session_id, "user", said, user_id=user_id, collected=True
            )
            self.log.record_turn_memories(message.id, memory_ids)
            # A turn of the conversation in progress, counted with the others.
            self.working.touch(
                session_id, topic=topic_of(said) or None, user_id=user_id
            )
            if reply.strip():
                self.log.append(
                    session_id, "assistant", reply, user_id=user_id, collected=True
                )
                self._summarize_first(session_id, said, reply, user_id)

    def _summarize_first(
        self, session_id: str, user_text: str, done: str | None, user_id: str | None
    ) -> None:
        """A conversation's summary, from its first exchange (lock held).

        `done`: the memory agent's own answer saying what it did, else None.
        """
        if self.log.summary(session_id) is None:
            # Redacted whole: a secret cut in two would not be recognised.
            title, snippet = summarize_first_exchange(
                withheld(user_text), redact(done) if done else None
            )
            self.log.add_summary(session_id, title, snippet, user_id=user_id)

    def note_message(
        self, session_id: str, role: str, text: str, user_id: str | None = None
    ) -> None:
        """Persist a message of a conversation memory did not take part in."""
        with self._lock:
            if self._still_paused(session_id):
                return
            self.log.append(session_id, role, text, user_id=user_id)
            self._throttle.note_message(session_id)

    # -- learning ----------------------------------------------------------------

    def extraction_batch(
        self,
        session_id: str,
        settings: LearnSettings,
        *,
        used_tokens: int = 0,
        ended: bool = False,
    ) -> ExtractionBatch | None:
        """The messages to learn from now, or None while throttled (the extraction throttle).

        Extraction runs at most every `min_interval` and after `min_messages` new
        messages; when the conversation uses `flush_threshold` of its context, it
        runs once per cycle whatever the throttle says (the pre-compaction flush).
        When the conversation `ended`, whatever is left is learned from at once.
        Messages another batch took are never in this one (`LearningQueue`).
        """
        with self._lock:
            if self._still_paused(session_id):
                return None
            if not ended:
                self._throttle.min_interval = settings.min_interval
                self._throttle.min_messages = settings.min_messages
                self._flush.threshold = settings.flush_threshold
                flush = self._flush.should_flush(
                    session_id, used_tokens, settings.context_size
                )
                if not flush and not self._throttle.should_extract(session_id):
                    return None
            left = self.log.uncollected(session_id)
            if not left:
                self._learning.done(session_id)
            messages = self._learning.claim(left)
            self._throttle.mark_extracted(session_id)
        if not messages:
            return None
        transcript = "\n".join(f"{m.role}: {m.content}" for m in messages)
        said = [m for m in messages if m.role == "user"]
        return ExtractionBatch(
            session_id=session_id,
            message_ids=tuple(m.id for m in messages),
            user_texts=tuple(m.content for m in said),
            transcript=transcript,
            user_id=said[-1].user_id if said else None,
        )

    def ended_conversations(self, *, every: bool = False) -> list[EndedConversation]:
        """Conversations that ended with messages left to learn from.

        Ended: their working memory expired, or an earlier run
        left them. With `every`, each conversation with messages left (the host
        stops: all of them end). A conversation memory answered in has a summary
        (made after its first reply); one only noted (`note_message`, another
        agent's) has none, and nothing about its unknown speaker is learned.
        Call `expire_sessions` first for the working memories that just expired.
        """
        with self._lock:
            left = set(self.log.uncollected_sessions())
            if every:
                self._learning.mark_ended(left)
            for session_id in self._learning.ended():
                if session_id not in left:
                    self._learning.done(session_id)
            return [
                EndedConversation(session_id, self.log.summary(session_id) is None)
                for session_id in self._learning.ended()
                if session_id not in self._paused
            ]

    def recover(self) -> int:
        """Mark ended the conversations an earlier run left with messages to learn.

        Called once at start, before any turn; returns how many there are.
        """
        with self._lock:
            left = self.log.uncollected_sessions()
            self._learning.mark_ended(left)
        return len(left)

    @property
    def extractor(self) -> Extractor:
        """What learns without an LLM: the trained heads, else the rules.

        Made on first use: the model loads then, not when a command starts.
        """
        if self._extractor is None or isinstance(self._extractor, RuleBasedExtractor):
            # The rules until the local model can run (installed after a first start).
            self._extractor = extractor_here()
        return self._extractor

    def rule_facts(self, batch: ExtractionBatch) -> list[Fact]:
        """Facts learnt without an LLM from what the user said."""
        return [
            fact
            for text in batch.user_texts
            for fact in self.extractor.extract(text, language=batch.language)
        ]

    def learn(
        self,
        batch: ExtractionBatch,
        facts: list[Fact],
        *,
        scope: str,
        settings: LearnSettings,
        speaker_unknown: bool = False,
        device_id: str | None = None,
        name: str | None = None,
    ) -> LearnResult:
        """Write facts back: repeats refresh, a known key is replaced.

        Secrets are never stored; facts longer than `atomic_content_max_length` are
        left out, and so are an LLM's facts the users' words do not support or that
        say back a memory the conversation was given (`grounded_facts`). The batch's messages are marked as collected. A summary of the
        speaker's that states a replaced fact no longer reaches a prompt.

        `scope`: the speaker's. A person's fact about the home (`fact_scope.whose`)
        is the household's, the rest stays theirs.

        `speaker_unknown`: nobody can tell who spoke (a conversation with another
        agent, followed through the host's chat logs), so nothing about the speaker
        is stored, neither a fact about them nor a profile line; facts about the
        household or someone named are. A fact about the speaker is held for Review
        (with the voice device it was said at, `device_id`) until a person says
        whose it is.

        `name`: the speaker's name, when known. A fact kept among their own memories
        names them ("Sam's favourite colour is green", `naming`), the name used in
        its metadata; without one it says "The user".
        """
        now = home_now(settings.time_zone)
        grounded = grounded_facts(
            facts,
            batch.user_texts,
            list(
                self.engine.store.get_many(
                    self.log.given_memories(batch.session_id)
                ).values()
            ),
            now,
            nearness=self.engine.vectors.nearness if self.engine.vectors else None,
        )
        facts = grounded.kept
        short = [
            dated
            for f in facts
            if len((dated := with_time(f, now, batch.language)).content)
            <= settings.atomic_content_max_length
        ]
        # Whose each fact is (`fact_scope`): a fact about the home is the household's.
        short = [placed(f) for f in short]
        personal = [
            f
            for f in short
            if speaker_unknown and (about_the_speaker(f) or f.whose == "speaker")
        ]
        fitting = [f for f in short if f not in personal]
        held = hold_facts(
            self.held,
            personal,
            reason="speaker_unknown",
            session_id=batch.session_id,
            device_id=device_id,
        )
        # A person's facts about the home go to the household; the rest stay theirs.
        scopes: dict[str, list[Fact]] = {scope: [], HOUSEHOLD_SCOPE: []}
        for fact in fitting:
            shared = fact.whose == "household" and not speaker_unknown
            scopes[HOUSEHOLD_SCOPE if shared else scope].append(fact)
        # Only a person's own memories name them; the household's stay its own.
        personal_name = None if speaker_unknown or scope == HOUSEHOLD_SCOPE else name
        written = [
            self._write_back(
                batch,
                placed,
                scope=where,
                now=now,
                device_id=device_id,
                name=personal_name if where != HOUSEHOLD_SCOPE else None,
            )
            for where, placed in scopes.items()
            if placed
        ]
        profile_changes = sum(
            self.profile.note_preference(scope, section, statement)
            for text in (() if speaker_unknown else batch.user_texts)
            for section, statement in profile_updates(text)
            if not mentions_secret(statement)
        )
        self.log.mark_collected(batch.message_ids)
        with self._lock:
            self._learning.release(batch.message_ids)
        return LearnResult(
            added=sum(w.added for w in written),
            refreshed=sum(w.refreshed for w in written),
            replaced=sum(w.replaced for w in written),
            skipped=sum(w.skipped for w in written) + len(facts) - len(fitting) - held,
            profile_updates=profile_changes,
            not_stored=sum(w.not_stored for w in written),
            held=held,
            not_said=grounded.not_said,
            said_back=grounded.said_back,
        )

    def _write_back(
        self,
        batch: ExtractionBatch,
        fitting: list[Fact],
        *,
        scope: str,
        now: datetime,
        device_id: str | None,
        name: str | None = None,
    ) -> LearnResult:
        """Write facts into one scope: repeats refresh, a known key is replaced.

        `skipped` counts the repeats left alone; `replaced` includes ends moved.
        `name`: the scope's person, named in what is stored (`naming`). Facts are
        compared with the memories worded as learning writes them ("The user ...").
        """
        with self.engine.store.locked_records() as records:
            own = [m for m in records.values() if m.scope == scope]
        existing = [as_learnt(m) for m in own]
        store = self.engine.store
        name_learnt_memories(store, own, name)
        moved = move_ends(self.engine.store, fitting, existing, now, name)
        fitting = [fact for fact in fitting if fact not in moved]
        plan = plan_write_back(fitting, existing, scope=scope)
        said = self._said(batch) if plan.adds else []
        not_stored: tuple[Fact, ...] = ()
        for position, fact in enumerate(plan.adds):
            try:
                store.add(
                    named(fact.content, name),
                    category=fact.category,
                    key=fact.key,
                    confidence=fact.confidence,
                    source=fact.source,
                    scope=scope,
                    session_id=batch.session_id,
                    metadata=naming_metadata(
                        learned_from(fact.content, said, "conversation"),
                        fact.content,
                        name,
                    ),
                    expires_at=end_of(fact, now),
                )
            except MemoryFullError:
                # The rest would be refused too: they wait in Review, and the batch
                # still counts as learnt (no retry of it on every later turn).
                not_stored = tuple(plan.adds[position:])
                hold_facts(
                    self.held,
                    not_stored,
                    reason="memory_full",
                    session_id=batch.session_id,
                    device_id=device_id,
                    scope=scope,
                )
                break
        for memory_id in plan.refreshes:
            fact = plan.refreshed_with[memory_id]
            current = store.get(memory_id)
            if current is not None:
                store.update(
                    memory_id,
                    confidence=max(current.confidence, fact.confidence),
                    # Said again with an end: the end said last holds.
                    expires_at=end_of(fact, now),
                )
        replaced: list[tuple[Memory, Fact]] = []
        for memory_id, fact in plan.replacements:
            before = store.get(memory_id)
            store.update(
                memory_id,
                named(fact.content, name),
                category=fact.category,
                confidence=fact.confidence,
                source=fact.source,
                metadata=renamed(before, fact.content, name),
                expires_at=end_of(fact, now) or "",  # the newer fact's end, or none
            )
            if before is not None:
                replaced.append((as_learnt(before), fact))
        if replaced:
            self._supersede_summaries(scope, replaced)
        return LearnResult(
            added=len(plan.adds) - len(not_stored),
            refreshed=len(plan.refreshes),
            replaced=len(plan.replacements) + len(moved),
            skipped=len(plan.skipped),
            not_stored=len(not_stored),
        )

    def _said(self, batch: ExtractionBatch) -> list[SaidMessage]:
        """What the users said in the batch's messages (a fact's possible origins)."""
        found = self.log.said_in(batch.session_id, batch.message_ids, batch.user_texts)
        return [SaidMessage(m.id, m.content, m.user_id) for m in found]

    def _supersede_summaries(
        self, scope: str, replaced: list[tuple[Memory, Fact]]
    ) -> None:
        """Keep out of prompts the speaker's summaries stating what was replaced."""
        owner = None if scope == HOUSEHOLD_SCOPE else scope
        stale = [
            summary.session_id
            for summary in self.log.recent_summaries(_SUMMARIES_CHECKED, owner=owner)
            if any(
                states_replaced_fact(stated, old, fact)
                for stated in self.extractor.extract(summary.title)
                for old, fact in replaced
            )
        ]
        self.log.supersede_summaries(stale)

    def delete_conversation(self, session_id: str, owner: Speaker = EVERYONE) -> int:
        """Delete a conversation (`owner`'s part of it); returns messages deleted.

        Its working memory goes too (never archived) when it is the owner's; the
        facts held for Review that were said in it go when they are the owner's
        (only turns of nobody known hold facts).
        """
        if owner is EVERYONE or owner is None:
            self.held.drop_session(session_id)
        with self._lock:
            deleted = self.log.delete_session(session_id, owner=owner)
            if deleted:
                self._forget_quotes(session_id, owner)
            working = self.working.get(session_id)
            if owner is EVERYONE or (working is not None and working.user_id == owner):
                self.working.forget(session_id)
                self._throttle.forget(session_id)
                self._flush.forget(session_id)
        return deleted

    def _forget_quotes(self, session_id: str, owner: Speaker) -> None:
        """Memories learned in a deleted conversation stay, without quoting it."""
        forget_quotes(self.engine.store, session_id, owner)

    def forget_expired_quotes(self) -> int:
        """Retention: memories whose quoted message is gone stop quoting it."""
        return forget_expired_quotes(self.engine.store, self.log)

    def expire_sessions(self) -> int:
        """End working memories idle for 30 minutes; archive their important items.

        An item is kept for the user whose working memory it was (the household's
        for turns without a user). Returns how many sessions ended (the
        auto-cleanup of idle conversations).
        """
        with self._lock:
            ended = self.working.expire()
            self._learning.mark_ended(w.session_id for w in ended)
            idle_since = self._clock() - self.working.ttl.total_seconds()
            for session_id, last_turn in list(self._paused.items()):
                if last_turn < idle_since:
                    del self._paused[session_id]
        for working in ended:
            self._throttle.forget(working.session_id)
            self._flush.forget(working.session_id)
            for item in important_items(working):
                self.engine.store.add(
                    item,
                    category="note",
                    source="inferred",
                    confidence=0.7,
                    scope=working.user_id or HOUSEHOLD_SCOPE,
                    session_id=working.session_id,
                )
        return len(ended)

    def overview(self, *, user_id: str | None, settings: TurnSettings) -> str:
        """The memory block without a message: the profile and the most used memories.

        For prompts made before the user speaks (the LLM API's prompt).
        """
        scopes = scopes_for(user_id)
        page = self.engine.store.list(limit=1000, sort="most_used")
        memories = [m for m in page.items if m.scope in scopes][
            : settings.rag_top_n or self.engine.settings.retrieval_limit
        ]
        return compose_memory_block(
            profile=self._profile(scopes, settings),
            memories=memories,
            summaries=self._summaries("", settings, user_id),
            budget=settings.memory_budget,
        )

    def _profile(self, scopes: tuple[str, ...], settings: TurnSettings) -> str | None:
        if not settings.enable_user_profile:
            return None
        documents = [
            self.profile.read(scope) for scope in scopes if self.profile.exists(scope)
        ]
        return "\n".join(documents) or None

    def _summaries(
        self, session_id: str, settings: TurnSettings, user_id: str | None = None
    ) -> list[SummaryLine]:
        """The speaker's recent conversations: another user's never reach this prompt."""
        if settings.session_summary_limit <= 0:
            return []
        limit = settings.session_summary_limit
        return [
            SummaryLine(summary.created_at[:10], summary.title, summary.snippet)
            for summary in self.log.speaker_summaries(
                user_id, limit, among=limit * 5 + 1, excluding=session_id
            )
        ]


def _unseen(before: list[Message], live_since: datetime | None) -> list[MessageLine]:
    """The window's earlier messages the agent does not get otherwise (see `begin`)."""
    cutoff = timestamp(live_since) if live_since is not None else None
    return [
        MessageLine(m.role, m.content)
        for m in before
        if cutoff is None or m.created_at < cutoff
    ]
