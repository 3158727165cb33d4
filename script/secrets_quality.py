"""Secrets measured on the labelled corpus tests/data/corpus/extraction.json.

Each utterance of the chosen splits is redacted as every kept message is
(`secrets_filter.redact`). A secret is missed when one of the secret strings said in it
is still there afterwards, compared as the corpus's matching rule says: case aside,
curly apostrophes read as straight, and spaces and hyphens taken out of digit runs
("771 204" is "771204"). A false alarm is an utterance without a secret that
`contains_secret` calls one. Redaction must also leave what is worth keeping: a
`keep` label's required term that the utterance says and its redaction no longer does
is counted as removed.

The test split is reported once, by someone who did not tune on it: `script/bench
--secrets` measures it unless told `--split train,development`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
import json
from pathlib import Path
import re
from typing import Any, Final

from assist_memory_engine.language.secrets_filter import contains_secret, redact

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "corpus" / "extraction.json"
# Secrets said in passing, written apart later (development and test splits only).
PROBE = ROOT / "tests" / "data" / "corpus" / "secrets_probe.json"
# And again by another writer, with other speakers and look-alikes that must stay.
FRESH = ROOT / "tests" / "data" / "corpus" / "secrets_fresh.json"
# And by two more writers with briefs of their own, said at home.
MORE = ROOT / "tests" / "data" / "corpus" / "secrets_more.json"
# And by four more, with train, development and test splits: the secret head learns
# from its train split too.
HOME = ROOT / "tests" / "data" / "corpus" / "secrets_home.json"
SPLITS: Final = ("train", "development", "test")
LANGUAGES: Final = ("en", "zh-Hans", "zh-Hant")
_DIGIT_GAP: Final = re.compile(r"(?<=\d)[\s-]+(?=\d)")


@dataclass(slots=True)
class Tally:
    """One split and language: utterances, secrets missed, false alarms, terms lost."""

    utterances: int = 0
    secrets: int = 0
    missed: int = 0
    clean: int = 0
    false_alarms: int = 0
    terms: int = 0
    terms_removed: int = 0
    # The ids of the utterances with a missed secret or a false alarm.
    missed_in: list[str] = field(default_factory=list)
    alarmed_in: list[str] = field(default_factory=list)


def bare(text: str) -> str:
    """Text as the matching rule compares it."""
    return _DIGIT_GAP.sub("", text.casefold().replace("’", "'").replace("‘", "'"))


def items(splits: Iterable[str], path: Path = CORPUS) -> list[dict[str, Any]]:
    """The corpus's utterances of the given splits only."""
    wanted = set(splits)
    unknown = wanted - set(SPLITS)
    if unknown:
        raise ValueError(f"unknown split: {', '.join(sorted(unknown))}")
    document = json.loads(path.read_text(encoding="utf-8"))
    return [item for item in document["items"] if item["split"] in wanted]


def measure(
    found: Sequence[dict[str, Any]], withhold: Callable[[str], str] = redact
) -> dict[tuple[str, str], Tally]:
    """Tallies by (split, language), in the corpus's order of splits and languages.

    `withhold`: what keeps a message (the filter's `redact`, or `withheld`: the
    filter, then the second look from meaning where a message is kept).
    """
    tallies: dict[tuple[str, str], Tally] = defaultdict(Tally)
    for item in found:
        tally = tallies[item["split"], item["lang"]]
        said = item["say"]
        redacted = bare(withhold(said))
        tally.utterances += 1
        missed = [s for s in item["secrets"] if bare(s) in redacted]
        tally.secrets += len(item["secrets"])
        tally.missed += len(missed)
        if missed:
            tally.missed_in.append(item["id"])
        if not item["secrets"]:
            tally.clean += 1
            if contains_secret(said):
                tally.false_alarms += 1
                tally.alarmed_in.append(item["id"])
        for term in _required_terms(item):
            alternatives = [bare(a) for a in term.split("|")]
            if any(a in bare(said) for a in alternatives):
                tally.terms += 1
                tally.terms_removed += not any(a in redacted for a in alternatives)
    order = {
        key: n for n, key in enumerate((s, lang) for s in SPLITS for lang in LANGUAGES)
    }
    return dict(
        sorted(tallies.items(), key=lambda pair: order.get(pair[0], len(order)))
    )


def _required_terms(item: dict[str, Any]) -> list[str]:
    return [term for label in item.get("keep", []) for term in label["require"]]


HEADER: Final = (
    "split",
    "language",
    "utterances",
    "secrets said",
    "missed",
    "without a secret",
    "false alarms",
    "kept terms removed",
)


def rows(tallies: dict[tuple[str, str], Tally]) -> list[list[object]]:
    """The table's rows, one per split and language."""
    return [
        [
            split,
            language,
            t.utterances,
            t.secrets,
            t.missed,
            t.clean,
            t.false_alarms,
            f"{t.terms_removed} of {t.terms}",
        ]
        for (split, language), t in tallies.items()
    ]


def listed(tallies: dict[tuple[str, str], Tally]) -> str:
    """Which utterances had a secret missed, and which a false alarm."""
    missed = [i for t in tallies.values() for i in t.missed_in]
    alarmed = [i for t in tallies.values() for i in t.alarmed_in]
    return (
        f"Missed in: {', '.join(missed) or 'none'}\n"
        f"False alarms: {', '.join(alarmed) or 'none'}"
    )
