"""Memory sentences the memory agent answers itself when no LLM is behind it.

"remember that ...", "what do you remember about ...", "forget ..." in English and
记住……, 你记得……吗, 忘记…… in Chinese, and "stop remembering" / 别记住这个, which keeps
the conversation out of memory (recognised whatever agent answers). Everything else
is not a command (None), so the sentence goes to the agent untouched. Replies come in
the conversation's language (English, simplified or traditional Chinese).

Whom a sentence is about decides the scope (`command_scopes`; `scopes_about` for any
text, such as an LLM tool's fact): "my ...", "I ...", 我的…… are the speaker's;
"our ...", "the family's ...", "everyone's ...", 我们家的…… are the household's; a
sentence that says neither is the household's, and recalling or forgetting it looks
at both. A turn without a known speaker only has the household.
`answers.py` carries the commands out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
import re
from typing import Final, Literal

from ..storage.models import HOUSEHOLD_SCOPE

Action = Literal["remember", "recall", "forget", "pause"]
Whose = Literal["speaker", "household"]


@dataclass(frozen=True, slots=True)
class MemoryCommand:
    """A recognised memory sentence: what to do, and about what."""

    action: Action
    subject: str


@dataclass(frozen=True, slots=True)
class CommandScopes:
    """Where a command stores (`write`) and where it recalls and forgets (`read`)."""

    write: str
    read: tuple[str, ...]


# The first of these words in a subject says whom it is about. Household words come
# first in each alternation: 我们 must not be read as 我, 用户家 not as 用户. "The
# user" and 用户 are the speaker as learning writes facts down (and as the LLM tools
# ask a model to).
_WHOSE: Final = re.compile(
    r"(?P<household>\b(?:our|ours|ourselves|we|we['’](?:re|ve|ll|d)|us"
    r"|everyone(?:['’]s)?|everybody(?:['’]s)?|(?:the\s+)?family(?:['’]s)?"
    r"|(?:the\s+)?household(?:['’]s)?)\b"
    r"|我们|我們|咱们|咱們|咱家|大家|全家|家里|家裡|家人|用户家|用戶家|用户一家|用戶一家)"
    r"|(?P<speaker>\b(?:my|mine|myself|me|i(?:['’](?:m|ve|ll|d))?"
    r"|the\s+user(?:['’]s)?)\b|我|用户|用戶)",
    re.IGNORECASE,
)


def about_whom(text: str) -> Whose | None:
    """Whom a text is about: the speaker ("my ..."), the household ("our ..."), or None."""
    if match := _WHOSE.search(text):
        return "household" if match.group("household") else "speaker"
    return None


def command_scopes(command: MemoryCommand, user_id: str | None) -> CommandScopes:
    """The scopes a command works in, for a speaker (None: unknown, a satellite)."""
    return scopes_about(command.subject, user_id)


def scopes_about(text: str, user_id: str | None) -> CommandScopes:
    """Where a text is stored, and recalled and forgotten, for a speaker (None: unknown)."""
    if not user_id:
        return CommandScopes(HOUSEHOLD_SCOPE, (HOUSEHOLD_SCOPE,))
    match about_whom(text):
        case "speaker":
            return CommandScopes(user_id, (user_id,))
        case "household":
            return CommandScopes(HOUSEHOLD_SCOPE, (HOUSEHOLD_SCOPE,))
        case None:
            return CommandScopes(HOUSEHOLD_SCOPE, (HOUSEHOLD_SCOPE, user_id))


_END: Final = r"\s*[.!?。！？…]*\s*$"
# "stop remembering" has no subject: the whole sentence is the command.
_PAUSE: Final = (
    r"^\s*(?:please\s+)?(?:stop\s+remembering(?:\s+(?:this|that|things|for\s+now"
    r"|this\s+conversation))?|(?:don['’]?t|do\s+not)\s+remember\s+(?:this|that"
    r"|any\s+of\s+(?:this|that)|this\s+conversation))" + _END,
    r"^\s*(?:请|請)?(?:别|別|不要|不用)(?:再)?(?:记住|記住|记下|記下|记|記)"
    r"(?:这个|這個|这些|這些|这次对话|這次對話|了)?" + _END,
    r"^\s*(?:请|請)?(?:停止|暂停|暫停)(?:记忆|記憶|记录|記錄|记住|記住)(?:了)?" + _END,
)
_PAUSES: Final = tuple(re.compile(pattern, re.IGNORECASE) for pattern in _PAUSE)
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
    if any(pattern.match(text) for pattern in _PAUSES):
        return MemoryCommand("pause", "")
    for action, pattern in _PATTERNS:
        if match := pattern.match(text):
            subject = match.group("subject").strip(" \t,，:：")
            if subject:
                return MemoryCommand(action, subject)
    return None


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
        "secret": "I don't keep passwords or codes.",
        "paused": "OK, I won't remember anything from this conversation.",
        "held": "I can't tell who is speaking here, so I've kept that for review. "
        "To make this device someone's, assign it to a person in Assist Memory's "
        "options, under Who is speaking.",
        "guest": "This is a guest device: I don't remember anything said here.",
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
        "secret": "密码和验证码这类信息我不会记。",
        "paused": "好的，这次对话的内容我都不会记住。",
        "held": "我分辨不出这里是谁在说话，已先把这条留待确认。"
        "要让这台设备属于某个人，请在 Assist Memory 选项的“谁在说话”中把它分配给那个人。",
        "guest": "这是访客设备，这里说的话我都不会记住。",
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
        "secret": "密碼和驗證碼這類資訊我不會記。",
        "paused": "好的，這次對話的內容我都不會記住。",
        "held": "我分辨不出這裡是誰在說話，已先把這條留待確認。"
        "要讓這台裝置屬於某個人，請在 Assist Memory 選項的「誰在說話」中把它指派給那個人。",
        "guest": "這是訪客裝置，這裡說的話我都不會記住。",
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
