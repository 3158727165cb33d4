"""Secrets in text: what must never become a memory, nor be kept or repeated.

`contains_secret` says whether a text holds one, `redact` replaces each value with
`[secret withheld]` and keeps the rest of the sentence (the one redaction step every
path that keeps or repeats a person's words goes through), `mentions_secret` also
counts a value already withheld, `find_secrets` lists them (kind and position, never
the value in a log).

This module decides; `secret_shapes`, `secret_cues` and `spoken_values` only find
candidates. Recognised, in English and Chinese:

- passwords, passphrases and Wi-Fi keys said with a value: "my password is hunter2",
  "the password you give them is bluebell", "my password is purple elephant",
  "密码是abc123", "網上登入密碼係 Lok@Hoho25";
- a value said to be a code, a PIN, a combination, a one-time or verification code, a
  card's number, expiry or CVV, an account's number or sort code, a passport, national
  insurance, NHS, social security, driving licence or ID card number, or the code of a
  key safe, lockbox, keypad, padlock, safe, alarm or intercom, however it is said:
  digits
  ("2218", "771 204", "3 5 7 1", "2-2-1-8"), words ("nine one eight two", "double six",
  "oh five", "twelve, thirty, five"), Chinese numerals (四六七零, 幺洞洞拐, 六个八,
  孖八孖六), letters and digits (F7K2Q, E幺二三四五六七八), spelled out ("capital G,
  lowercase r, e, e, n", "T as in tango", "O-T-T-E-R"); right after its name ("the code
  they just texted me is 771 204"), a few words from it ("key safe's by the back
  door, code's 4 4 1 9"), just before it ("9911, that's the gate code now"), after a
  question naming it ("the PIN? … it's not 1357 anymore"), or, read out digit by
  digit, anywhere in what was said ("eight two nine four is the alarm code"); the
  same value said again in another form ("C-1-9-7-4, actually just C1974");
- a wallet's recovery or seed words, and "pass" for a password ("my pass is
  Harbour_77");
- the answer to a security question or a memorable word ("first pet, the answer's
  Rolo", "mother's maiden name, it's Ferreira", 第一只宠物叫豆豆 这个是密保答案), each
  time it is said;
- by shape alone: API keys and tokens, card numbers that pass the Luhn check, IBANs
  that pass mod-97, and identity numbers of an exact format (`secret_shapes`).

Precision matters as much as recall: a memory store that refuses "I have 2 cats" is
useless. Numbers the words around them make something else are not secrets: times,
dates, years ("runs out in March 2029"), prices and counts ("2 cats", 三百块), rooms,
flats, house numbers and floors, buses and flights, tracking and order numbers,
licence plates, postcodes, phone numbers (0161 496 0321, 138 0013 8000), a dress code
or an error code; nor "I forgot my password", "my password manager is Bitwarden", a
wifi network's name, or a password's hint (密码是我的生日).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
import itertools
import re
from typing import Final

from .secret_cues import Cue, counted, cues, labelled, security_context
from .secret_shapes import luhn_valid, shapes
from .spoken_values import NUMBER_WORD, ValueRun, value_runs

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
# "the password you give them is ...", "the password there is ...": who uses it.
_EN_COMPLEMENT: Final = (
    r"(?:\s+(?:for|of|on|to|at|in|with)\s+(?:(?:the|my|our|your|this|that)\s+)?"
    r"[\w'-]+(?:\s+[\w'-]+){0,2}?(?![\w'-]))?"
    r"(?:\s+(?:you|i|we|they|he|she)(?:\s+[\w'-]+){1,2}?(?![\w'-])|\s+(?:there|here))?"
)
# A pause in speech around the join: "the password's, hang on, purple giraffe",
# "seed phrase for the wallet, just in case: orbit velvet ...".
_PAUSE: Final = (
    r"(?:\s*[,.…-]*\s*(?:hang\s+on|hold\s+on|wait|um+|uh+|er+|erm"
    r"|like|actually|basically|let\s+me\s+(?:think|see)|you\s+know|just\s+in\s+case"
    r"|in\s+case)(?![A-Za-z])){0,2}"
)
# "is", "it's", "= ", "to": what joins a secret's name to its value.
_EN_CONNECTOR: Final = (
    _PAUSE + r"\s*,?\s*(?:(?:(?:(?:(?<![A-Za-z])(?:it|that)\s*)?(?:'s|’s)"
    r"|(?<![A-Za-z])(?:(?:it|that)\s*)?(?:is|was|are))(?:\s+(?:now|still|just))?"
    r"|(?<![A-Za-z])(?:its|to|will\s+be|should\s+be))(?![A-Za-z])|=|:|：)"
    + _PAUSE
    + r"\s*[,.…-]*\s*"
)

# Said with a value of any shape (connector needed).
_EN_PASSWORD: Final = re.compile(
    r"\b(?P<kw>(?:wi-?fi\s+|wireless\s+|network\s+|router\s+|guest\s+)?"
    r"(?:password|passcode|passphrase|pass\s+word|pwd|pw)|wi-?fi\s+key|network\s+key)\b"
    + _EN_COMPLEMENT
    + _EN_CONNECTOR
    + _VALUE,
    re.IGNORECASE,
)
# "the pass is Lavender-Mint-09": a password, when "pass" is said alone (not a bus or
# boarding pass) with a value that has a digit or a symbol.
_EN_PASS: Final = re.compile(
    r"\b(?:the|my|your|our|his|her|their|and)\s+(?P<kw>pass)\b"
    + _EN_CONNECTOR
    + _VALUE,
    re.IGNORECASE,
)
# A wallet's recovery words, said as many words: "the seed words are lunar pistol ...".
_EN_SEED: Final = re.compile(
    r"\b(?P<kw>(?:seed|recovery|mnemonic|backup|secret)\s+(?:words|phrase))\b"
    + _EN_COMPLEMENT
    + _EN_CONNECTOR
    + _VALUE,
    re.IGNORECASE,
)
# What someone logs in with, when it has a digit or a symbol: "I log in with
# Mortar&Pestle9", "what I sign in with for the portal is Rentals#Harbour88".
_EN_LOGIN: Final = re.compile(
    r"\b(?P<kw>(?:log|sign)\s*(?:in|on)\s+with)\b"
    + _EN_COMPLEMENT
    + r"(?:"
    + _EN_CONNECTOR
    + r"|\s+)"
    + r"(?P<value>[^\s,]*[\d#@$%&*!?_+=~^][^\s,]*)",
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
_ZH_JOIN: Final = r"(?:是|为|為|係|系|:|：|=|改成了?|改为|改為|设置成|设成|設成|就是)"
# The join may come after who changed it: 密碼我改成 ...
_ZH_CONNECTOR: Final = (
    r"\s*(?:(?:我|我们|我們|他|她|你)?(?:已经|已經|刚|剛)?" + _ZH_JOIN + r")?\s*"
)
# A literal value in a Chinese sentence: words in quotes (a passphrase: 「紫色 颱風」),
# a wallet's recovery words (six or more Latin words in a list), Latin letters, digits
# and symbols, or Chinese numerals read out one by one.
_ZH_VALUE: Final = (
    r"(?P<value>「[^」\n]{1,64}」|“[^”\n]{1,64}”"
    r"|[A-Za-z]+(?:\s*[，,、]\s*[A-Za-z]+){5,23}"
    r"|[A-Za-z0-9!@#$%^&*()_+=.~\-]{3,64}|[零〇一二三四五六七八九幺两]{4,})"
)
_ZH_PASSWORD: Final = re.compile(
    r"(?P<kw>(?:wi-?fi|无线|無線|网络|網絡|網路|路由器|银行卡|銀行卡|信用卡|支付|手机|手機"
    r"|电脑|電腦|邮箱|郵箱|账户|賬戶|账号|賬號|门禁|門禁|开门|開門|门锁|門鎖|保险箱|保險箱"
    r"|保险柜|保險櫃|报警器?|報警器?|警报|警報|安防|解锁|解鎖|登录|登錄|登陆)?"
    r"(?:密码|密碼|口令|密语|密語|密钥|密鑰|秘钥|秘鑰|金钥|金鑰|令牌|助记词|助記詞)(?:码|碼)?)"
    + _ZH_CONNECTOR
    + _ZH_VALUE,
    re.IGNORECASE,
)
# An English name of a secret in a Chinese sentence: "API key是 ...", "code是 ...".
_MIXED_PASSWORD: Final = re.compile(
    r"(?P<kw>(?:api|secret|access)\s*(?:key|token)|token|password|passcode|passphrase"
    r"|pin|code|otp)\s*" + _ZH_JOIN + r"\s*" + _ZH_VALUE,
    re.IGNORECASE,
)
# Identity numbers in Chinese: 居留證號碼是 AC01234567.
_ZH_IDENTITY: Final = re.compile(
    r"(?P<kw>(?:身份证|身份證|身分證|居留证|居留證|护照|護照|通行证|通行證|驾照|駕照"
    r"|驾驶证|駕駛證)(?:字号|字號|号码|號碼|号|號)?)" + _ZH_CONNECTOR + _ZH_VALUE,
    re.IGNORECASE,
)
# A lock's combination said as turns: "left 12, right 30, left 5".
_TURN: Final = r"(?:left|right)\s+(?:to\s+)?(?:\d{1,3}(?![\d])|" + NUMBER_WORD + r"\b)"
_TURNS: Final = re.compile(
    r"(?<![A-Za-z])" + _TURN + r"(?:\s*,?\s*(?:then\s+|and\s+)?" + _TURN + r"){2,5}",
    re.IGNORECASE,
)
# The prefixes of keys and tokens, and pieces of the names of passwords and recovery
# words (a text without a digit, a name of a secret or one of these holds none: most
# sentences need no further look).
_KEY_PREFIX: Final = re.compile(
    r"pass|pw|key|token|secret|bearer|seed|mnemonic|phrase|recovery|log|sign|密|口令|令牌"
    r"|金钥|金鑰|助记|助記"
    r"|sk-"
    r"|akia|asia|agpa|aida|aroa"
    r"|gh[pousr]_|glpat|xox|aiza|eyj"
)
# How far a value may be from the name of its secret (words; a Chinese character
# counts half), and what ends a sentence (a value is named in its own).
_NEAR_BEFORE: Final = 10
_NEAR_AFTER: Final = 4
_ATTACHED: Final = 5
# (An ellipsis is a pause in speech, not an end: "card ends... no, the full number is".)
_SENTENCE_END: Final = re.compile(r"(?<![.…])[.!?](?![.…])(?=\s)|[。！？；;]")
_COMPLEMENT: Final = re.compile(
    r"\s+(?:for|of|on|to|at|in|with)\s+[A-Za-z]", re.IGNORECASE
)
_HAN: Final = re.compile(r"[\u3400-\u9fff]")
_HAN_CLAUSE_BREAK: Final = re.compile(
    r"[，、]|(?<=[\u3400-\u9fff])\s+(?=[\u3400-\u9fff])"
)
_GAP_WORD: Final = re.compile(r"[A-Za-z0-9'’]+|[\u3400-\u9fff]")
# The least a value read out has: three digits (a CVV, 三七三) or letters.
_MIN_LENGTH: Final = 3
_DIGIT: Final = re.compile(r"\d")


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
    found = list(_scan(text))
    found += _same_shape(text, found)
    found += _said_again(text, found)
    found += _restated(text, found)
    matches = sorted(found, key=lambda m: (m.start, -m.end))
    merged: list[SecretMatch] = []
    for match in matches:
        if merged and match.start < merged[-1].end:
            last = merged[-1]
            merged[-1] = SecretMatch(last.kind, last.start, max(last.end, match.end))
            continue
        merged.append(match)
    return merged


def _same_shape(text: str, found: list[SecretMatch]) -> list[SecretMatch]:
    """Other values in the same utterance that give a secret away.

    The same value said again ("C-1-9-7-4, actually just C1974"), and a number with as
    many digits as a secret said beside it, its old value ("The PIN is 1357 now, I
    changed it from 2468"). Not a room, a year, an amount or a phone number (the
    words around it say so).
    """
    if not found:
        return []
    runs = value_runs(text)
    said = {_bare(text[m.start : m.end]) for m in found} - {""}
    lengths = {
        run.length
        for run in runs
        if not run.has_letters
        and any(m.start <= run.start and run.end <= m.end for m in found)
    }
    return [
        SecretMatch(_kind(run), run.start, run.end)
        for run in runs
        if not any(m.start < run.end and run.start < m.end for m in found)
        and (
            _bare(text[run.start : run.end]) in said
            or (
                run.length in lengths
                and not run.has_letters
                # "changed it from 2468": a preposition says a change, not a time.
                and not labelled(text, run.start, prepositions=False)
                and not counted(text, run.end, surely=True)
                and not _phone_number(text, run)
            )
        )
    ]


def _said_again(text: str, found: list[SecretMatch]) -> list[SecretMatch]:
    """A value with letters said again as it was: "unicorn, just unicorn"."""
    again: list[SecretMatch] = []
    for match in found:
        value = text[match.start : match.end]
        if len(value) < 4 or not any(c.isalpha() for c in value):
            continue
        boundary = r"(?<![\w])" if value[0].isascii() else ""
        pattern = (
            boundary + re.escape(value) + (r"(?![\w])" if value[-1].isascii() else "")
        )
        again += [
            SecretMatch(match.kind, other.start(), other.end())
            for other in re.finditer(pattern, text, re.IGNORECASE)
            if not any(m.start < other.end() and other.start() < m.end for m in found)
        ]
    return again


# "…, so Creeper$2009", "…，就是xiaomi1188": a password said again, written out; and
# its old or new value ("we changed it to Hh-78kL2q", "原来那个 admin123 改掉了").
_RESTATED: Final = re.compile(
    r"(?:(?<![A-Za-z])(?:so(?:\s+like)?|i\.?e\.?|that's|that is|which is|making it"
    r"|so it's|all together|(?:changed|change|changing)\s+it\s+to|used\s+to\s+be"
    r"|the\s+(?:old|new|previous)\s+one\s+(?:is|was))"
    r"\s*[,:]?\s+|(?:就是|就係|即係|也就是|原来那个|原來那個|舊的那個|旧的那个|以前的|原来的|原來的)"
    r"\s*)(?P<value>[^\s,;，。；]+)",
    re.IGNORECASE,
)


def _restated(text: str, found: list[SecretMatch]) -> list[SecretMatch]:
    """A code-like value in a secret's sentence, said as it again or as its change.

    ("the password's lowercase p, capital L, u, m, 8, 8, exclamation mark, so pLum88!",
    "old Wi-Fi password was …, we changed it to Hh-78kL2q")
    """
    bounds = [0, *(end.end() for end in _SENTENCE_END.finditer(text)), len(text)]
    restated: list[SecretMatch] = []
    for start, end in itertools.pairwise(bounds):
        kinds = [m.kind for m in found if start <= m.start < end]
        if not kinds:
            continue
        for again in _RESTATED.finditer(text, start, end):
            value = _clean_value(again.group("value"))
            at = again.start("value")
            if _is_code_like(value) and not any(
                m.start < again.end() and at < m.end for m in found
            ):
                restated.append(SecretMatch(kinds[0], at, at + len(value)))
    return restated


def _bare(value: str) -> str:
    """A value's letters and digits, lowercase: "C-1-9-7-4" is "c1974"."""
    return "".join(c for c in value.casefold() if c.isalnum())


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
    if not text:
        return
    named = cues(text)
    answered = security_context(text)
    # Lowercase looks before the patterns, which are slow to try at every place.
    folded = text.lower()
    keyed = _KEY_PREFIX.search(folded) is not None
    digits = _DIGIT.search(text) is not None
    if not (named or answered or keyed or digits):
        return
    if keyed:
        yield from _phrases(_EN_PASSWORD, "password", _is_password_value, text)
        yield from _phrases(_EN_PASS, "password", _is_code_like, text)
        # Said as one code-like word: the words after it are not part of it.
        yield from _phrases(_EN_LOGIN, "password", _is_code_like, text, words=0)
        yield from _phrases(
            _EN_SEED, "password", _is_password_value, text, words=24, listed=True
        )
        yield from _phrases(_EN_TOKEN, "token", _is_token_value, text)
        yield from _phrases(_ZH_PASSWORD, "password", _always, text)
    if _HAN.search(text):
        yield from _phrases(_MIXED_PASSWORD, "password", _is_mixed_value, text)
        yield from _phrases(_ZH_IDENTITY, "identity", _always, text)
    if keyed or digits:
        for kind, start, end in shapes(text):
            yield SecretMatch(kind, start, end)
    if digits or ("left" in folded and "right" in folded):
        for match in _TURNS.finditer(text):
            yield SecretMatch("combination", match.start(), match.end())
    if named:
        yield from _named_values(text, named)
    if answered:
        yield from _answers(text)


def _named_values(text: str, all_named: list[Cue]) -> Iterator[SecretMatch]:
    """The values said to be a code, a PIN, a card's, an account's or an identity's.

    A value right after its name is a secret whatever follows ("the code they texted
    is 771 204", "passport number's 553 829 107"); one a few words away is, unless
    the words around it make it a room, a time, a year, a phone number or a count
    ("room 418", "at nine fifteen", "07700 900 418", "2 cats", "300 號"); one read out
    digit by digit or spelled ("4 7 1 9", "eight two nine four", "O-T-T-E-R") is,
    when a secret is named anywhere in what was said.
    """
    for run in value_runs(text):
        if run.length < _MIN_LENGTH:
            continue
        if not run.spelled:
            named = [cue for cue in all_named if not cue.weak]
        else:
            named = all_named
        if not named:
            continue
        followed = _followed_by_name(text, run, named)
        if _named_after(text, run, named):
            yield SecretMatch(_kind(run), run.start, run.end)
            continue
        if _attached(text, run, named) and (
            run.read_out or followed or not counted(text, run.end, surely=True)
        ):
            yield SecretMatch(_kind(run), run.start, run.end)
            continue
        if (
            labelled(text, run.start)
            or (counted(text, run.end) and not followed)
            or _phone_number(text, run)
        ):
            continue
        if _near(text, run, named) or run.read_out:
            yield SecretMatch(_kind(run), run.start, run.end)


def _kind(run: ValueRun) -> str:
    return "password" if run.spelled else "code"


def _distance(gap: str) -> float:
    """How far apart two places are, in words (a Chinese character counts half)."""
    return sum(
        0.5 if "\u3400" <= word[0] <= "\u9fff" else 1.0
        for word in _GAP_WORD.findall(gap)
    )


def _followed_by_name(text: str, run: ValueRun, named: list[Cue]) -> bool:
    """The next words name another secret ("sort code 04 00 04 account ...")."""
    return any(0 <= cue.start - run.end <= 2 for cue in named)


# "9911, that's the gate code now": a value, then what it is.
_NAMED_AFTER: Final = re.compile(
    r"\s*,?\s*(?:that's|that’s|thats|that\s+is|that\s+was|it's|it’s|its|is|was)"
    r"(?:\s+(?:the|my|our|your|his|her|their|new|old|current))*(?:\s+[\w'-]+){0,2}\s+"
    # 2580，这个是车库门的密码
    r"|\s*[，,、]?\s*(?:这个|這個|这|這|呢個|它)?(?:就)?(?:是|係)[\u3400-\u9fff]{0,10}",
    re.IGNORECASE,
)


def _named_after(text: str, run: ValueRun, named: list[Cue]) -> bool:
    """The value is said first, then that it is a secret: "9911, that's the gate code"."""
    return not labelled(text, run.start) and any(
        cue.start >= run.end and _NAMED_AFTER.fullmatch(text, run.end, cue.start)
        for cue in named
    )


def _attached(text: str, run: ValueRun, named: list[Cue]) -> bool:
    """A secret's name right before the value, in the same sentence.

    Not when the word right before the value makes it something else: "my passport
    runs out in March 2029".
    """
    before = [cue for cue in named if cue.end <= run.start]
    if not before:
        return False
    gap = text[before[-1].end : run.start]
    # "the code for the gate is 1 2 3 4": the words after the name say whose it is.
    if labelled(text, run.start) and not _COMPLEMENT.match(gap):
        return False
    return not _SENTENCE_END.search(gap) and _distance(gap) <= _ATTACHED


def _near(text: str, run: ValueRun, named: list[Cue]) -> bool:
    """A secret's name a few words before or after the value, in its clause.

    Chinese said aloud has its clauses apart by spaces or commas; a name after the
    value must follow it closely ("eight two nine four is the alarm code", 1234是密码).
    """
    for cue in named:
        if cue.end <= run.start:
            # "the PIN? oh I changed it, it's 1357": the question names what follows.
            gap = text[cue.end : run.start].removeprefix("?")
            if not _clause_break(gap) and _distance(gap) <= _NEAR_BEFORE:
                return True
        elif cue.start >= run.end:
            gap = text[run.end : cue.start]
            limit = 1 if _HAN.search(gap) else _NEAR_AFTER
            if not _clause_break(gap) and "," not in gap and _distance(gap) <= limit:
                return True
    return False


def _clause_break(gap: str) -> bool:
    if _SENTENCE_END.search(gap):
        return True
    return bool(_HAN.search(gap)) and bool(_HAN_CLAUSE_BREAK.search(gap))


def _phone_number(text: str, run: ValueRun) -> bool:
    """Digits written as a phone number: 0161 496 0321, +44 ..., 139 1124 5678."""
    value = text[run.start : run.end]
    if run.spoken or run.has_letters:
        return False
    digits = "".join(c for c in value if c.isdigit())
    starts_plus = text[max(run.start - 1, 0) : run.start] == "+"
    return (
        (digits.startswith("0") and len(digits) >= 9)
        or starts_plus
        or (len(digits) == 11 and digits[0] == "1" and digits[1] in "3456789")
    )


# A security question's answer: the name after "is", "called", "it's", a comma
# (Rolo, Beckett Street, O'Driscoll), a word after "the memorable word is", and in
# Chinese what follows 答案是, 叫 or 姓 (豆豆, 红旗小学, 黃).
_EN_ANSWER: Final = re.compile(
    r"(?:\b(?:is|was|are|'s|’s|called|named|it's|its)\s+|,\s+)"
    r"(?P<value>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*)"
)
_EN_WORD_ANSWER: Final = re.compile(
    r"\b(?:word|answer)(?:'s|’s)?\b[^.?!]{0,20}?\b(?:is|it's|its|'s|’s)\s+"
    r"(?P<value>[a-z]{3,})\b"
)
_ZH_ANSWER: Final = re.compile(
    r"(?:答案(?>(?:(?:写|寫|填|设|設)的?)?(?:是|係|为|為|:|：)?)|名叫|叫|姓)"
    r"\s*[「『“\"]?(?P<value>[\u3400-\u9fff]{1,6})"
)
# A memorable date, said in words: "the memorable date is the fourth of June".
_EN_DATE_ANSWER: Final = re.compile(
    r"\bmemorable\s+date(?:'s|’s)?\b(?:\s+(?:is|was))?\s*:?\s+"
    r"(?P<value>(?:the\s+)?[\w'-]+(?:\s+(?:of\s+)?[\w'-]+){0,3}?)"
    r"(?=\s*(?:[,.;!?]|$)|\s+(?:for|and|but|so|if|on|in|at|with|because)\b)",
    re.IGNORECASE,
)
_NOT_AN_ANSWER: Final = frozenset(
    "I I'm I've Mum Dad Mom The My Our His Her Their This That It".split()
)
# A question's words are no answer: 第一个宠物叫什么.
_ASKING: Final = ("什么", "什麼", "啥", "谁", "誰", "哪")


def _answers(text: str) -> Iterator[SecretMatch]:
    """The answers to a security question, each time they are said."""
    values = {
        match.group("value")
        for pattern in (_EN_ANSWER, _EN_WORD_ANSWER, _ZH_ANSWER, _EN_DATE_ANSWER)
        for match in pattern.finditer(text)
        if match.group("value") not in _NOT_AN_ANSWER
        and not match.group("value").startswith(_ASKING)
        and match.group("value").casefold() not in _NOT_A_VALUE
    }
    for value in values:
        boundary = r"(?<![\w])" if value[0].isascii() else ""
        for match in re.finditer(boundary + re.escape(value), text):
            yield SecretMatch("security_answer", match.start(), match.end())


def _phrases(
    pattern: re.Pattern[str],
    kind: str,
    accept: Callable[[str], bool],
    text: str,
    *,
    words: int | None = None,
    listed: bool = False,
) -> Iterator[SecretMatch]:
    """The values the pattern finds and `accept` takes.

    A password said in words runs on for a few more of them (`words`: how many);
    `listed`: words that are often said as a list ("ocean, hurdle, pilot, ...").
    """
    for match in pattern.finditer(text):
        if text.startswith(REDACTED, match.start("value")):
            continue  # withheld already
        raw = match.group("value")
        value = _clean_value(raw)
        if value and accept(value):
            start = match.start("value")
            # Redact the value itself, not a full stop after it.
            end = start + len(raw.rstrip(".,;!?。，；！？)）"))
            if kind == "password" and (
                listed or raw == raw.rstrip(".,;!?。，；！？)）")
            ):
                more = _PASSPHRASE_WORDS if words is None else words
                end = _passphrase_end(text, end, more, listed=listed)
            yield SecretMatch(kind, start, end)


# Words that end a passphrase said in words ("purple elephant if anyone asks").
_AFTER_A_PASSPHRASE: Final = frozenset(
    """
    and but so if for in on at or then when because please ok okay right now too also
    with to from the a an is was it it's that which dont don't i we you he she they my
    our all lowercase uppercase capital caps no spaces remember thanks same as
    """.split()
)
_NEXT_WORD: Final = re.compile(r" ([a-z][a-z0-9'-]*)(?![A-Za-z0-9])")
_NEXT_LISTED_WORD: Final = re.compile(r"[,，、]\s*([a-z][a-z0-9'-]*)(?![A-Za-z0-9])")
# A passphrase said in words has at most this many of them after the first.
_PASSPHRASE_WORDS: Final = 4


def _passphrase_end(text: str, end: int, words: int, *, listed: bool = False) -> int:
    """Where a password said as words ends: "purple elephant", "correct horse battery".

    `listed`: the words may be a list, separated by commas ("ocean, hurdle, ...").
    """
    following = (
        _NEXT_LISTED_WORD
        if listed and _NEXT_LISTED_WORD.match(text, end)
        else _NEXT_WORD
    )
    for _ in range(words):
        match = following.match(text, end)
        if not match or match.group(1) in _AFTER_A_PASSPHRASE:
            break
        end = match.end()
    return end


def _clean_value(raw: str) -> str:
    value = raw.rstrip(".,;!?。，；！？)）")
    if len(value) >= 2 and value[0] in "\"'“" and value[-1] in "\"'”":
        value = value[1:-1]
    return value.strip()


def _always(value: str) -> bool:
    return True


def _is_mixed_value(value: str) -> bool:
    """A value after an English name in Chinese: a code, not a word ("code是多少")."""
    return any(c.isdigit() for c in value) or len(value) >= 6


def _is_password_value(value: str) -> bool:
    if value.casefold() in _NOT_A_VALUE or set(value) <= {"*"}:
        return False
    # A Chinese word after "password is" is a description, not the password.
    return not ("\u3400" <= value[0] <= "\u9fff")


def _is_code_like(value: str) -> bool:
    """A value with a digit or a symbol among letters, of six characters or more."""
    return len(value) >= 6 and not value.isalpha() and _is_password_value(value)


def _is_token_value(value: str) -> bool:
    has_digit = any(c.isdigit() for c in value)
    has_letter = any(c.isalpha() for c in value)
    return (len(value) >= 8 and has_digit and has_letter) or (
        len(value) >= 16 and " " not in value and value.casefold() not in _NOT_A_VALUE
    )


__all__ = [
    "REDACTED",
    "SecretMatch",
    "contains_secret",
    "find_secrets",
    "luhn_valid",
    "mentions_secret",
    "redact",
]
