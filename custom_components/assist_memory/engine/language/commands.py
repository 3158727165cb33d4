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
from .facts import Fact

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


# "What do you know about me / about us": the speaker's own memories, the household's.
_SPEAKER_SUBJECT: Final = re.compile(r"^(?:me|myself|i|我|我自己|自己)$", re.IGNORECASE)
_HOUSEHOLD_SUBJECT: Final = re.compile(
    r"^(?:us|ourselves|(?:the|our|this)\s+(?:house|home|household|family)|home"
    r"|everyone|everybody|我们|我們|我们家|我們家|我家|家里|家裡|全家|这个家|這個家|大家)$",
    re.IGNORECASE,
)


def subject_is_speaker(subject: str) -> bool:
    """Whether "what do you know about ..." asks about the speaker ("me", 我)."""
    return bool(_SPEAKER_SUBJECT.match(subject.strip()))


def subject_is_household(subject: str) -> bool:
    """Whether it asks about the household ("us", "the house", 我们家)."""
    return bool(_HOUSEHOLD_SUBJECT.match(subject.strip()))


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
        "recall",
        r"^\s*(?:please\s+)?tell\s+me\s+(?:what|everything)\s+you\s+(?:know|remember)"
        r"\s+about\s+(?P<subject>.+?)" + _END,
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
        r"^\s*关于(?P<subject>.+?)你(?:还)?(?:记得|知道)(?:些)?什么" + _END,
    ),
    (
        "recall",
        r"^\s*關於(?P<subject>.+?)你(?:還)?(?:記得|知道)(?:些)?什麼" + _END,
    ),
    (
        "recall",
        r"^\s*你(?:都)?(?:知道|记得|記得)(?P<subject>我|我们家|我們家|我家)的(?:哪些|什么|什麼)"
        r"(?:事|事情)?" + _END,
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
        "forgot_one": "Done, I've forgotten that.",
        "forget_none": "I don't remember anything about {subject}.",
        "failed": "Sorry, I couldn't remember that: {reason}",
        "secret": "I don't keep passwords or codes.",
        "paused": "OK, I won't remember anything from this conversation.",
        "held": "I can't tell who is speaking here, so I've kept that for review. "
        "To make this device someone's, assign it to a person in Assist Memory's "
        "options, under Who is speaking.",
        "guest": "This is a guest device: I don't remember anything said here.",
        "about_you": "Here is what I know about you: {items}",
        "about_you_none": "I don't know anything about you yet.",
        "about_household": "Here is what I know about your household: {items}",
        "about_household_none": "I don't know anything about your household yet.",
        "more": " And {count} more in the memory manager.",
        "forget_confirm": "Should I forget this: {item}?",
        "forget_choose": (
            "I remember {count} things about {subject}: {items}. Which should I"
            " forget: the first, the second, or all of them?"
        ),
        "forget_kept": "OK, I've kept it.",
        "forget_household_refused": (
            "Only an administrator can make me forget the household's memories."
        ),
        "forgot_many": "Done, I've forgotten {count} memories.",
        "learnt": "Got it: {items}",
        "will_remember": "I'll remember that: {items}",
        "learnt_full": (
            "I couldn't keep that: the memory is full. It waits in Review in the"
            " memory manager."
        ),
        "dont_know": "I don't know that yet.",
        "not_kept": (
            'I haven\'t kept that. To make sure I do, say "Remember that" and then'
            " what to remember."
        ),
        "learning_off": "Learning is off, so I haven't kept that.",
        "that": "that",
        "learnt_last": "I just learnt this: {items}",
        "learnt_nothing": "I haven't learnt anything in this conversation yet.",
    },
    "zh-Hans": {
        "remembered": "好的，我记住了。",
        "known": "这个我已经记得了。",
        "recall": "我记得：{items}",
        "recall_none": "我不记得关于{subject}的事情。",
        "forgot_one": "好的，我已经忘记了。",
        "forget_none": "我不记得关于{subject}的事情。",
        "failed": "抱歉，我没能记住：{reason}",
        "secret": "密码和验证码这类信息我不会记。",
        "paused": "好的，这次对话的内容我都不会记住。",
        "held": "我分辨不出这里是谁在说话，已先把这条留待确认。"
        "要让这台设备属于某个人，请在 Assist Memory 选项的“谁在说话”中把它分配给那个人。",
        "guest": "这是访客设备，这里说的话我都不会记住。",
        "about_you": "关于你，我记得：{items}",
        "about_you_none": "我还不了解你。",
        "about_household": "关于你家，我记得：{items}",
        "about_household_none": "我还不了解你家。",
        "more": "记忆管理器里还有{count}条。",
        "forget_confirm": "要我忘记这条吗：{item}？",
        "forget_choose": "关于{subject}我记得{count}条：{items}。要忘记哪一条？可以说第一条、第二条或全部。",
        "forget_kept": "好的，我会继续记住。",
        "forget_household_refused": "只有管理员才能让我忘记家里共用的记忆。",
        "forgot_many": "好的，我已经忘记了{count}条记忆。",
        "learnt": "好的，记住了：{items}",
        "will_remember": "我会记住：{items}",
        "learnt_full": "记忆已满，这条没能保存，已放在记忆管理器的“审核”里等待。",
        "dont_know": "这个我还不知道。",
        "not_kept": "这句我没有记下。想让我记住的话，请说“记住”，再说要记的内容。",
        "learning_off": "学习已关闭，所以这句我没有记下。",
        "that": "这个",
        "learnt_last": "我刚才记住了：{items}",
        "learnt_nothing": "这次对话里我还没有记住什么。",
    },
    "zh-Hant": {
        "remembered": "好的，我記住了。",
        "known": "這個我已經記得了。",
        "recall": "我記得：{items}",
        "recall_none": "我不記得關於{subject}的事情。",
        "forgot_one": "好的，我已經忘記了。",
        "forget_none": "我不記得關於{subject}的事情。",
        "failed": "抱歉，我沒能記住：{reason}",
        "secret": "密碼和驗證碼這類資訊我不會記。",
        "paused": "好的，這次對話的內容我都不會記住。",
        "held": "我分辨不出這裡是誰在說話，已先把這條留待確認。"
        "要讓這台裝置屬於某個人，請在 Assist Memory 選項的「誰在說話」中把它指派給那個人。",
        "guest": "這是訪客裝置，這裡說的話我都不會記住。",
        "about_you": "關於你，我記得：{items}",
        "about_you_none": "我還不了解你。",
        "about_household": "關於你家，我記得：{items}",
        "about_household_none": "我還不了解你家。",
        "more": "記憶管理器裡還有{count}筆。",
        "forget_confirm": "要我忘記這筆嗎：{item}？",
        "forget_choose": "關於{subject}我記得{count}筆：{items}。要忘記哪一筆？可以說第一筆、第二筆或全部。",
        "forget_kept": "好的，我會繼續記住。",
        "forget_household_refused": "只有管理員才能讓我忘記家裡共用的記憶。",
        "forgot_many": "好的，我已經忘記了{count}筆記憶。",
        "learnt": "好的，記住了：{items}",
        "will_remember": "我會記住：{items}",
        "learnt_full": "記憶已滿，這條沒能保存，已放在記憶管理器的「審核」裡等待。",
        "dont_know": "這個我還不知道。",
        "not_kept": "這句我沒有記下。想讓我記住的話，請說「記住」，再說要記的內容。",
        "learning_off": "學習已關閉，所以這句我沒有記下。",
        "that": "這個",
        "learnt_last": "我剛才記住了：{items}",
        "learnt_nothing": "這次對話裡我還沒有記住什麼。",
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


def about_the_speaker(fact: Fact) -> bool:
    """Whether a learned fact is about whoever spoke ("The user's ...", 用户……).

    Learning writes the speaker as "The user" and keys their facts `user_...`.
    """
    return about_whom(fact.content) == "speaker" or (fact.key or "").startswith("user_")
