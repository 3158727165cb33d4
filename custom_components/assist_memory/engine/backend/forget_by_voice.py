"""Forgetting by voice: say exactly what will be forgotten, and ask first.

"Forget the spare key" finds the memories that hold every word of what is to be
forgotten, in the scopes the sentence is about (`command_scopes`), and answers with
a question: "Should I forget this: The spare key is under the blue flowerpot?"
Only "yes" (是, 是的, ...) then forgets it; anything else keeps it. Several
matches are named and the person chooses ("the first", "both", 第二个, 全部). The
household's memories are left out when the speaker may not forget them (an option of
the host: administrators only, by default), and the answer says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
import re
from typing import TYPE_CHECKING, Final

from ..errors import MemoryEngineError
from ..language.commands import MemoryCommand, command_scopes, reply
from ..language.keywords import extract_keywords
from ..language.listener import said_to
from ..language.secrets_filter import redact
from ..storage.models import HOUSEHOLD_SCOPE, Memory

if TYPE_CHECKING:
    from .protocol import MemoryOperations

_CANDIDATES: Final = 10
# At most this many are named in one question.
NAMED: Final = 3

_YES: Final = re.compile(
    r"^\s*(?:yes|yeah|yep|yup|sure|ok|okay|correct|right|do it|go ahead|please do"
    r"|yes,? please|yes,? forget it|是|是的|对|對|好|好的|确定|確定|可以|嗯|忘掉吧|忘记吧|忘記吧)"
    r"\s*[.!。！]*\s*$",
    re.IGNORECASE,
)
_NO: Final = re.compile(
    r"^\s*(?:no|nope|nah|don'?t|do not|cancel|keep it|never mind|no,? thanks|stop|不|不要"
    r"|不用|不是|算了|别|別|取消|留着|留著)\s*[.!。！]*\s*$",
    re.IGNORECASE,
)
_ALL: Final = re.compile(
    r"^\s*(?:all|both|all of them|both of them|everything|all three|全部|都|都忘掉|都忘记"
    r"|都忘記|两个都|兩個都|全都|所有)\s*[.!。！]*\s*$",
    re.IGNORECASE,
)
_ORDINALS: Final = tuple(
    re.compile(
        rf"\b(?:{word}|{short})\b|^\s*(?:{number}|{digit})\s*[.!。！]*\s*$|{chinese}",
        re.IGNORECASE,
    )
    for word, short, number, digit, chinese in (
        ("first", "1st", "one", "1", "第一"),
        ("second", "2nd", "two", "2", "第二"),
        ("third", "3rd", "three", "3", "第三"),
    )
)


@dataclass(frozen=True, slots=True)
class ForgetProposal:
    """Memories waiting for the person's answer: to confirm (one) or to choose (several)."""

    memory_ids: tuple[str, ...]
    language: str


@dataclass(frozen=True, slots=True)
class ForgetQuestion:
    """What to say, and the proposal waiting for an answer (None: nothing to ask)."""

    speech: str
    proposal: ForgetProposal | None


async def propose_forget(
    backend: MemoryOperations,
    command: MemoryCommand,
    *,
    user_id: str | None,
    language: str,
    may_forget_household: bool,
) -> ForgetQuestion:
    """The question to ask before forgetting what the sentence names."""
    try:
        found = await backend.search(
            command.subject,
            limit=_CANDIDATES,
            scopes=command_scopes(command, user_id).read,
        )
    except MemoryEngineError as err:
        return ForgetQuestion(reply(language, "failed", reason=err.message), None)
    # Only memories that contain every word of what is to be forgotten.
    matches = [r.memory for r in found if _covers_all(r.matched, command.subject)]
    return _question(
        matches,
        subject=redact(command.subject),
        user_id=user_id,
        language=language,
        may_forget_household=may_forget_household,
    )


async def propose_forget_memories(
    backend: MemoryOperations,
    memory_ids: Sequence[str],
    *,
    user_id: str | None,
    language: str,
    may_forget_household: bool,
) -> ForgetQuestion:
    """The question to ask before forgetting memories just used or learnt ("forget that")."""
    try:
        found = [await backend.get(memory_id) for memory_id in memory_ids]
    except MemoryEngineError as err:
        return ForgetQuestion(reply(language, "failed", reason=err.message), None)
    memories = [m for m in found if m is not None]
    return _question(
        memories,
        subject=reply(language, "that"),
        user_id=user_id,
        language=language,
        may_forget_household=may_forget_household,
    )


def _question(
    matches: list[Memory],
    *,
    subject: str,
    user_id: str | None,
    language: str,
    may_forget_household: bool,
) -> ForgetQuestion:
    allowed = [m for m in matches if may_forget_household or m.scope != HOUSEHOLD_SCOPE]
    if not allowed:
        key = "forget_household_refused" if matches else "forget_none"
        return ForgetQuestion(reply(language, key, subject=subject), None)
    named = allowed[:NAMED]
    items = said_to(named, user_id)
    proposal = ForgetProposal(tuple(m.id for m in named), language)
    if len(named) == 1:
        speech = reply(language, "forget_confirm", item=items[0].rstrip(" .。"))
    else:
        speech = reply(
            language,
            "forget_choose",
            subject=subject,
            count=len(named),
            items=_numbered(language, items),
        )
    return ForgetQuestion(speech, proposal)


async def settle_forget(
    backend: MemoryOperations, proposal: ForgetProposal, answer: str
) -> str | None:
    """Forget what the person confirmed or chose; anything else keeps every memory.

    None when the sentence is not an answer at all ("turn on the light"): the
    memories are kept and the sentence is the caller's to handle.
    """
    language = proposal.language
    chosen = _chosen(proposal, answer)
    if not chosen:
        return reply(language, "forget_kept") if _NO.match(answer) else None
    try:
        gone = [memory_id for memory_id in chosen if await backend.delete(memory_id)]
    except MemoryEngineError as err:
        return reply(language, "failed", reason=err.message)
    if len(gone) == 1:
        return reply(language, "forgot_one")
    return reply(language, "forgot_many", count=len(gone))


def _chosen(proposal: ForgetProposal, answer: str) -> tuple[str, ...]:
    ids = proposal.memory_ids
    if len(ids) == 1:
        return ids if _YES.match(answer) else ()
    if _ALL.match(answer):
        return ids
    picked = [ids[i] for i, o in enumerate(_ORDINALS[: len(ids)]) if o.search(answer)]
    return tuple(picked) if len(picked) == 1 else ()


def _covers_all(matched: tuple[str, ...], subject: str) -> bool:
    """True when a search result matched every keyword of the subject."""
    wanted = extract_keywords(subject).all()
    return bool(wanted) and len(matched) >= len(wanted)


_ORDINAL_WORDS: Final = {
    "en": ("first", "second", "third"),
    "zh-Hans": ("第一条", "第二条", "第三条"),
    "zh-Hant": ("第一筆", "第二筆", "第三筆"),
}


def _numbered(language: str, items: list[str]) -> str:
    """Numbered items ("first, A; second, B") in the reply language."""
    words = _ORDINAL_WORDS.get(language, _ORDINAL_WORDS["en"])
    if language.startswith("zh"):
        return "；".join(
            f"{w}：{i.rstrip('。')}" for w, i in zip(words, items, strict=False)
        )
    return "; ".join(
        f"{w}, {i.rstrip('.')}" for w, i in zip(words, items, strict=False)
    )
