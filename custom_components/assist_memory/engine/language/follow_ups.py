"""Sentences about what was just said: "forget that", "that's wrong", "what did you just learn?".

They refer to the memories used in the conversation's last answer or learnt in it;
recognised in English and Chinese (simplified and traditional). None for any other
sentence.
"""

from __future__ import annotations

import re
from typing import Final, Literal

FollowUp = Literal["forget_last", "what_learnt"]

_END: Final = r"\s*[.!?。！？…]*\s*$"
_FORGET_LAST: Final = re.compile(
    r"^\s*(?:(?:please\s+)?forget\s+(?:that|this|it)(?:\s+again)?"
    r"|(?:no,?\s+)?(?:that['’]?s|that\s+is|this\s+is)\s+(?:wrong|not\s+(?:right|true|correct))"
    r"|(?:that['’]?s|that\s+is)\s+(?:incorrect|outdated|out\s+of\s+date)"
    r"|(?:请|請)?(?:忘掉|忘记|忘記|删掉|刪掉)(?:这个|這個|那个|那個|它|这条|這條)(?:吧)?"
    r"|(?:不对|不對|错了|錯了|说错了|說錯了|这不对|這不對|那不对|那不對))" + _END,
    re.IGNORECASE,
)
_WHAT_LEARNT: Final = re.compile(
    r"^\s*(?:what\s+(?:did|have)\s+you\s+(?:just\s+)?(?:learn|learned|learnt|remember|remembered)"
    r"(?:\s+(?:just\s+now|now))?"
    r"|你刚才(?:记住|学到|記住|學到)了什么|你剛才(?:記住|學到)了什麼"
    r"|你刚刚(?:记住|学到)了什么|你剛剛(?:記住|學到)了什麼)" + _END,
    re.IGNORECASE,
)


def follow_up(text: str) -> FollowUp | None:
    """The follow-up a sentence is, or None."""
    if _FORGET_LAST.match(text):
        return "forget_last"
    if _WHAT_LEARNT.match(text):
        return "what_learnt"
    return None
