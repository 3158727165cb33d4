"""The bench's memories at scale: the labelled memories scaled up with other names.

A quarter of the scaled memories name one person (as a household's talk does), and the
labelled set's queries are repeated as often as a run needs. Fresh questions, none
asked twice, come from the households of tests/data/corpus.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
import random
import re

from retrieval_quality import labelled_set
from scale import COMMON_NAME, COMMON_SHARE

_NOT_NAMES = frozenset(
    "The We Our My Aunt Uncle Mrs Mr Dr Grandma Grandpa Mum Dad Monday Tuesday Wednesday"
    " Thursday Friday Saturday Sunday January February March April May June July August"
    " September October November December Christmas Easter".split()
)
_SYLLABLES = [
    "ka",
    "ri",
    "mo",
    "ta",
    "len",
    "sa",
    "vi",
    "dor",
    "el",
    "na",
    "bo",
    "zi",
    "ar",
    "lu",
]
_SURNAMES = (
    "王李张刘陈杨赵黄周吴徐孙胡朱高林何郭马罗梁宋郑谢韩唐冯于董萧程曹袁邓许傅沈曾彭吕"
)
_GIVEN = "伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂英华玉兰红梅鹏飞云雪琳晨浩宇轩"


def scaled_texts(count: int, seed: int) -> list[str]:
    """The labelled set's memories, repeated with other people's names up to `count`.

    Copy 0 is the set itself; later copies swap every English name for a made-up one
    and put a made-up Chinese name in front of Chinese memories, so the vocabulary
    grows with the size, as it does in a real household's memory; a quarter of the
    copies' memories name one person (`COMMON_NAME`), as a household's talk does.
    """
    rng = random.Random(seed)
    originals = [m["content"] for m in labelled_set()["memories"]]
    names = sorted(
        {w for text in originals for w in re.findall(r"\b[A-Z][a-z]+\b", text)}
        - _NOT_NAMES
    )
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b")
    texts: list[str] = []
    copy = 0
    while len(texts) < count:
        if copy == 0:
            texts.extend(originals)
        else:
            swap = {
                name: "".join(rng.choice(_SYLLABLES) for _ in range(2)).title()
                for name in names
            }
            rename = functools.partial(_renamed, swap)
            for text in originals:
                # A quarter name one very common first name: the skew of real names.
                common = rng.random() < COMMON_SHARE
                if text.isascii():
                    renamed = pattern.sub(rename, text)
                    texts.append(f"{COMMON_NAME}: {renamed}" if common else renamed)
                else:
                    person = (
                        COMMON_NAME
                        if common
                        else rng.choice(_SURNAMES) + "".join(rng.sample(_GIVEN, 2))
                    )
                    texts.append(f"{person}：{text}")
        copy += 1
    return texts[:count]


def _renamed(swap: dict[str, str], match: re.Match[str]) -> str:
    return swap[match.group(1)]


def labelled_queries(count: int) -> list[str]:
    """The labelled set's queries, as many times over as needed."""
    queries = [q["query"] for q in labelled_set()["queries"]]
    return [queries[n % len(queries)] for n in range(count)]


CORPUS = Path(__file__).parents[1] / "tests" / "data" / "corpus" / "households.json"
# Home Assistant's language for each language of the corpus.
HA_LANGUAGES = {"en": "en", "zh-Hans": "zh-CN", "zh-Hant": "zh-TW"}


def fresh_questions(count: int) -> list[tuple[str, str]]:
    """`count` questions, none twice, and Home Assistant's language for each.

    The corpus households' questions in their order (English, simplified and traditional
    Chinese): a question asked again would find its embedding cached.
    """
    asked = json.loads(CORPUS.read_text(encoding="utf-8"))["questions"]
    questions = list({q["say"]: HA_LANGUAGES[q["lang"]] for q in asked}.items())
    if count > len(questions):
        raise ValueError(f"the corpus has {len(questions)} questions, not {count}")
    return questions[:count]
