"""The kind of value a question asks for, and whether a memory holds one.

"How much is the property fee?", "What's the plumber's number?", "Dave's email?": the
answer is a value of a known shape (an amount of money, a phone number, an email
address). A memory about the same person or thing that holds no such value does not
answer, however near it is by meaning ("The dog walker is Jordan, on Tuesdays" for
"How much do we pay Jordan?"). The model cannot tell these apart: its confidence was as
high for them as for real answers. Answering without an LLM checks the shape
(`search/retrieval.py`); these are shapes, not sentences, in English and Chinese.

A question asking for two things ("What's the pool guy's number, and which Thursdays
does he come?") is read as asking for the first shape found; its memory that answers
only the other part is not said as an answer, which is the safer side.
"""

from __future__ import annotations

from enum import StrEnum
import re
from typing import Final


class AskedValue(StrEnum):
    """A value's shape a question asks for."""

    EMAIL = "email"
    PHONE = "phone"
    MONEY = "money"


_EMAIL_ASKED: Final = re.compile(
    r"e-?mail|邮箱|郵箱|電郵|电邮|电子邮件|電子郵件", re.IGNORECASE
)
_EMAIL_HELD: Final = re.compile(r"@|\bat\b\s+\S+\s+dot\b", re.IGNORECASE)

# "the plumber's number", "phone number", "the number for the vet", 电话多少.
_PHONE_ASKED: Final = re.compile(
    r"\b(?:phone|mobile|cell|contact|landline|telephone)\s*(?:number|no\b|#)"
    r"|(?:'s|’s)\s+number\b"
    r"|\bnumber\s+(?:for|of)\s+(?:the|our|my|a|an)\b"
    r"|\bwhat\s+number\b"
    r"|电话|電話|手机号|手機號|联系方式|聯絡方式|联络方式|聯繫方式"
    r"|号码(?:是)?多少|號碼(?:是|係)?(?:多少|幾多)",
    re.IGNORECASE,
)
# Numbers that are not phone numbers: "the passport number", "Mia's room number".
_OTHER_NUMBER: Final = re.compile(
    r"\b(?:passport|account|policy|room|bus|flight|seat|reference|serial|model|house"
    r"|licen[cs]e|plate|membership|member|order|tracking|table|platform|gate|pin"
    r"|card|customer|case|badge|employee|student|tax|insurance|route|line)"
    r"\s+number",
    re.IGNORECASE,
)
# Seven or more digits with spaces, hyphens or brackets between them.
_PHONE_HELD: Final = re.compile(r"\+?\d[\d\s\-()]{5,}\d")

_MONEY_ASKED: Final = re.compile(
    # "how much", but not of time, sleep or an ingredient
    r"\bhow\s+much\b(?![^?.]*\b(?:time|longer|sleep|water|milk|food|salt|sugar"
    r"|weight|weigh)\b)"
    r"|\b(?:cost|costs|costed|price|prices|priced|fee|fees)\b"
    r"|多少钱|多少錢|幾多錢|几多钱|几钱|幾錢|价格|價格|价钱|價錢|收了多少|收多少"
    r"|租金多少|房租多少|多少租金|费用是多少|費用是多少|多少费用|多少費用",
    re.IGNORECASE,
)
_MONEY_HELD: Final = re.compile(
    r"[£$€¥￥]\s?\d|NT\$|HK\$|S\$|A\$"
    r"|\d[\d,.]*\s?(?:k\b|元|块|塊|蚊|毛|角|yuan|rmb|pounds?|quid|dollars?|bucks"
    r"|euros?|pence|p\b|hkd|ntd|sgd|aud|usd|gbp|cny)"
    r"|[〇零一二三四五六七八九十百千万萬两兩\d]+\s?(?:元|块|塊|蚊|毛|角)"
    r"|\bfree\b|免费|免費",
    re.IGNORECASE,
)

_HELD: Final = {
    AskedValue.EMAIL: _EMAIL_HELD,
    AskedValue.PHONE: _PHONE_HELD,
    AskedValue.MONEY: _MONEY_HELD,
}


def asked_value(question: str) -> AskedValue | None:
    """The shape of value the question asks for, None when it asks for no such value."""
    if _EMAIL_ASKED.search(question):
        return AskedValue.EMAIL
    if _PHONE_ASKED.search(question) and not _OTHER_NUMBER.search(question):
        return AskedValue.PHONE
    if _MONEY_ASKED.search(question):
        return AskedValue.MONEY
    return None


def holds_value(asked: AskedValue, text: str) -> bool:
    """Whether the text holds a value of the asked shape."""
    return bool(_HELD[asked].search(text))
