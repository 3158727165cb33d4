"""What the memory agent says to a statement it hears: learnt, or declined in words.

With no LLM behind the memory agent, a sentence Home Assistant's intent agent does not
understand would otherwise get its error ("Sorry, I am not aware of any device called
dog's vet is Dr Miller"). `answer_statement` is the one place that decides what a
statement gets, so a better judge of what is worth keeping can replace it whole:

- the facts the rules find in it are learnt and acknowledged (`learn_statement`);
- otherwise, a sentence that states something (`statements.is_statement`) is declined
  in words: a secret is never kept ("I don't keep passwords or codes."), a guest
  device keeps nothing, learning may be off, and anything else was not kept, with how
  to make sure it is ("Remember that …");
- anything else (a question, a command, small talk) gets None: the intent agent's
  answer stands.

The caller says the decline only when the intent agent did not understand the
sentence either: device commands keep their priority.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..conversation.speaker import Speaker
from ..conversation.turn_settings import LearnSettings
from ..language.commands import reply
from ..language.questions import read_question
from ..language.secrets_filter import contains_secret
from ..language.statements import is_statement
from .statement_learning import learn_statement

if TYPE_CHECKING:
    from .protocol import MemoryBackend


@dataclass(frozen=True, slots=True)
class StatementAnswer:
    """What to say, the memories holding what was learnt, and whether it was learnt."""

    speech: str
    memory_ids: tuple[str, ...] = ()
    learnt: bool = False


async def answer_statement(
    backend: MemoryBackend,
    text: str,
    *,
    session_id: str,
    speaker: Speaker,
    language: str,
    settings: LearnSettings | None,
) -> StatementAnswer | None:
    """Learn a statement and acknowledge it, or say why it is not kept.

    `settings`: None when learning is off. None for a sentence that is not a
    statement and taught nothing.
    """
    if read_question(text) is not None:
        return None
    secret = contains_secret(text)
    if not secret and speaker.learns and settings is not None:
        learnt = await learn_statement(
            backend,
            text,
            session_id=session_id,
            speaker=speaker,
            language=language,
            settings=settings,
        )
        if learnt is not None:
            return StatementAnswer(learnt.speech, learnt.memory_ids, learnt=True)
    if not is_statement(text):
        return None
    if secret:
        return StatementAnswer(reply(language, "secret"))
    if not speaker.learns:
        return StatementAnswer(reply(language, "guest"))
    if settings is None:
        return StatementAnswer(reply(language, "learning_off"))
    return StatementAnswer(reply(language, "not_kept"))
