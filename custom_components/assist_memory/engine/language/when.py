"""When a question asks about: "two weeks ago", "last weekend", "yesterday", 上周, 三天前.

Such words say when something was said, not what: searched as keywords they find
memories that say "this week" or "weekend". Retrieval leaves them out of the keywords
and favours the memories made in the time they name.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
import re
from typing import Final

_DAY: Final = timedelta(days=1)
# How long each unit is; a time said in a unit is known to within about half of it.
_UNITS: Final = {
    "day": 1, "week": 7, "month": 30, "year": 365,
    "天": 1, "周": 7, "週": 7, "星期": 7, "礼拜": 7, "禮拜": 7, "月": 30, "年": 365,
}  # fmt: skip
_NUMBERS: Final = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "一": 1, "两": 2, "兩": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6,
}  # fmt: skip
_EN_AGO: Final = re.compile(
    r"\b(?P<n>a|an|one|two|three|four|five|six|\d{1,2})\s+(?P<unit>day|week|month|year)s?"
    r"\s+ago\b",
    re.IGNORECASE,
)
_EN_LAST: Final = re.compile(
    r"\b(?:last\s+(?P<unit>night|week|weekend|month|year)|(?P<yesterday>yesterday))\b",
    re.IGNORECASE,
)
_ZH_AGO: Final = re.compile(
    r"(?P<n>[一两兩二三四五六\d]{1,2})(?:个|個)?(?P<unit>天|周|週|星期|礼拜|禮拜|月|年)(?:以前|之前|前)"
)
_ZH_LAST: Final = re.compile(
    r"(?P<yesterday>昨天|昨晚)|上(?:个|個)?(?P<unit>周末|週末|周|週|星期|礼拜|禮拜|月)|(?P<year>去年)"
)
_LAST: Final = {
    "night": (1, 1), "week": (10, 4), "weekend": (8, 3), "month": (45, 15),
    "year": (365, 183), "周末": (8, 3), "週末": (8, 3), "月": (45, 15),
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class TimeAsked:
    """The message without its time words, and the window of time they name."""

    rest: str
    start: datetime
    end: datetime

    def holds(self, moment: datetime) -> bool:
        """Whether a moment falls in the window."""
        return self.start <= moment <= self.end


def time_asked(message: str, now: datetime) -> TimeAsked | None:
    """The time a question asks about, relative to `now` (None: it names none)."""
    for pattern in (_EN_AGO, _ZH_AGO, _EN_LAST, _ZH_LAST):
        if match := pattern.search(message):
            days_ago, margin = _window(match)
            rest = (message[: match.start()] + " " + message[match.end() :]).strip()
            centre = now - days_ago * _DAY
            return TimeAsked(rest, centre - margin * _DAY, centre + margin * _DAY)
    return None


def _window(match: re.Match[str]) -> tuple[float, float]:
    """How many days ago, give or take how many."""
    found = match.groupdict()
    if found.get("yesterday"):
        return 1, 1
    if found.get("year"):
        return _LAST["year"]
    unit = found["unit"]
    if "n" in found:
        said = found["n"].lower()
        count = int(said) if said.isdigit() else _NUMBERS[said]
        length = _UNITS[unit.lower()]
        return count * length, max(1.0, length / 2)
    return _LAST.get(unit.lower(), _LAST["week"])
