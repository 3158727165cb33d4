"""Time phrases measured on the labelled set tests/data/time_set.json.

Each sentence is read as learning reads it (`read_time`, no LLM) at the case's "now" in
its home's time zone; its dates are right when they are the labelled ones in order, its
end when it is the labelled last day (or none). The baseline keeps sentences as said:
no dates and no end, which is right only for the sentences that name neither.
`script/bench` prints the figures; `problems()` is the set's self-check.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import date, datetime
import json
from pathlib import Path
from typing import Any, Final

from assist_memory_engine.language.time_phrases import home_zone, read_time

ROOT = Path(__file__).resolve().parent.parent
TIME_SET = ROOT / "tests" / "data" / "time_set.json"
# Written after the rules, before any change for it: ends only.
TIME_PROBE = ROOT / "tests" / "data" / "time_probe.json"
LANGUAGES: Final = ("en", "zh-Hans", "zh-Hant")
MIN_CASES: Final = 100


@dataclass(slots=True)
class Tally:
    """Cases, and how many had their dates and their end right."""

    cases: int = 0
    dates: int = 0
    ends: int = 0
    both: int = 0

    def add(self, dates_right: bool, end_right: bool) -> None:
        """Count one case."""
        self.cases += 1
        self.dates += dates_right
        self.ends += end_right
        self.both += dates_right and end_right


@dataclass(slots=True)
class Report:
    """Tallies by language for the reader and the baseline, and the cases it missed."""

    reader: dict[str, Tally]
    baseline: dict[str, Tally]
    missed: list[str]


def cases(path: Path = TIME_SET) -> list[dict[str, Any]]:
    """The labelled cases, each with its own "now" and "time_zone" filled in."""
    document = json.loads(path.read_text(encoding="utf-8"))
    return [
        {"now": document["now"], "time_zone": document["time_zone"], **case}
        for case in document["cases"]
    ]


def measure(path: Path = TIME_SET) -> Report:
    """Read every case; tally by language (a case without "dates" counts its end only)."""
    reader: dict[str, Tally] = defaultdict(Tally)
    baseline: dict[str, Tally] = defaultdict(Tally)
    missed = []
    for case in cases(path):
        now = datetime.fromisoformat(case["now"]).astimezone(
            home_zone(case["time_zone"])
        )
        reading = read_time(case["text"], now, case["language"])
        until = reading.until.isoformat() if reading.until else None
        dates_right = reading.dates == case.get("dates", reading.dates)
        end_right = until == case["until"]
        reader[case["language"]].add(dates_right, end_right)
        baseline[case["language"]].add(not case.get("dates"), case["until"] is None)
        if not (dates_right and end_right):
            missed.append(
                f"{case['text']!r}: dates {reading.dates} (want"
                f" {case.get('dates', 'any')}), until {until} (want {case['until']})"
            )
    return Report(dict(reader), dict(baseline), missed)


def problems() -> list[str]:
    """What is wrong with the set itself (empty when it is sound)."""
    found = []
    every = cases()
    if len(every) < MIN_CASES:
        found.append(f"{len(every)} cases, fewer than {MIN_CASES}")
    for case in every:
        if case["language"] not in LANGUAGES:
            found.append(f"{case['text']!r}: unknown language {case['language']}")
        if case["until"] is not None:
            date.fromisoformat(case["until"])
        datetime.fromisoformat(case["now"])
    found.extend(
        f"no case in {language}"
        for language in LANGUAGES
        if not any(case["language"] == language for case in every)
    )
    return found
