"""English time words: "tomorrow at ten", "until Sunday", "for three days", "next month".

Each is read against today (in the home's time zone) into a `Said` with the words to
write instead ("on Friday 4 December at 10:00"). Names and habits are left alone: a dog
called Friday, "every Monday", "on Fridays", a film called "Tomorrow Never Dies".
"""

from __future__ import annotations

from datetime import date, time
import re
from typing import Final

from .date_phrases import EN_MONTHS, EN_WEEKDAYS, absolute_date_phrase, month_phrase
from .time_said import (
    DAY,
    Role,
    Said,
    Unit,
    afternoon_hour,
    apart,
    coming_weekday,
    day_of_year_said,
    lasting,
    month_span,
    months_later,
    previous_weekday,
    starts_sentence,
    weekday_in_week,
    weekend,
)

_WEEKDAYS: Final = tuple(day.lower() for day in EN_WEEKDAYS)
_NUMBERS: Final = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}  # fmt: skip
_NUMBER: Final = (
    r"(?:\d{1,2}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
)
_PART: Final = r"(?:\s+(?P<part>morning|afternoon|evening|night))?"
_WEEKDAY: Final = re.compile(
    r"\b(?:(?P<prep>on|by|until|till|til|to|from)\s+)?(?:(?P<rel>this|next|last)\s+)?"
    rf"(?P<weekday>{'|'.join(_WEEKDAYS)})\b" + _PART,
    re.IGNORECASE,
)
_MONTHS: Final = tuple(month.lower() for month in EN_MONTHS)
_MONTH: Final = "|".join(_MONTHS)
_ORDINAL: Final = r"(?:st|nd|rd|th)?"
# A day said absolutely ("Friday 4 December 2026", "December 4th"): it ends what
# happens on it, and is written as it was said.
_ABSOLUTE: Final = re.compile(
    r"\b(?:(?P<prep>on|by|until|till|til|to|from)\s+)?"
    rf"(?:(?:{'|'.join(_WEEKDAYS)}),?\s+)?"
    rf"(?:(?:the\s+)?(?P<day>\d{{1,2}}){_ORDINAL}\s+(?:of\s+)?(?P<month>{_MONTH})"
    rf"|(?P<month2>{_MONTH})\s+(?:the\s+)?(?P<day2>\d{{1,2}}){_ORDINAL})\b"
    r"(?:,?\s+(?P<year>\d{4})\b)?",
    re.IGNORECASE,
)
# A day of the month alone ("until the 10th", "on the 12th"): the next such day.
_DAY_OF_MONTH: Final = re.compile(
    r"\b(?P<prep>on|by|until|till|til|from|to)\s+the\s+(?P<day>\d{1,2})(?:st|nd|rd|th)\b"
    r"(?!\s+of\b)",
    re.IGNORECASE,
)
_RELATIVE_DAY: Final = re.compile(
    r"\b(?:(?P<prep>on|by|until|till)\s+)?(?P<day>the day after tomorrow|the day before "
    r"yesterday|today|tonight|tomorrow|yesterday)\b" + _PART,
    re.IGNORECASE,
)
_COUNT: Final = re.compile(
    rf"\b(?:(?P<lead>in|for)\s+)?(?P<n>{_NUMBER})\s+(?P<unit>day|night|week|month)s?\b"
    r"(?P<ago>\s+ago\b)?",
    re.IGNORECASE,
)
_PERIOD: Final = re.compile(
    r"\b(?:(?P<prep>until|till|by|for)\s+)?(?:(?P<rel>this|next|last|the|a|all)\s+|(?:the\s+)?"
    r"(?P<end>end)\s+of\s+(?:the|this)\s+)(?P<unit>week|weekend|month|year|fortnight)\b",
    re.IGNORECASE,
)
_CLOCK: Final = re.compile(
    r"\bat\s+(?:(?P<half>half|quarter)\s+(?P<side>past|to)\s+)?"
    rf"(?P<hour>{_NUMBER})(?::(?P<minute>\d{{2}}))?(?:\s*(?P<ampm>[ap])\.?m\.?)?(?![\w:])",
    re.IGNORECASE,
)
_NAMES_BEFORE: Final = re.compile(
    r"(?:called|named|name is|black|good|man|girl|boy|friend)\s+$", re.IGNORECASE
)
_NAME_AFTER: Final = re.compile(r"\s+[A-Z][a-z]")
_HABIT: Final = re.compile(
    r"\b(?:every|always|usually|often|normally|each)\b", re.IGNORECASE
)
_PAST: Final = re.compile(
    r"\b(?:was|were|went|did|had|saw|got|came|met|bought|made|took|left|visited|started|"
    r"moved|finished|arrived)\b",
    re.IGNORECASE,
)
# A plain weekday is one coming day only with a word for the future or what is
# arranged ("is coming on Friday", "will be here on Friday", "come at ten on
# Friday"); in the plain present
# it is a habit ("the bins go out on Thursday", "Leo plays football on Saturday").
_ARRANGED: Final = re.compile(
    r"\b(?:will|shall|is|are|am|be|going|gonna|has|have|need|must|should)\b|'(?:ll|s|re|m)\b",
    re.IGNORECASE,
)
_UNTIL_WORDS: Final = ("until", "till", "til", "to", "by")


def english_times(text: str, today: date) -> list[Said]:
    """The times an English sentence names, in the order said."""
    found: list[Said] = []
    if not _HABIT.search(text):
        past = bool(_PAST.search(text))
        found += _absolute_days(text, today, past=past)
        found += _days_of_month(text, today)
        found += _weekdays(text, today, past=past)
        found += _relative_days(text, today)
    found += _counts(text, today, past=bool(_PAST.search(text)))
    found += _periods(text, today)
    return _with_clocks(text, apart(found))


def _role(prep: str | None, role: Role) -> Role:
    return Role.UNTIL if prep and prep.lower() in _UNTIL_WORDS else role


def _weekdays(text: str, today: date, *, past: bool) -> list[Said]:
    found = []
    for match in _WEEKDAY.finditer(text):
        if _NAMES_BEFORE.search(text[: match.start()]) or _NAME_AFTER.match(
            text, match.end()
        ):
            continue
        weekday = _WEEKDAYS.index(match["weekday"].lower())
        rel = (match["rel"] or "").lower()
        role = _role(match["prep"], Role.WHEN)
        arranged = _ARRANGED.search(text) or _CLOCK.search(text)
        if not rel and not past and role is Role.WHEN and not arranged:
            continue  # a habit, said in the plain present
        if rel == "last" or (not rel and past and role is Role.WHEN):
            day, role = previous_weekday(today, weekday), Role.PAST
        elif rel == "next":
            day = weekday_in_week(today, weekday, 1)
        elif rel == "this":
            day = weekday_in_week(today, weekday, 0)
        else:
            day = coming_weekday(today, weekday)
        found.append(_day(match, role, day, today))
    return found


def _absolute_days(text: str, today: date, *, past: bool) -> list[Said]:
    found = []
    for match in _ABSOLUTE.finditer(text):
        month = _MONTHS.index((match["month"] or match["month2"]).lower()) + 1
        number = int(match["day"] or match["day2"])
        year = int(match["year"]) if match["year"] else None
        day = day_of_year_said(today, month, number, year, past=past)
        if day is None:
            continue
        role = _role(match["prep"], Role.WHEN)
        if past and role is Role.WHEN:
            role = Role.PAST
        found.append(Said(match.start(), match.end(), role, day, day, listed=False))
    return found


def _days_of_month(text: str, today: date) -> list[Said]:
    found = []
    for match in _DAY_OF_MONTH.finditer(text):
        number = int(match["day"])
        for months_on in (0, 1, 2):  # this month's, else the next that has the day
            first, last = month_span(today, months_on)
            if number <= last.day and (day := first.replace(day=number)) >= today:
                found.append(_day(match, _role(match["prep"], Role.WHEN), day, today))
                break
    return found


_DAYS_ON: Final = {
    "the day before yesterday": -2, "yesterday": -1, "today": 0, "tonight": 0,
    "tomorrow": 1, "the day after tomorrow": 2,
}  # fmt: skip


def _relative_days(text: str, today: date) -> list[Said]:
    found = []
    for match in _RELATIVE_DAY.finditer(text):
        said = match["day"]
        if said[0].isupper() and not starts_sentence(text, match.start("day")):
            continue  # a title: "Tomorrow Never Dies"
        days_on = _DAYS_ON[said.lower()]
        role = (
            Role.PAST
            if days_on < 0
            else Role.THIS
            if said.lower() == "today"
            else Role.WHEN
        )
        found.append(
            _day(match, _role(match["prep"], role), today + days_on * DAY, today)
        )
    return found


def _counts(text: str, today: date, *, past: bool) -> list[Said]:
    found = []
    for match in _COUNT.finditer(text):
        said = match["n"].lower()
        count = int(said) if said.isdigit() else _NUMBERS[said]
        unit = match["unit"].lower()
        lead = (match["lead"] or "").lower()
        if unit == "month":
            later = months_later(today, -count if match["ago"] else count)
        else:
            length = count * (7 if unit == "week" else 1)
            later = today + (-length if match["ago"] else length) * DAY
        if match["ago"]:
            found.append(_day(match, Role.PAST, later, today))
        elif lead == "in":
            found.append(_day(match, Role.WHEN, later, today))
        elif lead == "for" and not past:
            found.append(lasting(match.span(), today, later))
    return found


def _periods(text: str, today: date) -> list[Said]:
    found = []
    for match in _PERIOD.finditer(text):
        rel = (match["rel"] or "").lower()
        unit = match["unit"].lower()
        prep = (match["prep"] or "").lower()
        if unit == "fortnight" and prep == "for":
            found.append(lasting(match.span(), today, today + 14 * DAY))
        elif unit == "weekend" and rel == "the" and prep == "for":
            found.append(lasting(match.span(), today, weekend(today, 0)[1]))
        elif match["end"]:
            last = month_span(today, 0)[1] if unit == "month" else weekend(today, 0)[1]
            found.append(_day(match, _role(prep, Role.WHEN), last, today))
        elif rel == "all" and unit in ("week", "weekend"):
            found.append(_period(match, "this", unit, today))  # "all weekend"
        elif rel in ("this", "next", "last") and unit != "fortnight":
            found.append(_period(match, rel, unit, today))
    return found


def _period(match: re.Match[str], rel: str, unit: str, today: date) -> Said:
    steps = {"this": 0, "next": 1, "last": -1}[rel]
    role = {"this": Role.THIS, "next": Role.WHEN, "last": Role.PAST}[rel]
    role = _role(match["prep"], role)
    if unit == "year":
        first, last = date(today.year + steps, 1, 1), date(today.year + steps, 12, 31)
        written = f"in {first.year}"
        return _said(match, role, (first, last), Unit.YEAR, written)
    if unit == "month":
        first, last = month_span(today, steps)
        written = f"in {month_phrase(first.year, first.month, 'en', today=today)}"
        return _said(match, role, (first, last), Unit.MONTH, written)
    if unit == "weekend":
        first, last = weekend(today, steps)
        written = f"on the weekend of {absolute_date_phrase(first, 'en', today=today)}"
        return _said(match, role, (first, last), Unit.SPAN, written)
    first = today - today.weekday() * DAY + 7 * steps * DAY
    written = f"in the week of {absolute_date_phrase(first, 'en', today=today, weekday=False)}"
    return _said(match, role, (first, first + 6 * DAY), Unit.SPAN, written)


def _day(match: re.Match[str], role: Role, day: date, today: date) -> Said:
    lead = (match.groupdict().get("prep") or "on").lower()
    part = (match.groupdict().get("part") or "").lower()
    return Said(match.start(), match.end(), role, day, day, lead=lead, part=part)


def _said(
    match: re.Match[str], role: Role, days: tuple[date, date], unit: Unit, written: str
) -> Said:
    first, last = days
    if match["prep"] and match["prep"].lower() != "for":
        written = f"{match['prep']} " + written.split(" ", 1)[1]
    return Said(match.start(), match.end(), role, first, last, unit, written=written)


def _with_clocks(text: str, found: list[Said]) -> list[Said]:
    """A time of day ("at ten") joins the day it is said beside; then each day is written."""
    days = [
        said for said in found if said.unit is Unit.DAY and said.role is not Role.PAST
    ]
    for match in _CLOCK.finditer(text):
        beside = [said for said in days if _beside(text, said, match)]
        if beside:
            said = beside[0]
            index = found.index(said)
            joined = said.joined(match.start(), match.end(), _clock(match))
            found[index] = joined
            days[days.index(said)] = joined
    return found


def _beside(text: str, said: Said, match: re.Match[str]) -> bool:
    between = (
        text[said.end : match.start()]
        if said.end <= match.start()
        else text[match.end() : said.start]
    )
    return not between.strip()


def _clock(match: re.Match[str]) -> time:
    said = match["hour"].lower()
    hour = int(said) if said.isdigit() else _NUMBERS[said]
    minute = int(match["minute"] or 0)
    if match["half"]:
        minute = 30 if match["half"].lower() == "half" else 15
        if match["side"].lower() == "to":
            hour, minute = hour - 1, 45
    ampm = (match["ampm"] or "").lower()
    if ampm == "p" and hour < 12:
        hour += 12
    elif ampm == "a" and hour == 12:
        hour = 0
    elif not ampm:
        hour = afternoon_hour(hour)
    return time(hour % 24, minute)
