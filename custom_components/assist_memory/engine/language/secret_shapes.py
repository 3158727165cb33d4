"""Secrets recognised by their shape alone, wherever they appear.

API keys and tokens (`sk-...`, AWS `AKIA...`, GitHub `ghp_...`, Slack `xox?-...`,
Google `AIza...`, JWTs, "Bearer ...", private key blocks, any other run of 24 or more
letters and digits that mixes both), card numbers (13 to 19 digits, plain or in
groups, that pass the Luhn check), IBANs (their mod-97 check), and identity numbers
whose format is exact: a UK National Insurance number (QQ 12 34 56 C), a UK driving
licence number (MORGA 753116 SM9IJ), a Chinese resident identity number (18 digits
holding a date of birth), a Hong Kong identity card number (A123456(7)), a Taiwan
one (A123456789) and a Malaysian one (880412-14-5563).

The check digits are our own few lines: `python-stdnum` knows them too (and more
countries), but people say identity numbers whose check digit is wrong as often as
right (measured in docs/benchmarks.md), so a shape here is the format alone, and the
two checks kept are those that tell a card or an IBAN from any other long number.
"""

from __future__ import annotations

from collections.abc import Iterator
import itertools
import re
from typing import Final

# Where a shape starts and ends: not inside a run of Latin letters and digits (a
# Chinese character right beside it is a boundary; `\b` would not see one there).
_START: Final = r"(?<![A-Za-z0-9_])"
_END: Final = r"(?![A-Za-z0-9_])"
_SHAPES: Final = (
    ("api_key", re.compile(_START + r"sk-[A-Za-z0-9_-]{20,}")),
    (
        "api_key",
        re.compile(_START + r"(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}" + _END),
    ),
    ("api_key", re.compile(_START + r"gh[pousr]_[A-Za-z0-9]{30,}")),
    ("api_key", re.compile(_START + r"glpat-[A-Za-z0-9_-]{20,}")),
    ("api_key", re.compile(_START + r"xox[abprs]-[A-Za-z0-9-]{10,}")),
    ("api_key", re.compile(_START + r"AIza[0-9A-Za-z_-]{35}")),
    ("token", re.compile(_START + r"bearer\s+[A-Za-z0-9._~+/=-]{8,}", re.IGNORECASE)),
    (
        "token",
        re.compile(
            _START + r"eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}"
        ),
    ),
    (
        "private_key",
        re.compile(
            r"-----BEGIN [A-Z ]*PRIVATE KEY-----(?:.*?-----END [A-Z ]*PRIVATE KEY-----)?",
            re.DOTALL,
        ),
    ),
    (
        "identity_number",
        re.compile(_START + r"[A-Z]{2}\s?\d{2}\s?\d{2}\s?\d{2}\s?[A-D]" + _END),
    ),
    (
        "identity_number",
        re.compile(_START + r"[A-Z9]{5}\s?\d{6}\s?[A-Z9]{2}\d[A-Z]{2}" + _END),
    ),
    (
        "identity_number",
        re.compile(
            _START + r"\d{6}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])"
            r"\d{3}[\dXx]" + _END
        ),
    ),
    ("identity_number", re.compile(_START + r"[A-Z]{1,2}\d{6}\s?\([0-9A]\)")),
    # A Malaysian identity card (MyKad, MyKid): a date of birth, a place, a number.
    (
        "identity_number",
        re.compile(
            _START + r"\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])-\d{2}-\d{4}" + _END
        ),
    ),
    ("identity_number", re.compile(_START + r"[A-Z][12]\d{8}" + _END)),
)
_LONG_TOKEN: Final = re.compile(
    r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/=_-]{24,}(?![A-Za-z0-9+/=_-])"
)
_WORDISH_PART: Final = re.compile(r"^(?:[A-Za-z]+|\d+)$")
# A shorter run that may be a generated token ("ak-7Hq2Lz9Wm4Xc8Vb1"), when one of its
# parts looks random (`_looks_random`).
_SHORT_TOKEN: Final = re.compile(
    r"(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{10,23}(?![A-Za-z0-9_-])"
)
# Words joined by hyphens with a number at the end, as passwords are made to be
# remembered: Kettle-Moon-55, tan-family-888.
_PASSPHRASE: Final = re.compile(
    _START + r"[A-Za-z]{3,}(?:[-_][A-Za-z]{3,})+[-_]\d{2,}" + _END
)
_CARD: Final = re.compile(r"(?<![\d+.,])\d(?:[ -]?\d){12,18}(?![\d.,]\d)")
_IBAN: Final = re.compile(
    _START + r"[A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){2,7}(?:\s?[A-Z0-9]{1,4})?" + _END,
    re.IGNORECASE,
)


def shapes(text: str) -> Iterator[tuple[str, int, int]]:
    """Each secret recognised by its shape: (kind, start, end)."""
    for kind, pattern in _SHAPES:
        for match in pattern.finditer(text):
            yield kind, match.start(), match.end()
    for match in _LONG_TOKEN.finditer(text):
        if _looks_like_token(match.group()):
            yield "token", match.start(), match.end()
    for match in _SHORT_TOKEN.finditer(text):
        if any(_looks_random(part) for part in re.split(r"[_-]+", match.group())):
            yield "token", match.start(), match.end()
    for match in _PASSPHRASE.finditer(text):
        yield "password", match.start(), match.end()
    for match in _CARD.finditer(text):
        if _looks_like_card(match.group()):
            yield "card_number", match.start(), match.end()
    for match in _IBAN.finditer(text):
        if _is_iban(match.group()):
            yield "iban", match.start(), match.end()


def _looks_like_token(candidate: str) -> bool:
    """24+ characters mixing letters and digits, and not words joined by _ or -."""
    digits = sum(c.isdigit() for c in candidate)
    letters = sum(c.isalpha() for c in candidate)
    if digits < 2 or letters < 2:
        return False
    parts = [part for part in re.split(r"[_/-]+", candidate) if part]
    return not all(_WORDISH_PART.match(part) for part in parts)


def _looks_random(part: str) -> bool:
    """10 or more letters and digits of both cases that keep changing kind.

    Digit, capital or small letter change from one character to the next at least 6
    times in 10: "7Hq2Lz9Wm4Xc8Vb1" does; a model or a name with a number does not
    ("iPhone15ProMax", "MacBookPro2021", "WH1000XM4", "TK1979").
    """
    if len(part) < 10:
        return False
    kinds = ["d" if c.isdigit() else "u" if c.isupper() else "l" for c in part]
    if min(kinds.count(kind) for kind in "dul") < 2:
        return False
    changes = sum(a != b for a, b in itertools.pairwise(kinds))
    return changes >= 0.6 * len(part)


def _looks_like_card(candidate: str) -> bool:
    digits = re.sub(r"\D", "", candidate)
    if not 13 <= len(digits) <= 19 or digits[0] not in "23456":
        return False
    groups = re.split(r"[ -]", candidate)
    # Grouped numbers are written in groups of 3 to 6 (4-4-4-4, 4-6-5, ...); a
    # phone number or a date is not.
    if len(groups) > 1 and not all(3 <= len(group) <= 6 for group in groups[:-1]):
        return False
    return luhn_valid(digits)


def luhn_valid(digits: str) -> bool:
    """The Luhn check of card numbers (digits only)."""
    if not digits.isdigit():
        return False
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = int(char)
        if position % 2 == 1:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0


def _is_iban(candidate: str) -> bool:
    compact = re.sub(r"\s", "", candidate).upper()
    if not 15 <= len(compact) <= 34:
        return False
    rearranged = compact[4:] + compact[:4]
    number = "".join(str(int(char, 36)) for char in rearranged)
    return int(number) % 97 == 1
