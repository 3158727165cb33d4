"""Statements that hold for a while, which no other rule keeps: kept as events.

"We have guests staying until Sunday", "I'm away on business until Friday", "这周我在减肥":
a statement about the speaker, the household or a relative that says when it ends (or
when it happens) is kept in the third person; learning then writes its dates and end.
Commands ("Set the heating to 20 until Sunday", 帮我…) are not statements about anyone.
"""

from __future__ import annotations

from datetime import date, datetime
import re
from typing import Final

from .rule_patterns import _Draft
from .third_person import _capitalize, _en_third_person, _zh_third_person
from .time_chinese import chinese_times
from .time_english import english_times
from .time_said import Role, Said

_EN_SUBJECT: Final = re.compile(r"^(?:i|i'm|we|we're|my|our)\b", re.IGNORECASE)
_ZH_SUBJECT: Final = re.compile(
    r"^(?:(?:这|這|本|下|今|明|后|後)\S{0,4})?(?:我|客人|奶奶|爷爷|爺爺|爸爸|妈妈|媽媽|孩子|儿子|兒子"
    r"|女儿|女兒|老公|老婆|姐姐|妹妹|哥哥|弟弟)"
)
_ZH_ASKING: Final = re.compile(r"^(?:帮|幫|请|請|给我|給我|提醒|让|讓|把|别|別)")
# Someone else's words are theirs: "My boss said 'I hate Mondays'".
_REPORTED: Final = re.compile(r"\b(?:said|says|told|tells)\b|说|說", re.IGNORECASE)
_ONGOING: Final = (Role.UNTIL, Role.THIS, Role.FOR, Role.WHEN)


def lasting_statement(text: str, *, chinese: bool) -> list[_Draft]:
    """The statement as an event when it is about someone and says a time that ends.

    "Today" alone is not enough: "I'm so tired today" is how the day feels.
    """
    today = datetime.now().astimezone().date()
    if _REPORTED.search(text):
        return []
    if chinese:
        if _ZH_ASKING.match(text) or not _ZH_SUBJECT.match(text):
            return []
        found = chinese_times(text, today)
    else:
        if not _EN_SUBJECT.match(text):
            return []
        found = english_times(text, today)
    if not any(said.role in _ONGOING and _lasts(said, today) for said in found):
        return []
    content = _zh_third_person(text) if chinese else _capitalize(_en_third_person(text))
    return [(content, "event", None)]


def _lasts(said: Said, today: date) -> bool:
    """Whether the time said goes on after today, or began before it and ends today.

    "这周我在减肥" said on a Sunday ends tonight and still lasts; "today" alone does not.
    """
    return said.last > today or said.first < today <= said.last
