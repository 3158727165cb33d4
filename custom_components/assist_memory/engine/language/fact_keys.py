"""A fact's key: a short snake_case subject.

Keys are the same in both languages where a small dictionary knows the word:
"user_name", "user_birthday", "user_wife_name", "user_favorite_color", "anna_birthday",
"user_allergy_peanut", "user_oat_milk" (preferences: the first two words of what is
liked, so "I like tea" and "I don't like tea" share "user_tea" and the newer replaces
the older). Routines and patterns have no key: two routines rarely contradict each
other word for word, and a wrong replacement would lose one.
"""

from __future__ import annotations

import re
from typing import Final

from .facts import MAX_FACT_KEY_LENGTH
from .keywords import extract_keywords, normalize
from .sentences import _HAN, _HAS_HAN

# -- keys ------------------------------------------------------------------------

_EN_KEY_WORDS: Final = {
    "favourite": "favorite",
    "fave": "favorite",
    "colour": "color",
    "mom": "mother",
    "mum": "mother",
    "mommy": "mother",
    "mummy": "mother",
    "mama": "mother",
    "dad": "father",
    "daddy": "father",
    "papa": "father",
    "children": "child",
    "kids": "child",
    "kid": "child",
    "people": "person",
    "surname": "last_name",
}
_ZH_KEY_WORDS: Final = {
    "名字": "name",
    "姓名": "name",
    "生日": "birthday",
    "地址": "address",
    "住址": "address",
    "电话": "phone",
    "電話": "phone",
    "手机号": "phone",
    "手機號": "phone",
    "电话号码": "phone",
    "手机号码": "phone",
    "邮箱": "email",
    "郵箱": "email",
    "工作": "job",
    "职业": "job",
    "職業": "job",
    "公司": "employer",
    "老婆": "wife",
    "妻子": "wife",
    "太太": "wife",
    "老公": "husband",
    "丈夫": "husband",
    "先生": "husband",
    "男朋友": "boyfriend",
    "男友": "boyfriend",
    "女朋友": "girlfriend",
    "女友": "girlfriend",
    "儿子": "son",
    "兒子": "son",
    "女儿": "daughter",
    "女兒": "daughter",
    "孩子": "child",
    "小孩": "child",
    "妈妈": "mother",
    "媽媽": "mother",
    "妈": "mother",
    "媽": "mother",
    "母亲": "mother",
    "母親": "mother",
    "爸爸": "father",
    "爸": "father",
    "父亲": "father",
    "父親": "father",
    "狗": "dog",
    "狗狗": "dog",
    "小狗": "dog",
    "猫": "cat",
    "貓": "cat",
    "猫咪": "cat",
    "小猫": "cat",
    "车": "car",
    "車": "car",
    "汽车": "car",
    "血型": "blood_type",
    "最喜欢": "favorite",
    "最喜歡": "favorite",
    "最爱": "favorite",
    "最愛": "favorite",
    "颜色": "color",
    "顏色": "color",
    "纪念日": "anniversary",
    "紀念日": "anniversary",
    "结婚纪念日": "anniversary",
}
_KEY_FILLER: Final = frozenset(
    """
    much lot lots bit little kind sort really very always usually also still just even
    especially quite pretty go going get getting have having make take one ones stuff
    thing things way whole kinds lot
    """.split()
)


_IE_PLURALS: Final = frozenset(
    "movies cookies pies ties lies zombies selfies hippies rookies brownies smoothies".split()
)


def _singular(word: str) -> str:
    if word in _EN_KEY_WORDS:
        return _EN_KEY_WORDS[word]
    if not word.isascii() or len(word) <= 3:
        return word
    if word.endswith("ies") and word not in _IE_PLURALS:
        return word[:-3] + "y"
    if re.search(r"(?:ss|x|ch|sh)es$", word):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _join_key(*parts: str) -> str | None:
    words: list[str] = []
    for part in parts:
        for word in part.split("_"):
            # "wifi_name" + "name" -> "wifi_name", not "wifi_name_name".
            if word and (not words or words[-1] != word):
                words.append(word)
    key = "_".join(words)[:MAX_FACT_KEY_LENGTH].strip("_")
    return key or None


def _subject_key(text: str) -> str:
    """The key of a thing named in a sentence: "wife's birthday" -> "wife_birthday"."""
    text = normalize(text).replace("'s", " ")
    parts: list[str] = []
    for word in re.findall(rf"[a-z0-9]+|[{_HAN}]+", text):
        if _HAS_HAN.match(word):
            parts.extend(_zh_key_words(word))
        else:
            parts.append(_singular(word))
    return "_".join(parts)


def _zh_key_words(text: str) -> list[str]:
    """Key words of a Chinese subject: "老婆的名字" -> ["wife", "name"]."""
    parts: list[str] = []
    for piece in re.split("[的之]", text):
        for chunk in re.findall(rf"[{_HAN}]+|[A-Za-z0-9]+", piece):
            if _HAS_HAN.match(chunk):
                parts.extend(_zh_known_words(chunk))
            else:
                parts.append(chunk.lower())
    return parts


def _zh_known_words(chunk: str) -> list[str]:
    if chunk in _ZH_KEY_WORDS:
        return [_ZH_KEY_WORDS[chunk]]
    for size in range(min(len(chunk) - 1, 4), 1, -1):
        if (tail := chunk[-size:]) in _ZH_KEY_WORDS:
            return [*_zh_known_words(chunk[:-size]), _ZH_KEY_WORDS[tail]]
    return [chunk]


def _topic_key(text: str, limit: int = 2) -> str:
    """The first meaningful words of an object: "oat milk in my coffee" -> "oat_milk"."""
    keywords = extract_keywords(text)
    parts: list[str] = []
    for raw in keywords.words:
        word = raw.replace("'", "")
        if word.isdigit() or word in _KEY_FILLER:
            continue
        parts.append(_singular(word))
    parts.extend(_ZH_KEY_WORDS.get(piece, piece) for piece in keywords.chinese)
    return "_".join(list(dict.fromkeys(parts))[:limit])
