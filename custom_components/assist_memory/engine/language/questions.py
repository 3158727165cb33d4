"""Everyday questions, and whether a memory answers one (English and Chinese).

"Where is the spare key?", "Does grandma eat spicy food?", 备用钥匙在哪里？, 奶奶能吃辣吗？:
`read_question` says whether a sentence is a question and what it is about: its
*units*, the words that must be in an answering memory (English word stems without
question words and words that fit any question, such as "time" or "name"; for
Chinese, the pairs of characters left once question words and pronouns are taken
out). `judge` then says how well one memory answers it:

- every unit the household's memories know must be in it (a unit no memory has,
  such as "collected" in "Which day is recycling collected?", asks nothing we could
  miss); "When is Lily's birthday?" is not answered by Lily's piano lesson;
- at least half of the question is in it;
- a yes-no question ("Is anyone allergic to peanuts?") is answered only when the
  memory has the words it asks about, or most of them;
- a where/when/which/how question is not answered by a memory that only shares a
  name with it ("Where is Leo right now?");
- among memories that do, the one that has the question's words side by side
  ("the spare key", not "the spare car key") is the better answer.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
import itertools
import re
from typing import Final, Literal

from .keywords import ENGLISH_STOP_WORDS

Kind = Literal["where", "when", "who", "what", "which", "how", "yesno"]

_EN_WORD: Final = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?")
_EN_WH: Final = {
    "where": "where",
    "where's": "where",
    "when": "when",
    "when's": "when",
    "who": "who",
    "who's": "who",
    "whom": "who",
    "whose": "who",
    "what": "what",
    "what's": "what",
    "which": "which",
    "how": "how",
    "how's": "how",
}
_EN_YES_NO: Final = frozenset(
    """is are am was were do does did can could will would has have had should shall
    may isn't aren't doesn't don't didn't hasn't haven't can't won't""".split()
)
# Words any question may use: they say what kind of answer is wanted, not about what.
_EN_GENERIC: Final = frozenset(
    """time times day days date name kind sort type much many long often ever anyone
    anybody someone somebody everyone everybody anything everything nothing know
    knows tell keep kept find look get gets go goes going put have make use need
    happen today tomorrow yesterday now right currently exactly actually usually
    normally still again please remind remember recall say said think mean take
    takes took give gives bring want
    """.split()
)
_ZH_QUESTION: Final = re.compile(
    r"[吗嗎呢？?]|什么|什麼|哪|谁|誰|几|幾|怎么|怎麼|多少|是不是|(.)不\1"
)
# Taken out of a Chinese question before its pairs are made: question words,
# pronouns and particles (longest first, so 我们家 goes before 我).
_ZH_REMOVED: Final = re.compile(
    r"哪天|哪一天|几号|幾號|几点|幾點|几月|幾月|几岁|幾歲|现在|現在|目前|名字|不能|不|没|沒"
    r"|什么时候|什麼時候|什么样|什麼樣|什么|什麼|哪里|哪裡|哪儿|哪兒|哪些|哪个|哪個|哪|谁|誰"
    r"|几|幾|怎么样|怎麼樣|怎么|怎麼|多少|是不是|对吧|對吧|吗|嗎|呢|吧|呀|啊"
    r"|请问|請問|告诉我|告訴我|你知道|知道|我们家|我們家|咱们家|咱們家|我家|我们|我們|咱们|咱們"
    r"|我|你|的|是|在|了|有|要|能|可以|会|會|都|还|還|得"
)
_ZH_REPEAT: Final = re.compile(r"(.)不\1")
_HAN_RUN: Final = re.compile(r"[\u4e00-\u9fff]+")
_HAN: Final = re.compile(r"[\u4e00-\u9fff]")
_ZH_KINDS: Final = (
    (
        "when",
        re.compile(r"什么时候|什麼時候|几点|幾點|哪天|几号|幾號|几月|幾月|哪一天"),
    ),
    ("where", re.compile(r"哪里|哪裡|哪儿|哪兒|在哪")),
    ("who", re.compile(r"谁|誰")),
    ("how", re.compile(r"怎么|怎麼|多少|几|幾")),
    ("what", re.compile(r"什么|什麼")),
    ("which", re.compile(r"哪")),
)


@dataclass(frozen=True, slots=True)
class Question:
    """A question: its kind, the units an answer must have, which of them are names."""

    text: str
    kind: Kind
    units: tuple[str, ...]
    names: frozenset[str]
    chinese: bool
    # What to search for: the question's own words, without question words.
    words: str


@dataclass(frozen=True, slots=True)
class Judgement:
    """How well a memory answers a question (`answers`: well enough to be said)."""

    answers: bool
    matched: int
    side_by_side: int


def read_question(text: str) -> Question | None:
    """The question in a sentence, or None when it is not a question about anything."""
    if _HAN.search(text):
        return _read_chinese(text)
    return _read_english(text)


def _read_english(text: str) -> Question | None:
    words = _EN_WORD.findall(text)
    if not words:
        return None
    lowered = [_plain(word) for word in words]
    kind: Kind | None = None
    for word in lowered[:3]:
        if word in _EN_WH:
            kind = _EN_WH[word]  # type: ignore[assignment]
            break
    if kind is None:
        asks = lowered[0] in _EN_YES_NO or text.rstrip().endswith("?")
        if lowered[:2] == ["tell", "me"]:
            kind = "what"
        elif asks:
            kind = "yesno"
        else:
            return None
    units: list[str] = []
    names: set[str] = set()
    kept: list[str] = []
    for position, (word, low) in enumerate(zip(words, lowered, strict=True)):
        bare = _bare(low)
        if bare in ENGLISH_STOP_WORDS or bare in _EN_GENERIC or bare in _EN_WH:
            continue
        if low in ENGLISH_STOP_WORDS or (len(bare) < 2 and not bare.isdigit()):
            continue
        kept.append(bare)
        unit = stem(bare)
        if unit not in units:
            units.append(unit)
        if position and word[:1].isupper():
            names.add(unit)
    if not units:
        return None
    return Question(
        text, kind, tuple(units), frozenset(names), chinese=False, words=" ".join(kept)
    )


def _read_chinese(text: str) -> Question | None:
    if not _ZH_QUESTION.search(text):
        return None
    kind: Kind = "yesno"
    for name, pattern in _ZH_KINDS:
        if pattern.search(text):
            kind = name  # type: ignore[assignment]
            break
    stripped = _ZH_REMOVED.sub(" ", _ZH_REPEAT.sub(r"\1", text))
    units: list[str] = []
    for run in _HAN_RUN.findall(stripped):
        pieces = (
            [run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)]
        )
        units.extend(piece for piece in pieces if piece not in units)
    for word in _EN_WORD.findall(stripped):
        if (unit := stem(_bare(_plain(word)))) not in units:
            units.append(unit)
    if not units:
        return None
    return Question(
        text, kind, tuple(units), frozenset(), chinese=True, words=" ".join(units)
    )


def _plain(word: str) -> str:
    return word.lower().replace("’", "'")


def _bare(word: str) -> str:
    """Without a possessive "'s"."""
    return word.removesuffix("'s")


def stem(word: str) -> str:
    """A crude stem that brings a word's forms together ("charges", "charge": "charg")."""
    if len(word) > 4 and word.endswith("ies"):
        word = word[:-3] + "y"
    elif len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    return word


def memory_units(content: str) -> tuple[str, ...]:
    """A memory's English stems in order (its Chinese is looked at as written)."""
    return tuple(stem(_bare(_plain(word))) for word in _EN_WORD.findall(content))


def known_units(question: Question, contents: Iterable[str]) -> frozenset[str]:
    """The question's units that at least one of the memories has."""
    known: set[str] = set()
    for content in contents:
        known.update(_matched(question, content, memory_units(content)))
    return frozenset(known)


def judge(question: Question, content: str, known: frozenset[str]) -> Judgement:
    """How well a memory (`content`) answers the question.

    `known`: the question's units that any memory of the household has
    (`known_units` over the candidates).
    """
    stems = memory_units(content)
    matched = _matched(question, content, stems)
    together = _side_by_side(question, content, stems, known)
    return Judgement(_answers(question, matched, known), len(matched), together)


def _answers(question: Question, matched: set[str], known: frozenset[str]) -> bool:
    if not matched or not known <= matched or not question.names <= matched:
        return False
    if _share(question, matched) < 0.5:
        return False
    unknown = len(question.units) - len(known)
    if (
        question.kind == "yesno"
        and not question.chinese
        and unknown
        and len(matched) < max(2, unknown)
    ):
        return False
    # A question about a place or a time needs more than a name in common.
    return not (
        question.kind in ("where", "when", "which", "how") and matched <= question.names
    )


def _share(question: Question, matched: set[str]) -> float:
    """How much of the question the matched units are (for Chinese, its characters)."""
    if not question.chinese:
        return len(matched) / len(question.units)
    characters = {c for unit in question.units if _HAN.search(unit) for c in unit}
    covered = {c for unit in matched if _HAN.search(unit) for c in unit}
    words = [u for u in question.units if not _HAN.search(u)]
    total = len(characters) + len(words)
    return (len(covered) + len([u for u in words if u in matched])) / total


def _matched(question: Question, content: str, stems: Sequence[str]) -> set[str]:
    present = set(stems)
    return {
        unit
        for unit in question.units
        if (_has_pair(content, unit) if _HAN.search(unit) else unit in present)
    }


def _has_pair(content: str, unit: str) -> bool:
    """A pair of characters in the memory, side by side or with one between (貓咪叫)."""
    if unit in content:
        return True
    if len(unit) != 2:
        return False
    first = content.find(unit[0])
    while first != -1:
        if content[first + 2 : first + 3] == unit[1]:
            return True
        first = content.find(unit[0], first + 1)
    return False


def _side_by_side(
    question: Question, content: str, stems: Sequence[str], known: frozenset[str]
) -> int:
    """How many neighbouring pairs of the question's known units are neighbours in it."""
    if question.chinese:
        return max(
            (len(run) for run in _common_runs(question.text, content)), default=0
        )
    pairs = set(itertools.pairwise(stems))
    units = [unit for unit in question.units if unit in known]
    return sum(1 for pair in itertools.pairwise(units) if pair in pairs)


def _common_runs(question: str, content: str) -> list[str]:
    """Runs of three or more characters of the question that the memory has."""
    runs = []
    for size in range(len(question), 2, -1):
        for start in range(len(question) - size + 1):
            piece = question[start : start + size]
            if _HAN.search(piece) and piece in content:
                runs.append(piece)
        if runs:
            return runs
    return runs
