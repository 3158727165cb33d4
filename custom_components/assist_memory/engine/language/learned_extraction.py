"""`LearnedExtractor`: what is worth keeping in what a person said, decided from meaning.

A sentence is cut into its pieces (`pieces`: clauses joined by "and", "so", "but",
commas, 然后, …); a piece holding a secret is dropped whole (`secrets_filter`), so the
harmless half of "my gym is PureMove, and my locker PIN there is 2218" is kept without
the other. The keep head (`worth_keeping.py`) then reads the sentence and each piece: a
sentence worth keeping is kept whole, without the pieces that are surely not (a
filler, "turn off the landing light", what a correction is not); of a sentence that
is not, a piece worth keeping on its own is kept alone; two pieces each worth keeping
on their own are two memories.

The memory is the person's own words without their fillers, turned to whom they
belong (`third_person.py`, in the speaker's script), with the rules' key where they
know its subject; its dates are written out later, as learning does for every fact.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
import re
from typing import Final

from .facts import STATED_CONFIDENCE, Fact
from .rule_extraction import RuleBasedExtractor
from .secrets_filter import SecretMatch, find_secrets, mentions_secret
from .sentences import (
    _STARTS_HAN,
    _clean,
    _is_question,
    _strip_fillers,
    split_sentences,
)
from .speech import in_speakers_script, spoken_clean
from .spoken_values import ZH_UNITS
from .third_person import _capitalize, _en_third_person, _zh_third_person
from .worth_keeping import Understanding

# Where a new memory may begin: a semicolon, a conjunction after a comma or on its
# own, a Chinese connective.
_HARD_BREAK: Final = re.compile(
    r"\s*[;；]\s*"
    r"|\s*,\s*(?:and\s+then|and|but|so|plus|because|cause|cos|oh\s+and|also)\b\s*"
    r"|\s+(?:and\s+then|and\s+also|but|so|because)\s+(?=\w+\s+\w+)"
    # "and" before a new subject: "… is yellow and I want you to remember it".
    r"|\s+and\s+(?=(?:i|i'm|we|we're|my|our|he|she|they|it's)\s)"
    r"|\s*[，,\s]\s*(?:然后|然後|还有|還有|而且|但是|不过|不過|所以|另外|对了|對了)[，,\s]*",
    re.IGNORECASE,
)
# Where a sentence pauses without a new thought: a Chinese comma, a comma after Chinese,
# a space between Chinese words (speech recognisers write pauses so), a space between
# Chinese and a number, but not between a number and what it counts ("飲宴係 19 號":
# spacing put around digits, not a pause).
_SOFT_BREAK: Final = re.compile(
    r"\s*[，、]\s*|(?<=[\u4e00-\u9fff]),\s*|(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])"
    rf"|(?<=\d)\s+(?=[\u4e00-\u9fff])(?![{ZH_UNITS}])"
    rf"|(?<=[\u4e00-\u9fff])\s+(?=\d)(?!\d*(?:[.:]\d+)?\s*[{ZH_UNITS}])"
)
# What a correction says it is not, after the value it corrects to: "the 10th not the
# 9th", "Thursday, not Wednesday", "7:40 rather than 6:40".
_NOT_THAT_VALUE: Final = re.compile(
    r"(?<=[\w:])\s*,?\s+(?:and\s+)?(?:not|rather\s+than)\s+(?:the\s+|on\s+|at\s+)?"
    r"(?=\d|(?:mon|tues|wednes|thurs|fri|satur|sun)day\b)[\w:.]+(?:\s+(?:am|pm))?",
    re.IGNORECASE,
)
# Within a piece that holds a secret, any comma or "and" is a break: the rest may stay.
_SECRET_PARTS: Final = re.compile(
    r"\s*[,，、]\s*|\s+(?:and|but|plus)\s+|和|并且|並且", re.IGNORECASE
)
# A piece that only says what a correction is not: "not 6:40", 不是九岁.
_NOT_THIS: Final = re.compile(
    r"^(?:not|and\s+not|rather\s+than)\b|^(?:而)?不是", re.IGNORECASE
)
# "Our" at the start is the household's: "Our wifi router is in the study".
_OUR: Final = re.compile(r"^our\s+", re.IGNORECASE)
# A piece too short to be a memory of its own.
_MIN_WORDS: Final = 3
_MIN_HAN: Final = 4

# The thresholds' names in the keep head's file (chosen with it on the development
# split by `script/train_heads.py keep`), and the values used when it has none:
# a sentence worth keeping is kept whole, without its pieces that are not (a filler,
# a command, a secret); a sentence that is not may still hold a piece worth keeping
# on its own; pieces worth keeping on their own are kept apart.
SENTENCE: Final = ("sentence", 0.6)
PIECE_DROPPED: Final = ("piece_dropped", 0.2)
PIECE_ALONE: Final = ("piece_alone", 0.8)
# A sentence the rules name a subject in is kept at this chance (see `_named_by_rules`).
NAMED_BY_RULES: Final = ("named_by_rules", 0.5)


@dataclass(frozen=True, slots=True)
class Piece:
    """A piece of a sentence, whether a new memory may begin with it, and where it is.

    `start`: where the piece begins in the sentence it was cut from (-1: it was made
    by joining pieces, so it begins nowhere in the sentence).
    """

    text: str
    starts_anew: bool
    start: int = -1

    @property
    def end(self) -> int:
        """Where the piece ends in its sentence."""
        return self.start + len(self.text)


def _cut(
    pattern: re.Pattern[str], text: str, at: int, strip: str | None
) -> list[Piece]:
    """The parts of `text` (found at `at`) between the pattern's matches, stripped.

    Empty parts are left out; the first part left starts anew.
    """
    bounds = [0]
    for match in pattern.finditer(text):
        bounds += [match.start(), match.end()]
    bounds.append(len(text))
    parts: list[Piece] = []
    for i in range(0, len(bounds), 2):
        raw = text[bounds[i] : bounds[i + 1]]
        part = raw.strip(strip)
        if part:
            lead = len(raw) - len(raw.lstrip(strip))
            parts.append(Piece(part, not parts, at + bounds[i] + lead))
    return parts


def pieces(sentence: str) -> list[Piece]:
    """The sentence's pieces, in order (the sentence itself when it has one)."""
    found: list[Piece] = []
    for clause in _cut(_HARD_BREAK, sentence, 0, ""):
        found += _cut(_SOFT_BREAK, clause.text, clause.start, " ,，、.。")
    return found or [Piece(sentence, True, 0)]


def without_secrets(sentence: str) -> list[Piece]:
    """The sentence's pieces, those that hold a secret left out.

    A secret is found in the whole sentence, where its name may be in another piece
    than its value ("our house alarm, it used to be 4455"), and in each piece. A piece
    with a secret is cut at its commas and "and"s first, and only its parts with the
    secret are left out: "we're with Halifax, account number's 48392011, renewal's in
    June" keeps the bank and the renewal.
    """
    found = find_secrets(sentence)
    kept: list[Piece] = []
    for piece in pieces(sentence):
        if not _holds_secret(piece, found):
            kept.append(piece)
            continue
        for part in _cut(_SECRET_PARTS, piece.text, piece.start, None):
            if not _holds_secret(part, found):
                anew = piece.starts_anew and part.starts_anew
                kept.append(Piece(part.text, anew, part.start))
    return kept


def _holds_secret(piece: Piece, found: list[SecretMatch]) -> bool:
    """Whether a piece of the sentence holds a secret (`found`: the sentence's)."""
    overlaps = any(m.start < piece.end and piece.start < m.end for m in found)
    return overlaps or bool(find_secrets(piece.text)) or mentions_secret(piece.text)


def _long_enough(text: str) -> bool:
    han = len(re.findall(r"[\u4e00-\u9fff]", text))
    return han >= _MIN_HAN or len(text.split()) >= _MIN_WORDS


def _joined(parts: list[str]) -> str:
    if any(_STARTS_HAN.match(part) for part in parts):
        return "，".join(parts)
    return ", ".join(parts)


class LearnedExtractor:
    """Facts worth keeping, decided by the trained heads; the rules give wording."""

    def __init__(self, understanding: Understanding) -> None:
        self._understanding = understanding
        self._rules = RuleBasedExtractor()

    def extract(self, text: str, *, language: str | None = None) -> list[Fact]:
        """Every fact worth keeping in `text` (one or more sentences)."""
        facts: list[Fact] = []
        seen: set[str] = set()
        for sentence in split_sentences(text):
            found = [
                fact
                for kept in self._kept(sentence)
                if (fact := self._fact(kept, sentence, language)) is not None
            ] or self._named_by_rules(sentence, language)
            for fact in found:
                if fact.content.casefold() not in seen:
                    seen.add(fact.content.casefold())
                    facts.append(fact)
        return facts

    def _named_by_rules(self, sentence: str, language: str | None) -> list[Fact]:
        """Of a sentence the head did not keep, the rules' facts.

        A pattern ("our cat is called Tiger", "Leo plays football") is precise where
        it matches; the head may still doubt the sentence. Kept only when the head
        thinks it at least possibly worth keeping (0.5, chosen on development).
        """
        facts = self._rules.extract(sentence, language=language)
        if not facts or mentions_secret(sentence):
            return []
        (chance,) = self._understanding.worth_keeping([sentence])
        if chance < self._understanding.keep.at(*NAMED_BY_RULES):
            return []
        return facts

    def _kept(self, sentence: str) -> Iterator[str]:
        """The parts of a sentence worth keeping, each one memory."""
        if _is_question(sentence.strip()) or sentence.rstrip().endswith(("?", "？")):
            return
        found = [p for p in without_secrets(sentence) if not _NOT_THIS.match(p.text)]
        secret = self._understanding.holding_secrets([p.text for p in found])
        found = [piece for piece, held in zip(found, secret, strict=True) if not held]
        if not found:
            return
        # A piece too short to say anything alone goes with the one before it.
        merged: list[Piece] = []
        for piece in found:
            if merged and not _long_enough(piece.text):
                last = merged[-1]
                merged[-1] = Piece(_joined([last.text, piece.text]), last.starts_anew)
            else:
                merged.append(piece)
        parts = [piece.text for piece in merged]
        texts = [_joined(parts), *parts] if len(parts) > 1 else parts
        chances = self._understanding.worth_keeping(texts)
        whole, alone = chances[0], chances[1:] or chances
        head = self._understanding.keep
        sentence_kept = whole >= head.at(*SENTENCE)
        dropped, apart = head.at(*PIECE_DROPPED), head.at(*PIECE_ALONE)
        groups: list[list[str]] = []
        for piece, chance in zip(merged, alone, strict=True):
            if len(merged) > 1 and chance < dropped:
                continue
            if not sentence_kept and chance < apart:
                continue
            anew = piece.starts_anew and chance >= apart
            if groups and sentence_kept and not anew:
                groups[-1].append(piece.text)
            else:
                groups.append([piece.text])
        for group in groups:
            yield _joined(group)

    def _fact(self, kept: str, sentence: str, language: str | None) -> Fact | None:
        """One memory from kept words: the person's words, turned to whom they belong."""
        if mentions_secret(kept):
            return None
        words = spoken_clean(_strip_fillers(_clean(_NOT_THAT_VALUE.sub("", kept))))
        if not words or not (_long_enough(words) or _STARTS_HAN.match(words)):
            return None
        if _STARTS_HAN.match(words):
            content = _zh_third_person(words)
        else:
            content = _capitalize(_OUR.sub("the household's ", _en_third_person(words)))
        return Fact(
            in_speakers_script(sentence, content, language),
            category=self._understanding.category(kept),
            key=self._key(words, language),
            confidence=STATED_CONFIDENCE,
            source="user_stated",
        )

    def _key(self, words: str, language: str | None) -> str | None:
        """The rules' key for these words, where they know one subject.

        A key lets a newer fact replace the one it changes ("my favourite colour is
        red now" replaces "… is blue"); the rules name subjects precisely.
        """
        known = {fact.key for fact in self._rules.extract(words, language=language)}
        return known.pop() if len(known) == 1 else None
