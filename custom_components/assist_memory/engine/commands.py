"""Memory sentences the memory agent answers itself when no LLM is behind it.

"remember that ...", "what do you remember about ...", "forget ..." in English and
记住……, 你记得……吗, 忘记…… in Chinese. Everything else is not a command (None), so the
sentence goes to Home Assistant's intent agent untouched. Replies come in the
conversation's language (English, simplified or traditional Chinese).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
import re
from typing import Final, Literal

from .keywords import normalize

Action = Literal["remember", "recall", "forget"]


@dataclass(frozen=True, slots=True)
class MemoryCommand:
    """A recognised memory sentence: what to do, and about what."""

    action: Action
    subject: str


_END: Final = r"\s*[.!?。！？…]*\s*$"
_SENTENCES: Final[tuple[tuple[Action, str], ...]] = (
    (
        "recall",
        r"^\s*(?:hey\s+\w+,?\s+)?(?:what|what else)\s+do\s+you\s+(?:remember|know|recall)"
        r"\s+about\s+(?P<subject>.+?)" + _END,
    ),
    (
        "recall",
        r"^\s*do\s+you\s+remember\s+(?:anything\s+about\s+)?(?P<subject>.+?)" + _END,
    ),
    (
        "remember",
        r"^\s*(?:please\s+)?(?:remember|note|keep\s+in\s+mind)\s+(?:that\s+)?"
        r"(?P<subject>.+?)" + _END,
    ),
    (
        "forget",
        r"^\s*(?:please\s+)?forget\s+(?:about\s+|that\s+|everything\s+about\s+)?"
        r"(?P<subject>.+?)" + _END,
    ),
    (
        "recall",
        r"^\s*(?:你)?(?:还)?记得(?P<subject>.+?)(?:吗|嗎|么|麼)" + _END,
    ),
    (
        "recall",
        r"^\s*关于(?P<subject>.+?)你(?:还)?记得(?:些)?什么" + _END,
    ),
    (
        "recall",
        r"^\s*關於(?P<subject>.+?)你(?:還)?記得(?:些)?什麼" + _END,
    ),
    (
        "recall",
        r"^\s*(?:你)?(?:還)?記得(?P<subject>.+?)(?:嗎|麼)" + _END,
    ),
    (
        "remember",
        r"^\s*(?:请|請)?(?:帮我)?(?:记住|記住|记一下|記一下|记下|記下)[:：,，\s]*"
        r"(?P<subject>.+?)" + _END,
    ),
    (
        "forget",
        r"^\s*(?:请|請)?(?:忘记|忘掉|忘記|删掉|刪掉)[:：,，\s]*(?:关于|關於)?"
        r"(?P<subject>.+?)(?:的(?:记忆|記憶|事))?" + _END,
    ),
)
_PATTERNS: Final[tuple[tuple[Action, re.Pattern[str]], ...]] = tuple(
    (action, re.compile(pattern, re.IGNORECASE)) for action, pattern in _SENTENCES
)


def parse_command(text: str) -> MemoryCommand | None:
    """The memory command in the sentence, or None for any other sentence."""
    for action, pattern in _PATTERNS:
        if match := pattern.match(text):
            subject = match.group("subject").strip(" \t,，:：")
            if subject:
                return MemoryCommand(action, subject)
    return None


def same_memory(first: str, second: str) -> bool:
    """True when two memory texts differ only in case, spacing or final punctuation."""
    return _plain(first) == _plain(second)


def _plain(text: str) -> str:
    return " ".join(normalize(text).split()).rstrip(".!?。！？… ")


_REPLIES: Final[dict[str, dict[str, str]]] = {
    "en": {
        "remembered": "OK, I'll remember that.",
        "known": "I already knew that.",
        "recall": "Here is what I remember: {items}",
        "recall_none": "I don't remember anything about {subject}.",
        "forgot": "Done, I've forgotten {count} memories about {subject}.",
        "forgot_one": "Done, I've forgotten that.",
        "forget_none": "I don't remember anything about {subject}.",
        "failed": "Sorry, I couldn't remember that: {reason}",
    },
    "zh-Hans": {
        "remembered": "好的，我记住了。",
        "known": "这个我已经记得了。",
        "recall": "我记得：{items}",
        "recall_none": "我不记得关于{subject}的事情。",
        "forgot": "好的，我已经忘记了关于{subject}的{count}条记忆。",
        "forgot_one": "好的，我已经忘记了。",
        "forget_none": "我不记得关于{subject}的事情。",
        "failed": "抱歉，我没能记住：{reason}",
    },
    "zh-Hant": {
        "remembered": "好的，我記住了。",
        "known": "這個我已經記得了。",
        "recall": "我記得：{items}",
        "recall_none": "我不記得關於{subject}的事情。",
        "forgot": "好的，我已經忘記了關於{subject}的{count}筆記憶。",
        "forgot_one": "好的，我已經忘記了。",
        "forget_none": "我不記得關於{subject}的事情。",
        "failed": "抱歉，我沒能記住：{reason}",
    },
}


_HAN: Final = re.compile(r"[\u4e00-\u9fff]")
# Characters of the memory sentences that only traditional Chinese writes this way.
_TRADITIONAL: Final = re.compile(r"[記還關嗎麼請刪憶]")


def reply_language(language: str | None, text: str = "") -> str:
    """The reply language for a conversation language ("zh-TW" -> "zh-Hant").

    A sentence that starts in Chinese is answered in Chinese whatever the
    conversation's language (typed into an English Assist, say).
    """
    tag = (language or "").replace("_", "-").lower()
    if tag.startswith("zh"):
        traditional = any(part in tag for part in ("hant", "tw", "hk", "mo"))
        return "zh-Hant" if traditional else "zh-Hans"
    if _HAN.match(text.lstrip()) or (tag in ("", "*") and _HAN.search(text)):
        return "zh-Hant" if _TRADITIONAL.search(text) else "zh-Hans"
    return "en"


def reply(language: str, key: str, **values: object) -> str:
    """A reply sentence in the given reply language."""
    return _REPLIES.get(language, _REPLIES["en"])[key].format(**values)


def join_items(language: str, items: Sequence[str]) -> str:
    """Items as one spoken sentence."""
    if language.startswith("zh"):
        return "；".join(items) + "。"
    return "; ".join(item.rstrip(".") for item in items) + "."
