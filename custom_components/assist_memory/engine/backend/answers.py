"""Carrying out a memory sentence (`commands.py`) with any memory backend.

- "remember that ...": a secret is never stored (the answer says so); the memory goes
  to the scope of whom the sentence is about (`command_scopes`); said about themselves
  by a speaker nobody can tell (an unassigned voice device), it is held for Review
  ("Who said this?") instead, and at a guest device nothing is stored; a sentence that
  repeats a memory of that scope (the same normalised text, or the same meaning, as
  learning decides) refreshes it and the answer is "I already knew that."
- "what do you remember about ...": the best memories of the scopes the sentence
  reads, in the question's language first and a fact told in two languages once,
  said to the listener (`listener.for_listener`: "Your daughter Lily loves
  dinosaurs") with any secret value withheld; "about me" is the speaker's own
  memories and "about us / the house" the household's, the most used first, with how
  many more there are.
- "forget ...": `forget_by_voice.py` (it asks first).
- "stop remembering": what the speaker said in the conversation is erased, and it is
  neither logged nor learned from from now on.

Every reply is in the conversation's language; a failing store gives a spoken error.
A recall names the memories it said ("why did Assist say that?").
"""

from __future__ import annotations

from dataclasses import dataclass
import re
from typing import TYPE_CHECKING, Final

from ..conversation.held_facts import new_held_fact
from ..conversation.speaker import Speaker
from ..errors import MemoryEngineError
from ..language.commands import (
    MemoryCommand,
    about_whom,
    command_scopes,
    join_items,
    reply,
    subject_is_household,
    subject_is_speaker,
)
from ..language.listener import said_to
from ..language.provenance import Provenance
from ..language.secrets_filter import contains_secret, redact
from ..language.write_back import find_repeated
from ..storage.models import HOUSEHOLD_SCOPE, Memory

if TYPE_CHECKING:
    from .protocol import MemoryBackend, MemoryOperations

RECALL_ITEMS: Final = 3
_HAN: Final = re.compile(r"[\u4e00-\u9fff]")
# A repeat is looked for among the best matches of its own scope.
_REPEAT_CANDIDATES: Final = 5


@dataclass(frozen=True, slots=True)
class CommandAnswer:
    """The spoken answer, and the memories it said (a recall's)."""

    speech: str
    memory_ids: tuple[str, ...] = ()


async def answer_command(
    backend: MemoryBackend,
    command: MemoryCommand,
    *,
    session_id: str,
    speaker: Speaker,
    language: str,
    said: str | None = None,
) -> CommandAnswer:
    """Remember, recall or pause as the sentence asks; the spoken answer.

    `said` is the sentence itself, kept with what it stores. Forgetting asks first:
    `forget_by_voice.propose_forget`.
    """
    user_id = speaker.owner
    try:
        if command.action == "pause":
            await backend.pause_session(session_id, user_id=user_id)
            return CommandAnswer(reply(language, "paused"))
        if command.action == "remember":
            if not speaker.learns:
                return CommandAnswer(reply(language, "guest"))
            if not speaker.known and about_whom(command.subject) == "speaker":
                held = await _hold(backend, command, speaker, language, session_id)
                return CommandAnswer(held)
            provenance = Provenance("command", said, speaker=user_id)
            remembered = await _remember(
                backend,
                command,
                user_id,
                language,
                session_id=session_id,
                provenance=provenance,
            )
            return CommandAnswer(remembered)
        return await _recall(backend, command, user_id, language)
    except MemoryEngineError as err:
        return CommandAnswer(reply(language, "failed", reason=err.message))


def _said(speech: str, memories: list[Memory]) -> CommandAnswer:
    return CommandAnswer(speech, tuple(memory.id for memory in memories))


async def _remember(
    backend: MemoryOperations,
    command: MemoryCommand,
    user_id: str | None,
    language: str,
    *,
    session_id: str,
    provenance: Provenance,
) -> str:
    if contains_secret(command.subject):
        return reply(language, "secret")
    scope = command_scopes(command, user_id).write
    found = await backend.search(
        command.subject, limit=_REPEAT_CANDIDATES, scopes=[scope]
    )
    repeated = find_repeated(command.subject, [r.memory for r in found])
    if repeated is not None:
        # Stated again, explicitly: the memory is refreshed (a new `updated_at`).
        await backend.update(repeated.id, confidence=1.0)
        return reply(language, "known")
    await backend.add(
        command.subject,
        source="user_stated",
        scope=scope,
        session_id=session_id,
        metadata=provenance.metadata(),
    )
    return reply(language, "remembered")


async def _hold(
    backend: MemoryBackend,
    command: MemoryCommand,
    speaker: Speaker,
    language: str,
    session_id: str,
) -> str:
    """Keep an unknown speaker's fact about themselves for Review."""
    if contains_secret(command.subject):
        return reply(language, "secret")
    await backend.hold(
        new_held_fact(
            command.subject,
            reason="speaker_unknown",
            device_id=speaker.device_id,
            session_id=session_id,
        )
    )
    return reply(language, "held")


async def _recall(
    backend: MemoryOperations,
    command: MemoryCommand,
    user_id: str | None,
    language: str,
) -> CommandAnswer:
    if subject_is_speaker(command.subject) and user_id:
        return await _about_scope(backend, user_id, user_id, language, "about_you")
    if subject_is_household(command.subject):
        return await _about_scope(
            backend, HOUSEHOLD_SCOPE, user_id, language, "about_household"
        )
    found = await backend.search(
        command.subject,
        limit=RECALL_ITEMS,
        scopes=command_scopes(command, user_id).read,
        record_access=True,
    )
    if not found:
        return CommandAnswer(
            reply(language, "recall_none", subject=redact(command.subject))
        )
    memories = await said_once(backend, [r.memory for r in found], language)
    items = said_to(memories, user_id)
    return _said(reply(language, "recall", items=join_items(language, items)), memories)


async def _about_scope(
    backend: MemoryOperations,
    scope: str,
    user_id: str | None,
    language: str,
    key: str,
) -> CommandAnswer:
    """The most used memories of a scope, and how many more there are."""
    page = await backend.list(scope=scope, limit=RECALL_ITEMS, sort="most_used")
    if not page.items:
        return CommandAnswer(reply(language, f"{key}_none"))
    memories = await said_once(backend, page.items, language)
    items = join_items(language, said_to(memories, user_id))
    more = page.total - len(page.items)
    answer = reply(language, key, items=items)
    return _said(
        answer + (reply(language, "more", count=more) if more > 0 else ""),
        memories,
    )


async def said_once(
    backend: MemoryOperations, memories: list[Memory], language: str
) -> list[Memory]:
    """The memories to say: in the question's language first, each fact once.

    A fact told in both languages (`same_facts`, by meaning) is said in the
    question's. Only memories in two languages are compared.
    """
    chinese = language.startswith("zh")
    ordered = sorted(memories, key=lambda m: bool(_HAN.search(m.content)) != chinese)
    if len({bool(_HAN.search(m.content)) for m in ordered}) < 2:
        return ordered
    same = {
        frozenset(pair) for pair in await backend.same_facts([m.id for m in ordered])
    }
    kept: list[Memory] = []
    for memory in ordered:
        if not any(frozenset((memory.id, k.id)) in same for k in kept):
            kept.append(memory)
    return kept
