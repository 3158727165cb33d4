"""Chinese time words (simplified and traditional): 明天上午10点, 到周日, 住三天, 这几天, 下个月.

Each is read against today (in the home's time zone) into a `Said`. Names and habits are
left alone: 我家的狗叫星期五, 每周一, 我喜欢周末去爬山, a song title in 《》.
"""

from __future__ import annotations

from datetime import date, time
import re
from typing import Final

from .date_phrases import absolute_date_phrase, month_phrase
from .speech import is_traditional
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
    monday_of,
    month_span,
    months_later,
    previous_weekday,
    weekday_in_week,
    weekend,
)

_DIGITS: Final = {
    "零": 0, "一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4, "五": 5, "六": 6,
    "七": 7, "八": 8, "九": 9,
}  # fmt: skip
_NUMBER: Final = r"[\d一二两兩三四五六七八九十]{1,3}"
_WEEK: Final = r"(?:周|週|星期|礼拜|禮拜)"
_REL: Final = r"(?P<rel>下下|下|这|這|本|上)"
_UNTIL: Final = r"(?P<prep>直到|到|至)?"
_WEEKDAY: Final = re.compile(
    rf"{_UNTIL}(?:{_REL}(?:个|個)?)?{_WEEK}(?P<weekday>[一二三四五六日天1-7])"
)
_WEEKEND: Final = re.compile(rf"{_UNTIL}(?:{_REL}(?:个|個)?)?(?:周末|週末)")
_WHOLE_WEEK: Final = re.compile(
    rf"{_UNTIL}{_REL}(?:个|個)?{_WEEK}(?![一二三四五六日天末1-7])"
)
_MONTH: Final = re.compile(
    rf"{_UNTIL}(?:(?:(?:这|這|本)(?:个|個)?)?(?P<end>月底)|{_REL}(?:个|個)月(?!底))"
)
_YEAR: Final = re.compile(r"(?P<year>前年|去年|今年|明年)")
# A day said absolutely (12月4日（周五）, 2027年1月8日): it ends what happens on it.
_ABSOLUTE: Final = re.compile(
    rf"{_UNTIL}(?:(?P<year>\d{{4}})年)?(?P<month>\d{{1,2}})月(?P<day>\d{{1,2}})[日号號]"
    rf"(?:[（(]{_WEEK}[一二三四五六日天][）)])?"
)
_RELATIVE_DAY: Final = re.compile(
    rf"{_UNTIL}(?P<day>大后天|大後天|后天|後天|明天|明早|明晚|今天|今晚|今早|昨天|昨晚|前天)"
)
_COUNT: Final = re.compile(
    rf"(?P<n>{_NUMBER})(?P<unit>(?:个|個)?(?:天|{_WEEK})|(?:个|個)月)"
    r"(?P<way>以后|以後|之后|之後|后|後|以前|之前|前)?"
)
_FEW_DAYS: Final = re.compile(r"(?:这|這|最近)(?:几|幾)天")
_CLOCK: Final = re.compile(
    rf"(?P<part>上午|早上|早晨|中午|下午|晚上)?(?P<hour>{_NUMBER})(?:点|點)"
    rf"(?:(?P<half>半)|(?P<minute>{_NUMBER})分?)?"
)
_HABIT: Final = re.compile(r"每|经常|經常|总是|總是|通常|喜欢|喜歡|常常")
_NAME_BEFORE: Final = re.compile(r"(?:叫|叫做|名叫)$")
_PAST: Final = re.compile(r"了|过|過")
_FUTURE: Final = re.compile(r"要|会|會|将|將|打算|准备|準備|就")
_TITLE: Final = re.compile(r"《[^》]*》|「[^」]*」|“[^”]*”")
_DAYS_ON: Final = {
    "前天": -2, "昨天": -1, "昨晚": -1, "今天": 0, "今晚": 0, "今早": 0, "明天": 1,
    "明早": 1, "明晚": 1, "后天": 2, "後天": 2, "大后天": 3, "大後天": 3,
}  # fmt: skip
_WEEKDAY_NUMBERS: Final = "一二三四五六日"
_STEPS: Final = {"下下": 2, "下": 1, "这": 0, "這": 0, "本": 0, "上": -1}
_ROLES: Final = {-1: Role.PAST, 0: Role.THIS, 1: Role.WHEN, 2: Role.WHEN}


def chinese_times(text: str, today: date) -> list[Said]:
    """The times a Chinese sentence names, in the order said."""
    titles = [match.span() for match in _TITLE.finditer(text)]
    habit = bool(_HABIT.search(text))
    past = bool(_PAST.search(text)) and not _FUTURE.search(text)
    traditional = is_traditional(text)
    found = _absolute_days(text, today, past=past)
    found += _weekdays(text, today, habit=habit, past=past)
    found += _periods(text, today, habit=habit, traditional=traditional)
    found += _relative_days(text, today)
    found += _counts(text, today)
    kept = [said for said in apart(found) if not _inside(said, titles)]
    return _with_clocks(text, kept)


def chinese_number(said: str) -> int:
    """三 -> 3, 十二 -> 12, 两 -> 2, 20 -> 20."""
    if said.isdigit():
        return int(said)
    if "十" in said:
        tens, _, ones = said.partition("十")
        return _DIGITS.get(tens, 1) * 10 + _DIGITS.get(ones, 0)
    return _DIGITS.get(said, 0)


def _role(match: re.Match[str], role: Role) -> Role:
    return Role.UNTIL if match["prep"] else role


def _weekdays(text: str, today: date, *, habit: bool, past: bool) -> list[Said]:
    found = []
    for match in _WEEKDAY.finditer(text):
        rel = match["rel"]
        if not rel and (habit or _NAME_BEFORE.search(text[: match.start()])):
            continue
        said = match["weekday"]
        weekday = (
            6
            if said in "日天7"
            else (int(said) - 1 if said.isdigit() else _WEEKDAY_NUMBERS.index(said))
        )
        role = _role(match, Role.WHEN)
        if rel == "上":
            day, role = monday_of(today) - 7 * DAY + weekday * DAY, Role.PAST
        elif rel:
            day = weekday_in_week(today, weekday, _STEPS[rel])
        elif past and role is Role.WHEN:
            day, role = previous_weekday(today, weekday), Role.PAST
        else:
            day = coming_weekday(today, weekday)
        found.append(_day(match, role, day))
    return found


def _absolute_days(text: str, today: date, *, past: bool) -> list[Said]:
    found = []
    for match in _ABSOLUTE.finditer(text):
        year = int(match["year"]) if match["year"] else None
        day = day_of_year_said(
            today, int(match["month"]), int(match["day"]), year, past=past
        )
        if day is None:
            continue
        role = _role(match, Role.WHEN)
        if past and role is Role.WHEN:
            role = Role.PAST
        found.append(Said(match.start(), match.end(), role, day, day, listed=False))
    return found


def _periods(text: str, today: date, *, habit: bool, traditional: bool) -> list[Said]:
    found = []
    that = "那個" if traditional else "那个"
    for match in _WEEKEND.finditer(text):
        if habit and not match["rel"]:
            continue
        steps = _STEPS.get(match["rel"] or "这", 0)
        first, last = weekend(today, steps)
        written = _date(first, today) + f"{that}{'週末' if traditional else '周末'}"
        found.append(_span(match, _ROLES[steps], (first, last), Unit.SPAN, written))
    for match in _WHOLE_WEEK.finditer(text):
        steps = _STEPS[match["rel"]]
        first = monday_of(today) + 7 * steps * DAY
        written = _date(first, today) + ("那週" if traditional else "那周")
        found.append(
            _span(match, _ROLES[steps], (first, first + 6 * DAY), Unit.SPAN, written)
        )
    for match in _MONTH.finditer(text):
        if match["end"]:
            found.append(_day(match, _role(match, Role.WHEN), month_span(today, 0)[1]))
            continue
        steps = _STEPS[match["rel"]]
        first, last = month_span(today, steps)
        written = month_phrase(first.year, first.month, "zh", today=today)
        found.append(_span(match, _ROLES[steps], (first, last), Unit.MONTH, written))
    for match in _YEAR.finditer(text):
        steps = {"前年": -2, "去年": -1, "今年": 0, "明年": 1}[match["year"]]
        first = date(today.year + steps, 1, 1)
        days = (first, date(first.year, 12, 31))
        found.append(
            _span(match, _ROLES[max(steps, -1)], days, Unit.YEAR, f"{first.year}年")
        )
    return found


def _relative_days(text: str, today: date) -> list[Said]:
    found = []
    for match in _RELATIVE_DAY.finditer(text):
        days_on = _DAYS_ON[match["day"]]
        role = (
            Role.PAST
            if days_on < 0
            else Role.THIS
            if match["day"] == "今天"
            else Role.WHEN
        )
        part = (
            "晚上"
            if match["day"].endswith("晚")
            else "早上"
            if match["day"].endswith("早")
            else ""
        )
        found.append(_day(match, _role(match, role), today + days_on * DAY, part=part))
    return found


def _counts(text: str, today: date) -> list[Said]:
    found = []
    for match in _COUNT.finditer(text):
        count = chinese_number(match["n"])
        way = match["way"] or ""
        later = (
            months_later(today, -count if "前" in way else count)
            if match["unit"].endswith("月")
            else today
            + (-1 if "前" in way else 1) * count * _unit_days(match["unit"]) * DAY
        )
        if "前" in way:
            found.append(_day(match, Role.PAST, later))
        elif way:
            found.append(_day(match, Role.WHEN, later))
        elif not text[: match.start()].endswith(("了", "过", "過")):
            found.append(lasting(match.span(), today, later))  # 住了五天: it is over
    found.extend(
        lasting(match.span(), today, today + 3 * DAY)
        for match in _FEW_DAYS.finditer(text)
    )
    return found


def _unit_days(unit: str) -> int:
    return 1 if unit.endswith("天") else 7


def _day(match: re.Match[str], role: Role, day: date, *, part: str = "") -> Said:
    lead = match.groupdict().get("prep") or ""
    return Said(match.start(), match.end(), role, day, day, lead=lead, part=part)


def _span(
    match: re.Match[str], role: Role, days: tuple[date, date], unit: Unit, written: str
) -> Said:
    first, last = days
    prep = match.groupdict().get("prep") or ""
    role = Role.UNTIL if prep else role
    return Said(
        match.start(), match.end(), role, first, last, unit, written=prep + written
    )


def _date(day: date, today: date) -> str:
    return absolute_date_phrase(day, "zh", today=today, weekday=False)


def _inside(said: Said, titles: list[tuple[int, int]]) -> bool:
    return any(start <= said.start < end for start, end in titles)


def _with_clocks(text: str, found: list[Said]) -> list[Said]:
    """A time of day (上午10点) joins the day said just before it."""
    for match in _CLOCK.finditer(text):
        for index, said in enumerate(found):
            if (
                said.unit is Unit.DAY
                and said.role is not Role.PAST
                and said.end <= match.start()
                and not text[said.end : match.start()].strip()
            ):
                found[index] = said.joined(
                    match.start(), match.end(), _clock(match, said.part)
                )
                break
    return found


def _clock(match: re.Match[str], part: str) -> time:
    hour = chinese_number(match["hour"])
    minute = 30 if match["half"] else chinese_number(match["minute"] or "0")
    part = match["part"] or part
    if part in ("下午", "晚上") and hour < 12:
        hour += 12
    elif not part:
        hour = afternoon_hour(hour)
    return time(hour % 24, minute % 60)
