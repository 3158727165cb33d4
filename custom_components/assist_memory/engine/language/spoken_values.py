"""Values as people say them aloud: where a run of digits, numbers or letters starts and ends.

A code, a card number or a password read out is rarely one run of digits: "771 204",
"3 5 7 1", "nine one eight two", "double six", "oh five", "twelve, thirty, five",
四六七零, 幺洞洞拐, 六个八, "capital G, lowercase r, e, e, n", "T as in tango",
"r-e-p-p-e-p 99", K9F2-7XQP-M4T8, Y六三四五二一 括號七. `value_runs` finds each such run
and what it is made of; whether it is a secret is for `secrets_filter` to decide.

Numbers said as words are recognised from a closed list (the words for 0 to 99,
"hundred", "double", "triple", "oh"); `text2num` (measured in docs/benchmarks.md) turns
"nine one eight two" into digits but not "oh" or "double", and gives no positions.
Chinese numerals are a closed set of characters too, with the ones said on the phone
and in Cantonese (幺 one, 洞 zero, 拐 seven, 两 and 俩 two, 孖 twin) and "六个八"
(six eights); `cn2an` turns most of them into digits but drops leading zeros, knows
neither 洞, 拐 nor 孖, and gives no positions either.
"""

from __future__ import annotations

from dataclasses import dataclass
import re
from typing import Final

_ONES: Final = "one two three four five six seven eight nine".split()
_TEENS: Final = (
    "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen"
).split()
_TENS: Final = "twenty thirty forty fifty sixty seventy eighty ninety".split()
# Words that say one digit ("oh" and "o" for zero, as in "nine oh one four").
_DIGIT_WORDS: Final = frozenset([*_ONES, "zero", "oh", "o", "nought", "nil"])
_REPEATS: Final = frozenset({"double", "triple", "treble"})
NUMBER_WORD: Final = (
    r"(?:(?:" + "|".join(_TENS) + r")(?:[\s-]?(?:" + "|".join(_ONES) + r"))?"
    r"|" + "|".join(_TEENS) + r"|zero|nought|nil|oh|o|" + "|".join(_ONES)
    + r"|hundred|double|triple|treble)"
)  # fmt: skip
# Chinese numerals read out: digits, 十百千, the radio and Cantonese ones, 六个八.
_ZH_DIGIT: Final = "零〇一二三四五六七八九幺两兩俩倆洞拐"
# How many times 个 repeats the digit after it: 两个八 is 88, 四个八 8888.
_ZH_COUNT: Final = {
    char: count
    for count, chars in enumerate(
        ("", "", "二两兩俩倆", "三", "四", "五", "六", "七", "八", "九")
    )
    for char in chars
}
_ZH_NUMERAL: Final = rf"(?:[{_ZH_DIGIT}十百千孖]|(?<=[二三四五六七八九两兩俩倆])[个個](?=[{_ZH_DIGIT}]))+"
# After a number in Chinese, what makes it a count, a date, a time, an amount or an
# address (300 號, 19 号, 3 点, 500 块, 50 蚊, 2 个): characters for a regex class.
ZH_UNITS: Final = (
    "月日号號点點时時分秒块塊元圆角毛蚊岁歲年个個次位名楼樓层層室栋棟单元路街巷弄线線"
    "公里米斤克度%％倍人只隻支条條张張台臺辆輛本件份瓶杯碗顿頓周週天期届班折"
)
# Numbers that say a time, a date, an amount or a measure: never part of a value. (A
# currency sign right after a letter is a symbol in a password: Creeper$2009.)
_MEASURED: Final = (
    r"(?<![A-Za-z0-9])[£$€¥]\s?\d[\d,.]*"
    r"|\d+(?:[:.]\d+)+(?:\s?(?:am|pm))?"
    r"|\d+(?:st|nd|rd|th|am|pm|%|°|k|kg|km|g|ml|cm|mm|m|s|h|p|x|mph|kmh)(?![A-Za-z0-9])"
)

_TOKEN: Final = re.compile(
    "|".join(
        (
            rf"(?P<measured>{_MEASURED})",
            # Spelled out: "capital G", "lowercase w", "T as in tango", 大写Q, 小寫 o.
            (
                r"(?P<spelled>(?:(?:capital|uppercase|upper[\s-]case|lowercase"
                r"|lower[\s-]case|small|big)\s+[A-Za-z](?![A-Za-z0-9'])"
                r"|(?<![A-Za-z0-9])[A-Za-z]\s+as\s+in\s+[A-Za-z]+"
                r"|(?:大写|小写|大寫|小寫)\s*[A-Za-z](?![A-Za-z])"
                r"|(?<![A-Za-z0-9])[A-Za-z](?:-[A-Za-z]){2,}(?![A-Za-z0-9])))"
            ),
            # Letters and digits mixed: F7K2Q, Sooty2012, K9F2-7XQP-M4T8, A123456(7).
            (
                r"(?P<mixed>(?<![A-Za-z0-9])(?=[A-Za-z0-9-]*\d)(?=[A-Za-z0-9-]*[A-Za-z])"
                r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*(?:\([0-9A-Za-z]\))?(?![A-Za-z0-9]))"
            ),
            r"(?P<digits>[#*]?\d+(?:\([0-9A-Za-z]\))?[#*]?)",
            rf"(?P<words>(?<![A-Za-z'])(?:{NUMBER_WORD})(?![A-Za-z']))",
            rf"(?P<zh>{_ZH_NUMERAL})",
            r"(?P<letter>(?<![A-Za-z0-9'])[A-Za-z](?![A-Za-z0-9']))",
        )
    ),
    re.IGNORECASE,
)
# What may stand between two parts of one value.
_JOINER: Final = re.compile(
    r"(?:[\s,，、\-/()（）]|\band\s+then\b|\bthen\b|\bplus\b|\bfollowed\s+by\b"
    r"|\band\b|然后|然後|再加|再|加上?|括號|括号)*",
    re.IGNORECASE,
)
_JOINER_WORDS: Final = re.compile(r"[A-Za-z\u3400-\u9fff]")


@dataclass(frozen=True, slots=True)
class ValueRun:
    """A run of digits, numbers said as words or letters, and what it holds."""

    start: int
    end: int
    # How many digits (or letters) the value has once written down.
    length: int
    # Said as words or numerals ("nine one eight two", 四六七零), digit by digit.
    spoken: bool
    # Single digits apart ("3 5 7 1", "2-2-1-8") or spelled out ("O-T-T-E-R").
    spaced: bool
    # Holds a letter (a password, an identity number), or only digits.
    has_letters: bool
    # Holds a token of letters and digits mixed (F7K2Q, MFK-3392).
    mixed: bool
    # Spelled out letter by letter ("capital G", "T as in tango", 大写Q).
    spelled: bool

    @property
    def read_out(self) -> bool:
        """Said digit by digit or letter by letter: how codes are read out."""
        return self.spaced or self.spelled or (self.spoken and self.length >= 3)


@dataclass(frozen=True, slots=True)
class _Part:
    kind: str
    start: int
    end: int
    text: str


def value_runs(text: str) -> list[ValueRun]:
    """Every run of value parts in the text, in order (measured numbers break runs)."""
    runs: list[ValueRun] = []
    group: list[_Part] = []
    for part in _parts(text):
        if group and not _joins(text[group[-1].end : part.start]):
            runs.extend(_run(group))
            group = []
        if part.kind == "measured":
            runs.extend(_run(group))
            group = []
            continue
        group.append(part)
    runs.extend(_run(group))
    return runs


def _parts(text: str) -> list[_Part]:
    parts = []
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup or ""
        parts.append(_Part(kind, match.start(), match.end(), match.group()))
    return parts


def _joins(gap: str) -> bool:
    """Whether the text between two parts lets them be one value."""
    return bool(_JOINER.fullmatch(gap)) and (
        # A word joiner ("then", 再加) must stand alone between parts, not pile up.
        len(_JOINER_WORDS.findall(gap)) <= 8
    )


def _run(group: list[_Part]) -> list[ValueRun]:
    """The value of a group of parts, with lone letters at its edges left out."""
    spelled = any(p.kind == "spelled" for p in group)
    letters = sum(p.kind == "letter" for p in group)
    if not spelled and letters < 3:
        # "a 4 digit code": a lone letter counts only beside a capital's digits
        # ("K 7 7 3 9", "E 6 6 2 1") or in a spelled run.
        while group and group[0].kind == "letter" and not _leads(group):
            group = group[1:]
        while group and group[-1].kind == "letter":
            group = group[:-1]
    # "oh" alone before digits is an interjection ("oh, 1998 I think").
    while (
        group
        and group[0].kind == "words"
        and group[0].text.casefold() in {"oh", "o"}
        and (len(group) == 1 or group[1].kind != "words")
    ):
        group = group[1:]
    if not group:
        return []
    return [
        ValueRun(
            start=group[0].start,
            end=group[-1].end,
            length=sum(_length(p) for p in group),
            spoken=any(p.kind in {"words", "zh"} for p in group),
            spaced=_spaced(group),
            has_letters=any(p.kind in {"letter", "spelled", "mixed"} for p in group),
            mixed=any(p.kind == "mixed" for p in group),
            spelled=spelled or letters >= 3,
        )
    ]


def _leads(group: list[_Part]) -> bool:
    """A capital letter right before the digits of a code ("K 7 7 3 9")."""
    return (
        len(group) > 1 and group[0].text.isupper() and group[1].kind in {"digits", "zh"}
    )


def _spaced(group: list[_Part]) -> bool:
    singles = [
        p for p in group if (p.kind == "digits" and len(p.text.strip("#*")) == 1)
    ]
    return len(singles) >= 3 or any(p.kind == "spelled" for p in group)


def _length(part: _Part) -> int:
    text = part.text.casefold()
    match part.kind:
        case "digits" | "mixed":
            return sum(c.isalnum() for c in text)
        case "spelled" if re.fullmatch(r"[a-z](?:-[a-z])+", text):
            return len(text.replace("-", ""))
        case "zh":
            # 六个八 is six eights: 个 says how many times the next digit comes.
            repeats = sum(
                _ZH_COUNT.get(text[i - 1], 2) - 2
                for i, c in enumerate(text)
                if c in "个個" and i > 0
            )
            return sum(c not in "个個" for c in text) + repeats
        case "words":
            if text in _DIGIT_WORDS or text in _REPEATS:
                return 1
            return 1 if text == "hundred" else 2
        case _:
            return 1
