"""Relative dates made absolute when a memory is learnt, and the end a fact has."""

from __future__ import annotations

from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

import pytest

from custom_components.assist_memory.engine.language.date_phrases import (
    absolute_date_phrase,
    until_phrase,
)
from custom_components.assist_memory.engine.language.llm_facts import (
    extraction_instructions,
    parse_llm_facts,
)
from custom_components.assist_memory.engine.language.time_phrases import (
    ends_at,
    home_zone,
    home_zone_or_local,
    last_day_of,
    read_time,
    when_said,
)

HOME = ZoneInfo("Europe/London")
SATURDAY = datetime(2026, 11, 28, 19, 30, tzinfo=HOME)


@pytest.mark.parametrize(
    ("said", "written", "until"),
    [
        (
            "The plumber is coming tomorrow at ten",
            "The plumber is coming on Sunday 29 November at 10:00",
            date(2026, 11, 30),
        ),
        (
            "Yesterday I went to the dentist",
            "On Friday 27 November I went to the dentist",
            None,
        ),
        (
            "We have guests staying until Sunday",
            "We have guests staying until Sunday 29 November",
            date(2026, 11, 29),
        ),
        (
            "Tom is off school for a week",
            "Tom is off school for a week (until Saturday 5 December)",
            date(2026, 12, 5),
        ),
        ("We moved here last year", "We moved here in 2025", None),
        (
            "The builders come at half past four on Friday",
            "The builders come on Friday 4 December at 16:30",
            date(2026, 12, 5),
        ),
        (
            "水管工明天上午10点来",
            "水管工11月29日（周日）上午10点来",
            date(2026, 11, 30),
        ),
        ("这几天我感冒了", "这几天（到12月1日）我感冒了", date(2026, 12, 1)),
        ("我們下週去日本", "我們11月30日那週去日本", date(2026, 12, 7)),
        ("明晚有人来", "11月29日（周日）晚上有人来", date(2026, 11, 30)),
        ("我上周五去了医院", "我11月20日（周五）去了医院", None),
        ("我的猫这个周末寄养", "我的猫11月28日那个周末寄养", date(2026, 11, 29)),
        ("奶奶五个月后来", "奶奶2027年4月28日（周三）来", date(2027, 4, 29)),
        ("I'm away until next weekend", None, date(2026, 12, 6)),
        ("The bins go out this Sunday night", None, date(2026, 11, 30)),
        ("She left two weeks ago", "She left on Saturday 14 November", None),
        (
            "We'll know in a month",
            "We'll know on Monday 28 December",
            date(2026, 12, 29),
        ),
        ("I'm busy this month", "I'm busy in November", date(2026, 11, 30)),
        ("I'm off for a fortnight", None, date(2026, 12, 12)),
        ("The meeting is tomorrow at noon", None, date(2026, 11, 30)),
        (
            "The party is on Saturday at 8pm",
            "The party is on Saturday 5 December at 20:00",
            date(2026, 12, 6),
        ),
        (
            "The taxi comes tomorrow at quarter to seven",
            "The taxi comes on Sunday 29 November at 18:45",
            date(2026, 11, 30),
        ),
        (
            "Lunch is tomorrow at 12am",
            "Lunch is on Sunday 29 November at 00:00",
            date(2026, 11, 30),
        ),
    ],
)
def test_a_sentence_read_at_a_moment(
    said: str, written: str | None, until: date | None
) -> None:
    reading = read_time(said, SATURDAY, "en" if said.isascii() else "zh")

    if written is not None:
        assert reading.text == written
    assert reading.until == until


def test_a_date_in_the_speakers_language() -> None:
    friday = datetime(2026, 12, 4, 10, 0, tzinfo=HOME)

    assert absolute_date_phrase(friday, "en") == "Friday 4 December at 10:00"
    assert absolute_date_phrase(friday, "zh-CN") == "12月4日（周五）上午10点"
    assert absolute_date_phrase(friday, "zh-TW") == "12月4日（週五）上午10點"
    later = datetime(2027, 1, 8, 14, 30, tzinfo=HOME)
    assert absolute_date_phrase(later, "en", today=date(2026, 12, 1)) == (
        "Friday 8 January 2027 at 14:30"
    )
    assert absolute_date_phrase(later, "zh-Hans", today=date(2026, 12, 1)) == (
        "2027年1月8日（周五）下午2点30分"
    )
    assert absolute_date_phrase(
        datetime(2026, 12, 4, 19, 0, tzinfo=HOME), "zh-Hans"
    ) == ("12月4日（周五）晚上7点")


def test_the_short_end_a_memory_line_shows() -> None:
    today = date(2026, 11, 28)

    assert until_phrase(date(2026, 12, 6), "en", today=today) == "until 6 Dec"
    assert until_phrase(date(2027, 1, 2), "en", today=today) == "until 2 Jan 2027"
    assert until_phrase(date(2026, 12, 6), "zh-Hans", today=today) == "至12月6日"


def test_memory_md_takes_the_homes_zone_else_the_one_tz_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The home's zone wins; without one, the zone the TZ variable names (as the
    Supervisor gives an add-on Home Assistant's), with its summer time; else the
    system's offset now (a POSIX rule the system reads, or no TZ at all)."""
    monkeypatch.setenv("TZ", "Pacific/Auckland")
    assert home_zone_or_local("America/Los_Angeles") == ZoneInfo("America/Los_Angeles")
    assert home_zone_or_local("Mars/Olympus_Mons") == UTC  # unknown: as time words do
    assert home_zone_or_local(None) == ZoneInfo("Pacific/Auckland")
    monkeypatch.setenv("TZ", ":America/Los_Angeles")
    assert home_zone_or_local(None) == ZoneInfo("America/Los_Angeles")
    system = datetime.now().astimezone().tzinfo
    monkeypatch.setenv("TZ", "CET-1CEST")
    assert home_zone_or_local(None) == system
    monkeypatch.delenv("TZ")
    assert home_zone_or_local(None) == system


def test_an_end_is_the_next_midnight_at_home_and_reads_back_as_its_last_day() -> None:
    shanghai = home_zone("Asia/Shanghai")

    moment = ends_at(date(2026, 12, 6), shanghai)

    assert moment == datetime(2026, 12, 6, 16, 0, tzinfo=UTC)
    assert last_day_of(moment, shanghai) == date(2026, 12, 6)
    assert home_zone("Not/AZone") is UTC
    assert home_zone(None) is UTC


def test_the_llm_is_told_now_and_its_end_is_taken() -> None:
    instructions = extraction_instructions(SATURDAY)

    assert "Now: Saturday 28 November 2026, 19:30 (Europe/London, UTC+0000)." in (
        instructions
    )
    assert "until" in instructions
    (fact, no_end, bad_end) = parse_llm_facts(
        {
            "facts": [
                {"content": "Guests stay", "category": "event", "until": "2026-11-29"},
                {"content": "Likes tea", "category": "preference", "until": None},
                {"content": "Owns a van", "category": "fact", "until": "Sunday"},
            ]
        }
    )
    assert fact.until == date(2026, 11, 29)
    assert fact.to_dict()["until"] == "2026-11-29"
    assert no_end.until is None
    assert "until" not in no_end.to_dict()
    assert bad_end.until is None


@pytest.mark.parametrize(
    ("said", "until"),
    [
        ("The plumber is coming on Friday 4 December at 10:00", date(2026, 12, 5)),
        ("Guests until Sunday, 29 November", date(2026, 11, 29)),
        ("水管工12月4日（周五）上午10点来", date(2026, 12, 5)),
        ("客人住到2027年1月2日", date(2027, 1, 2)),
        ("We'll be in Rome until the 3rd of January", date(2027, 1, 3)),
        ("I went to the dentist on Monday 23 November", None),
        ("I met her on 30 February", None),
    ],
)
def test_a_date_said_absolutely_stays_as_said_and_gives_the_end(
    said: str, until: date | None
) -> None:
    reading = read_time(said, SATURDAY)

    assert reading.text == said
    assert reading.dates == []
    assert reading.until == until


@pytest.mark.parametrize(
    ("memory", "language", "answer"),
    [
        (
            "The plumber is coming on Friday 4 December at 10:00",
            "en",
            "On Friday 4 December at 10:00",
        ),
        ("The plumber is coming tomorrow", "en", "On Sunday 29 November"),
        ("水管工12月4日（周五）上午10点来", "zh-CN", "12月4日（周五）上午10点"),
        ("水電工12月4日（週五）上午10點來", "zh-HK", "12月4日（週五）上午10點"),
        ("The party is on 2 January", None, "On Saturday 2 January 2027"),
        ("Anna likes tea", "en", None),
    ],
)
def test_when_a_memory_says_something_happens(
    memory: str, language: str | None, answer: str | None
) -> None:
    assert when_said(memory, SATURDAY, language) == answer


@pytest.mark.parametrize(
    ("said", "written", "dates", "until"),
    [
        ("我家的猫叫周六", "我家的猫叫周六", [], None),
        ("我上周三去了医院", "我11月18日（周三）去了医院", ["2026-11-18"], None),
        ("我周二去过公司", "我11月24日（周二）去过公司", ["2026-11-24"], None),
        ("明年我们去日本", "2027年我们去日本", ["2027"], date(2028, 1, 1)),
        ("前年我搬了家", "2024年我搬了家", ["2024"], None),
        ("这个月我很忙", "11月我很忙", ["2026-11"], date(2026, 11, 30)),
        (
            "两个月后装修",
            "2027年1月28日（周四）装修",
            ["2027-01-28"],
            date(2027, 1, 29),
        ),
        ("三周前我去了上海", "11月7日（周六）我去了上海", ["2026-11-07"], None),
        ("我住了五天", "我住了五天", [], None),
        (
            "中午12点开会明天",
            "中午12点开会11月29日（周日）",
            ["2026-11-29"],
            date(2026, 11, 30),
        ),
        (
            "水管工明天中午十二点来",
            "水管工11月29日（周日）中午12点来",
            ["2026-11-29T12:00"],
            date(2026, 11, 30),
        ),
        (
            "明早8点出发",
            "11月29日（周日）上午8点出发",
            ["2026-11-29T08:00"],
            date(2026, 11, 30),
        ),
        (
            "我们下周末去露营",
            "我们12月5日那个周末去露营",
            ["2026-12-05/2026-12-06"],
            date(2026, 12, 7),
        ),
        ("下下周三体检", "12月9日（周三）体检", ["2026-12-09"], date(2026, 12, 10)),
        (
            "Next weekend we go camping",
            "On the weekend of Saturday 5 December we go camping",
            ["2026-12-05/2026-12-06"],
            date(2026, 12, 7),
        ),
        ("My favourite band is Yesterday", "My favourite band is Yesterday", [], None),
        ("I was ill for two days", "I was ill for two days", [], None),
        (
            "The play is called Monday Blues",
            "The play is called Monday Blues",
            [],
            None,
        ),
        (
            "Until the end of the week I'm busy",
            "Until Sunday 29 November I'm busy",
            ["2026-11-29"],
            date(2026, 11, 29),
        ),
        (
            "in two months we move",
            "On Thursday 28 January 2027 we move",
            ["2027-01-28"],
            date(2027, 1, 29),
        ),
        (
            "We'll paint the hall next Sunday",
            "We'll paint the hall on Sunday 6 December",
            ["2026-12-06"],
            date(2026, 12, 7),
        ),
        (
            "I saw her last Tuesday",
            "I saw her on Tuesday 24 November",
            ["2026-11-24"],
            None,
        ),
    ],
)
def test_more_sentences_read(
    said: str, written: str, dates: list[str], until: date | None
) -> None:
    reading = read_time(said, SATURDAY)

    assert (reading.text, reading.dates, reading.until) == (written, dates, until)


@pytest.mark.parametrize(
    ("said", "written", "until"),
    [
        (
            "I'm working nights until the 10th",
            "I'm working nights until Thursday 10 December",
            date(2026, 12, 10),
        ),
        (
            "We're off to Spain on the 12th",
            "We're off to Spain on Saturday 12 December",
            date(2026, 12, 13),
        ),
        ("On the 30th we party", "On Monday 30 November we party", date(2026, 12, 1)),
        (
            "On the 31st we party",
            "On Thursday 31 December we party",
            date(2027, 1, 1),
        ),
        ("I'll be in Berlin all weekend", None, date(2026, 11, 29)),
        ("My friend Friday is visiting", "My friend Friday is visiting", None),
        ("这个月底我要搬家", "11月30日（周一）我要搬家", date(2026, 12, 1)),
    ],
)
def test_days_of_the_month_and_weekends(
    said: str, written: str | None, until: date | None
) -> None:
    reading = read_time(said, SATURDAY)

    if written is not None:
        assert reading.text == written
    assert reading.until == until
