"""Rule extraction measured on the labelled set tests/data/extraction_set.json.

Every utterance goes through the rule-based extractor, as learning after a turn does;
each fact is judged by the set's matching rule (its header says it in words:
`matches` below is that rule). Updates are said in order by one user into an empty
store through the product's write-back (`TurnMemory.learn`), and the store is then
looked at. `script/bench` prints the figures; `problems()` is the set's self-check.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
import json
from pathlib import Path
import re
import tempfile
from typing import Final, NotRequired, TypedDict

from assist_memory_engine.conversation.conversation_log import ConversationLog
from assist_memory_engine.conversation.profile import UserProfile
from assist_memory_engine.conversation.turn_settings import LearnSettings
from assist_memory_engine.conversation.turns import ExtractionBatch, TurnMemory
from assist_memory_engine.conversation.working import WorkingMemoryManager
from assist_memory_engine.language.facts import Fact
from assist_memory_engine.language.rule_extraction import RuleBasedExtractor
from assist_memory_engine.memory.memory_engine import MemoryEngine
from assist_memory_engine.storage.models import CATEGORIES
from assist_memory_engine.storage.settings import StoreSettings

ROOT = Path(__file__).resolve().parent.parent
EXTRACTION_SET = ROOT / "tests" / "data" / "extraction_set.json"
LANGUAGES: Final = ("en", "zh-Hans", "zh-Hant")
# Shares of the utterances by language: (minimum, maximum).
LANGUAGE_SHARES: Final = {
    "en": (0.5, 0.6), "zh-Hans": (0.25, 0.35), "zh-Hant": (0.1, 0.2),
}  # fmt: skip
POSITIVE_KINDS: Final = (
    "preference", "me", "household", "location", "routine", "correction", "filler",
    "update",
)  # fmt: skip
NEGATIVE_KINDS: Final = (
    "command", "question", "hypothetical", "sarcasm", "small_talk", "quote", "secret",
)  # fmt: skip
MIN_UTTERANCES: Final = 400
# How the labels name the speaker; the only required words an utterance need not say.
SPEAKER_WORDS: Final = frozenset({"user", "用户", "用戶"})
SPEAKER_SCOPE: Final = "user-1"
_CJK: Final = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


class Label(TypedDict):
    """A memory a careful person would keep."""

    category: list[str]
    require: list[str]
    forbid: list[str]


class Replaces(TypedDict):
    """What the last utterance of an update replaces."""

    subject: str
    old: list[str]


class Item(TypedDict):
    """An utterance and what should be kept from it."""

    id: str
    lang: str
    kind: str
    say: str
    expect: list[Label]
    secret: NotRequired[str]
    sequence: NotRequired[str]
    replaces: NotRequired[Replaces]


def items() -> list[Item]:
    """The labelled utterances."""
    found: list[Item] = json.loads(EXTRACTION_SET.read_text(encoding="utf-8"))["items"]
    return found


# -- the matching rule ------------------------------------------------------------------


def _plain(text: str) -> str:
    return text.lower().replace("\u2019", "'")


def occurs(term: str, text: str, *, whole_word: bool = False) -> bool:
    """Whether one of the term's '|'-separated alternatives occurs in the text.

    Chinese anywhere; Latin script at a word start, or as a whole word or phrase.
    """
    text = _plain(text)
    for alternative in _plain(term).split("|"):
        if _CJK.search(alternative):
            found = alternative in text
        else:
            end = r"(?![a-z0-9])" if whole_word else ""
            found = bool(
                re.search(rf"(?<![a-z0-9]){re.escape(alternative)}{end}", text)
            )
        if found:
            return True
    return False


def matches(fact: Fact, label: Label) -> bool:
    """Whether an extracted fact is the memory a label describes."""
    return (
        fact.category in label["category"]
        and all(occurs(term, fact.content) for term in label["require"])
        and not any(occurs(t, fact.content, whole_word=True) for t in label["forbid"])
    )


def holds_secret(fact: Fact, secret: str) -> bool:
    """Whether a fact keeps a secret (spaces and dashes aside)."""

    def bare(text: str) -> str:
        return re.sub(r"[\s\-]", "", text).lower()

    return bare(secret) in bare(fact.content)


# -- self-check -------------------------------------------------------------------------


def problems(found: Sequence[Item]) -> list[str]:
    """Every broken rule of the set (an empty list when all is well)."""
    broken: list[str] = []
    if len({item["id"] for item in found}) != len(found):
        broken.append("ids are not unique")
    if len(found) < MIN_UTTERANCES:
        broken.append(f"only {len(found)} utterances, want {MIN_UTTERANCES}")
    languages = Counter(item["lang"] for item in found)
    broken += [
        f"{lang}: {languages[lang]} of {len(found)} utterances"
        for lang, (low, high) in LANGUAGE_SHARES.items()
        if not low <= languages[lang] / len(found) <= high
    ]
    for item in found:
        broken += [f"{item['id']}: {problem}" for problem in item_problems(item)]
    sequences: dict[str, list[Item]] = defaultdict(list)
    for item in found:
        if "sequence" in item:
            sequences[item["sequence"]].append(item)
    for name, steps in sequences.items():
        broken += [f"{name}: {problem}" for problem in sequence_problems(steps)]
    return broken


def item_problems(item: Item) -> list[str]:
    """The broken rules of one utterance."""
    broken: list[str] = []
    kind, labels = item["kind"], item["expect"]
    if item["lang"] not in LANGUAGES:
        broken.append(f"unknown language {item['lang']!r}")
    if kind not in POSITIVE_KINDS + NEGATIVE_KINDS:
        broken.append(f"unknown kind {kind!r}")
    if (kind in POSITIVE_KINDS) != bool(labels):
        broken.append("positive kinds have labels, negative kinds none")
    if (kind == "secret") != ("secret" in item):
        broken.append("a secret utterance names its secret, no other does")
    if (kind == "update") != ("sequence" in item):
        broken.append("an update belongs to a sequence, nothing else does")
    for label in labels:
        broken += [
            f"bad category {c!r}" for c in label["category"] if c not in CATEGORIES
        ]
        broken += [
            f"requires {term!r}, which it does not say"
            for term in label["require"]
            if not SPEAKER_WORDS.intersection(term.split("|"))
            and not occurs(term, item["say"])
        ]
    return broken


def sequence_problems(steps: Sequence[Item]) -> list[str]:
    """The broken rules of an update sequence: the last step replaces earlier words."""
    *earlier, last = steps
    replaces = last.get("replaces")
    if not earlier or replaces is None or any("replaces" in s for s in earlier):
        return ["two or more steps, the last one (only) saying what it replaces"]
    return [
        f"the old {old!r} is not said before, or still said last"
        for old in replaces["old"]
        if occurs(old, last["say"]) or not any(occurs(old, s["say"]) for s in earlier)
    ]


# -- measuring --------------------------------------------------------------------------


@dataclass(slots=True)
class Tally:
    """Labels found and facts judged, for one language or kind."""

    labels: int = 0
    found: int = 0
    facts: int = 0
    correct: int = 0
    utterances: int = 0
    storing: int = 0  # utterances that gave any fact

    @property
    def precision(self) -> float | None:
        """Correct facts among those extracted (None: no fact)."""
        return self.correct / self.facts if self.facts else None

    @property
    def recall(self) -> float | None:
        """Labels found (None: no label)."""
        return self.found / self.labels if self.labels else None


@dataclass(slots=True)
class Report:
    """Everything measured on the set."""

    overall: Tally = field(default_factory=Tally)
    by_language: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    by_kind: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    secrets_stored: int = 0
    secrets: int = 0
    updates: dict[str, tuple[int, int]] = field(default_factory=dict)  # replaced, all


def judge(item: Item, facts: Sequence[Fact], report: Report) -> None:
    """Count an utterance's facts against its labels."""
    correct = sum(any(matches(f, label) for label in item["expect"]) for f in facts)
    found = sum(any(matches(f, label) for f in facts) for label in item["expect"])
    for tally in (
        report.overall,
        report.by_language[item["lang"]],
        report.by_kind[item["kind"]],
    ):
        tally.labels += len(item["expect"])
        tally.found += found
        tally.facts += len(facts)
        tally.correct += correct
        tally.utterances += 1
        tally.storing += bool(facts)
    if "secret" in item:
        report.secrets += 1
        report.secrets_stored += sum(holds_secret(f, item["secret"]) for f in facts)


@contextmanager
def learning() -> Iterator[TurnMemory]:
    """The memory around turns over an empty store in a temporary folder."""
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        engine = MemoryEngine(folder / "memories.json", StoreSettings(max_items=0))
        engine.init()
        log = ConversationLog(folder / "conversations.db")
        try:
            yield TurnMemory(engine, log, WorkingMemoryManager(), UserProfile(folder))
        finally:
            log.close()
            engine.close()


def tell(
    turns: TurnMemory,
    session_id: str,
    said: str,
    language: str,
    scope: str = SPEAKER_SCOPE,
) -> None:
    """Learn from one sentence a speaker said, as learning after a turn does."""
    batch = ExtractionBatch(
        session_id=session_id,
        message_ids=(),
        user_texts=(said,),
        transcript=f"user: {said}",
        language=language,
    )
    turns.learn(batch, turns.rule_facts(batch), scope=scope, settings=LearnSettings())


def replaced(steps: Sequence[Item]) -> bool:
    """Whether, said in order to an empty store, the steps leave the newest value only."""
    last = steps[-1]
    with learning() as turns:
        for step in steps:
            tell(turns, step["sequence"], step["say"], step["lang"])
        kept = [
            Fact(m.content, m.category)
            for m in turns.engine.store.list(limit=1000).items
        ]
    old = last.get("replaces", {"old": []})["old"]
    return any(matches(f, last["expect"][0]) for f in kept) and not any(
        occurs(term, f.content) for term in old for f in kept
    )


def measure(found: Sequence[Item]) -> Report:
    """Run the rule-based extractor over the set."""
    extractor = RuleBasedExtractor()
    report = Report()
    sequences: dict[str, list[Item]] = defaultdict(list)
    for item in found:
        # The conversation's language, as Home Assistant gives it with a turn.
        judge(item, extractor.extract(item["say"], language=item["lang"]), report)
        if "sequence" in item:
            sequences[item["sequence"]].append(item)
    updates: dict[str, list[bool]] = defaultdict(list)
    for steps in sequences.values():
        updates[steps[-1]["lang"]].append(replaced(steps))
    report.updates = {lang: (sum(done), len(done)) for lang, done in updates.items()}
    return report
