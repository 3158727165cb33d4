"""Carrying out a memory sentence (`commands.py`) with any memory backend.

- "remember that ...": a secret is never stored (the answer says so); the memory goes
  to the scope of whom the sentence is about (`command_scopes`); said about themselves
  by a speaker nobody can tell (an unassigned voice device), it is held for Review
  ("Who said this?") instead, and at a guest device nothing is stored; a sentence that
  repeats a memory of that scope (the same normalised text, or the same meaning, as
  learning decides) refreshes it and the answer is "I already knew that."
- "what do you remember about ...": the best memories of the scopes the sentence
  reads, spoken with any secret value withheld.
- "forget ...": the memories of those scopes that match every word of the subject.
- "stop remembering": what the speaker said in the conversation is erased, and it is
  neither logged nor learned from from now on.

Every reply is in the conversation's language; a failing store gives a spoken error.
"""

from __future__ import annotations

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
)
from ..language.keywords import extract_keywords
from ..language.provenance import Provenance
from ..language.secrets_filter import contains_secret, redact
from ..language.write_back import find_repeated

if TYPE_CHECKING:
    from .protocol import MemoryBackend, MemoryOperations

RECALL_ITEMS: Final = 3
# A repeat is looked for among the best matches of its own scope.
_REPEAT_CANDIDATES: Final = 5
_FORGET_CANDIDATES: Final = 10


async def answer_command(
    backend: MemoryBackend,
    command: MemoryCommand,
    *,
    session_id: str,
    speaker: Speaker,
    language: str,
    said: str | None = None,
) -> str:
    """Do what the sentence asks for the speaker; the spoken answer.

    `said` is the sentence itself, kept with what it stores.
    """
    user_id = speaker.owner
    try:
        if command.action == "pause":
            await backend.pause_session(session_id, user_id=user_id)
            return reply(language, "paused")
        if command.action == "remember":
            if not speaker.learns:
                return reply(language, "guest")
            if not speaker.known and about_whom(command.subject) == "speaker":
                return await _hold(backend, command, speaker, language, session_id)
            provenance = Provenance("command", said, speaker=user_id)
            return await _remember(
                backend,
                command,
                user_id,
                language,
                session_id=session_id,
                provenance=provenance,
            )
        if command.action == "recall":
            return await _recall(backend, command, user_id, language)
        return await _forget(backend, command, user_id, language)
    except MemoryEngineError as err:
        return reply(language, "failed", reason=err.message)


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
) -> str:
    found = await backend.search(
        command.subject,
        limit=RECALL_ITEMS,
        scopes=command_scopes(command, user_id).read,
        record_access=True,
    )
    if not found:
        return reply(language, "recall_none", subject=redact(command.subject))
    items = [redact(result.memory.content) for result in found]
    return reply(language, "recall", items=join_items(language, items))


async def _forget(
    backend: MemoryOperations,
    command: MemoryCommand,
    user_id: str | None,
    language: str,
) -> str:
    found = await backend.search(
        command.subject,
        limit=_FORGET_CANDIDATES,
        scopes=command_scopes(command, user_id).read,
    )
    # Only memories that contain every word of what is to be forgotten.
    doomed = [r.memory.id for r in found if _covers_all(r.matched, command.subject)]
    for memory_id in doomed:
        await backend.delete(memory_id)
    if not doomed:
        return reply(language, "forget_none", subject=redact(command.subject))
    if len(doomed) == 1:
        return reply(language, "forgot_one")
    return reply(language, "forgot", subject=redact(command.subject), count=len(doomed))


def _covers_all(matched: tuple[str, ...], subject: str) -> bool:
    """True when a search result matched every keyword of the subject."""
    wanted = extract_keywords(subject).all()
    return bool(wanted) and len(matched) >= len(wanted)
