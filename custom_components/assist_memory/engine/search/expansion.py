"""Query expansion from the household's own vocabulary: names and what they are.

Memories say who is who ("The user's son Leo plays football", "Our dog is called
Biscuit", 用户的儿子叫小宝). A question may use either side: "What does my son do on
Saturdays?" is about Leo, 小宝的生日 about the son. `HouseholdVocabulary` keeps these
pairs as the store changes (a change hook: a memory's pairs go with it, so an updated
or forgotten memory takes its names along) and gives a question's other side; the
retriever searches it in its second round, at a lower weight than the question's own
words.

Only pairs are kept, in memory (never in a file), and learnt from the memories' text
once, when a question first needs them (a start, such as a command-line search that
its first round answers, reads no memory for names), then from each change: no work
over the whole store per question.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
import re
import threading
from typing import Final

from ..language.keywords import ENGLISH_STOP_WORDS
from ..storage.models import Memory
from ..storage.store_files import StoreChange

# "The user's son Leo", "my son, Leo,", "Our dog is called Biscuit", "the cat's name is
# Luna": an owner, one lower-case word for what they are, then a capitalised name. After
# a plain "the" only a naming verb counts ("the blue Tupperware" names nothing).
_EN_RELATION: Final = re.compile(
    r"\b(?:(?i:user's|household's|family's|my|our)\s+(?P<role>[a-z]+)"
    r"(?:'s\s+name\s+is|\s+is\s+(?:called|named)|\s+called|\s+named|,)?"
    r"|(?i:the)\s+(?P<thing>[a-z]+)(?:'s\s+name\s+is|\s+is\s+(?:called|named)))"
    r"\s+(?P<name>[A-Z][a-z]+)\b"
)
# Cheap tests before the patterns: most memories name nobody this way.
_EN_MARKERS: Final = (
    "user's ",
    "household's ",
    "family's ",
    "my ",
    "our ",
    "name",
    "called",
)
_ZH_MARKERS: Final = ("叫", "名字")
# 用户的儿子叫小宝, 用戶家的貓叫小白, 我的女儿名字是朵朵: up to four characters of name,
# then the end of the sentence.
_ZH_RELATION: Final = re.compile(
    r"(?:用户|用戶|我|我们|我們|家)(?:家)?的?(?P<role>[\u4e00-\u9fff]{1,3}?)"
    r"(?:叫做|叫|名字是|名字叫)(?P<name>[\u4e00-\u9fff]{1,4})(?=$|[。，,.!！\s])"
)
# Words after "my" or "the" that are not what a person or pet is.
_NOT_ROLES: Final = frozenset(
    "car house home flat name names favourite favorite way own new old first last "
    "next other best".split()
)
# At most this many of the household's words are added to a question.
MOST_RELATED: Final = 3
# A Chinese name as long as a piece of a question can hold.
_ZH_LONGEST: Final = 4


def relations_in(text: str) -> Iterator[tuple[str, str]]:
    """(what, name) pairs a memory states: ("son", "leo"), ("儿子", "小宝")."""
    lower = text.lower()
    if any(marker in lower for marker in _EN_MARKERS):
        for match in _EN_RELATION.finditer(text):
            role = match.group("role") or match.group("thing")
            name = match.group("name").lower()
            if role not in _NOT_ROLES and {role, name}.isdisjoint(ENGLISH_STOP_WORDS):
                yield role, name
    if not text.isascii() and any(marker in text for marker in _ZH_MARKERS):
        for match in _ZH_RELATION.finditer(text):
            yield match.group("role"), match.group("name")


class HouseholdVocabulary:
    """Names and what they are, as the memories say; follows the store's changes."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pairs: dict[str, tuple[tuple[str, str], ...]] = {}
        self._links: dict[str, Counter[str]] = {}
        # The memories of the last reload, learnt when a question first asks; those
        # changed since are learnt from their change instead.
        self._unlearnt: list[Memory] = []
        self._changed_since: set[str] = set()

    def follow(self, change: StoreChange, records: Mapping[str, Memory]) -> None:
        """The store's change hook: learn or forget the pairs of what changed."""
        with self._lock:
            if change.reloaded:
                self._pairs.clear()
                self._links.clear()
                self._unlearnt = list(records.values())
                self._changed_since = set()
                return
            for memory_id in change.deleted:
                self._forget(memory_id)
            for memory in change.upserted:
                self._learn(memory)
            if self._unlearnt:
                self._changed_since.update(change.deleted)
                self._changed_since.update(m.id for m in change.upserted)

    def related(self, terms: Iterable[str]) -> list[str]:
        """The other side of the names and roles among a question's terms.

        English terms are whole words; a Chinese piece is searched for every name or
        role inside it. The most often said first, at most MOST_RELATED: a second
        round of many names would cost more than it finds.
        """
        found: Counter[str] = Counter()
        with self._lock:
            if self._unlearnt:
                self._learn_unlearnt()
            if not self._links:
                return []
            asked = list(terms)
            for term in asked:
                for part in _parts(term):
                    found.update(self._links.get(part, {}))
        said = set(asked)
        ranked = sorted(
            (t for t in found if t not in said), key=lambda t: (-found[t], t)
        )
        return ranked[:MOST_RELATED]

    def _learn_unlearnt(self) -> None:
        for memory in self._unlearnt:
            if memory.id not in self._changed_since:
                self._learn(memory)
        self._unlearnt = []
        self._changed_since = set()

    def _learn(self, memory: Memory) -> None:
        self._forget(memory.id)
        if pairs := tuple(relations_in(memory.content)):
            self._pairs[memory.id] = pairs
            for role, name in pairs:
                self._link(role, name, 1)
                self._link(name, role, 1)

    def _forget(self, memory_id: str) -> None:
        for role, name in self._pairs.pop(memory_id, ()):
            self._link(role, name, -1)
            self._link(name, role, -1)

    def _link(self, term: str, other: str, count: int) -> None:
        links = self._links.setdefault(term, Counter())
        links[other] += count
        if links[other] <= 0:
            del links[other]
            if not links:
                del self._links[term]


def _parts(term: str) -> Iterator[str]:
    """The term itself, and for Chinese every run of up to four of its characters."""
    yield term
    if term.isascii():
        return
    for start in range(len(term)):
        for end in range(start + 1, min(start + _ZH_LONGEST, len(term)) + 1):
            if end - start < len(term):
                yield term[start:end]
