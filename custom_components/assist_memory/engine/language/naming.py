"""A fact about "the user" that names the person: "Sam's favourite colour is green".

Learning writes a fact about the speaker as "The user ..." (用户, 用戶 in traditional
Chinese; see `third_person`). Kept among a person's own memories, it names them
once their name is known, the way the manager, About me, MEMORY.md and exports show
it: "The user's favourite colour is green" -> "Sam's favourite colour is green",
"The user likes their coffee black" -> "Sam likes their coffee black",
用户对青霉素过敏 -> 小明对青霉素过敏. The household's facts keep "The household".

The name used is kept in the memory's metadata (`NAMED`): the listener turns it
back (`unnamed`) to say the memory to its owner in the second person ("Your
favourite colour is green", `listener.for_listener`), and a rename finds it.
"""

from __future__ import annotations

from collections.abc import Mapping
import dataclasses
import re
from typing import Any, Final

from ..storage.models import Memory
from .speech import is_traditional

# The metadata key holding the name a memory's wording uses.
NAMED: Final = "named"
# ... and, when it stands for 用戶, that word: a sentence written alike in both
# scripts (小明的太太不吃牛肉) does not tell.
NAMED_FOR: Final = "named_for"
_TRADITIONAL_USER: Final = "用戶"
# Longer is no name to say in a sentence (a display name gone wrong).
MAX_NAME_LENGTH: Final = 60

_EN_USER: Final = re.compile(r"\bthe user\b", re.IGNORECASE)
_ZH_USER: Final = re.compile("用户|用戶")
_HAN: Final = re.compile(r"[\u4e00-\u9fff]")


def clean_name(name: str | None) -> str | None:
    """A name fit to stand in a sentence (spaces tidied), or None.

    None for no name, a blank one, one too long, or one without a letter.
    """
    if name is None:
        return None
    text = " ".join(name.split())
    if not text or len(text) > MAX_NAME_LENGTH or not any(c.isalpha() for c in text):
        return None
    return text


def named(content: str, name: str | None) -> str:
    """The fact naming the person where it says "the user" (用户, 用戶).

    Unchanged without a usable name (`clean_name`) or when it says nothing of the
    user.
    """
    person = clean_name(name)
    if person is None:
        return content
    text = _EN_USER.sub(lambda _: person, content)
    return _ZH_USER.sub(lambda _: person, text)


def unnamed(content: str, name: str | None, *, traditional: bool = False) -> str:
    """The fact as learning wrote it: the person's `name` back to "the user".

    "Sam's favourite colour is green" -> "The user's favourite colour is green";
    小明对青霉素过敏 -> 用户对青霉素过敏 (用戶 in traditional characters, or
    `traditional` when the fact said 用戶). A name is matched whole: "Sam" is not in
    "Samantha".
    """
    person = clean_name(name)
    if person is None:
        return content
    pattern = re.compile(rf"(?<![A-Za-z0-9]){re.escape(person)}(?![A-Za-z0-9])")
    # The language is the sentence's, whatever the name is written in.
    rest = pattern.sub(" ", content)
    chinese = bool(_HAN.search(rest))
    traditional = chinese and (traditional or is_traditional(rest))

    def back(match: re.Match[str]) -> str:
        if chinese:
            return "用戶" if traditional else "用户"
        return "The user" if match.start() == 0 else "the user"

    return pattern.sub(back, content)


def name_of(memory: Memory) -> str | None:
    """The name a memory's wording uses (`NAMED`), or None."""
    name = memory.metadata.get(NAMED)
    return name if isinstance(name, str) and name else None


def as_learnt(memory: Memory) -> Memory:
    """The memory worded as learning writes a fact ("The user ..."), for comparing."""
    name = name_of(memory)
    if name is None:
        return memory
    traditional = memory.metadata.get(NAMED_FOR) == _TRADITIONAL_USER
    content = unnamed(memory.content, name, traditional=traditional)
    return dataclasses.replace(memory, content=content)


def naming_metadata(
    metadata: Mapping[str, Any], content: str, name: str | None
) -> dict[str, Any]:
    """`metadata` with the name `content` uses (`named(fact, name)`), or without one."""
    kept = {k: v for k, v in metadata.items() if k not in (NAMED, NAMED_FOR)}
    person = clean_name(name)
    if person is not None and named(content, person) != content:
        kept[NAMED] = person
        if _TRADITIONAL_USER in content:
            kept[NAMED_FOR] = _TRADITIONAL_USER
    return kept
