"""Absolute dates written the way the speaker's language says them.

"Friday 4 December at 10:00", 12月4日（周五）上午10点, 12月4日（週五）上午10點: what a
memory's text, an answer ("When is the plumber coming?") and MEMORY.md's "(until 6 Dec)"
show. The year is said only when it is not the current one.
"""

from __future__ import annotations

from datetime import date, datetime, time
from typing import Final

from .speech import writes_traditional

EN_WEEKDAYS: Final = (
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
)  # fmt: skip
EN_MONTHS: Final = (
    "January", "February", "March", "April", "May", "June", "July", "August",
    "September", "October", "November", "December",
)  # fmt: skip
_ZH_WEEKDAYS: Final = "一二三四五六日"


def language_family(language: str | None) -> str:
    """The language family of a tag: en, zh-Hans or zh-Hant (English when unknown)."""
    tag = (language or "").replace("_", "-").lower()
    if not tag.startswith("zh"):
        return "en"
    return "zh-Hant" if writes_traditional(language) else "zh-Hans"


def absolute_date_phrase(
    when: date | datetime,
    language: str | None,
    *,
    today: date | None = None,
    weekday: bool = True,
) -> str:
    """A day (and its time, for a datetime) in the speaker's language.

    `today` is the current day in the home's time zone: a date in another year says
    its year. A datetime is read as it is (convert it to the home's time zone first).
    """
    day = when.date() if isinstance(when, datetime) else when
    clock = when.time() if isinstance(when, datetime) else None
    with_year = today is not None and day.year != today.year
    family = language_family(language)
    if family == "en":
        text = f"{day.day} {EN_MONTHS[day.month - 1]}"
        if with_year:
            text += f" {day.year}"
        if weekday:
            text = f"{EN_WEEKDAYS[day.weekday()]} {text}"
        if clock is not None:
            text += f" at {clock:%H:%M}"
        return text
    text = f"{day.year}年" if with_year else ""
    text += f"{day.month}月{day.day}日"
    if weekday:
        week = "週" if family == "zh-Hant" else "周"
        text += f"（{week}{_ZH_WEEKDAYS[day.weekday()]}）"
    if clock is not None:
        text += chinese_clock(clock, traditional=family == "zh-Hant")
    return text


def chinese_clock(clock: time, *, traditional: bool) -> str:
    """上午10点, 下午2点30分, 晚上7点 (點 in traditional script)."""
    hour = clock.hour
    part = (
        "上午"
        if hour < 12
        else "中午"
        if hour == 12
        else "下午"
        if hour < 18
        else "晚上"
    )
    shown = hour if hour <= 12 else hour - 12
    dot = "點" if traditional else "点"
    minutes = f"{clock.minute}分" if clock.minute else ""
    return f"{part}{shown}{dot}{minutes}"


def month_phrase(year: int, month: int, language: str | None, *, today: date) -> str:
    """December, 12月; with the year when it is not the current one."""
    if language_family(language) == "en":
        name = EN_MONTHS[month - 1]
        return name if year == today.year else f"{name} {year}"
    return f"{month}月" if year == today.year else f"{year}年{month}月"


def until_phrase(last_day: date, language: str | None, *, today: date) -> str:
    """The short end a memory line shows: "until 6 Dec", "至12月6日"."""
    if language_family(language) == "en":
        text = f"until {last_day.day} {EN_MONTHS[last_day.month - 1][:3]}"
        return text if last_day.year == today.year else f"{text} {last_day.year}"
    return "至" + absolute_date_phrase(last_day, language, today=today, weekday=False)
