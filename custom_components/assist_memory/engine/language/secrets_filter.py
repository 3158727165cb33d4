"""Secrets in text: what must never become a memory, nor be kept or repeated.

`contains_secret` says whether a text holds one, `redact` replaces each value with
`[secret withheld]` and keeps the rest of the sentence (the one redaction step every
path that keeps or repeats a person's words goes through), `mentions_secret` also
counts a value already withheld, `find_secrets` lists them (kind and position, never
the value in a log).

Recognised, in English and Chinese:

- passwords and Wi-Fi keys said with a value: "my password is hunter2", "the wifi
  password is Tulip-42", "密码是abc123", "银行卡密码为123456";
- PINs, codes and combinations with digits: "my pin is 1234", "the safe combination is
  12-34-56", "PIN 码 8866", "the alarm code is 4821",
  "the door code is 7788#", "the code is 482913", "验证码：482913", "门禁密码是1234";
- API keys and tokens: `sk-...`, AWS `AKIA...`, GitHub `ghp_...`, Slack `xox?-...`,
  Google `AIza...`, JWTs, "Bearer ...", private key blocks, "the api key is ...",
  "API密钥是...", and any other run of 24 or more letters and digits (hex, base64)
  that mixes both;
- card numbers: 13 to 19 digits, plain or in groups, that pass the Luhn check, and any
  number said to be a card's or an account's ("my card number is ...", "卡号是...");
- IBANs that pass their mod-97 check.

Precision matters as much as recall: a memory store that refuses "I have 2 cats" is
useless. Plain numbers (years, times, prices, counts), postal codes, dress codes,
"I forgot my password" and "my password manager is Bitwarden" are not secrets. A value
must follow the keyword: a code needs digits; a password needs a word that is not an
ordinary one ("in the drawer", "something stronger"); a Chinese password needs Latin
letters, digits or symbols (密码是多少 is a question, 密码是我的生日 a hint).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
import re
from typing import Final

REDACTED: Final = "[secret withheld]"

# Words that follow "password is ..." without being the password.
_NOT_A_VALUE: Final = frozenset(
    """
    a an the in on at under behind inside into near next by with without from written
    stored saved kept taped somewhere something same different changed wrong correct
    right expired weak strong stronger weaker secure safe long short simple easy hard
    complicated too not also still required needed empty blank missing new old reset
    what which who where when how whatever unknown forgotten lost there here now
    case sensitive protected encrypted hidden set ready valid invalid ok okay fine
    """.split()
)

# Quoted values, or one run of non-space characters.
_VALUE: Final = r"(?P<value>\"[^\"\n]{1,100}\"|'[^'\n]{1,100}'|“[^”\n]{1,100}”|\S+)"
# "the password for the guest network is ...": an optional short complement.
_EN_COMPLEMENT: Final = (
    r"(?:\s+(?:for|of|on|to|at|in)\s+(?:(?:the|my|our|your|this|that)\s+)?"
    r"[\w'-]+(?:\s+[\w'-]+){0,2}?)?"
)
_EN_CONNECTOR: Final = r"\s*(?:(?:is|was|are|'s)(?:\s+(?:now|still|just))?|=|:|：|to|will\s+be|should\s+be)\s*"

# Said with a value of any shape (connector needed).
_EN_PASSWORD: Final = re.compile(
    r"\b(?P<kw>(?:wi-?fi\s+|wireless\s+|network\s+|router\s+|guest\s+)?"
    r"(?:password|passcode|passphrase|pass\s+word|pwd|pw)|wi-?fi\s+key|network\s+key)\b"
    + _EN_COMPLEMENT
    + _EN_CONNECTOR
    + _VALUE,
    re.IGNORECASE,
)
# Keys and tokens: the value must look like one (connector needed).
_EN_TOKEN: Final = re.compile(
    r"\b(?P<kw>(?:api|secret|access|private|license|licence|product)\s+key"
    r"|(?:access|auth|api|bearer|refresh|session)\s+token|token|client\s+secret)\b"
    + _EN_COMPLEMENT
    + _EN_CONNECTOR
    + _VALUE,
    re.IGNORECASE,
)
# PINs and codes: the value must have digits (connector optional: "PIN 1234").
_EN_CODE: Final = re.compile(
    r"\b(?P<kw>pin(?:\s+(?:code|number))?|cvv2?|cvc|otp|ssn|social\s+security\s+number"
    r"|(?:(?:garage|front|back)\s+door|alarm|door|gate|garage|lock|safe|keypad|entry"
    r"|access|unlock|security|verification|one[\s-]time|otp|2fa|two[\s-]factor|auth"
    r"|authentication|login|sms|wi-?fi|master|admin|pass|disarm)\s+code"
    r"|(?:safe|lock|padlock|locker|vault)\s+combination"
    r"|(?:credit|debit|bank|payment)?\s*card\s+number|account\s+number"
    r"|(?:the|my|our|your|this|that)\s+code)\b"
    + _EN_COMPLEMENT
    + r"(?:"
    + _EN_CONNECTOR
    + r"|\s+)"
    + r"(?P<value>[#*]?\d(?:[\s-]?\d){2,18}[#*]?(?![\w-])|[A-Za-z0-9#*-]{3,20})",
    re.IGNORECASE,
)

_ZH_CONNECTOR: Final = (
    r"\s*(?:是|为|為|:|：|=|改成了?|改为|改為|设置成|设成|設成|就是)?\s*"
)
# A literal value in a Chinese sentence: Latin letters, digits and symbols, or Chinese
# numerals read out one by one.
_ZH_VALUE: Final = (
    r"(?P<value>[A-Za-z0-9!@#$%^&*()_+=.~\-]{3,64}|[零〇一二三四五六七八九幺两]{4,})"
)
_ZH_PASSWORD: Final = re.compile(
    r"(?P<kw>(?:wi-?fi|无线|無線|网络|網絡|網路|路由器|银行卡|銀行卡|信用卡|支付|手机|手機"
    r"|电脑|電腦|邮箱|郵箱|账户|賬戶|账号|賬號|门禁|門禁|开门|開門|门锁|門鎖|保险箱|保險箱"
    r"|保险柜|保險櫃|报警器?|報警器?|警报|警報|安防|解锁|解鎖|登录|登錄|登陆)?"
    r"(?:密码|密碼|口令|密钥|密鑰|秘钥|秘鑰|令牌))" + _ZH_CONNECTOR + _ZH_VALUE,
    re.IGNORECASE,
)
_ZH_CODE: Final = re.compile(
    r"(?P<kw>验证码|驗證碼|校验码|校驗碼|动态码|動態碼|pin\s*码|pin\s*碼|门禁码|門禁碼"
    r"|开锁码|開鎖碼|取件码|取件碼|安全码|安全碼|授权码|授權碼|身份证号码?|身份證號碼?"
    r"|卡号码?|卡號碼?|账号|賬號|帳號)"
    + _ZH_CONNECTOR
    + r"(?P<value>[#*]?\d(?:[\s-]?\d){2,19}[#*]?|[零〇一二三四五六七八九幺两]{4,})",
    re.IGNORECASE,
)

# Where a shape starts and ends: not inside a run of Latin letters and digits (a
# Chinese character right beside it is a boundary; `\b` would not see one there).
_START: Final = r"(?<![A-Za-z0-9_])"
_END: Final = r"(?![A-Za-z0-9_])"
# Shapes that are secrets wherever they appear.
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
)
_LONG_TOKEN: Final = re.compile(
    r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/=_-]{24,}(?![A-Za-z0-9+/=_-])"
)
_WORDISH_PART: Final = re.compile(r"^(?:[A-Za-z]+|\d+)$")
_CARD: Final = re.compile(r"(?<![\d+.,])\d(?:[ -]?\d){12,18}(?![\d.,]\d)")
_IBAN: Final = re.compile(
    _START + r"[A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){2,7}(?:\s?[A-Z0-9]{1,4})?" + _END,
    re.IGNORECASE,
)


# What every pattern above needs somewhere in the text: a digit, a keyword or a key's
# prefix. Most sentences have none of them and need no further look (every message a
# conversation keeps is redacted).
_MAY_HOLD_SECRET: Final = re.compile(
    r"\d|pass|pw|key|token|secret|bearer|密|口令|码|碼|身份|sk-|akia|asia|agpa|aida|aroa"
    r"|gh[pousr]_|glpat|xox|aiza|eyj",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class SecretMatch:
    """One secret: its kind ("password", "code", "api_key", ...) and where it is."""

    kind: str
    start: int
    end: int


def contains_secret(text: str) -> bool:
    """True when the text holds a password, code, key, token, card number or IBAN."""
    return next(_scan(text), None) is not None


def mentions_secret(text: str) -> bool:
    """True when the text holds a secret, or the marker `redact` left in place of one.

    Neither becomes a memory: "my wifi password is [secret withheld]" is no fact.
    """
    return REDACTED in text or contains_secret(text)


def find_secrets(text: str) -> list[SecretMatch]:
    """Every secret in the text, in order of position, overlaps merged."""
    matches = sorted(_scan(text), key=lambda m: (m.start, -m.end))
    merged: list[SecretMatch] = []
    for match in matches:
        if merged and match.start < merged[-1].end:
            last = merged[-1]
            merged[-1] = SecretMatch(last.kind, last.start, max(last.end, match.end))
            continue
        merged.append(match)
    return merged


def redact(text: str, placeholder: str = REDACTED) -> str:
    """The text with every secret value replaced by `placeholder`.

    For "my password is hunter2" only the value goes: "my password is [secret
    withheld]". Redacting a redacted text changes nothing.
    """
    parts: list[str] = []
    position = 0
    for match in find_secrets(text):
        parts.append(text[position : match.start])
        parts.append(placeholder)
        position = match.end
    parts.append(text[position:])
    return "".join(parts)


def _scan(text: str) -> Iterator[SecretMatch]:
    if not text or not _MAY_HOLD_SECRET.search(text):
        return
    yield from _phrases(_EN_PASSWORD, "password", _is_password_value, text)
    yield from _phrases(_EN_TOKEN, "token", _is_token_value, text)
    yield from _phrases(_EN_CODE, "code", _is_code_value, text)
    yield from _phrases(_ZH_PASSWORD, "password", _always, text)
    yield from _phrases(_ZH_CODE, "code", _always, text)
    for kind, pattern in _SHAPES:
        for match in pattern.finditer(text):
            yield SecretMatch(kind, match.start(), match.end())
    for match in _LONG_TOKEN.finditer(text):
        if _looks_like_token(match.group()):
            yield SecretMatch("token", match.start(), match.end())
    for match in _CARD.finditer(text):
        if _looks_like_card(match.group()):
            yield SecretMatch("card_number", match.start(), match.end())
    for match in _IBAN.finditer(text):
        if _is_iban(match.group()):
            yield SecretMatch("iban", match.start(), match.end())


def _phrases(
    pattern: re.Pattern[str],
    kind: str,
    accept: Callable[[str], bool],
    text: str,
) -> Iterator[SecretMatch]:
    for match in pattern.finditer(text):
        if text.startswith(REDACTED, match.start("value")):
            continue  # withheld already
        raw = match.group("value")
        value = _clean_value(raw)
        if value and accept(value):
            start = match.start("value")
            # Redact the value itself, not a full stop after it.
            end = start + len(raw.rstrip(".,;!?。，；！？)）"))
            yield SecretMatch(kind, start, end)


def _clean_value(raw: str) -> str:
    value = raw.rstrip(".,;!?。，；！？)）")
    if len(value) >= 2 and value[0] in "\"'“" and value[-1] in "\"'”":
        value = value[1:-1]
    return value.strip()


def _always(value: str) -> bool:
    return True


def _is_password_value(value: str) -> bool:
    if value.casefold() in _NOT_A_VALUE or set(value) <= {"*"}:
        return False
    # A Chinese word after "password is" is a description, not the password.
    return not ("\u3400" <= value[0] <= "\u9fff")


def _is_token_value(value: str) -> bool:
    has_digit = any(c.isdigit() for c in value)
    has_letter = any(c.isalpha() for c in value)
    return (len(value) >= 8 and has_digit and has_letter) or (
        len(value) >= 16 and " " not in value and value.casefold() not in _NOT_A_VALUE
    )


def _is_code_value(value: str) -> bool:
    return sum(c.isdigit() for c in value) >= 3


def _looks_like_token(candidate: str) -> bool:
    """24+ characters mixing letters and digits, and not words joined by _ or -."""
    digits = sum(c.isdigit() for c in candidate)
    letters = sum(c.isalpha() for c in candidate)
    if digits < 2 or letters < 2:
        return False
    parts = [part for part in re.split(r"[_/-]+", candidate) if part]
    return not all(_WORDISH_PART.match(part) for part in parts)


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
