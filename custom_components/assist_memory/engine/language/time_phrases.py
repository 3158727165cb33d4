"""Relative dates made absolute, and the end a fact has, when a memory is learnt.

"The plumber is coming tomorrow at ten", said on Saturday 28 November, becomes "The
plumber is coming on Sunday 29 November at 10:00" and ends on the 30th; "We have guests
staying until Sunday" ends on Sunday; "I was born in May" names no date and never ends.

An end is the last day the fact may still be true, in the home's time zone:
- a length (until X, for three days, this week, today, 这几天) ends where it says;
- something that happens on a day, a span or a month ends the day after it;
- a stay of a length that starts in a span ends that length after the span;
- past events, birthdays and anniversaries never end.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time, tzinfo
import os
import re
from typing import Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .date_phrases import absolute_date_phrase, chinese_clock, language_family
from .facts import Fact
from .speech import is_traditional
from .time_chinese import chinese_times
from .time_english import english_times
from .time_said import DAY, Role, Said, Unit, starts_sentence

_HAN: Final = re.compile(r"[\u4e00-\u9fff]")
# Words a changed end brings with it ("... until Tuesday now", 现在住到周二), and marks.
_FILLER: Final = re.compile(r"\b(?:now|instead|actually|then)\b|现在|現在|改|[^\w\s]")
_RECURS: Final = re.compile(
    r"birthday|anniversary|生日|纪念日|紀念日|周年|週年", re.IGNORECASE
)


@dataclass(frozen=True, slots=True)
class TimeReading:
    """A sentence with its dates written absolutely, and the last day it holds."""

    text: str
    said: tuple[Said, ...]
    until: date | None

    @property
    def dates(self) -> list[str]:
        """The dates the sentence's time words name (2026-12-04T10:00, 2026-12 ...)."""
        return [said.label for said in self.said if said.listed]


def home_zone(name: str | None) -> tzinfo:
    """The home's time zone by its name (UTC when unknown)."""
    try:
        return ZoneInfo(name) if name else UTC
    except ZoneInfoNotFoundError, ValueError:
        return UTC


def home_zone_or_local(name: str | None) -> tzinfo:
    """The home's time zone by its name; without one, this computer's.

    This computer's is the one `TZ` names (the Supervisor sets it to Home Assistant's
    for an add-on), with its summer time, else the system's offset now.
    """
    if name:
        return home_zone(name)
    if named := os.environ.get("TZ", "").removeprefix(":"):
        try:
            return ZoneInfo(named)
        except ZoneInfoNotFoundError, ValueError, OSError:
            pass  # a POSIX rule ("CET-1CEST"): the system reads it
    return datetime.now().astimezone().tzinfo or UTC


def home_now(time_zone: str | None) -> datetime:
    """Now in the home's time zone (this computer's when none is named)."""
    if time_zone:
        return datetime.now(home_zone(time_zone))
    return datetime.now().astimezone()


def with_time(fact: Fact, now: datetime, language: str | None = None) -> Fact:
    """The fact with its dates written absolutely and the last day it holds.

    A last day the extractor gave (an LLM's) wins over the one the words say.
    """
    reading = read_time(fact.content, now, language)
    return replace(fact, content=reading.text, until=fact.until or reading.until)


def end_of(fact: Fact, now: datetime) -> str | None:
    """When a fact's memory ends (UTC, ISO 8601), from its last day at home."""
    if fact.until is None or now.tzinfo is None:
        return None
    return ends_at(fact.until, now.tzinfo).isoformat()


def read_time(text: str, now: datetime, language: str | None = None) -> TimeReading:
    """The time words of a sentence, read at `now` (an aware time in the home's zone)."""
    today = now.date()
    if _HAN.search(text):
        found = chinese_times(text, today)
        family = (
            "zh-Hant" if is_traditional(text) else language_family(language or "zh")
        )
        if family == "en":
            family = "zh-Hans"
    else:
        found = english_times(text, today)
        family = "en"
    until = None if _RECURS.search(text) else last_day(found, today)
    written = _rewritten(text, found, family, today, until)
    return TimeReading(written, tuple(found), until)


def when_said(text: str, now: datetime, language: str | None = None) -> str | None:
    """When a memory says something happens, as an answer in the speaker's language.

    "The plumber is coming on Friday 4 December at 10:00" -> "On Friday 4 December at
    10:00"; 水管工12月4日（周五）上午10点来 -> 12月4日（周五）上午10点. None when the
    text names no day. `now` is in the home's time zone (see `home_now`).
    """
    today = now.date()
    chinese = bool(_HAN.search(text))
    found = chinese_times(text, today) if chinese else english_times(text, today)
    days = [
        said for said in found if said.unit is Unit.DAY and said.role is not Role.FOR
    ]
    if not days:
        return None
    said = days[0]
    family = language_family(language or ("zh" if chinese else "en"))
    if family != "en" and is_traditional(text):
        family = "zh-Hant"
    moment = datetime.combine(said.first, said.clock) if said.clock else said.first
    if family == "en":
        return "On " + absolute_date_phrase(moment, family, today=today)
    answer = absolute_date_phrase(said.first, family, today=today)
    if said.clock is not None:
        answer += chinese_clock(said.clock, traditional=family == "zh-Hant")
    return answer


def without_time(text: str, now: datetime) -> str:
    """The sentence without its time words (lower case, no marks or spaces).

    It tells a fact from the same one with another end: "The guests stay until
    Sunday" and "The guests stay until Tuesday now" are the same without them.
    """
    words = _FILLER.sub(" ", blank_times(text, now).casefold())
    return "".join(words.split())  # Chinese has no spaces between words


def blank_times(text: str, now: datetime) -> str:
    """The sentence with the times it names blanked out (spaces, same length).

    "The plumber is coming tomorrow" and "... on Friday 4 December" keep the same
    words: what a time was said as is not what a fact is about.
    """
    found = _HAN.search(text)
    said = chinese_times(text, now.date()) if found else english_times(text, now.date())
    kept = list(text)
    for one in said:
        kept[one.start : one.end] = [" "] * (one.end - one.start)
    return "".join(kept)


def last_day(found: list[Said], today: date) -> date | None:
    """The last day a fact with these times holds (None: it does not end)."""
    live = [said for said in found if said.role is not Role.PAST]
    if not live:
        return None
    if untils := [said.last for said in live if said.role is Role.UNTIL]:
        return max(untils)
    whens = [said.last for said in live if said.role is Role.WHEN]
    lengths = [said.days for said in live if said.role is Role.FOR]
    if lengths:
        return (max(whens) if whens else today) + max(lengths) * DAY
    ends = [said.last for said in live if said.role is Role.THIS]
    ends += [day + DAY for day in whens]
    return max(ends)


def ends_at(last: date, zone: tzinfo) -> datetime:
    """The moment a memory whose last day is `last` ends: the next midnight at home."""
    return datetime.combine(last + DAY, time(), zone).astimezone(UTC)


def last_day_of(expires_at: datetime, zone: tzinfo) -> date:
    """The last day a memory ending at `expires_at` holds, in the home's time zone."""
    return (expires_at.astimezone(zone) - DAY / 86_400_000_000).date()


def _rewritten(
    text: str, found: list[Said], family: str, today: date, until: date | None
) -> str:
    parts: list[str] = []
    cursor = 0
    for said in found:
        if said.role is Role.FOR:
            written = text[said.start : said.end] + _until_said(until, family, today)
        elif not said.listed:
            written = text[said.start : said.end]  # said absolutely already
        else:
            written = _written(text, said, family, today)
        parts += [text[cursor : said.start], written]
        cursor = said.end
    return "".join([*parts, text[cursor:]])


def _until_said(until: date | None, family: str, today: date) -> str:
    """The end a length of time comes to: " (until Tuesday 1 December)", （到12月1日）."""
    if until is None:
        return ""
    if family == "en":
        return f" (until {absolute_date_phrase(until, family, today=today)})"
    return f"（到{absolute_date_phrase(until, family, today=today, weekday=False)}）"


def _written(text: str, said: Said, family: str, today: date) -> str:
    if said.unit is not Unit.DAY:
        written = said.written
    elif family == "en":
        moment = datetime.combine(said.first, said.clock) if said.clock else said.first
        written = absolute_date_phrase(moment, family, today=today)
        if said.part:
            written += " at night" if said.part == "night" else f" in the {said.part}"
        written = f"{said.lead} {written}" if said.lead else written
    else:
        written = said.lead + absolute_date_phrase(said.first, family, today=today)
        if said.clock is not None:
            written += chinese_clock(said.clock, traditional=family == "zh-Hant")
        else:
            written += said.part
    if family == "en" and starts_sentence(text, said.start):
        written = written[0].upper() + written[1:]
    return written
