"""The scope a known speaker's statements are learnt into, on tests/data/scope_set.json.

Each statement is said once by a known speaker into an empty store, through the
product's learning (the rule-based extractor, then `TurnMemory.learn` with the
speaker's scope, as learning after a turn does), and the scopes of what it stored are
judged by the set's rule (its header says it in words: `judge` below is that rule).
`script/bench --scope` prints the figures; `problems()` is the set's self-check.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
import json
from pathlib import Path
from typing import Final, Literal, NotRequired, TypedDict

from assist_memory_engine.storage.models import HOUSEHOLD_SCOPE

ROOT = Path(__file__).resolve().parent.parent
SCOPE_SET = ROOT / "tests" / "data" / "scope_set.json"
# Written after the rules, never tuned on: how they do on sentences they did not see.
SCOPE_PROBE = ROOT / "tests" / "data" / "scope_probe.json"
LANGUAGES: Final = ("en", "zh-Hans", "zh-Hant")
EXPECTATIONS: Final = ("household", "personal", "withheld")
SPEAKER_SCOPE: Final = "0123456789abcdef0123456789abcdef"  # a Home Assistant user id
MIN_STATEMENTS: Final = 80

type Expect = Literal["household", "personal", "withheld"]
type Verdict = Literal["right", "wrong", "not learnt"]


class Item(TypedDict):
    """A statement and the scope what it says belongs in."""

    id: str
    lang: str
    say: str
    expect: Expect
    why: NotRequired[str]


def items(path: Path = SCOPE_SET) -> list[Item]:
    """The labelled statements (of the set, or of the later probe)."""
    found: list[Item] = json.loads(path.read_text(encoding="utf-8"))["items"]
    return found


def problems(found: Sequence[Item]) -> list[str]:
    """Every broken rule of the set (an empty list when all is well)."""
    broken: list[str] = []
    if len({item["id"] for item in found}) != len(found):
        broken.append("ids are not unique")
    if len(found) < MIN_STATEMENTS:
        broken.append(f"only {len(found)} statements, want {MIN_STATEMENTS}")
    broken += [
        f"{item['id']}: unknown language or expectation"
        for item in found
        if item["lang"] not in LANGUAGES or item["expect"] not in EXPECTATIONS
    ]
    expected = Counter(item["expect"] for item in found)
    if abs(expected["household"] - expected["personal"] - expected["withheld"]) > 2:
        broken.append(f"not half household, half personal: {dict(expected)}")
    return broken


def judge(item: Item, scopes: Sequence[str]) -> Verdict:
    """Whether the scopes a statement was stored in are the labelled one."""
    if item["expect"] == "withheld":
        return "wrong" if scopes else "right"
    if not scopes:
        return "not learnt"
    wanted = HOUSEHOLD_SCOPE if item["expect"] == "household" else SPEAKER_SCOPE
    return "right" if all(scope == wanted for scope in scopes) else "wrong"


def stored_scopes(item: Item) -> list[str]:
    """The scopes of the memories the statement leaves in an empty store."""
    # A sibling script, imported as bench.py runs it.
    from extraction_quality import learning, tell

    with learning() as turns:
        tell(turns, item["id"], item["say"], item["lang"], SPEAKER_SCOPE)
        return [m.scope for m in turns.engine.store.list(limit=100).items]


@dataclass(slots=True)
class Tally:
    """Verdicts for one language or one expectation."""

    verdicts: Counter[Verdict] = field(default_factory=Counter)
    private_shared: int = 0  # personal statements stored in the household

    @property
    def statements(self) -> int:
        """How many statements were judged."""
        return sum(self.verdicts.values())

    @property
    def right_share(self) -> float:
        """Right among all statements (not learnt counts against)."""
        return self.verdicts["right"] / self.statements if self.statements else 0.0


@dataclass(slots=True)
class Report:
    """Tallies by language and by expected scope, and what went wrong."""

    tallies: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    wrong: list[str] = field(default_factory=list)
    not_learnt: list[str] = field(default_factory=list)


def measure(found: Sequence[Item]) -> Report:
    """Say every statement and judge where it went."""
    report = Report()
    for item in found:
        scopes = stored_scopes(item)
        verdict = judge(item, scopes)
        shared = item["expect"] == "personal" and HOUSEHOLD_SCOPE in scopes
        for name in ("all", item["lang"], item["expect"]):
            report.tallies[name].verdicts[verdict] += 1
            report.tallies[name].private_shared += shared
        if verdict == "wrong":
            report.wrong.append(f"{item['id']} {item['say']}")
        elif verdict == "not learnt":
            report.not_learnt.append(f"{item['id']} {item['say']}")
    return report


def rows(report: Report) -> list[list[object]]:
    """One table row per language and per expected scope."""
    order = ["all", *LANGUAGES, *EXPECTATIONS]
    return [
        [
            name,
            tally.statements,
            tally.verdicts["right"],
            f"{tally.right_share:.3f}",
            tally.verdicts["wrong"],
            tally.verdicts["not learnt"],
            tally.private_shared,
        ]
        for name in order
        if (tally := report.tallies.get(name)) is not None
    ]


HEADER: Final = (
    "",
    "statements",
    "right",
    "share",
    "wrong scope",
    "not learnt",
    "personal put in household",
)
