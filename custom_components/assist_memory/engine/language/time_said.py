"""A time a sentence names, and the calendar arithmetic the readers of time words share.

Weeks run Monday to Sunday. Each reader (English, Chinese) turns the words it finds into
`Said` entries; time_phrases.py makes the end and the rewritten text from them.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass, replace
from datetime import date, time, timedelta
from enum import StrEnum
from typing import Final

DAY: Final = timedelta(days=1)


class Role(StrEnum):
    """What a time does in its sentence."""

    WHEN = "when"  # something happens then: ends the day after
    UNTIL = "until"  # the fact holds until then
    THIS = "this"  # the fact holds for this day, week, weekend or month
    FOR = "for"  # the fact holds for a length of time (`days`)
    PAST = "past"  # it happened: no end


class Unit(StrEnum):
    """How precisely a time is named."""

    DAY = "day"
    SPAN = "span"
    MONTH = "month"
    YEAR = "year"


@dataclass(frozen=True, slots=True)
class Said:
    """One time named in a sentence: where, what it does, which days it covers."""

    start: int
    end: int
    role: Role
    first: date
    last: date
    unit: Unit = Unit.DAY
    clock: time | None = None
    days: int = 0  # the length of a FOR
    listed: bool = True  # whether it names a date (a length alone does not)
    lead: str = ""  # a day's words before its date: "on", "until", 到
    part: str = ""  # a day's part said with it: "morning", 晚上
    written: str = (
        ""  # what to write instead of the words (a day's is made from its date)
    )

    def joined(self, start: int, end: int, clock: time) -> Said:
        """The day with the time of day said beside it ("tomorrow" + "at ten")."""
        return replace(
            self, start=min(self.start, start), end=max(self.end, end), clock=clock
        )

    @property
    def label(self) -> str:
        """The date as the labelled time set writes it (2026-12-04T10:00, 2026-12 ...)."""
        if self.unit is Unit.YEAR:
            return f"{self.first.year}"
        if self.unit is Unit.MONTH:
            return f"{self.first:%Y-%m}"
        if self.unit is Unit.SPAN:
            return f"{self.first.isoformat()}/{self.last.isoformat()}"
        if self.clock is not None:
            return f"{self.first.isoformat()}T{self.clock:%H:%M}"
        return self.first.isoformat()


def lasting(span: tuple[int, int], today: date, last: date) -> Said:
    """A length of time said from today ("for three days", 住三天): it names no date."""
    days = (last - today).days
    return Said(*span, Role.FOR, today, last, Unit.SPAN, days=days, listed=False)


def monday_of(day: date) -> date:
    """The Monday of a day's week."""
    return day - day.weekday() * DAY


def coming_weekday(today: date, weekday: int) -> date:
    """The next such weekday after today (a week on, when today is that weekday)."""
    return today + ((weekday - today.weekday()) % 7 or 7) * DAY


def previous_weekday(today: date, weekday: int) -> date:
    """The last such weekday before today."""
    return today - ((today.weekday() - weekday) % 7 or 7) * DAY


def weekday_in_week(today: date, weekday: int, weeks_on: int) -> date:
    """That weekday in this week (0) or next (1); this week's, once past, is next week's."""
    day = monday_of(today) + (7 * weeks_on + weekday) * DAY
    return day if day >= today else day + 7 * DAY


def weekend(today: date, weeks_on: int) -> tuple[date, date]:
    """Saturday and Sunday of this week's weekend (0) or next week's (1)."""
    saturday = monday_of(today) + (7 * weeks_on + 5) * DAY
    return saturday, saturday + DAY


def month_span(today: date, months_on: int) -> tuple[date, date]:
    """The first and last day of the month `months_on` from today's."""
    index = today.year * 12 + today.month - 1 + months_on
    year, month = divmod(index, 12)
    first = date(year, month + 1, 1)
    return first, date(year, month + 1, calendar.monthrange(year, month + 1)[1])


def months_later(day: date, months: int) -> date:
    """The same day of the month `months` on (the month's last, when it is shorter)."""
    first, last = month_span(day, months)
    return first.replace(day=min(day.day, last.day))


def afternoon_hour(hour: int) -> int:
    """An hour said without morning or afternoon: 1 to 7 are in the afternoon."""
    return hour + 12 if 1 <= hour <= 7 else hour


def apart(found: list[Said]) -> list[Said]:
    """Overlapping finds: the one said first, or the longer, is kept."""
    kept: list[Said] = []
    for said in sorted(found, key=lambda said: (said.start, said.start - said.end)):
        if not kept or said.start >= kept[-1].end:
            kept.append(said)
    return kept


def starts_sentence(text: str, index: int) -> bool:
    """Whether a position in a text begins a sentence."""
    before = text[:index].rstrip()
    return not before or before[-1] in ".!?"


def day_of_year_said(
    today: date, month: int, day: int, year: int | None, *, past: bool
) -> date | None:
    """A day said without relative words ("4 December", 12月4日), or None.

    Its year is the one said, else this year's, or next year's when this year's is
    over (and the sentence is not about the past).
    """
    try:
        said = date(year or today.year, month, day)
        if year is None and said < today and not past:
            said = date(today.year + 1, month, day)
    except ValueError:
        return None
    return said
