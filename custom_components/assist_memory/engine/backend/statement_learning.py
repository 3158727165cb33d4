"""Learning a statement at once, and saying so: "Got it: Leo plays football on Saturdays".

With no LLM behind the memory agent, a sentence such as "My son Leo plays football on
Saturdays." that Home Assistant's intent agent does not understand would be answered
with its error, although learning keeps it later. When the rules learn a fact from
the sentence, it is stored now and the answer acknowledges it in the speaker's
language, said back to them (`listener.for_listener`). None when the rules find
nothing: the intent agent's answer stands.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..conversation.speaker import Speaker
from ..conversation.turn_settings import LearnSettings
from ..conversation.turns import ExtractionBatch
from ..language.commands import join_items, reply
from ..language.fact_scope import placed
from ..language.listener import for_listener
from ..language.naming import as_learnt
from ..language.secrets_filter import contains_secret
from ..storage.models import HOUSEHOLD_SCOPE

if TYPE_CHECKING:
    from .protocol import MemoryBackend


@dataclass(frozen=True, slots=True)
class LearntStatement:
    """The acknowledgement, and the memories that hold what was learnt."""

    speech: str
    memory_ids: tuple[str, ...]


async def learn_statement(
    backend: MemoryBackend,
    text: str,
    *,
    session_id: str,
    speaker: Speaker,
    language: str,
    settings: LearnSettings,
    saying: str = "learnt",
) -> LearntStatement | None:
    """Learn the facts the rules find in one sentence; the acknowledgement, or None.

    `saying`: the reply that says it ("Got it: …", or "I'll remember that: …" after
    an LLM's answer). At a guest device nothing is learnt (None). A fact an unknown speaker says about
    themselves is held for Review, and the answer says so; a full memory too.
    """
    if contains_secret(text) or not speaker.learns:
        return None
    batch = ExtractionBatch(session_id, (), (text,), f"user: {text}", language=language)
    facts = await backend.rule_facts(batch)
    if not facts:
        return None
    scope = speaker.scope
    result = await backend.learn(
        batch,
        facts,
        scope=scope,
        settings=settings,
        speaker_unknown=not speaker.known,
        device_id=speaker.device_id,
        name=speaker.name,
    )
    if result.not_stored:
        return LearntStatement(reply(language, "learnt_full"), ())
    if result.held and not result.added:
        return LearntStatement(reply(language, "held"), ())
    # As learning keeps them: a fact about the home is the household's (`fact_scope`),
    # a person's own names them (`naming`); said back to the speaker as "you".
    kept = [placed(fact) for fact in facts]
    items = [
        for_listener(fact.content, own=speaker.known and fact.whose != "household")
        for fact in kept
    ]
    learnt = [
        result.memory.id
        for fact in kept
        for result in await backend.search(
            fact.content,
            limit=3,
            scopes=[HOUSEHOLD_SCOPE if fact.whose == "household" else scope],
        )
        if as_learnt(result.memory).content == fact.content
    ]
    speech = reply(language, saying, items=join_items(language, items))
    return LearntStatement(speech, tuple(learnt))
