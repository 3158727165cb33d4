"""Learning without an LLM, measured on the corpus written apart (extraction.json).

tests/data/corpus/extraction.json: utterances by several writers with their own
briefs, each labelled with what a careful person would keep and every secret said,
split by writer (its `split_rule`). Each utterance goes through what learning does
with what a person said: the extractor, then its dates written out
(`time_phrases.with_time`, today being the corpus's day) and its place (whose it is);
each fact is judged by the corpus's matching rule (`matches` below is that rule in
code). `script/bench --learning` prints the test split; the training script reads the
train and development splits.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
import json
from pathlib import Path
import re
from typing import Any, Final

from extraction_quality import occurs

from assist_memory_engine.language.fact_scope import placed
from assist_memory_engine.language.facts import Fact
from assist_memory_engine.language.time_phrases import with_time

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "corpus" / "extraction.json"
LANGUAGES: Final = ("en", "zh-Hans", "zh-Hant")
_MONTHS: Final = (
    "January February March April May June July August September October November "
    "December"
).split()

type Extract = Callable[[str, str], list[Fact]]


def corpus() -> dict[str, Any]:
    """The whole corpus: description, matching rule, writers, items."""
    data: dict[str, Any] = json.loads(CORPUS.read_text(encoding="utf-8"))
    return data


def items(*splits: str) -> list[dict[str, Any]]:
    """The utterances of the given splits."""
    return [item for item in corpus()["items"] if item["split"] in splits]


def corpus_day() -> datetime:
    """The morning of the day the corpus was written (its relative dates mean it)."""
    day = date.fromisoformat(corpus()["today"])
    return datetime(day.year, day.month, day.day, 9, tzinfo=UTC)


def _carries_date(fact: Fact, wanted: str) -> bool:
    """Whether a fact says the date a label wants (YYYY-MM-DD, YYYY-MM or YYYY)."""
    parts = [int(p) for p in wanted.split("-")]
    if len(parts) == 1:
        return str(parts[0]) in fact.content
    month = _MONTHS[parts[1] - 1]
    if len(parts) == 2:
        forms = [f"{month} {parts[0]}", f"{parts[0]}年{parts[1]}月"]
    else:
        day = parts[2]
        forms = [f"{day} {month}", f"{month} {day}", f"{parts[1]}月{day}日"]
        if fact.until is not None and fact.until.isoformat() == wanted:
            return True
    return any(form.lower() in fact.content.lower() for form in forms)


def matches(fact: Fact, label: dict[str, Any]) -> bool:
    """Whether a kept fact is the memory a label describes (the corpus's rule)."""
    wanted_date = label.get("date")
    dated = wanted_date is not None and _carries_date(fact, wanted_date)
    required = all(occurs(term, fact.content) or dated for term in label["require"])
    forbidden = any(
        occurs(term, fact.content, whole_word=True) for term in label["forbid"]
    )
    return required and not forbidden


def _bare(text: str) -> str:
    """Text compared for secrets: lower case, no spaces or hyphens."""
    return re.sub(r"[\s\-]", "", text).lower()


def keeps_secret(text: str, secrets: Sequence[str]) -> bool:
    """Whether a kept text holds one of the secrets said."""
    return any(_bare(secret) in _bare(text) for secret in secrets)


@dataclass(slots=True)
class Tally:
    """Counts for one language."""

    labels: int = 0
    found: int = 0
    kept: int = 0
    right: int = 0
    secrets: int = 0
    from_negatives: int = 0
    misses: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)

    @property
    def recall(self) -> float:
        """Share of the labelled memories found."""
        return self.found / self.labels if self.labels else 1.0

    @property
    def precision(self) -> float:
        """Share of the kept memories that were right."""
        return self.right / self.kept if self.kept else 1.0


def learnt(extract: Extract, item: dict[str, Any], now: datetime) -> list[Fact]:
    """The facts learning keeps from one utterance: extracted, dated, placed."""
    return [
        placed(with_time(fact, now, item["lang"]))
        for fact in extract(item["say"], item["lang"])
    ]


def measure(
    extract: Extract, found_items: Sequence[dict[str, Any]]
) -> dict[str, Tally]:
    """Recall, precision and secrets kept, by language."""
    now = corpus_day()
    tallies: dict[str, Tally] = defaultdict(Tally)
    for item in found_items:
        tally = tallies[item["lang"]]
        facts = learnt(extract, item, now)
        labels = list(item["keep"])
        tally.labels += len(labels)
        unmatched = list(labels)
        for fact in facts:
            tally.kept += 1
            if keeps_secret(fact.content, item["secrets"]):
                tally.secrets += 1
            label = next((lab for lab in unmatched if matches(fact, lab)), None)
            if label is not None:
                unmatched.remove(label)
                tally.right += 1
                tally.found += 1
            else:
                if not labels:
                    tally.from_negatives += 1
                tally.wrong.append(f"{item['id']}: {item['say']} -> {fact.content}")
        tally.misses += [
            f"{item['id']}: {item['say']} (wants {label['require']})"
            for label in unmatched
        ]
    return dict(tallies)
