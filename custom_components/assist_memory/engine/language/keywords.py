"""Keywords from mixed Chinese and English text, for indexing and for queries.

English: words, lower-cased, stop words dropped; SQLite's porter tokenizer stems them in
the index ("running" finds "run"), `light_stem` does the same job for the LIKE fallback.
Chinese has no spaces: a run of Han characters is cut at stop characters and stop words
(我, 用, 写, 的, 什么 ...), and every remaining piece is indexed as its characters and its
overlapping pairs (bigrams). "我喜欢用 Python 写代码" gives python, 喜欢, 代码. Both sides of
a search go through the same function, so a Chinese query finds Chinese memories without
a dictionary.
"""

from __future__ import annotations

from dataclasses import dataclass
import functools
import re
from typing import Final
import unicodedata

# Han characters, and kana (Japanese shares the no-space problem).
CJK_CHARACTERS: Final = (
    "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f"
)
# One pass: a run of CJK characters, or a word of other letters and digits (with an
# inner apostrophe, and a trailing * for a prefix search).
_TOKEN: Final = re.compile(
    rf"(?P<cjk>[{CJK_CHARACTERS}]+)|(?P<word>[^\W_{CJK_CHARACTERS}]+(?:['\u2019][^\W_{CJK_CHARACTERS}]+)*\*?)"
)

# Not stop words: above, below, under, between, against. Where things are kept is what
# "What's under the sink?" asks (the place word tells the bleach from the sink's tap).
ENGLISH_STOP_WORDS: Final = frozenset(
    """
    a about after again all am an and any are aren't as at be because been
    before being both but by can can't cannot could couldn't did didn't do
    does doesn't doing don't down during each few for from further had hadn't has hasn't
    have haven't having he he'd he'll he's her here here's hers herself him himself his how
    how's i i'd i'll i'm i've if in into is isn't it it's its itself let's me more most
    mustn't my myself no nor not of off on once only or other ought our ours ourselves out
    over own same shan't she she'd she'll she's should shouldn't so some such than that
    that's the their theirs them themselves then there there's these they they'd they'll
    they're they've this those through to too until up very was wasn't we we'd we'll
    we're we've were weren't what what's when when's where where's which while who who's
    whom why why's with won't would wouldn't you you'd you'll you're you've your yours
    yourself yourselves also just really please tell know remember anything something
    thing things do does did get got okay ok hey hi hello assistant
    """.split()
)

# Stop words a person may still search by ("anything in purple", "most days", "because
# of the kids' skin"): no keywords, but secondary terms (see `secondary_terms`).
SECONDARY_WORDS: Final = frozenset(
    """
    again anything because before after both during few further more most once only
    other own same something such thing things through until while really
    can't cannot couldn't didn't doesn't don't hadn't hasn't haven't isn't mustn't
    shan't shouldn't wasn't weren't won't wouldn't aren't
    """.split()
)

# Single characters that carry no topic: pronouns, particles, and the light verbs 用 and 写
# of the example "我喜欢用 Python 写代码". Kept small on purpose: 过 (过敏), 地 (地方) or 做 (做饭)
# begin words.
CHINESE_STOP_CHARS: Final = frozenset(
    "我你您他她它们的了是在和与及或也都就还很这那哪有吗呢吧啊呀哦嗯么着被把用写"
)
CHINESE_STOP_WORDS: Final = tuple(
    sorted(
        """
        什么 怎么 怎样 为什么 哪里 哪儿 哪个 多少 可以 一个 一些 这个 那个 这些 那些 我们
        你们 他们 她们 它们 自己 因为 所以 但是 如果 还是 已经 记得 知道 告诉 一下 现在
        时候 东西 事情 是否 应该 需要 关于 有关 还有 以及 或者 而且 然后 比较 非常 特别
        """.split(),
        key=len,
        reverse=True,
    )
)


@dataclass(frozen=True, slots=True)
class Keywords:
    """What a text is about: English words and Chinese pieces, in order, no repeats."""

    words: tuple[str, ...]
    chinese: tuple[str, ...]
    prefixes: tuple[str, ...] = ()

    def all(self) -> list[str]:
        """Every keyword, English first (as in the example: Python, 喜欢, 代码)."""
        return [*self.words, *self.prefixes, *self.chinese]


def normalize(text: str) -> str:
    """NFKC (full-width to half-width) and case-folded."""
    return unicodedata.normalize("NFKC", text).casefold()


@functools.lru_cache(maxsize=1024)
def extract_keywords(text: str) -> Keywords:
    """The meaningful words of a message or memory.

    Cached: a turn's message is looked at for its topic and for its search.
    """
    words: list[str] = []
    prefixes: list[str] = []
    chinese: list[str] = []
    for match in _TOKEN.finditer(normalize(text)):
        if run := match.group("cjk"):
            chinese.extend(chinese_pieces(run))
        else:
            _add_word(match.group("word"), words, prefixes)
    return Keywords(
        words=tuple(dict.fromkeys(words)),
        chinese=tuple(dict.fromkeys(chinese)),
        prefixes=tuple(dict.fromkeys(prefixes)),
    )


def _add_word(token: str, words: list[str], prefixes: list[str]) -> None:
    if token.endswith("*"):
        stem = token.rstrip("*")
        if len(stem) >= 2:
            prefixes.append(stem)
        return
    word = token.replace("\u2019", "'")
    if word in ENGLISH_STOP_WORDS:
        return
    if len(word) == 1 and not word.isdigit():
        return
    words.append(word)


def chinese_pieces(run: str) -> list[str]:
    """Cut a run of Han characters at stop words and stop characters."""
    for stop in CHINESE_STOP_WORDS:
        run = run.replace(stop, " ")
    pieces: list[str] = []
    current = ""
    for char in run:
        if char == " " or char in CHINESE_STOP_CHARS:
            if current:
                pieces.append(current)
            current = ""
        else:
            current += char
    if current:
        pieces.append(current)
    return pieces


@functools.lru_cache(maxsize=1024)
def secondary_terms(text: str) -> tuple[str, ...]:
    """What the keywords drop that still tells memories apart: the index's second table.

    Chinese pairs across a function character or word (了电 of 受不了电子乐, 的车 of
    妈妈的车) and the English `SECONDARY_WORDS`. They add to a match's BM25 and can
    bring a memory into the candidates, but are never keywords: no coverage counts
    them, so 放在 is no second word beside 放.
    """
    terms: list[str] = []
    for match in _TOKEN.finditer(normalize(text)):
        if run := match.group("cjk"):
            terms.extend(_pairs_across_cuts(run))
        elif (word := match.group("word").replace("\u2019", "'")) in SECONDARY_WORDS:
            terms.append(word)
    return tuple(dict.fromkeys(terms))


def _pairs_across_cuts(run: str) -> list[str]:
    """The run's pairs its pieces do not hold, but for pairs of two stop characters."""
    kept = {pair for piece in chinese_pieces(run) for pair in cjk_pairs(piece)}
    pairs = (run[i : i + 2] for i in range(len(run) - 1))
    return [
        pair
        for pair in pairs
        if pair not in kept
        and not (pair[0] in CHINESE_STOP_CHARS and pair[1] in CHINESE_STOP_CHARS)
    ]


def index_terms(keywords: Keywords) -> list[str]:
    """The terms stored in (and searched in) the full-text index.

    English words as they are (the index's porter tokenizer stems them); each Chinese
    piece as its single characters and its bigrams, so any part of it can match.
    """
    terms = list(keywords.words)
    for piece in keywords.chinese:
        terms.extend(cjk_grams(piece))
    return terms


def query_terms(keywords: Keywords) -> tuple[list[str], list[str]]:
    """The index terms a search asks for: (needed, optional).

    Optional are the single characters of longer Chinese pieces: they help a
    paraphrase match (猫 in 猫粮) but, when in most memories, add only cost, so the
    index may leave them out. Everything else is needed.
    """
    needed = list(keywords.words)
    optional: list[str] = []
    for piece in keywords.chinese:
        needed.extend(cjk_pairs(piece))
        if len(piece) > 1:
            optional.extend(ch for ch in piece if ch not in optional)
    return needed, optional


def cjk_pairs(piece: str) -> list[str]:
    """Overlapping pairs of a piece, or the piece itself when it is one character."""
    if len(piece) == 1:
        return [piece]
    return [piece[i : i + 2] for i in range(len(piece) - 1)]


def cjk_grams(piece: str) -> list[str]:
    """Characters and overlapping pairs: 咖啡豆 -> 咖, 啡, 豆, 咖啡, 啡豆."""
    if len(piece) == 1:
        return [piece]
    return [*piece, *(piece[i : i + 2] for i in range(len(piece) - 1))]


_SUFFIXES: Final = ("ingly", "edly", "ing", "ies", "ied", "ed", "es", "ly", "s")


def light_stem(word: str) -> str:
    """A small English stemmer for LIKE matching: running -> run, likes -> like.

    The possessive goes first: "Mum's allergic" is about the mum a question names. A
    final silent e goes last, so "move", "moved" and "moving" meet at "mov".
    """
    stem = _strip_suffix(word.removesuffix("'s"))
    if len(stem) > 3 and stem.endswith("e") and not stem.endswith("ee"):
        return stem[:-1]
    return stem


def _strip_suffix(word: str) -> str:
    if len(word) <= 3 or not word.isascii():
        return word
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            stem = word[: -len(suffix)]
            if suffix in ("ies", "ied"):
                return stem + "y"
            if suffix == "es" and not stem.endswith(("s", "x", "z", "ch", "sh")):
                return stem + "e"
            if len(stem) >= 2 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
                return stem[:-1]
            if suffix == "s" and stem.endswith("s"):
                return word
            return stem
    return word


# Phrases that show the message expresses a preference (the scoring formula's category boost).
_PREFERENCE_CUES: Final = re.compile(
    r"\b(?:i|we)\s+(?:really\s+)?(?:like|love|prefer|hate|dislike|enjoy|want|favou?r)"
    r"|\b(?:my|our)\s+favou?rite\b|\b(?:prefer|preference|rather|favou?rite)\b"
    r"|喜欢|喜愛|喜爱|爱吃|爱喝|偏好|偏愛|讨厌|討厭|不喜欢|不喜歡|最爱|最愛|想要|宁愿|寧願|习惯|習慣|口味",
    re.IGNORECASE,
)


def expresses_preference(text: str) -> bool:
    """True when the text states or asks about likes and dislikes (English, Chinese)."""
    return bool(_PREFERENCE_CUES.search(unicodedata.normalize("NFKC", text)))


def merge_keywords(first: Keywords, second: Keywords) -> Keywords:
    """Both sets of keywords, the first's first, without repeats."""
    return Keywords(
        words=tuple(dict.fromkeys([*first.words, *second.words])),
        chinese=tuple(dict.fromkeys([*first.chinese, *second.chinese])),
        prefixes=tuple(dict.fromkeys([*first.prefixes, *second.prefixes])),
    )
