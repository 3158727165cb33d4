"""Whether a sentence states something (English and Chinese), from its shape alone.

"The dog's vet is Dr Miller", "Our neighbour Tom waters the plants", 狗的兽医是米勒医生
state something; "Turn on the garage light", 打开车库灯 (commands), "Where is the
key?" (a question) and "Thanks" (small talk) do not. Exact patterns only, as the
design asks of patterns: a statement starts with what it is about (a determiner, a
possessive, a pronoun, or a name followed by its verb); a command starts with a verb
Home Assistant's sentences use. Whether a statement is worth keeping is decided
elsewhere (`backend/statement_answers.py`).
"""

from __future__ import annotations

import re
from typing import Final

from .questions import read_question

_EN_WORD: Final = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?")
_HAN: Final = re.compile(r"[\u4e00-\u9fff]")
# Said before a statement without changing it ("By the way, the bins ...").
_EN_LEAD: Final = re.compile(
    r"^(?:(?:oh|well|so|and|also|ok|okay|hey|fyi|btw|by the way|just so you know|"
    r"for your information|you know what)\b[\s,]*)+",
    re.IGNORECASE,
)
# What a statement starts with: the thing it is about.
_EN_SUBJECTS: Final = frozenset(
    """the a an my our your his her their its i i'm i've i'll i'd we we're we've
    we'll he he's she she's they they're they've it it's this that these those
    there there's someone somebody everyone everybody nobody mum mom dad grandma
    grandpa""".split()
)
# A word that shows the name before it does something ("Leo plays", "Tom is").
_EN_FINITE: Final = frozenset(
    """is was has does doesn't isn't wasn't hasn't can can't will won't never always
    usually""".split()
)
# Verbs Home Assistant's sentences start with: a command, not a statement.
_EN_COMMANDS: Final = frozenset(
    """turn switch set open close shut lock unlock start stop pause resume play skip
    next previous cancel add remove put dim brighten raise lower increase decrease
    make change activate deactivate arm disarm run execute enable disable mute unmute
    tell show call send broadcast announce return clean vacuum toggle please let give
    find search volume check count list read say timer remind""".split()
)
_ZH_COMMANDS: Final = re.compile(
    r"^(?:请|請|帮我|幫我|帮忙|幫忙|给我|給我|麻烦|麻煩)?"
    r"(?:打开|打開|关闭|關閉|关掉|關掉|关上|關上|开启|開啟|启动|啟動|停止|暂停|暫停|"
    r"继续|繼續|播放|设置|設置|设定|設定|调|調|把|将|將|锁|鎖|解锁|解鎖|取消|添加|"
    r"加|删除|刪除|增加|减少|減少|降低|提高|切换|切換|开|開|关|關|告诉|告訴|提醒|"
    r"查|看|读|讀|说|說)"
)
# What shows a Chinese sentence saying something of its subject.
_ZH_PREDICATE: Final = re.compile(r"[是在有叫姓住爱愛喜欢歡不没沒会會每要]")
_ZH_QUESTION_END: Final = re.compile(r"[吗嗎呢吧？?]\s*$")
# Asking without a question mark: "how hot", "why", "whether" (现在这里有多热).
_ZH_ASKING: Final = re.compile(
    r"多[少久大高远遠热熱冷暖长長重快早晚]|为什么|為什麼|是否|有没有|有沒有"
)
_MIN_EN_WORDS: Final = 3
_MIN_ZH_CHARACTERS: Final = 4


def is_statement(text: str) -> bool:
    """Whether `text` states something (not a question, a command or small talk)."""
    text = text.strip()
    if not text or read_question(text) is not None or text.endswith(("?", "？")):
        return False
    if _HAN.search(text):
        return _is_chinese_statement(text)
    return _is_english_statement(text)


def _is_english_statement(text: str) -> bool:
    said = _EN_LEAD.sub("", text).strip()
    words = _EN_WORD.findall(said)
    if len(words) < _MIN_EN_WORDS:
        return False
    first, second = (word.lower().replace("’", "'") for word in words[:2])
    if first in _EN_COMMANDS:
        return False
    if first in _EN_SUBJECTS or first.endswith("'s"):
        return True
    # A name and what it does: "Leo plays football", "Tom is our neighbour".
    named = words[0][:1].isupper()
    return named and (second in _EN_FINITE or _third_person_verb(second))


def _third_person_verb(word: str) -> bool:
    """The shape of a verb after "he" ("plays", "waters", "goes"), after a name."""
    return len(word) > 3 and word.endswith("s") and not word.endswith("ss")


def _is_chinese_statement(text: str) -> bool:
    said = text.strip(" 。.！!")
    characters = _HAN.findall(said)
    if len(characters) < _MIN_ZH_CHARACTERS or _ZH_QUESTION_END.search(said):
        return False
    if _ZH_ASKING.search(said):
        return False
    if _ZH_COMMANDS.match(said):
        return False
    return _ZH_PREDICATE.search(said) is not None
