"""The words that name a secret, and the words that say a number is something else.

A value is a secret because of what it is said to be: "the key safe is 4719", "my
passport number's 553 829 107", 验证码六零九 二四七. `cues` finds those names (English
and Chinese); `labelled` tells when the words right before a number make it a room,
a flat, a bus, a phone number, a tracking number, a time or a year instead, and
`counted` when the word right after makes it an amount ("2 cats", "300 號",
十二月). `security_context` says whether an utterance is about a security question
or a memorable word, whose answers are secrets whatever their shape.
"""

from __future__ import annotations

from dataclasses import dataclass
import re
from typing import Final

from .spoken_values import ZH_UNITS

# A word before "code" that makes it no secret: a dress code, a postcode, an error.
_HARMLESS_CODES: Final = (
    r"dress|zip|post|postal|area|country|dialling|dialing|promo|promotional|discount"
    r"|voucher|coupon|referral|tracking|qr|bar|error|fault|morse|colou?r|source|tax"
    r"|product|model|airport|flight|booking\s+reference|style|cheat"
)
_HARMLESS_CODE_BEFORE: Final = re.compile(
    rf"(?<![A-Za-z])(?:{_HARMLESS_CODES})\s+$", re.IGNORECASE
)
# Names of secrets in English (each a whole word or phrase; matched case-insensitively).
_EN_CUES: Final = (
    r"pins?|pin\s+(?:code|number)|pass(?:code|word|phrase|key)s?|pass\s+words?|pwd",
    r"memorable\s+(?:word|date|name|place)",
    r"codes?",
    r"combinations?|combos?|otp|2fa|cvv2?|cvc|ssn|iban|sort\s+codes?",
    r"key\s*safes?|key\s*box(?:es)?|lock\s*box(?:es)?|keypads?|padlocks?",
    # "use the pad, it's 6641", "turn the dials to 8805": a keypad, a lock's dials.
    r"(?:the|a|key|number|door)\s+pad|dials",
    r"(?:bike|door|smart|combination|gate|locker|cable|suitcase)\s+locks?",
    r"(?:the|a|hotel|wall|floor|gun|my|our|his|her|their)\s+safe(?:'s)?",
    (
        r"safe\s+(?:code|combination|pin)|(?:burglar|house|home|security)\s+alarms?"
        r"|alarm\s+(?:panel|system|pin)|intercom|door\s+entry"
    ),
    # Not a device that reads cards: "the card reader's a SumUp Air".
    (
        r"accounts?|(?:credit|debit|bank|cash|payment|pension|joint)\s+cards?"
        r"|cards?(?!\s+(?:readers?|terminals?|machines?|games?|tables?))"
    ),
    r"passports?|national\s+insurance|ni\s+(?:number|no)|nhs\s+(?:number|no)",
    r"social\s+security|(?:driving|driver'?s?)\s+licen[cs]es?|licen[cs]e\s+(?:number|no)",
    r"(?:id|identity)\s+(?:card|number|no)|student\s+(?:id|number|no)",
    r"(?:candidate|staff|employee|payroll|pension|holder'?s?)\s+(?:id|number|no)",
    (
        r"(?:customer|account|council\s+tax|tax|policy|membership|member)\s+ref(?:erence)?s?"
        r"|reference\s+(?:number|no)|hkid|nric|aadhaar|tax\s+(?:id|number)"
    ),
    r"(?:three|3|four|4)\s+digits|digits\s+on\s+the\s+back",
    r"verification|one-time|one\s+time\s+(?:code|password|pin|passcode)|texted",
    r"(?:they|bank|it)\s+(?:just\s+)?sent|recovery|backup\s+codes?|steam\s+guard",
    r"authenticat\w+|security\s+(?:code|number)",
)
_EN_CUE: Final = re.compile(
    r"(?<![A-Za-z0-9_])(?:" + "|".join(_EN_CUES) + r")(?![A-Za-z0-9_])", re.IGNORECASE
)
# A piece of every English name above (most sentences have none: no further look).
_EN_HINT: Final = re.compile(
    r"pin|pass|pwd|memorable|code|combo|combination|otp|2fa|cvv|cvc|ssn|iban|key|lock"
    r"|dials"
    r"|pad|safe|alarm|intercom|entry|account|card|passport|insurance|ni |nhs|social"
    r"|licen|id "
    r"|identity|student|candidate|staff|employee|payroll|pension|holder|digit|ref|hkid"
    r"|nric|aadhaar|tax"
    r"|verification|one-time|one time|texted|sent|recovery|backup|steam|authenticat"
    r"|security"
)
# Said of a card only: its expiry ("expiry oh nine twenty-eight").
_CARD_EXPIRY: Final = re.compile(
    r"\b(?:expiry|expiration|expires?|exp\.?|valid\s+(?:until|thru|through))\b",
    re.IGNORECASE,
)
_ZH_CUE: Final = re.compile(
    r"密码|密碼|口令|密钥|密鑰|秘钥|验证码|驗證碼|校验码|校驗碼|动态码|動態碼|取件码|取件碼"
    r"|接送码|接送碼|提货码|提貨碼|安全码|安全碼|授权码|授權碼|开锁码|開鎖碼|门禁|門禁"
    r"|恢复码|恢復碼|备援码|備援碼|备用码|備用碼|身份证|身份證|身分證|护照|護照|账号|賬號"
    r"|帳號|账户|賬戶|户口号码|戶口號碼|卡号|卡號|银行代号|銀行代號|背面|一次性|保险柜|保險櫃"
    r"|保险箱|保險箱|夾萬|夹万|钥匙盒|鑰匙盒|密码锁|密碼鎖"
    r"|户号|戶號|电号|電號|工号|工號|客户号|客戶號|会员号|會員號|学号|學號|保单号|保單號"
    r"|登入码|登入碼|登录码|登錄碼|令牌|居留证|居留證|通行证|通行證|驾照|駕照|驾驶证|駕駛證"
    r"|健保卡|医保卡|醫保卡|社保号|社保號|报警器|報警器|警报器|警報器"
    r"|认证码|認證碼|解锁码|解鎖碼|电子锁|電子鎖|智能锁|智能鎖|指纹锁|指紋鎖",
    re.IGNORECASE,
)
# A character of every Chinese name above.
_ZH_HINT: Final = re.compile(
    r"[密口秘验驗校动動取接提安授开開门門恢复復备備身护護账賬帳户戶卡银銀背一保夹夾钥鑰"
    r"电電工会會学學登令居通驾駕健医醫社报報警认認解智指]"
)
_ZH_CARD_EXPIRY: Final = re.compile(r"有效期|到期日|到期")

# Before a number, words that make it a place, a label or a time, not a secret.
_EN_LABEL: Final = re.compile(
    r"(?:room|flat|apartment|apt|unit|house|floor|level|platform|bus|route|line"
    r"|seat|row|table|channel|page|size|extension|ext|model|type|version|flight|train"
    r"|plate|reg|registration|tracking|order|reference|ref|invoice|ticket|parcel"
    r"|episode|season|chapter|aisle|bay|breaker|fuse|bed|ward|year|years|aged|age"
    r"|born|postcode|weighs|costs?|paid|pay|owe|owes|spent|earn|earns|temperature"
    r"|degrees|mins?|minutes|hours|days|weeks|months|january|february|march|april|may"
    r"|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul"
    r"|aug|sep|sept|oct|nov|dec|monday|tuesday|wednesday|thursday|friday|saturday"
    r"|sunday|called|named)",
    re.IGNORECASE,
)
# Right before a number (no word between), words that make it a time or a date.
_EN_PREPOSITION: Final = re.compile(
    r"(?:since|until|till|til|from|at|on|by|in|for|before|after|around|about|past|between)",
    re.IGNORECASE,
)
# Words skipped looking back from a number to the word that says what it is.
_EN_BRIDGE: Final = frozenset(
    """
    is are was were be been 's s it it's its is now still just the a an my our his her
    their your new old one is: = : then there here um uh er like right so number no
    numbers
    """.split()
)
_ZH_LABEL: Final = re.compile(
    r"(?:车牌|車牌|航班|单号|單號|快递单|運單|运单|型号|型號|手机|手機|电话|電話|門牌|门牌"
    r"|房间|房間|巴士|公交|高铁|高鐵|地址|邮编|郵編|尺码|尺碼|楼|樓|路|街|巷|第"
    r"|名字叫|名字|名称|名稱)"
    r"[是为為係:：\s号號码碼]{0,4}$"
)
# After a number, what makes it a count, a date, a time or an address.
_ZH_UNIT: Final = re.compile(rf"^\s*[{ZH_UNITS}]")
# After a number, words that do not make it a count ("4417, and ...", "5508 in case").
_EN_NOT_A_UNIT: Final = frozenset(
    """
    and then so if in or but dont don't do is was that that's thats which for please ok
    okay right now yeah yes no lol btw same as because cos cause just too also again
    remember thanks mate love all it it's its there here i i'm i've we you he she they
    my your our his her their me hash star enter pound tick when before after the on
    to not don't don’t either each every one quick quickly asap though tho yet by
    anymore any more instead actually
    """.split()
)
# Measures and amounts after a number, singular ("300 euro", "2000 points").
_MEASURES: Final = frozenset(
    """
    pound quid euro dollar yuan kuai percent per metre meter mile foot feet inch kilo
    gram litre liter degree minute hour day week month year time point people digit
    number character letter mile step calorie
    """.split()
)
_SECURITY_HINT: Final = re.compile(
    r"security|secret|memorable|maiden|密|保安|安全|提示|答案"
)
_SECURITY: Final = re.compile(
    r"security\s+(?:question|answer)|secret\s+question"
    r"|memorable\s+(?:word|name|place|date)"
    # "the answer I wrote / set is …": a form's answer, 我答案写的是豆豆.
    r"|答案(?:写|寫|填|设|設)的?(?:是|係)"
    r"|maiden\s+name|密保|保安問題|保安问题|安全問題|安全问题|密碼提示|密码提示|提示問題"
    r"|提示问题",
    re.IGNORECASE,
)


# Names that say a secret only of a value spelled out letter by letter: "wifi, it's
# T as in tango, ..." (a network's name is no secret: "the wifi is called Tulip-5G").
_WEAK_HINT: Final = re.compile(r"wi|network|router|log|sign|account|无线|無線")
_WEAK_CUE: Final = re.compile(
    r"\b(?:wi-?fi|wireless|network|router|login|log\s+in|sign\s+in|account)\b|无线|無線",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Cue:
    """Where a secret is named in a text; a weak name only of a spelled value."""

    start: int
    end: int
    weak: bool = False


def cues(text: str) -> list[Cue]:
    """Every name of a secret in the text, in order."""
    found: list[Cue] = []
    # The patterns are slow to try at every place: a lowercase look first.
    folded = text.lower()
    if _EN_HINT.search(folded):
        found += [
            Cue(m.start(), m.end())
            for m in _EN_CUE.finditer(text)
            if not m.group().casefold().startswith("code")
            or not _HARMLESS_CODE_BEFORE.search(text, max(m.start() - 40, 0), m.start())
        ]
    if _ZH_HINT.search(text):
        found += [Cue(m.start(), m.end()) for m in _ZH_CUE.finditer(text)]
    if _WEAK_HINT.search(folded):
        found += [Cue(m.start(), m.end(), weak=True) for m in _WEAK_CUE.finditer(text)]
    if "card" in folded or "卡" in text:
        found += [Cue(m.start(), m.end()) for m in _CARD_EXPIRY.finditer(text)]
        found += [Cue(m.start(), m.end()) for m in _ZH_CARD_EXPIRY.finditer(text)]
    return sorted(found, key=lambda cue: cue.start)


def labelled(text: str, start: int, *, prepositions: bool = True) -> bool:
    """Whether the words right before `start` say the number there is no secret.

    `prepositions`: whether one right before ("from 2468", "at 1900") makes it a
    time or a date.
    """
    before = text[:start]
    if _ZH_LABEL.search(before[-8:]):
        return True
    words = re.findall(r"[A-Za-z']+|[^\sA-Za-z']", before)[-6:]
    for position, word in enumerate(reversed(words)):
        folded = word.casefold().strip("'")
        if folded in _EN_BRIDGE or folded in {",", ":", "：", "-"}:
            continue
        folded = folded.removesuffix("'s")
        return bool(_EN_LABEL.fullmatch(folded)) or (
            prepositions and position == 0 and bool(_EN_PREPOSITION.fullmatch(folded))
        )
    return False


def counted(text: str, end: int, *, surely: bool = False) -> bool:
    """Whether the word right after `end` makes the number a count or an address.

    `surely`: only a measure or an amount ("300 points", "20 quid", "3 times"), for a
    number named a secret's ("the code is 5730291 tell nobody" has no punctuation).
    """
    after = text[end:]
    if _ZH_UNIT.match(after):
        return True
    match = re.match(r" ([A-Za-z][A-Za-z'’]*)", after)
    if match is None:
        return False
    word = match.group(1).casefold()
    if surely:
        return word.removesuffix("s") in _MEASURES
    return word not in _EN_NOT_A_UNIT


def security_context(text: str) -> bool:
    """Whether the text is about a security question or a memorable word."""
    return bool(_SECURITY_HINT.search(text.lower())) and bool(_SECURITY.search(text))
