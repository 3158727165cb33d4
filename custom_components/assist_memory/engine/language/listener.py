"""A memory said to the person listening: second person for their own, capitalised.

Memories are stored in the third person ("The user's daughter Lily loves dinosaurs",
用户对青霉素过敏) or as a person typed them ("my favourite colour is green"). Read
back to their owner they are about "you": "Your daughter Lily loves dinosaurs",
"You're allergic to penicillin", "Your favourite colour is green", 你对青霉素过敏.
The household's memories are the listener's household: "Your household drinks ...",
你家…… . A memory naming its owner ("Sam's favourite colour is green", `naming`) is
"Your favourite colour is green" to them, and says "Sam" to anyone else. Every answer,
recall and confirmation that speaks a memory uses `for_listener`.
"""

from __future__ import annotations

from collections.abc import Sequence
import re
from typing import Final

from ..storage.models import Memory
from .naming import name_of, unnamed
from .secrets_filter import redact

# "The user" as the subject of a present-tense verb: the verb loses its -s.
_EN_IRREGULAR: Final = {
    "is": "are",
    "was": "were",
    "has": "have",
    "does": "do",
    "doesn't": "don't",
    "isn't": "aren't",
    "wasn't": "weren't",
    "hasn't": "haven't",
    "goes": "go",
    "am": "are",
}
_EN_SUBJECT: Final = re.compile(
    r"^(?:the user|i)\s+(?P<adverb>(?:(?:always|usually|often|never|sometimes|also|"
    r"really|still|normally|only|just|rarely)\s+)*)(?P<verb>[\w']+)",
    re.IGNORECASE,
)
_EN_CONTRACTED: Final = re.compile(r"^i(?P<rest>['’](?:m|ve|ll|d))\b", re.IGNORECASE)
_EN_CONTRACTIONS: Final = {"'m": "'re", "'ve": "'ve", "'ll": "'ll", "'d": "'d"}
_EN_POSSESSIVE: Final = re.compile(r"\b(?:the user['’]s|my)\b", re.IGNORECASE)
_EN_OBJECT: Final = re.compile(r"\b(?:the user|me)\b", re.IGNORECASE)
_EN_OTHER: Final = re.compile(r"\b(?:mine|myself|I)\b")
_EN_OTHER_MAP: Final = {"mine": "yours", "myself": "yourself", "I": "you"}
# "their" and "they" later in a sentence about the user are the user's.
_EN_THEIR: Final = re.compile(r"\b(?:their|theirs|themselves|them|they)\b")
_EN_THEIR_MAP: Final = {
    "their": "your",
    "theirs": "yours",
    "themselves": "yourself",
    "them": "you",
    "they": "you",
}
_EN_HOUSEHOLD: Final = re.compile(r"^the household\b", re.IGNORECASE)

_ZH_SPEAKER: Final = (
    ("用户家", "你家"),
    ("用戶家", "你家"),
    ("用户一家", "你们家"),
    ("用戶一家", "你們家"),
    ("用户", "你"),
    ("用戶", "你"),
)
_ZH_HOUSEHOLD: Final = (
    ("用户家", "你家"),
    ("用戶家", "你家"),
    ("用户一家", "你们家"),
    ("用戶一家", "你們家"),
)
_HAN: Final = re.compile(r"[\u4e00-\u9fff]")


def for_listener(content: str, *, own: bool, name: str | None = None) -> str:
    """A memory as said to the listener: second person when it is `own`, capitalised.

    `own`: the memory is the listener's (their scope). The household's memories
    and other people's are only capitalised, with the household as "your household".
    `name`: the name the memory's wording uses for its owner (`naming.name_of`); to
    the owner it is "you" again.
    """
    text = unnamed(content.strip(), name) if own else content.strip()
    if _HAN.search(text):
        return _zh_for_listener(text, own=own)
    text = _EN_HOUSEHOLD.sub("your household", text)
    if own:
        text = _en_second_person(text)
    return text[:1].upper() + text[1:]


def _en_second_person(text: str) -> str:
    if match := _EN_CONTRACTED.match(text):
        rest = _EN_CONTRACTIONS[match.group("rest").replace("’", "'").lower()]
        text = "you" + rest + text[match.end() :]
    elif match := _EN_SUBJECT.match(text):
        verb = match.group("verb")
        text = (
            "you "
            + match.group("adverb")
            + _base_form(verb)
            + _their_to_your(text[match.end() :])
        )
    text = _EN_POSSESSIVE.sub("your", text)
    text = _EN_OBJECT.sub("you", text)
    text = _EN_OTHER.sub(lambda m: _EN_OTHER_MAP[m.group()], text)
    # "You are" reads better spoken as "You're".
    return re.sub(r"^you are\b", "you're", text)


def _their_to_your(text: str) -> str:
    return _EN_THEIR.sub(lambda m: _EN_THEIR_MAP[m.group()], text)


def _base_form(verb: str) -> str:
    """The verb after "you": "loves" -> "love", "am" -> "are"."""
    low = verb.lower()
    if low in _EN_IRREGULAR:
        return _EN_IRREGULAR[low]
    if low.endswith("ies") and len(low) > 4:
        return verb[:-3] + "y"
    if re.search(r"(?:ss|sh|ch|x|z|o)es$", low):
        return verb[:-2]
    if low.endswith("s") and not low.endswith("ss"):
        return verb[:-1]
    return verb


def _zh_for_listener(text: str, *, own: bool) -> str:
    replacements = _ZH_SPEAKER if own else _ZH_HOUSEHOLD
    for stored, spoken in replacements:
        text = text.replace(stored, spoken)
    if own:
        # Typed as the person said it: 我 is the listener.
        text = re.sub("我(?![们們])", "你", text)
        text = text.replace("我们", "你们").replace("我們", "你們")
    return text


def said_to(memories: Sequence[Memory], user_id: str | None) -> list[str]:
    """Memories as said to the listener (`user_id`), any secret value withheld."""
    return [
        redact(
            for_listener(
                m.content, own=bool(user_id) and m.scope == user_id, name=name_of(m)
            )
        )
        for m in memories
    ]
