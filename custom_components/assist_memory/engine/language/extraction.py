"""Automatic memory extraction: facts from what the user says, and how to store them.

Three parts:

- `RuleBasedExtractor`: statements in English and Chinese, recognised by patterns, no
  LLM ("my name is Anna", "I prefer oat milk", "我对花生过敏", "记住备用钥匙在门垫下面").
  Questions, commands, small talk and hypotheticals give nothing.
- `parse_llm_facts`: the checked result of an LLM extractor that was given
  `LLM_EXTRACTION_INSTRUCTIONS` and `FACTS_SCHEMA`; bad items are dropped and logged.
- `plan_write_back`: what to do with new facts given the stored memories
  (asynchronous write-back with duplicate and conflict detection; a newer fact replaces
  an older one about the same thing).

Content style. A memory is read later, out of context, by another model and by people in
a list: each fact is one self-contained sentence, without a final full stop, in the
language the user spoke, in the third person, keeping the user's own words for what
they said:

- English: "The user ..." for the speaker, "The household ..." for "we/our":
  "I prefer oat milk" -> "The user prefers oat milk"; "my wife's birthday is June 3" ->
  "The user's wife's birthday is June 3"; "I always walk the dog at 7" -> "The user
  always walks the dog at 7"; later "I/my" in the same sentence become "they/their".
  Statements about someone else keep their words: "Anna's birthday is March 3".
- Chinese: "用户" for the speaker, "用户家" for 我家/我们家: "我喜欢燕麦奶" ->
  "用户喜欢燕麦奶"; "我的生日是五月三号" -> "用户的生日是五月三号"; a later 我 in the
  same sentence becomes 自己 ("我每天送我女儿上学" -> "用户每天送自己女儿上学").

Keys are short snake_case subjects, the same in both languages where a small dictionary
knows the word: "user_name", "user_birthday", "user_wife_name", "user_favorite_color",
"anna_birthday", "user_allergy_peanut", "user_oat_milk" (preferences: the first two
words of what is liked, so "I like tea" and "I don't like tea" share "user_tea" and the
newer replaces the older). Routines and patterns have no key: two routines rarely
contradict each other word for word, and a wrong replacement would lose one.

Stated facts have source "user_stated" and confidence 0.95; facts the user asked to be
remembered ("remember that ...", "记住...") 1.0. Nothing that contains a secret
(`secrets_filter`) is ever returned or planned; such drops are logged with the
category and key only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
import json
import logging
import math
import re
from typing import Any, Final

from ..storage.models import CATEGORIES, SOURCES, Memory, is_storable_text, validate_key
from .keywords import (
    cjk_pairs,
    expresses_preference,
    extract_keywords,
    light_stem,
    normalize,
)
from .secrets_filter import mentions_secret, redact
from .speech import in_speakers_script, spoken_clean

_LOGGER = logging.getLogger(__name__)

STATED_CONFIDENCE: Final = 0.95
EXPLICIT_CONFIDENCE: Final = 1.0
MIN_STATED_CONFIDENCE: Final = 0.9
MAX_INFERRED_CONFIDENCE: Final = 0.8
DEFAULT_INFERRED_CONFIDENCE: Final = 0.7
MAX_LLM_CONTENT_LENGTH: Final = 500
NEAR_DUPLICATE_SIMILARITY: Final = 0.85
MAX_FACT_KEY_LENGTH: Final = 64
EXTRACTION_SOURCES: Final = ("user_stated", "inferred")


@dataclass(frozen=True, slots=True)
class Fact:
    """One thing worth remembering, before it is stored as a `Memory`."""

    content: str
    category: str = "fact"
    key: str | None = None
    confidence: float = STATED_CONFIDENCE
    source: str = "user_stated"

    def __post_init__(self) -> None:
        if not isinstance(self.content, str) or not self.content.strip():
            raise ValueError("a fact needs content")
        if not is_storable_text(self.content):
            raise ValueError("a fact must not contain NUL characters")
        object.__setattr__(self, "key", validate_key(self.key))
        category = str(self.category).strip().lower()
        if category not in CATEGORIES:
            raise ValueError(f"unknown category {self.category!r}")
        if self.source not in SOURCES:
            raise ValueError(f"unknown source {self.source!r}")
        if (
            isinstance(self.confidence, bool)
            or not isinstance(self.confidence, int | float)
            or not 0.0 <= self.confidence <= 1.0
        ):
            raise ValueError("confidence must be a number from 0 to 1")
        object.__setattr__(self, "content", self.content.strip())
        object.__setattr__(self, "category", category)
        object.__setattr__(self, "confidence", float(self.confidence))

    def to_dict(self) -> dict[str, Any]:
        """The fields `MemoryStore.add` takes (content, category, key, ...)."""
        return {
            "content": self.content,
            "category": self.category,
            "key": self.key,
            "confidence": self.confidence,
            "source": self.source,
        }


# -- text helpers --------------------------------------------------------------

_HAN: Final = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_HAS_HAN: Final = re.compile(f"[{_HAN}]")
_STARTS_HAN: Final = re.compile(f"^[{_HAN}]")
_TRAILING: Final = " \t.,;:!?。，；：！？、…~～\"'”’"
_ABBREVIATIONS: Final = re.compile(
    r"\b(?:mr|mrs|ms|dr|st|prof|jr|sr|vs|etc|e\.g|i\.e|no)\.$", re.IGNORECASE
)
_SENTENCE_BREAK: Final = re.compile(r"(?<=[。！？；!?;])|(?<=\.)(?=\s)|\n+")


def split_sentences(text: str) -> list[str]:
    """Sentences of English (. ! ?) and Chinese (。！？；) text, punctuation kept."""
    sentences: list[str] = []
    for raw in _SENTENCE_BREAK.split(text):
        piece = raw.strip()
        if not piece:
            continue
        if sentences and _ABBREVIATIONS.search(sentences[-1]):
            sentences[-1] = f"{sentences[-1]} {piece}"
        else:
            sentences.append(piece)
    return sentences


_SUBJECT_START: Final = re.compile(
    r"^(?:i|i'm|i've|i am|my|we|we're|our)\b|^我", re.IGNORECASE
)
_BARE_PARTNER: Final = re.compile(r"^(?:my|our)\s+[\w'-]+$", re.IGNORECASE)
_CLAUSE_BREAK: Final = re.compile(
    r"(?:\s*[,，]\s*(?P<conj>(?:and|but|while|whereas|although|though|because|plus)\s+"
    r"|但是|但|而且|并且|並且|可是|不过|不過|还有|還有|另外|同时|同時)?"
    r"|\s+(?P<conj2>and|but|while|whereas|although|though|because)\s+"
    r"|(?P<conj3>但是|但|而且|并且|並且|可是|不过|不過))"
    r"(?=(?:i|i'm|i've|i am|my|we|we're|our)\b|我)",
    re.IGNORECASE,
)


def _split_clauses(sentence: str) -> list[str]:
    """Clauses with their own subject: "I like tea and I hate coffee" gives two.

    A bare comma splits only after a clause that has its own subject ("When I get
    home, I ..." stays whole).
    """
    clauses: list[str] = []
    start = 0
    for match in _CLAUSE_BREAK.finditer(sentence):
        head = sentence[start : match.start()].strip()
        if not head:
            continue
        conjunction = (
            match.group("conj") or match.group("conj2") or match.group("conj3")
        )
        if _BARE_PARTNER.match(head):
            continue  # "my wife and I love ...": one subject, not two clauses
        if conjunction or _SUBJECT_START.match(head):
            clauses.append(head)
            start = match.end()
    clauses.append(sentence[start:].strip())
    return [clause for clause in clauses if clause]


def _clean(clause: str) -> str:
    text = clause.replace("\u2019", "'").replace("\u2018", "'")
    text = re.sub(r"\s+", " ", text).strip()
    return text.strip(_TRAILING)


_EN_FILLER: Final = re.compile(
    r"^(?:(?:oh|ah|well|so|also|and|but|actually|btw|by the way|just so you know"
    r"|just to let you know|fyi|for your information|for the record|fun fact|hey|hi"
    r"|hello|ok|okay|yes|yeah|yep|no|nope|alright|look|listen|you know what|anyway"
    r"|anyways|honestly|in fact|i (?:just )?want(?:ed)? you to know(?: that)?"
    r"|you should know(?: that)?|let me tell you|i have to tell you|i need to tell you)"
    r"\b[,:]?\s*)+",
    re.IGNORECASE,
)
_ZH_FILLER: Final = re.compile(
    r"^(?:对了|對了|顺便说一下|順便說一下|顺便说一句|順便說一句|顺便|順便|其实|其實|另外"
    r"|还有|還有|哦|噢|嗯|啊|那个|那個|告诉你|告訴你|跟你说|跟你說|跟你讲|跟你講"
    r"|你知道吗|你知道嗎|说真的|說真的|老实说|老實說|好的|好吧|是的|我想让你知道"
    r"|我想讓你知道|你要知道)[，,：:！!\s]*"
)


def _strip_fillers(text: str) -> str:
    previous = None
    while previous != text:
        previous = text
        text = _EN_FILLER.sub("", text)
        text = _ZH_FILLER.sub("", text).strip(_TRAILING)
    return text


_EN_QUESTION: Final = re.compile(
    r"^(?:(?:do|does|did|is|are|am|was|were|can|could|would|will|should|shall|have"
    r"|has|had|may|might|must)\s+(?:i|you|we|they|he|she|it|my|your|our|the|there"
    r"|anyone|anybody|a|an|this|that|these|those)\b"
    r"|(?:what|who|whom|whose|which|why|how|where|when)(?:'s|'re|'d|\s+(?:do|does|did"
    r"|is|are|am|was|were|can|could|would|will|should|have|has)\b|$))"
    # the question word said last: "my favourite colour is what again"
    r"|\b(?:is|are|was|were|'s)\s+(?:what|who|where|when|which)(?:\s+again)?\W*$",
    re.IGNORECASE,
)
_ZH_QUESTION: Final = re.compile(
    r"[?？]\s*$|[吗嗎呢么麼嘛]$"
    r"|(?>什么|什麼|为什么|為什麼|为何|為何|啥|哪里|哪裡|哪儿|哪兒|哪个|哪個|哪些|哪|谁|誰"
    r"|多少|怎么|怎麼|怎样|怎樣|几点|幾點|几号|幾號|几岁|幾歲|是不是|有没有|有沒有|对不对"
    r"|對不對|是否|能不能|会不会|會不會|要不要|喜不喜欢|喜不喜歡|爱不爱|愛不愛|记不记得"
    r"|記不記得)(?![都也])"
)
_EN_HEDGE: Final = re.compile(
    r"^(?:if|suppose|supposing|imagine|pretend|assuming|say|let's say|what if|in case"
    r"|unless|hypothetically)\b"
    r"|\b(?:maybe|perhaps|probably|possibly|might|would|could|whether|wish|hopefully"
    r"|i'd|what if|let's say|not sure)\b"
    r"|\bif\s+(?:i|i'm|my|we|our)\b"
    r"|\bi\s+(?:think|believe|suppose|guess|hope|wonder|feel like)\b",
    re.IGNORECASE,
)
_ZH_HEDGE: Final = re.compile(
    r"如果|假如|(?<!主)要是|假设|假設|万一|萬一|假使|倘若|也许|也許|或许|或許|可能|大概"
    r"|说不定|說不定|好像|似乎|我觉得|我覺得|我猜|我想知道|不确定|不確定|应该是|應該是"
    r"|想象|想像"
)


def _is_question(text: str) -> bool:
    return bool(_EN_QUESTION.search(text) or _ZH_QUESTION.search(text))


def _is_hedged(text: str) -> bool:
    return bool(_EN_HEDGE.search(text) or _ZH_HEDGE.search(text))


# -- English: third person -----------------------------------------------------

_EN_ADVERBS: Final = frozenset(
    """
    always usually normally often sometimes never rarely seldom generally typically
    regularly really also just still mostly actually absolutely totally definitely
    truly even only frequently occasionally basically honestly almost already
    """.split()
)
_EN_AUX: Final = {
    "do": "does",
    "don't": "doesn't",
    "have": "has",
    "haven't": "hasn't",
    "am": "is",
    "are": "is",
    "aren't": "isn't",
}
_EN_UNCHANGED: Final = frozenset(
    """
    can can't cannot could couldn't will won't would wouldn't shall should shouldn't
    may might must mustn't was were had did didn't went got made took saw bought left
    put set met came said told gave found lost paid sent sold spent kept ate drank ran
    wrote forgot began brought thought felt heard held knew led meant slept sat stood
    understood won wore woke drove flew grew rode broke chose spoke swam sang taught
    does doesn't is isn't has hasn't
    """.split()
)
_EN_ED_PRESENT: Final = frozenset(
    "need feed seed bleed breed speed proceed succeed exceed shed wed embed bed shred heed weed".split()
)
_SELF_REST: Final = {
    "i am": "they are",
    "i was": "they were",
    "i'm": "they're",
    "i've": "they've",
    "i'll": "they'll",
    "i'd": "they'd",
    "i": "they",
    "me": "them",
    "my": "their",
    "mine": "theirs",
    "myself": "themselves",
    "we're": "they're",
    "we've": "they've",
    "we": "they",
    "us": "them",
    "our": "their",
    "ours": "theirs",
    "ourselves": "themselves",
}
_OTHER_REST: Final = {
    "i am": "the user is",
    "i was": "the user was",
    "i'm": "the user is",
    "i've": "the user has",
    "i'll": "the user will",
    "i'd": "the user would",
    "i": "the user",
    "me": "the user",
    "my": "the user's",
    "mine": "the user's",
    "myself": "the user",
}
_EN_PRONOUN: Final = re.compile(
    r"\b(?:i am|i was|i'm|i've|i'll|i'd|i|me|my|mine|myself|we're|we've|we|us|our"
    r"|ours|ourselves)\b",
    re.IGNORECASE,
)


def _en_pronouns(text: str, mapping: Mapping[str, str]) -> str:
    def swap(match: re.Match[str]) -> str:
        word = match.group()
        if word == "US":  # the country
            return word
        return mapping.get(word.lower(), word)

    return _EN_PRONOUN.sub(swap, text)


def _third_person_verb(word: str) -> str:
    low = word.lower()
    if low in _EN_AUX:
        return _EN_AUX[low]
    if low in _EN_UNCHANGED or (low.endswith("ed") and low not in _EN_ED_PRESENT):
        return word
    if low in ("be", "go"):
        return {"be": "is", "go": "goes"}[low]
    if re.search(r"(?:s|sh|ch|x|z|o)$", low):
        return word + "es"
    if re.search(r"[^aeiou]y$", low):
        return word[:-1] + "ies"
    return word + "s"


_EN_SUBJECT: Final = re.compile(
    r"^(?P<subj>i|we)(?:(?P<contraction>'m|'re|'ve|'ll|'d)\b|\s+(?P<be>am|are|was|were)\b)?\s*(?P<rest>.*)$",
    re.IGNORECASE,
)
_CONTRACTIONS: Final = {
    "'m": "is",
    "'re": "is",
    "'ve": "has",
    "'ll": "will",
    "'d": "would",
}
_BE: Final = {"am": "is", "are": "is", "was": "was", "were": "was"}


def _en_third_person(clause: str) -> str:
    """Third person: "I always drink my coffee" -> "The user always drinks their coffee"."""
    match = _EN_SUBJECT.match(clause)
    if match is None:
        # No "I/we" subject: "my sister moved" -> "The user's sister moved".
        return _capitalize(_en_pronouns(clause, _OTHER_REST))
    subject = "The user" if match.group("subj").lower() == "i" else "The household"
    rest = match.group("rest")
    if contraction := match.group("contraction"):
        return f"{subject} {_CONTRACTIONS[contraction.lower()]} {_en_pronouns(rest, _SELF_REST)}".strip()
    if be := match.group("be"):
        return f"{subject} {_BE[be.lower()]} {_en_pronouns(rest, _SELF_REST)}".strip()
    words = rest.split(" ")
    out: list[str] = []
    index = 0
    while index < len(words) - 1 and words[index].lower() in _EN_ADVERBS:
        out.append(words[index])
        index += 1
    out.append(_third_person_verb(words[index]))
    index += 1
    tail = _en_pronouns(" ".join(words[index:]), _SELF_REST)
    return " ".join([subject, *out, tail]).strip()


def _capitalize(text: str) -> str:
    return text[:1].upper() + text[1:]


# -- Chinese: third person -------------------------------------------------------

_ZH_LEAD: Final = re.compile(
    r"^(?:我们家的|我們家的|我家的|我们家|我們家|我家|我的|我们|我們|我)"
)
_ZH_LEAD_MAP: Final = {
    "我们家的": "用户家的",
    "我們家的": "用户家的",
    "我家的": "用户家的",
    "我们家": "用户家",
    "我們家": "用户家",
    "我家": "用户家",
    "我的": "用户的",
    "我们": "用户一家",
    "我們": "用户一家",
    "我": "用户",
}


def _zh_rest(text: str, *, other: bool = False) -> str:
    """Later 我 in a sentence about the user is 自己; about someone else, 用户."""
    if other:
        return re.sub("我(?![们們])", "用户", text)
    return re.sub("我(?![们們])", "自己", text)


def _zh_third_person(clause: str) -> str:
    """Third person: "我每天送我女儿上学" -> "用户每天送自己女儿上学"."""
    match = _ZH_LEAD.match(clause)
    if match is None:
        return _zh_rest(clause, other=True)
    rest = clause[match.end() :]
    relation = _ZH_PERSON_SUBJECT.match(rest)
    if match.group() == "我" and relation and rest[relation.end() :][:1] != "的":
        return "用户的" + _zh_rest(rest)  # "我女儿..." -> "用户的女儿..."
    return _ZH_LEAD_MAP[match.group()] + _zh_rest(rest)


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


# -- cues --------------------------------------------------------------------------

_WEEKDAYS: Final = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_PERIODS: Final = (
    rf"day|morning|afternoon|evening|night|week|weekend|weekday|month|year|{_WEEKDAYS}"
    r"|summer|winter|spring|autumn|fall|time"
)
_EN_RELATIONS: Final = (
    r"wife|husband|partner|spouse|boyfriend|girlfriend|fiance|fiancee|son|daughter|kids?"
    r"|child|children|baby|mom|mum|mother|dad|father|parents?|brother|sister|siblings?"
    r"|grandma|grandmother|grandpa|grandfather|grandparents?|aunt|uncle|cousin|niece"
    r"|nephew|friend|boss|colleague|coworker|co-worker|neighbou?r|roommate|flatmate"
    r"|nanny|babysitter|doctor|dentist"
)
_EN_EVENT_SUBJECT: Final = re.compile(
    r"\b(?:birthday|anniversary|appointment|wedding|meeting|exam|flight|surgery"
    r"|due date|vacation|holiday|trip|party|graduation)\b",
    re.IGNORECASE,
)
_EN_PREFERENCE_SUBJECT: Final = re.compile(
    r"\b(?:favou?rite|fave|preferred|go-to|go\s+to)\b", re.IGNORECASE
)
_EN_PERSON_SUBJECT: Final = re.compile(
    rf"\b(?:{_EN_RELATIONS})(?:'s)?\b", re.IGNORECASE
)
_ZH_RELATIONS: Final = tuple(
    sorted(
        """
        老婆 妻子 太太 老公 丈夫 先生 爱人 愛人 男朋友 女朋友 男友 女友 未婚夫 未婚妻 儿子 兒子
        女儿 女兒 孩子 小孩 妈妈 媽媽 母亲 母親 妈 媽 爸爸 父亲 父親 爸 哥哥 姐姐 弟弟 妹妹 爷爷
        爺爺 奶奶 外公 外婆 姥姥 姥爷 姥爺 公公 婆婆 岳父 岳母 朋友 好朋友 闺蜜 閨蜜 老板 老闆
        上司 同事 邻居 鄰居 室友 宝宝 寶寶 保姆 医生 醫生 姊姊 阿嬷 阿嬤 阿公 阿姨 叔叔 舅舅
        姑姑 伯伯 孙子 孫子 孙女 孫女 外孙 外孫
        """.split(),
        key=len,
        reverse=True,
    )
)
_ZH_PETS: Final = ("狗狗", "小狗", "小猫", "猫咪", "狗", "猫", "貓")
# Kin said without "my" still mean the speaker's ("外婆住在杭州"); friends need "my".
_ZH_KIN: Final = tuple(
    sorted(
        """
        老婆 太太 老公 先生 儿子 兒子 女儿 女兒 妈妈 媽媽 爸爸 哥哥 姐姐 姊姊 弟弟 妹妹 爷爷
        爺爺 奶奶 外公 外婆 姥姥 姥爷 姥爺 阿嬷 阿嬤 阿公
        """.split(),
        key=len,
        reverse=True,
    )
)
_ZH_REL: Final = "|".join((*_ZH_RELATIONS, *_ZH_PETS))
_ZH_EVENT_SUBJECT: Final = re.compile(
    "生日|纪念日|紀念日|周年|週年|婚礼|婚禮|预约|預約|考试|考試|航班"
)
_ZH_PREFERENCE_SUBJECT: Final = re.compile("最喜欢|最喜歡|最爱|最愛|偏好")
_ZH_PERSON_SUBJECT: Final = re.compile("|".join(_ZH_RELATIONS))

_ROUTINE_CUES: Final = re.compile(
    rf"\b(?:every|each|daily|weekly|usually|always|normally|on (?:{_WEEKDAYS})s|on weekends"
    r"|on weekdays)\b|每天|每日|每周|每週|每个|每個|每晚|每年|每月|通常|总是|總是|平时|平時",
    re.IGNORECASE,
)
_TIME_CUES: Final = re.compile(
    rf"\b(?:at \d{{1,2}}(?::\d\d)?|\d{{1,2}}(?::\d\d)? ?(?:am|pm|o'clock)|morning|mornings"
    rf"|evening|evenings|night|nights|afternoon|noon|midnight|bedtime|breakfast|lunch"
    rf"|dinner|weekend|weekends|weekday|weekdays|(?:{_WEEKDAYS})s?|before work|after work"
    r"|before bed|after school|every|each|daily|weekly|summer|winter|spring|autumn"
    r"|holidays?|vacations?)\b"
    r"|早上|早晨|上午|中午|下午|晚上|傍晚|夜里|夜裡|睡前|饭后|飯後|饭前|飯前|点|點|周|週|星期|礼拜|禮拜|每",
    re.IGNORECASE,
)
_EVENT_CUES: Final = re.compile(
    rf"\b(?:{_WEEKDAYS}|january|february|march|april|may|june|july|august|september"
    r"|october|november|december|tomorrow|tonight|next (?:week|month|year)|birthday"
    r"|anniversary|appointment|meeting|wedding|flight|trip|vacation|holiday|deadline"
    r"|\d{1,2}(?:st|nd|rd|th))\b"
    r"|明天|后天|後天|下周|下週|下个?星期|下個?星期|下个?月|下個?月|周[一二三四五六日天]"
    r"|星期[一二三四五六日天]|礼拜[一二三四五六日天]|\d+月|[一二三四五六七八九十]+月|\d+[号號日]"
    r"|生日|纪念日|紀念日|预约|預約|会议|會議|开会|開會|航班|旅行|假期|婚礼|婚禮",
    re.IGNORECASE,
)


_PREFERENCE_WORDS: Final = re.compile(
    r"\b(?:likes?|loves?|prefers?|enjoys?|hates?|dislikes?|adores?|favou?rite)\b",
    re.IGNORECASE,
)


def _recurs(text: str) -> bool:
    """Whether a statement says something happens again and again."""
    return bool(
        _ROUTINE_CUES.search(text)
        or _EN_NAMED_WEEKDAYS.search(text)
        or (_EN_PLURAL_PRESENT.match(text) and _EN_ON_WEEKDAY.search(text))
    )


def _cue_category(text: str) -> str:
    if _recurs(text):
        return "routine"
    if _EVENT_CUES.search(text):
        return "event"
    if expresses_preference(text) or _PREFERENCE_WORDS.search(text):
        return "preference"
    if _EN_PERSON_SUBJECT.search(text) or _ZH_PERSON_SUBJECT.search(text):
        return "person"
    return "fact"


def _subject_category(subject: str) -> str:
    if _EN_EVENT_SUBJECT.search(subject) or _ZH_EVENT_SUBJECT.search(subject):
        return "event"
    if _EN_PREFERENCE_SUBJECT.search(subject) or _ZH_PREFERENCE_SUBJECT.search(subject):
        return "preference"
    if _EN_PERSON_SUBJECT.search(subject) or _ZH_PERSON_SUBJECT.search(subject):
        return "person"
    return "fact"


# -- English patterns ---------------------------------------------------------------

_NAME: Final = r"(?P<name>[^\W\d_][\w.'-]*(?:\s+[^\W\d_][\w.'-]*){0,3}?)"
_NOT_NAMES: Final = frozenset(
    """
    not a an the actually really just also back later tomorrow tonight when if at in on
    after before now soon up maybe again every once sometime around by whenever anytime
    sometimes please as and or too daily anything something whatever out over home
    """.split()
)
_EN_NAME: Final = re.compile(
    r"^(?:my\s+name\s+is|my\s+name's|i'm\s+called|i\s+am\s+called|people\s+call\s+me"
    r"|everyone\s+calls\s+me|everybody\s+calls\s+me)\s+" + _NAME + "$",
    re.IGNORECASE,
)
_EN_CALL_ME: Final = re.compile(
    r"^(?:(?:you\s+can|you\s+may|please|just|from\s+now\s+on,?|always)\s+)*call\s+me\s+"
    + _NAME
    + r"(?:\s+(?:from\s+now\s+on|please))?$",
    re.IGNORECASE,
)
_EN_ALLERGY: Final = re.compile(
    r"^i(?:'m|\s+am)\s+(?P<neg>not\s+)?(?P<degree>(?:(?:very|severely|mildly|slightly"
    r"|really|also|highly|deathly|extremely|seriously)\s+)*)allergic\s+to\s+(?P<x>.+)$",
    re.IGNORECASE,
)
_EN_ALLERGY_HAVE: Final = re.compile(
    r"^i\s+have\s+(?:an?\s+)?(?:(?:severe|mild|slight|serious|bad)\s+)?"
    r"(?:allergy\s+to\s+(?P<to>.+)|(?P<x>[\w\s-]{1,40}?)\s+allerg(?:y|ies))$",
    re.IGNORECASE,
)
_EN_POSSESSIVE: Final = re.compile(
    r"^(?P<owner>my|our)\s+(?P<x>(?:[\w'-]+\s+){0,4}?[\w'-]+)\s+(?P<verb>is|are)\s+(?P<y>.+)$",
    re.IGNORECASE,
)
_EN_OTHER_POSSESSIVE: Final = re.compile(
    r"^(?P<who>[A-Za-z][\w-]*(?:\s+[A-Z][\w-]*)?)'s\s+(?P<x>(?:[\w'-]+\s+){0,3}?[\w'-]+)"
    r"\s+(?P<verb>is|are)\s+(?P<y>.+)$",
    re.IGNORECASE,
)
_X_STOP: Final = frozenset(
    """
    think thinks said says know knows and or that which who if when because but is are
    was were not will would can should do does did has have had
    """.split()
)
_TRANSIENT: Final = frozenset(
    """
    dead broken low empty full tired busy late early bad good great fine ok okay nice
    awful terrible so too very really pretty kind sort not still already almost gone
    missing lost here there off on out up down over somewhere away sick ill sore cold
    hot warm dark bright loud quiet dirty clean messy open closed locked unlocked wet
    dry hungry thirsty sleepy bored sad happy angry upset stuck done finished ready free
    available
    """.split()
)
_NOT_WHO: Final = frozenset(
    """
    it that there here what who where how when why which he she let today tomorrow
    yesterday tonight everyone everybody nobody somebody someone one this life
    """.split()
)
_PRE: Final = (
    r"(?P<pre>(?:(?:really|absolutely|totally|truly|just|also|definitely|generally|actually"
    r"|still|kind\s+of|sort\s+of|quite|much|especially|particularly|very\s+much|do|don't"
    r"|do\s+not|never|always|usually|honestly|secretly)\s+)*)"
)
_EN_LIKE: Final = re.compile(
    r"^(?P<subj>i|we|my\s+(?P<partner>[\w'-]+)\s+and\s+i)\s+"
    + _PRE
    + r"(?P<verb>prefer|like|love|enjoy|adore|hate|dislike|detest|loathe|can't\s+stand"
    r"|cannot\s+stand)\s+(?P<x>.+)$",
    re.IGNORECASE,
)
_WHO: Final = (
    r"(?P<who>(?i:my|our)\s+[\w'-]+(?:'s\s+[\w'-]+)?|(?i:mom|mum|dad|grandma|grandpa)"
    r"|[A-Z][a-z][\w-]*)"
)
_EN_OTHER_LIKE: Final = re.compile(
    "^"
    + _WHO
    + r"\s+(?i:"
    + _PRE
    + r"(?P<verb>prefers|likes|loves|enjoys|adores|hates|dislikes|detests|loathes"
    r"|can't\s+stand|cannot\s+stand|doesn't\s+like|does\s+not\s+like|doesn't\s+love"
    r"|doesn't\s+enjoy)\s+(?P<x>.+))$"
)
_EN_OTHER_ALLERGY: Final = re.compile(
    "^"
    + _WHO
    + r"\s+(?i:is\s+(?P<neg>not\s+)?(?:(?:very|severely|mildly|also|highly)\s+)*"
    r"allergic\s+to\s+(?P<x>.+))$"
)
_EN_IS_MY: Final = re.compile(
    r"^(?P<who>[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*){0,2})\s+(?i:is\s+(?P<owner>my|our)\s+"
    r"(?P<rel>(?:(?:best|older|younger|big|little|eldest|youngest|oldest)\s+)?(?:"
    + _EN_RELATIONS
    + r")))$"
)
_EN_WHEN: Final = re.compile(
    r"^(?P<conj>when|whenever|after|before|once)\s+(?P<sub>(?:i|we)\b[^,]+),\s*"
    r"(?P<main>(?:i|we)\s+(?:always|usually|normally|often|never|typically|generally"
    r"|tend\s+to)\b.+)$",
    re.IGNORECASE,
)
_CONTEXT_PRONOUN: Final = re.compile(
    r"\b(?:he|him|his|she|her|hers|they|them|those|these|there)\b", re.IGNORECASE
)
_EN_HABIT: Final = re.compile(
    r"^(?P<subj>i|we)\s+(?:(?:also|still|almost)\s+)?(?:always|usually|normally|often"
    r"|typically|generally|never|rarely|seldom|regularly|mostly|sometimes|frequently"
    r"|tend\s+to)\s+(?P<rest>.+)$",
    re.IGNORECASE,
)
_EN_EVERY_FIRST: Final = re.compile(
    rf"^(?P<when>(?:every|each)\s+(?:[\w-]+\s+){{0,2}}?(?:{_PERIODS})s?"
    rf"|on\s+(?:the\s+(?:first|second|third|last)\s+)?(?:{_WEEKDAYS})"
    rf"(?:\s+(?:and|or)\s+(?:{_WEEKDAYS}))*\s+(?:mornings|evenings|afternoons|nights"
    rf"|of\s+(?:every|each|the)\s+month)"
    rf"|on\s+(?:(?:{_WEEKDAYS})s|weekends|weekdays)|(?:in\s+the\s+)?(?:mornings|evenings)"
    r"|weekdays|weekends)\s*,?\s+(?P<clause>(?:i|we)\s+.+)$",
    re.IGNORECASE,
)
_EN_EVERY_LATER: Final = re.compile(
    rf"^(?:i|we)\s+.+\b(?:(?:every|each)\s+(?:[\w-]+\s+){{0,2}}?(?:{_PERIODS})s?"
    rf"|daily|weekly|on\s+(?:(?:{_WEEKDAYS})s|weekends|weekdays))\b",
    re.IGNORECASE,
)
_EN_NOT_ROUTINE: Final = re.compile(
    r"^(?:i|we)\s+(?:want|need|wanna|gotta|have\s+to|must|should|will|'ll|am\s+going"
    r"|'m\s+going)\b|^(?:i|we)'(?:ll|d)\b",
    re.IGNORECASE,
)
_EN_LIVE: Final = re.compile(
    r"^(?P<subj>i|we)\s+(?:currently\s+|now\s+)?live\s+(?:in|at|on|near)\s+\S.*$",
    re.IGNORECASE,
)
_EN_WORK: Final = re.compile(
    r"^i\s+(?:currently\s+|now\s+)?work\s+(?P<how>as|at|for)\s+\S.*$", re.IGNORECASE
)
_EN_DIET: Final = re.compile(
    r"^i(?:'m|\s+am)\s+(?:(?:a|an|strictly|mostly|fully)\s+)?(?P<diet>vegetarian|vegan"
    r"|pescatarian|halal|kosher|lactose[\s-]intolerant|gluten[\s-]intolerant|diabetic"
    r"|celiac|coeliac)\b.*$",
    re.IGNORECASE,
)
_EN_AVOID: Final = re.compile(
    r"^i\s+(?:don't|do\s+not|can't|cannot)\s+(?:eat|drink)\s+(?P<x>.+)$", re.IGNORECASE
)
_EN_AGE: Final = re.compile(
    r"^i(?:'m|\s+am)\s+(?P<n>\d{1,3})(?:\s+years?\s+old)?$", re.IGNORECASE
)
_EN_HAVE_COUNT: Final = re.compile(
    r"^(?P<subj>i|we)\s+have\s+(?:a|an|one|two|three|four|five|six|\d{1,2})\s+"
    r"(?:[\w-]+\s+){0,2}?(?P<x>kids?|children|child|sons?|daughters?|cats?|dogs?|pets?"
    r"|birds?|fish|rabbits?|hamsters?|horses?|cars?|bikes?|bicycles?|grandchildren"
    r"|grandkids?|brothers?|sisters?|siblings?)\b.*$",
    re.IGNORECASE,
)
_EN_REMEMBER: Final = re.compile(
    r"^(?:please\s+)?(?P<polite>(?:can|could|would|will)\s+you\s+(?:please\s+)?)?"
    r"(?:remember|memori[sz]e|note|make\s+a\s+note(?:\s+of)?|take\s+a\s+note(?:\s+of)?"
    r"|keep\s+in\s+mind|bear\s+in\s+mind|don't\s+forget|do\s+not\s+forget|never\s+forget"
    r"|always\s+remember)(?:\s+(?:this|the\s+fact))?\s*(?:\bthat\b|:|,|-)?\s*(?P<x>.+)$",
    re.IGNORECASE,
)
_EN_REMEMBER_TO: Final = re.compile(r"^to\s+(?P<task>.+)$", re.IGNORECASE)
_EN_WH_START: Final = re.compile(
    r"^(?:what|who|whom|whose|which|why|how|where|when|if|whether)\b", re.IGNORECASE
)

_PLACE_PREPOSITION: Final = (
    r"(?P<prep>in|inside|under|underneath|beneath|behind|next\s+to|beside|by|above|below"
    r"|on\s+top\s+of|on|at\s+the\s+back\s+of|in\s+front\s+of)"
)
_PLACE: Final = (
    _PLACE_PREPOSITION
    + r"\s+(?P<y>(?:the|a|an|our|my|their|his|her)\s+.+|[A-Z][\w-]*'s\s+.+)$"
)
_EN_LOCATION: Final = re.compile(
    r"^(?P<owner>(?:the|our|my)\s+)?(?P<x>(?:[\w'-]+\s+){0,5}?[\w'-]+)\s+(?:is|are"
    r"|lives?|hangs?|sits?|stays?|goes)\s+(?:(?:always|usually|kept|stored|hidden"
    r"|hanging|tucked|stuck|pinned|taped|up|down|out|back|all)\s+)*" + _PLACE,
    re.IGNORECASE,
)
_EN_KEEP_IN: Final = re.compile(
    r"^(?P<subj>i|we)\s+(?:(?:always|usually|normally)\s+)?(?:keep|store|hide|put)\s+"
    r"(?P<x>(?:the|our|my|a|an)\s+(?:[\w'-]+\s+){0,4}?[\w'-]+)\s+" + _PLACE,
    re.IGNORECASE,
)
_NOT_PLACES: Final = re.compile(
    r"^(?:a|an|the)\s+(?:bad|good|foul|great)\s+mood\b|^(?:a|the)\s+(?:way|mess|hurry)\b",
    re.IGNORECASE,
)
_PEOPLE_AND_PETS: Final = (
    _EN_RELATIONS
    + r"|twins|family|everyone|everybody|people|guests|dog|cat|puppy|kitten|rabbit|bunny"
    r"|hamster|parrot|bird|tortoise|horse|pet|pets|he|she|they|it|we|you"
)
_EN_PERSON_HEAD: Final = re.compile(rf"^(?:{_PEOPLE_AND_PETS})$", re.IGNORECASE)
_EN_PETS: Final = (
    r"dog|cat|puppy|kitten|rabbit|bunny|hamster|guinea\s+pig|parrot|budgie|bird|fish"
    r"|tortoise|turtle|horse|pony|chickens?|goldfish|lizard|snake"
)
_EN_MEMBER: Final = re.compile(
    r"^(?P<owner>(?i:my|our))\s+(?P<rel>(?i:(?:step|grand|great-)?(?:"
    + _EN_RELATIONS
    + r"|"
    + _EN_PETS
    + r"|nan|nana|granny|gran|grandad|granddad|twins|in-laws)(?:-in-law)?))"
    r"(?:\s+(?P<name>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?),?)?\s+(?P<rest>[a-z].*)$"
)
_EN_NAMED: Final = re.compile(
    r"^(?P<name>[A-Z][a-z][\w'-]*(?:\s+[A-Z][a-z][\w'-]*)?)\s+(?P<rest>(?P<verb>is|has"
    r"|was|can't|cannot|doesn't|isn't|won't|[a-z]+s)\b.*)$"
)
# Capitalised words that start sentences without naming anyone.
_NOT_NAMED: Final = frozenset(
    """
    on in at for with from by to of after before during since until
    this that it there he she they what who everything nothing something everyone
    everybody nobody somebody someone today tomorrow yesterday tonight dinner lunch
    breakfast weather traffic work life time music news dogs cats kids children people
    the a an my our your his her their its these those some all
    january february march april may june july august september october november
    december monday tuesday wednesday thursday friday saturday sunday christmas easter
    """.split()
)
_EN_NOT_STATED: Final = frozenset(
    """
    says said say tells told tell texted asks asked ask wants wanted want thinks thought
    think wonders wonder hopes hope guesses guess reckons reckon believes believe feels
    feel knows know just always never will would might could should must maybe
    """.split()
)
_EN_PET_NAME: Final = re.compile(
    r"^the\s+(?P<pet>" + _EN_PETS + r")'s\s+name\s+is\s+(?P<name>[A-Z][\w'-]*)$",
    re.IGNORECASE,
)
_EN_RATHER: Final = re.compile(
    r"^i(?:'d|\s+would)\s+(?:much\s+|really\s+)?(?P<verb>rather|prefer)\s+(?P<x>.+)$",
    re.IGNORECASE,
)
_EN_TAKE_WITH: Final = re.compile(
    r"^(?P<subj>i|we)\s+(?:(?:always|usually|normally|only)\s+)?(?:take|have|drink"
    r"|eat)\s+(?:my|our)\s+(?P<x>[\w-]+(?:\s+[\w-]+)?)\s+(?P<how>(?:with|without|black"
    r"|white|strong|weak|plain|no)\b.*)$",
    re.IGNORECASE,
)
# "my coffee black", "our tea with lemon": a thing and how it is had.
_EN_MY_THING_HOW: Final = re.compile(
    r"^(?:my|our)\s+(?P<x>[\w-]+(?:\s+[\w-]+)?)\s+(?:with|without|black|white|strong"
    r"|weak|plain|no|extra|hot|cold|iced)\b",
    re.IGNORECASE,
)
# How one travels: "I take the 7:45 train to work" later "the 8:10 train".
_EN_TRANSPORT: Final = re.compile(
    r"\b(?P<how>train|bus|tube|tram|ferry|subway|metro|coach)\b", re.IGNORECASE
)
_EN_ABOUT_ME: Final = re.compile(
    r"^i(?:\s+|(?='ve))(?:(?:also|still|now|currently)\s+)?(?P<verb>grew|was\s+born|speak|drive|ride"
    r"|play|teach|taught|studied|study|work|worked|moved|support|own|volunteer|sing|catch|collect"
    r"|knit|run|cycle|swim|go|wear|use|cook|bake|need|take|have|'ve\s+got|got)\b\s*"
    r"(?P<rest>.+)$"
    r"|^i(?:'m|\s+am)\s+(?:(?:a|an)\s+(?P<what>[\w'-]+(?:\s+[\w'-]+)*)"
    r"|(?P<trait>left-handed|right-handed|left\s+handed|right\s+handed|colou?r-?blind"
    r"|short-sighted|long-sighted|deaf|hard\s+of\s+hearing|pregnant|retired"
    r"|self-employed|diabetic|asthmatic))\b.*$",
    re.IGNORECASE,
)
# After "I need"/"I have": what makes it a passing wish or a chore, not a fact.
_EN_NOT_ABOUT_ME: Final = re.compile(
    r"^(?:to|a\s+(?:coffee|tea|drink|break|nap|rest|minute|moment|second|shower|hand"
    r"|word)|an?\s+(?:idea|question)|no\s+idea|got\s+to|been|fun|some\s+time)\b"
    r"|\b(?:today|tonight|right\s+now|tomorrow|this\s+(?:morning|afternoon|evening))\b",
    re.IGNORECASE,
)
_EN_CLOCK_TIME: Final = re.compile(
    r"\b\d{1,2}:\d\d\b|\b\d{1,2}\s*(?:am|pm|o'clock)\b", re.IGNORECASE
)
_EN_HAVE: Final = frozenset({"have", "'ve got", "got", "need"})
_EN_NOT_WHAT: Final = frozenset("bit little lot huge big fan bit".split())
_EN_SCHEDULED_THING: Final = re.compile(
    r"^(?:the|my|our)\s+(?P<x>(?:[\w'-]+\s+){0,3}?[\w'-]+)\s+(?:is|are|comes?|goes"
    r"|go|renews?|starts?|ends?|runs?|opens?|closes?|happens?)\b",
    re.IGNORECASE,
)
# "The bins go out", "Piano lessons are": present tense of a plural subject, which
# with a plain weekday means every week (a one-off says "is", "this", "next").
_EN_PLURAL_PRESENT: Final = re.compile(
    r"^(?:the|my|our)?\s*(?:[\w'-]+\s+){0,3}?[\w'-]+s\s+(?:are|go|come|start|end|run"
    r"|open|close|happen)\b(?!.*\b(?:this|next|tomorrow|coming)\b)",
    re.IGNORECASE,
)
_EN_ON_WEEKDAY: Final = re.compile(rf"\bon\s+(?:{_WEEKDAYS})\b", re.IGNORECASE)
_EN_NOT_SCHEDULED: Final = re.compile(
    r"^(?:weather|forecast|traffic|sky|rain|sun|news|tv|television|radio|music|kids"
    r"|children)\b",
    re.IGNORECASE,
)
_EN_NAMED_WEEKDAYS: Final = re.compile(
    rf"\bon\s+(?:the\s+first\s+|the\s+last\s+)?(?:{_WEEKDAYS})(?:\s*(?:,|and|or|&)\s*"
    rf"(?:{_WEEKDAYS}))*\s+(?:mornings|evenings|afternoons|nights)\b"
    rf"|\bevery\s+(?:other|second|third)\s+(?:{_WEEKDAYS}|week|month)\b"
    rf"|\bon\s+(?:workdays|school\s+days|schooldays)\b",
    re.IGNORECASE,
)

# -- Chinese patterns -------------------------------------------------------------

_ZH_NAME: Final = r"(?P<name>[^\s，,。！？!?：:、]{1,12}?)"
_ZH_NOT_NAME_START: Final = "了过過着著他她你您它人车車醒起去回吃做一来來出下上"
_ZH_CALLED: Final = re.compile(r"^我(?:的名字)?(?:叫做|叫|名叫)" + _ZH_NAME + "$")
_ZH_CALL_ME: Final = re.compile(
    r"^(?:请|請|你|以后|以後|就|可以|你可以|都|以后就|以後就)*叫我"
    + _ZH_NAME
    + r"(?:就(?:行|好|可以)了?|就行|好了|吧)?$"
)
_ZH_ALLERGY: Final = re.compile(
    r"^(?P<who>我(?:的)?(?:(?:"
    + _ZH_REL
    + rf")[{_HAN}]{{0,3}}?)?)(?P<neg>不)?[对對](?P<x>[^，,]{{1,20}}?)(?:不)?[过過]敏$"
)
_ZH_ALLERGY_BARE: Final = re.compile(
    r"^(?P<who>我(?:的)?(?:"
    + _ZH_REL
    + r")?)(?:有)?(?P<x>[^对對不，,]{1,10}?)[过過]敏(?:症)?$"
)
_ZH_FAVORITE: Final = re.compile(
    r"^我(?:的)?最(?:喜欢|喜歡|爱|愛)的(?P<x>[^是，,]{1,12}?)(?:是|变成|變成|换成|換成|改成)"
    r"(?P<y>.+)$"
)
_ZH_POSSESSIVE: Final = re.compile(
    r"^(?P<owner>我们家的?|我們家的?|我家的?|我们的|我們的|我的|家里的|家裡的)(?P<x>[^是叫，,]{1,12}?)"
    r"(?P<verb>是|叫)(?P<y>.+)$"
)
_ZH_RELATION: Final = re.compile(
    r"^我(?P<rel>" + _ZH_REL + r")(?P<verb>的名字是|的名字叫|名叫|叫做|叫|是)(?P<y>.+)$"
)
_ZH_DATE_OF: Final = re.compile(
    r"^(?P<who>[^，,的]{1,10})的(?P<what>生日|结婚纪念日|結婚紀念日|纪念日|紀念日)(?:是|在)(?P<y>.+)$"
)
_ZH_IS_MY: Final = re.compile(
    r"^(?P<who>[^我你您他她它这這那谁誰，,]{1,8})是我(?:的)?(?P<rel>" + _ZH_REL + r")$"
)
_ZH_PRE: Final = (
    r"(?P<adv>(?:也|还|還|真的|真|非常|很|特别|特別|超级|超級|超|最|比较|比較|更|挺|一直|都"
    r"|蛮|蠻|好|其实|其實)*)"
)
_ZH_LIKE_VERBS: Final = (
    r"(?P<verb>不太喜欢|不太喜歡|不怎么喜欢|不怎麼喜歡|不喜欢|不喜歡|不爱|不愛|讨厌|討厭"
    r"|受不了|反感|喜欢|喜歡|热爱|熱愛|偏爱|偏愛|偏好|钟爱|鍾愛|爱|愛|享受)"
)
_ZH_TAKE_WITH: Final = re.compile(
    r"^我(?:喝|吃)(?P<x>[^，,]{1,6}?)(?:都|一般|通常|喜欢|喜歡|习惯|習慣)?(?:要|会|會)?"
    r"(?:加|放|配|不加|不放)(?P<y>[^，,]+)$"
)
_ZH_LIKE: Final = re.compile(r"^我" + _ZH_PRE + _ZH_LIKE_VERBS + r"(?P<x>.+)$")
_ZH_OTHER_LIKE: Final = re.compile(
    r"^我(?:的)?(?P<rel>" + _ZH_REL + ")" + _ZH_PRE + _ZH_LIKE_VERBS + r"(?P<x>.+)$"
)
_ZH_HABIT: Final = re.compile(
    r"^(?:我们家|我們家|我们|我們|我家|我)(?P<pre>(?:早上|上午|中午|下午|晚上|周末|週末|平时|平時|工作日|夜里|夜裡)?)"
    r"(?P<adv>每天|每日|每晚|每周|每週|每个?月|每個?月|每个?星期|每個?星期|每个?礼拜"
    r"|每個?禮拜|每个?周末"
    r"|每個?週末|每年|通常|一般|平时|平時|平常|总是|總是|经常|經常|常常|往往|向来|向來"
    r"|从来|從來|从不|從不|习惯|習慣|一直)(?P<rest>.+)$"
)
_ZH_EVERY_FIRST: Final = re.compile(
    r"^(?P<when>每[^我，,]{1,10}|周末|週末|工作日|平时|平時)[，,]?\s*"
    r"(?P<subj>我们|我們|我)(?P<rest>.+)$"
)
_ZH_LIVE: Final = re.compile(
    r"^(?P<who>我们家|我們家|我家|我们|我們|我)(?:现在|現在|目前)?住在.+$"
)
_ZH_WORK: Final = re.compile(
    r"^我(?:现在|現在|目前)?(?:改|已经|已經)?在[^，,]+?(?:工作|上班|(?P<job>做|当|當)[^，,]+)了?$"
)
_ZH_DIET: Final = re.compile(
    r"^我(?:是|是个|是個|是一个|是一個|是一名)?(?:素食者|素食主义者|素食主義者|吃素的?)$"
    r"|^我(?:只)?吃素"
)
_ZH_AVOID: Final = re.compile(r"^我(?:从来|從來)?不(?:能)?(?:吃|喝)(?P<x>[^，,]+)$")
_ZH_AGE: Final = re.compile(
    r"^我今年[\d一二两兩三四五六七八九十百]+岁了?$|^我今年[\d一二两兩三四五六七八九十百]+歲了?$"
)
_ZH_HAVE_COUNT: Final = re.compile(
    r"^(?P<who>我们家|我們家|我家|我)有(?:[\d一二两兩三四五六七八九十]+)"
    r"(?:个|個|只|隻|条|條|位|辆|輛|台)(?P<x>[^，,]{1,8})$"
)
_ZH_REMEMBER: Final = re.compile(
    r"^(?:请你?|請你?|麻烦你?|麻煩你?|你)?(?:要|得|帮我|幫我|替我|给我|給我)*"
    r"(?:记住|記住|记下来|記下來|记下|記下|记一下|記一下|记录一下|記錄一下|记着|記著|记得"
    r"|記得|牢记|牢記|千万别忘了|千萬別忘了|别忘了|別忘了|别忘记|別忘記|不要忘了|不要忘记"
    r"|不要忘記|别忘|別忘)(?:一下)?(?:这个|這個|这件事|這件事)?[，,：:\s]*(?P<x>.+)$"
)
_ZH_PLACE_END: Final = (
    "里", "裡", "里面", "裡面", "下面", "下边", "下邊", "上面", "上边", "上邊", "旁边",
    "旁邊", "后面", "後面", "前面", "底下", "抽屉", "抽屜", "柜", "櫃", "箱", "盒", "上", "下",
)  # fmt: skip
_ZH_LOCATION: Final = re.compile(
    r"^(?P<owner>我的|我们家的?|我們家的?|我家的?)?(?P<x>[^我你您他她它这這那谁誰哪，,是在"
    r"\d]{1,12}?)(?:都|也|一直|一般|通常|平时|平時)?(?P<verb>放|藏|收|存|挂|掛|摆|擺|锁|鎖"
    r"|停|插)?在(?P<y>[^，,]{2,24})$"
)
_ZH_PUT: Final = re.compile(
    r"^(?P<owner>我们|我們|我)(?:都|一般|通常|平时|平時)?把(?P<x>[^，,]{1,12}?)(?:放|藏|收|存"
    r"|挂|掛|摆|擺|锁|鎖|停)在(?P<y>[^，,]{2,24}?)了?$"
)
# Places said in the middle: "楼梯下面的储物间", "衣柜最上面那层".
_ZH_PLACE_INSIDE: Final = re.compile(
    "(?:里|裡|下面|上面|旁边|旁邊|后面|後面|底下)的|那?[层層格]$|[间間房室]$"
)
_ZH_MEMBER: Final = re.compile(
    r"^(?:(?P<owner>我们家的?|我們家的?|我家的?|我们的|我們的|我的|我)(?P<rel>"
    + "|".join((*_ZH_RELATIONS, *_ZH_PETS))
    + r")|(?P<kin>"
    + "|".join(_ZH_KIN)
    + r"))(?P<rest>[^，,]{2,}.*)$"
)
# What follows a household member that is not a fact about them.
_ZH_MEMBER_NOT: Final = re.compile(
    r"^(?:的|是|叫|说|說|刚|剛|想|要|觉得|覺得|问|問|告诉|告訴)|[“”「」\"':：]"
)
_ZH_NAME_THEN: Final = re.compile(
    rf"^(?P<name>[{_HAN}]{{1,3}}?)(?=对|對|有|不|每|在|住|是|很|喜|爱|愛|怕|会|會)"
)
_ZH_ABOUT_ME: Final = re.compile(
    r"^我(?:也|还|還)?(?:是(?!说|說|不是)(?!.*(?:的话|的話))"
    r"|在[^，,]{1,10}?(?:长大|長大|出生|读书|讀書|上学|上學|读过|讀過)"
    r"|会说|會說|会讲|會講|会弹|會彈|讲|講|开(?=一|辆|輛|台)|開(?=一|辆|輛|台)"
    r"|有(?!点|點|事|空|时间|時間|一点|一點|没有|沒有)|养|養|骑|騎"
    r"|老家|家乡|家鄉|(?:开|開|骑|騎|用|戴)的是|穿(?=[^，,]*[码碼号號])"
    r"|(?:的)?(?:血糖|血压|血壓|胆固醇|膽固醇|尿酸|视力|視力|听力|聽力|膝盖|膝蓋|心脏|心臟)"
    r"(?=[^，,]*(?:高|低|不好|差|有问题|有問題)))"
    r"[^，,]*(?:[，,].*)?$"
)
# Commands start with what to do: "把空调……", "帮我……", "打开……".
_ZH_COMMAND_START: Final = (
    "把", "帮", "幫", "请", "請", "给", "給", "打开", "打開", "关", "關", "播放", "放",
    "定", "设", "設", "叫", "提醒", "调", "調", "开", "開",
)  # fmt: skip
_ZH_THING_ROUTINE: Final = re.compile(r"^(?!我)[^，,]{0,12}?(?:每|通常|总是|總是)")
_ZH_THING_EVENT: Final = re.compile(
    # "明天早上六点半叫我起床" asks the assistant to act: not about a thing
    r"^(?!.*(?:叫我|帮我|幫我|提醒我|告诉我|告訴我))(?![我你您他她它这這那])[^，,]{1,8}?(?:今天|明天|后天|後天|下周|下週|下个|下個"
    r"|周[一二三四五六日天]|星期[一二三四五六日天]|礼拜[一二三四五六日天]|禮拜[一二三四五六日天]"
    r"|在?[\d一二三四五六七八九十]+[号號]|[\d一二三四五六七八九十]+月"
    r"|(?:早上|上午|中午|下午|晚上)[\d一二两兩三四五六七八九十]+[点點])"
)
# Plans of one's own: "我下周不上班", "我下禮拜要出差".
_ZH_MY_PLAN: Final = re.compile(
    r"^我(?:今天|明天|后天|後天|下周|下週|下个?星期|下個?星期|下个?礼拜|下個?禮拜|下禮拜"
    r"|下礼拜|下个?月|下個?月|周末|週末)[^，,]{2,}$"
)
# Lessons on a weekday are weekly: "我周二晚上要上瑜伽课".
_ZH_WEEKLY_LESSON: Final = re.compile(
    r"^我(?:每)?(?:周|週|星期|礼拜|禮拜)[一二三四五六日天][^，,]{0,6}?上[^，,]{1,8}[课課]$"
)
# How one gets to work: "我每天坐七点四十五的地铁", later "我改坐八点十分的地铁了".
_ZH_COMMUTE: Final = re.compile(
    r"^我(?:每天|平时|平時|一般|通常)?(?:改)?(?:坐|搭|乘)[^，,]*?(?P<how>地铁|地鐵|捷运|捷運"
    r"|公交车?|公车|公車|巴士|火车|火車|高铁|高鐵|班车|班車|轮渡|輪渡)[^，,]*$"
)
_ZH_LIKE_LATER: Final = re.compile(
    r"^(?P<before>[^，,]{0,10}?)(?P<subj>我们家|我們家|我)(?P<middle>[^，,]{0,8}?)"
    + _ZH_PRE
    + r"(?P<verb>喜欢|喜歡|爱|愛|偏爱|偏愛)(?P<x>[^，,].*)$"
)
_ZH_SARCASM: Final = re.compile("可太|简直|簡直|爱死|愛死|太好了|真棒|又")
_ZH_STATEMENT_MARK: Final = re.compile("是|在|有|叫|会|會|要|的|了|过|過|用户")
_ZH_NOT_OBJECT_START: Final = "你您他她它这這那"
_ZH_CONTRAST: Final = re.compile("[，,]?(?:但是|但|可是|不过|不過)")
_EN_CONTRAST: Final = re.compile(r",?\s+but\s+", re.IGNORECASE)
_ZH_TRANSIENT_START: Final = ("不", "没", "沒", "坏", "壞", "很", "太", "有点", "有點")
_EN_NOT_OBJECT: Final = re.compile(
    r"^(?:that|this|these|those|you|it(?!\s+when\b))\b", re.IGNORECASE
)
_OBJECT_FILLER: Final = frozenset(
    "much lot lots so very really too here there now".split()
)

_Draft = tuple[str, str, str | None]


def _meaningful(text: str) -> bool:
    keywords = extract_keywords(text)
    words = [word for word in keywords.words if word not in _OBJECT_FILLER]
    return bool(words or keywords.chinese)


def _cut_en(text: str) -> str:
    return _EN_CONTRAST.split(text, maxsplit=1)[0].strip(_TRAILING)


def _cut_zh(text: str) -> str:
    return _ZH_CONTRAST.split(text, maxsplit=1)[0].strip(_TRAILING)


class RuleBasedExtractor:
    """Facts from statements in English and Chinese, by patterns (no LLM)."""

    def __init__(
        self,
        *,
        stated_confidence: float = STATED_CONFIDENCE,
        explicit_confidence: float = EXPLICIT_CONFIDENCE,
    ) -> None:
        self.stated_confidence = stated_confidence
        self.explicit_confidence = explicit_confidence

    def extract(self, text: str, *, language: str | None = None) -> list[Fact]:
        """Every fact the user stated in `text` (one or more sentences).

        `language`: the conversation's (a tag such as "zh-Hant"), when known.
        """
        facts: list[Fact] = []
        seen: set[tuple[str | None, str]] = set()
        for sentence in split_sentences(text):
            question = sentence.rstrip().endswith(("?", "？"))
            for clause in _split_clauses(spoken_clean(sentence)):
                for content, category, key, explicit in self._clause(clause, question):
                    fact = Fact(
                        content=in_speakers_script(sentence, content, language),
                        category=category,
                        key=key,
                        confidence=self.explicit_confidence
                        if explicit
                        else self.stated_confidence,
                        source="user_stated",
                    )
                    if mentions_secret(content) or mentions_secret(clause):
                        _log_secret(fact)
                        continue
                    identity = (key, _normal(content))
                    if identity not in seen:
                        seen.add(identity)
                        facts.append(fact)
        return facts

    def _clause(
        self, clause: str, question: bool
    ) -> list[tuple[str, str, str | None, bool]]:
        text = spoken_clean(_strip_fillers(_clean(clause)))
        if not text:
            return []
        remember = _EN_REMEMBER.match(text) or _ZH_REMEMBER.match(text)
        if remember is not None:
            polite = "polite" in remember.re.groupindex and remember.group("polite")
            if question and not polite:
                return []
            return [(*draft, True) for draft in self._remembered(remember.group("x"))]
        rather = _EN_RATHER.match(text)
        hedged = _is_hedged(rather.group("x") if rather else text)
        if question or _is_question(text) or hedged:
            return []
        return [(*draft, False) for draft in self._statement(text, explicit=False)]

    def _statement(self, text: str, *, explicit: bool) -> list[_Draft]:
        if _STARTS_HAN.match(text):
            return _chinese(text, explicit=explicit)
        return _english(text, explicit=explicit)

    def _remembered(self, raw: str) -> list[_Draft]:
        text = _strip_fillers(_clean(raw))
        if not text or _is_question(text) or _is_hedged(text):
            return []
        if drafts := self._statement(text, explicit=True):
            return drafts
        if _STARTS_HAN.match(text):
            return _zh_remembered(text)
        return _en_remembered(text)


def _en_remembered(text: str) -> list[_Draft]:
    if task := _EN_REMEMBER_TO.match(text):
        content = "The user wants to remember to " + _en_pronouns(
            task.group("task"), _SELF_REST
        )
        return [(content, "note", None)]
    if _EN_WH_START.match(text) or len(text.split()) < 3:
        return []
    return [(_en_third_person(text), _cue_category(text), None)]


def _zh_remembered(text: str) -> list[_Draft]:
    if len(text) < 2:
        return []
    content = _zh_third_person(text)
    if not _ZH_STATEMENT_MARK.search(content):
        return [("用户要记得" + content, "note", None)]
    return [(content, _cue_category(text), None)]


def _english(text: str, *, explicit: bool) -> list[_Draft]:
    if (match := _EN_NAME.match(text)) and _name_ok(match.group("name")):
        return [(f"The user's name is {match.group('name')}", "person", "user_name")]
    if match := _EN_CALL_ME.match(text):
        name = match.group("name")
        if _name_ok(name) and len(name.split()) <= 3:
            return [(f"The user wants to be called {name}", "person", "user_name")]
        return []
    if match := _EN_ALLERGY.match(text):
        x = _cut_en(match.group("x"))
        if not _meaningful(x):
            return []
        negation = "not " if match.group("neg") else ""
        content = f"The user is {negation}{match.group('degree')}allergic to {_en_pronouns(x, _SELF_REST)}"
        return [(content, "fact", _join_key("user_allergy", _topic_key(x)))]
    if match := _EN_ALLERGY_HAVE.match(text):
        x = match.group("to") or match.group("x")
        if not _meaningful(x):
            return []
        return [
            (_en_third_person(text), "fact", _join_key("user_allergy", _topic_key(x)))
        ]
    if drafts := _en_location(text):
        return drafts
    if drafts := _en_possessive(text, explicit=explicit):
        return drafts
    if drafts := _en_preference(text):
        return drafts
    if match := _EN_LIKE.match(text):
        return _en_like(match)
    if drafts := _en_other(text):
        return drafts
    return _en_facts(text) or _en_member(text) or _en_scheduled(text)


def _en_scheduled(text: str) -> list[_Draft]:
    """When things happen: "The cleaner comes every other Friday", "... is at 2"."""
    match = _EN_SCHEDULED_THING.match(text)
    if match is None or _EN_NOT_SCHEDULED.match(match.group("x")):
        return []
    if _recurs(text):
        category = "routine"
    elif _EVENT_CUES.search(text) or re.search(r"\bat\s+\d", text):
        category = "event"
    else:
        return []
    return [(_capitalize(_en_pronouns(text, _OTHER_REST)), category, None)]


def _en_location(text: str) -> list[_Draft]:
    """Where things are kept: "The torch is in the top drawer", "I keep X in Y"."""
    if match := _EN_PET_NAME.match(text):
        pet = match.group("pet").lower()
        content = f"The household's {pet}'s name is {match.group('name')}"
        return [(content, "fact", _join_key("household", pet, "name"))]
    if match := _EN_KEEP_IN.match(text):
        content = _en_third_person(text)
    elif match := _EN_LOCATION.match(text):
        said = _en_pronouns(text[match.start("x") :], _OTHER_REST)
        if owner := (match.group("owner") or "").strip().lower():
            label = {"the": "The", "my": "The user's", "our": "The household's"}[owner]
            content = f"{label} {said}"
        else:
            content = _capitalize(said)  # "Birthday candles are in ..."
    else:
        return []
    x, y = match.group("x"), match.group("y")
    head = x.split()[-1].replace("'s", "")
    if _EN_PERSON_HEAD.match(head) or _NOT_PLACES.match(y):
        return []  # "The kids are in the garden": where someone is now
    if _EN_EVENT_SUBJECT.search(head) or _EVENT_CUES.search(y):
        return []  # "my birthday is on the 2nd of July": a date, not a place
    return [(content, "fact", _join_key(_topic_key(x, limit=3), "location"))]


def _en_preference(text: str) -> list[_Draft]:
    """Preferences said another way: "I'd rather ...", "I take my coffee with ..."."""
    if match := _EN_RATHER.match(text):
        x = _cut_en(match.group("x"))
        if not _meaningful(x):
            return []
        verb = match.group("verb").lower()
        content = f"The user would {verb} {_en_pronouns(x, _SELF_REST)}"
        return [(content, "preference", _join_key("user", _topic_key(x)))]
    if match := _EN_TAKE_WITH.match(text):
        owner = "user" if match.group("subj").lower() == "i" else "household"
        if _TIME_CUES.search(match.group("how")):
            return [(_en_third_person(text), "routine", None)]
        key = _join_key(owner, _topic_key(match.group("x")))
        return [(_en_third_person(text), "preference", key)]
    return []


def _en_member(text: str) -> list[_Draft]:
    """Others in the household: "My son Leo plays football", "Emma is afraid of ..."."""
    if match := _EN_MEMBER.match(text):
        owner = match.group("owner").lower()
        label = "The user's" if owner == "my" else "The household's"
        who = text[match.start("rel") : match.start("rest")].strip()
        who_key = _join_key(
            "user" if owner == "my" else "household",
            _subject_key(match.group("rel")),
        )
        who_text = f"{label} {who}"
    elif match := _EN_NAMED.match(text):
        who_text = match.group("name")
        if (
            who_text.split()[0].lower() in _NOT_NAMED
            or "'" in text[match.end("name") :]
        ):
            return []
        who_key = _subject_key(who_text)
    else:
        return []
    rest = match.group("rest")
    words = rest.lower().split()
    if (
        words[0] in _EN_NOT_STATED
        or _EN_NOT_OBJECT.match(" ".join(words[1:]))
        or (
            words[0] in ("is", "are", "was", "'s")
            and len(words) > 1
            and (
                words[1] in _TRANSIENT
                or (words[1].endswith("ing") and words[1] != "coming")
            )
        )
    ):
        return []
    if re.search(r"[\"“”‘]|:", rest):
        return []  # a quote
    content = f"{who_text} {_en_pronouns(rest, _OTHER_REST)}"
    category = _cue_category(rest)
    if category == "fact":
        category = "person"
    key = None
    if re.match(r"^lives\s+(?:in|at|near)\b", rest):
        key = _join_key(who_key or "", "residence")
    return [(content, category, key)]


def _name_ok(name: str) -> bool:
    words = name.lower().split()
    return bool(words) and words[0] not in _NOT_NAMES and len(words) <= 4


def _en_possessive(text: str, *, explicit: bool) -> list[_Draft]:
    # "my sister's called Rachel": "is called".
    text = re.sub(
        r"^((?:my|our)\s+[\w-]+)'s\s+(called|named)\b",
        r"\1 is \2",
        text,
        flags=re.IGNORECASE,
    )
    if match := _EN_POSSESSIVE.match(text):
        owner = match.group("owner").lower()
        prefix, label = (
            ("user", "The user's")
            if owner == "my"
            else ("household", "The household's")
        )
        x, y = match.group("x"), match.group("y")
        subject_text = x
        who_key = prefix
        rendered_y = _en_pronouns(y, _SELF_REST)
        content = f"{label} {x} {match.group('verb').lower()} {rendered_y}"
    elif match := _EN_OTHER_POSSESSIVE.match(text):
        who = match.group("who")
        if who.lower() in _NOT_WHO or who.lower().split()[0] in ("the", "a", "an"):
            return []
        x, y = match.group("x"), match.group("y")
        subject_text = x
        who_key = _subject_key(who)
        content = (
            f"{who}'s {x} {match.group('verb').lower()} {_en_pronouns(y, _OTHER_REST)}"
        )
    else:
        return []
    x_words = x.lower().replace("'s", "").split()
    if x.lower().endswith("'s") or any(word in _X_STOP for word in x_words):
        return []  # "my wife's is ramen" says nothing on its own
    category = _subject_category(subject_text)
    if category == "fact" and _ROUTINE_CUES.search(y):
        category = "routine"  # "Leo's football is on Sundays"
    elif category == "fact" and _EVENT_CUES.search(y):
        category = "event"  # "my piano lesson is on Friday"
    y_first = y.split()[0].lower()
    if (
        not explicit
        and category in ("fact", "person")
        and (y_first in _TRANSIENT or y_first.endswith("ing"))
    ):
        # "my phone is dead", "my head is killing me": a state, not a fact.
        return []
    # "my car is a blue Golf" and later "my car is a red Tesla": the same subject, so
    # the newer description replaces the older one.
    key = _join_key(who_key, _subject_key(subject_text))
    if re.match(r"^(?:called|named)\b", y, re.IGNORECASE):
        key = _join_key(key or "", "name")
    return [(content, category, key)]


def _en_like(match: re.Match[str]) -> list[_Draft]:
    x = _cut_en(match.group("x"))
    if _EN_NOT_OBJECT.match(x) or not _meaningful(x):
        return []
    subject = match.group("subj").lower()
    if partner := match.group("partner"):
        # Plural subject: the verb stays as it is.
        verb_phrase = f"{match.group('pre')}{match.group('verb')}"
        content = (
            f"The user and their {partner} {verb_phrase} {_en_pronouns(x, _SELF_REST)}"
        )
        return [(content, "preference", _join_key("household", _topic_key(x)))]
    verb_phrase = _conjugate_phrase(match.group("pre"), match.group("verb"))
    label, owner = (
        ("The user", "user") if subject == "i" else ("The household", "household")
    )
    content = f"{label} {verb_phrase} {_en_pronouns(x, _SELF_REST)}"
    if how := _EN_MY_THING_HOW.match(x):
        # "I like my coffee black", later "... with milk": the same coffee
        return [(content, "preference", _join_key(owner, _topic_key(how.group("x"))))]
    return [(content, "preference", _join_key(owner, _topic_key(x)))]


def _conjugate_phrase(pre: str, verb: str) -> str:
    """Conjugate: "really don't" + "like" -> "really doesn't like"; "prefer" -> "prefers"."""
    words = pre.split()
    for index, word in enumerate(words):
        low = word.lower()
        if low in ("do", "don't"):
            words[index] = _EN_AUX[low]
            return " ".join([*words, verb])
    verb = re.sub(r"\s+", " ", verb)
    if not verb.lower().startswith(("can", "cannot")):
        verb = _third_person_verb(verb)
    return " ".join([*words, verb])


def _en_other(text: str) -> list[_Draft]:
    """Likes and allergies of someone else: "Anna likes her coffee black"."""
    match = _EN_OTHER_LIKE.match(text) or _EN_OTHER_ALLERGY.match(text)
    if match is None:
        return []
    who = match.group("who")
    if who.lower() in _NOT_WHO:
        return []
    x = _cut_en(match.group("x"))
    if _EN_NOT_OBJECT.match(x) or not _meaningful(x):
        return []
    if who.lower().startswith(("my ", "our ")):
        owner, rest = who.split(" ", 1)
        label = "The user's" if owner.lower() == "my" else "The household's"
        who_text = f"{label} {rest}"
        who_key = _join_key(
            "user" if owner.lower() == "my" else "household", _subject_key(rest)
        )
    else:
        who_text = who
        who_key = _subject_key(who)
    body = text[match.end("who") : match.start("x")].strip()
    content = f"{who_text} {body} {_en_pronouns(x, _OTHER_REST)}"
    if "verb" in match.re.groupindex:
        return [(content, "preference", _join_key(who_key or "", _topic_key(x)))]
    return [(content, "fact", _join_key(who_key or "", "allergy", _topic_key(x)))]


def _en_facts(text: str) -> list[_Draft]:
    if diet := _EN_DIET.match(text):
        kind = re.sub(r"[\s-]+", "_", diet.group("diet").lower())
        key = (
            "user_diet"
            if kind in ("vegetarian", "vegan", "pescatarian", "halal", "kosher")
            else f"user_{kind}"
        )
        return [(_en_third_person(text), "fact", key)]
    if (match := _EN_AVOID.match(text)) and _meaningful(match.group("x")):
        diet_key = _join_key("user_diet", _topic_key(match.group("x")))
        return [(_en_third_person(text), "fact", diet_key)]
    if _EN_AGE.match(text):
        return [(_en_third_person(text), "fact", "user_age")]
    if match := _EN_LIVE.match(text):
        owner = "user" if match.group("subj").lower() == "i" else "household"
        return [(_en_third_person(text), "fact", f"{owner}_residence")]
    if match := _EN_WORK.match(text):
        key = "user_job" if match.group("how").lower() == "as" else "user_employer"
        return [(_en_third_person(text), "fact", key)]
    if match := _EN_HAVE_COUNT.match(text):
        owner = "user" if match.group("subj").lower() == "i" else "household"
        return [
            (
                _en_third_person(text),
                "fact",
                _join_key(owner, _singular(match.group("x").lower())),
            )
        ]
    if match := _EN_IS_MY.match(text):
        who, rel = match.group("who"), match.group("rel")
        if who.lower() in _NOT_WHO:
            return []
        owner = "user" if match.group("owner").lower() == "my" else "household"
        content = f"{who} is the {owner}'s {rel}"
        return [(content, "person", _join_key(owner, _subject_key(rel)))]
    if _CONTEXT_PRONOUN.search(text):
        # "I see him every month": about someone named in an earlier sentence.
        return []
    if match := _EN_WHEN.match(text):
        sub = _en_third_person(match.group("sub"))
        main = _en_pronouns(match.group("main"), _SELF_REST)
        content = f"{_capitalize(match.group('conj').lower())} {sub[:1].lower()}{sub[1:]}, {main}"
        return [(content, "routine", None)]
    if match := _EN_EVERY_FIRST.match(text):
        when = _capitalize(match.group("when"))
        clause = _en_third_person(match.group("clause"))
        return [(f"{when} {clause[:1].lower()}{clause[1:]}", "routine", None)]
    if _EN_NOT_ROUTINE.match(text):
        return []
    if match := _EN_HABIT.match(text):
        category = "routine" if _TIME_CUES.search(match.group("rest")) else "pattern"
        return [(_en_third_person(text), category, None)]
    if _EN_EVERY_LATER.match(text) or (
        _EN_SUBJECT.match(text) and _EN_NAMED_WEEKDAYS.search(text)
    ):
        return [(_en_third_person(text), "routine", None)]
    return _en_about_me(text)


def _en_about_me(text: str) -> list[_Draft]:
    """Plain statements about oneself: "I grew up in Leeds", "I'm a nurse"."""
    match = _EN_ABOUT_ME.match(text)
    if match is None:
        return []
    rest = match.group("rest") or ""
    what = (match.group("what") or "").lower().split()
    if _EN_NOT_ABOUT_ME.search(rest) or (what and what[0] in _EN_NOT_WHAT):
        return []
    if what and (what[0] in _TRANSIENT or what[-1] in _TRANSIENT):
        return []
    if rest and not _meaningful(rest):
        return []
    category = _cue_category(text)
    verb = (match.group("verb") or "").lower()
    if category == "fact" and _EN_CLOCK_TIME.search(rest) and verb not in _EN_HAVE:
        category = "routine"  # "I take the 7:45 train": the present tense says daily
    key = None
    if verb in ("take", "catch") and (travel := _EN_TRANSPORT.search(rest)):
        key = _join_key("user", travel.group("how").lower())
    return [(_en_third_person(text), category, key)]


def _chinese(text: str, *, explicit: bool) -> list[_Draft]:
    if match := _ZH_CALLED.match(text):
        return _zh_name(match.group("name"), "用户叫{}")
    if match := _ZH_CALL_ME.match(text):
        return _zh_name(match.group("name"), "用户希望被称为{}")
    if match := _ZH_ALLERGY.match(text) or _ZH_ALLERGY_BARE.match(text):
        x = _cut_zh(match.group("x"))
        if not _meaningful(x):
            return []
        who_key = _zh_who_key(match.group("who"))
        return [
            (
                _zh_third_person(text),
                "fact",
                _join_key(who_key, "allergy", _topic_key(x)),
            )
        ]
    if match := _ZH_FAVORITE.match(text):
        key = _join_key("user_favorite", *_zh_key_words(match.group("x")))
        return [(_zh_third_person(text), "preference", key)]
    if drafts := _zh_location(text):
        return drafts
    if match := _ZH_POSSESSIVE.match(text):
        return _zh_possessive(text, match, explicit=explicit)
    if match := _ZH_RELATION.match(text):
        rel = match.group("rel")
        verb = match.group("verb")
        content = f"用户的{rel}{verb}{_zh_rest(match.group('y'), other=True)}"
        category = "fact" if rel in _ZH_PETS else "person"
        key = _join_key(
            "user",
            *_zh_key_words(rel),
            "name" if "叫" in verb or "名字" in verb else "",
        )
        return [(content, category, key)]
    if match := _ZH_IS_MY.match(text):
        rel = match.group("rel")
        category = "fact" if rel in _ZH_PETS else "person"
        return [
            (
                f"{match.group('who')}是用户的{rel}",
                category,
                _join_key("user", *_zh_key_words(rel)),
            )
        ]
    if match := _ZH_DATE_OF.match(text):
        who = match.group("who")
        if who in ("他", "她", "你", "它", "您", "谁", "誰") or _is_question(who):
            return []
        what = "birthday" if match.group("what") == "生日" else "anniversary"
        content = _zh_third_person(text) if who.startswith("我") else text
        return [(content, "event", _join_key(_zh_who_key(who), what))]
    if match := _ZH_OTHER_LIKE.match(text):
        x = _cut_zh(match.group("x"))
        if x[:1] in _ZH_NOT_OBJECT_START or not _meaningful(x):
            return []
        rel = match.group("rel")
        content = f"用户的{rel}{match.group('adv')}{match.group('verb')}{_zh_rest(x, other=True)}"
        return [
            (
                content,
                "preference",
                _join_key("user", *_zh_key_words(rel), _topic_key(x)),
            )
        ]
    if match := _ZH_TAKE_WITH.match(text):
        key = _join_key("user", _topic_key(match.group("x")))
        return [(_zh_third_person(text), "preference", key)]
    if match := _ZH_LIKE.match(text):
        x = _cut_zh(match.group("x"))
        if x[:1] in _ZH_NOT_OBJECT_START or not _meaningful(x):
            return []
        content = f"用户{match.group('adv')}{match.group('verb')}{_zh_rest(x)}"
        return [(content, "preference", _join_key("user", _topic_key(x)))]
    return _zh_member(text) or _zh_facts(text)


def _zh_location(text: str) -> list[_Draft]:
    """Where things are kept: "雨伞放在门口的鞋柜里", "护照在书房的抽屉里"."""
    if put := _ZH_PUT.match(text):
        key = _join_key(_subject_key(put.group("x")), "location")
        return [(_zh_third_person(text), "fact", key)]
    match = _ZH_LOCATION.match(text)
    if match is None:
        return []
    x, y = match.group("x"), match.group("y")
    if (
        not match.group("verb")
        and not y.endswith(_ZH_PLACE_END)
        and not _ZH_PLACE_INSIDE.search(y)
    ):
        return []  # "我在成都长大": not where something is kept
    if _ZH_PERSON_SUBJECT.search(x) or x.startswith(_ZH_PETS) or _EVENT_CUES.search(x):
        return []  # "妈妈在厨房里": where someone is now
    content = (
        _zh_third_person(text) if match.group("owner") else _zh_rest(text, other=True)
    )
    return [(content, "fact", _join_key(_subject_key(x), "location"))]


def _zh_member(text: str) -> list[_Draft]:
    """Others in the household: "我爸爸有高血压", "我儿子小宝每周六踢球"."""
    match = _ZH_MEMBER.match(text)
    if match is None or _ZH_MEMBER_NOT.search(match.group("rest")):
        return []
    rest = match.group("rest")
    rel = match.group("rel") or match.group("kin")
    said_owner = match.group("owner") or "我"
    owner = "用户的" if said_owner in ("我", "我的") else "用户家的"
    content = f"{owner}{rel}{_zh_rest(rest, other=True)}"
    if _ROUTINE_CUES.search(rest):
        category = "routine"
    else:
        category = "fact" if rel in _ZH_PETS else "person"
    key = None
    if re.match("^(?:[^，,]{0,3}?)住在", rest):
        key = _join_key(_zh_who_key(said_owner + rel), "residence")
    return [(content, category, key)]


def _zh_like_later(text: str) -> list[_Draft]:
    """A like-verb after a time or a topic: "周末我喜欢……", "我喝茶喜欢加柠檬"."""
    match = _ZH_LIKE_LATER.match(text)
    if match is None:
        return []
    x = _cut_zh(match.group("x"))
    if not _meaningful(x):
        return []
    owner = "user" if match.group("subj") == "我" else "household"
    content = _zh_rest(text, other=True)
    for household in ("我们家", "我們家"):
        content = content.replace(household, "用户家")
    return [(content, "preference", _join_key(owner, _topic_key(x)))]


def _zh_name(name: str, template: str) -> list[_Draft]:
    if name[:1] in _ZH_NOT_NAME_START or (_HAS_HAN.match(name) and len(name) < 2):
        return []
    return [(template.format(name), "person", "user_name")]


def _zh_who_key(who: str) -> str:
    if relation := re.match(rf"^(我(?:的)?(?:{_ZH_REL}))", who):
        who = relation.group(1)  # "我儿子小宝": the son, whatever his name
    if match := re.match(r"^(?:我们家|我們家|我们|我們|我家)(?:的)?(.*)$", who):
        return _join_key("household", *_zh_key_words(match.group(1))) or "household"
    if match := re.match(r"^我(?:的)?(.*)$", who):
        return _join_key("user", *_zh_key_words(match.group(1))) or "user"
    return _subject_key(who)


def _zh_possessive(text: str, match: re.Match[str], *, explicit: bool) -> list[_Draft]:
    owner = match.group("owner")
    x, verb, y = match.group("x"), match.group("verb"), match.group("y")
    if not explicit and y.startswith(_ZH_TRANSIENT_START):
        return []
    prefix = "user" if owner == "我的" else "household"
    label = {"我的": "用户的", "我们的": "用户一家的", "我們的": "用户一家的"}.get(
        owner, "用户家的"
    )
    content = f"{label}{x}{verb}{_zh_rest(y)}"
    category = "person" if x in ("名字", "姓名") else _subject_category(x)
    key = _join_key(prefix, *_zh_key_words(x), "name" if verb == "叫" else "")
    return [(content, category, key)]


def _zh_facts(text: str) -> list[_Draft]:
    if _ZH_DIET.match(text):
        return [(_zh_third_person(text), "fact", "user_diet")]
    if (match := _ZH_AVOID.match(text)) and _meaningful(match.group("x")):
        key = _join_key("user_diet", _topic_key(match.group("x")))
        return [(_zh_third_person(text), "fact", key)]
    if _ZH_AGE.match(text):
        return [(_zh_third_person(text), "fact", "user_age")]
    if match := _ZH_LIVE.match(text):
        owner = "user" if match.group("who") == "我" else "household"
        return [(_zh_third_person(text), "fact", f"{owner}_residence")]
    if work := _ZH_WORK.match(text):
        key = "user_job" if work.group("job") else "user_employer"
        return [(_zh_third_person(text), "fact", key)]
    if match := _ZH_HAVE_COUNT.match(text):
        owner = "user" if match.group("who") == "我" else "household"
        return [
            (
                _zh_third_person(text),
                "fact",
                _join_key(owner, *_zh_key_words(match.group("x"))),
            )
        ]
    if text.startswith(_ZH_COMMAND_START) or _ZH_SARCASM.search(text):
        return []
    if drafts := _zh_like_later(text):
        return drafts
    if commute := _ZH_COMMUTE.match(text):
        key = _join_key("user", _topic_key(commute.group("how")))
        return [(_zh_third_person(text), "routine", key)]
    if match := _ZH_EVERY_FIRST.match(text):
        subject = _ZH_LEAD_MAP[match.group("subj")]
        return [
            (
                f"{subject}{match.group('when')}{_zh_rest(match.group('rest'))}",
                "routine",
                None,
            )
        ]
    if match := _ZH_HABIT.match(text):
        timed = (
            match.group("pre")
            or match.group("adv").startswith("每")
            or _TIME_CUES.search(match.group("rest"))
        )
        return [(_zh_third_person(text), "routine" if timed else "pattern", None)]
    if _ZH_WEEKLY_LESSON.match(text):
        return [(_zh_third_person(text), "routine", None)]
    if _ZH_MY_PLAN.match(text):
        return [(_zh_third_person(text), "event", None)]
    if _ZH_ABOUT_ME.match(text):
        return [(_zh_third_person(text), _cue_category(text), None)]
    if _ZH_THING_ROUTINE.match(text):
        return [(_zh_rest(text, other=True), "routine", None)]
    head, _, tail = text.partition("，")
    if head.startswith("我") and (like := _ZH_LIKE.match("我" + tail)):
        x = _cut_zh(like.group("x"))
        if _meaningful(x):
            content = f"用户{like.group('adv')}{like.group('verb')}{_zh_rest(x)}"
            return [(content, "preference", _join_key("user", _topic_key(x)))]
    if _ZH_THING_EVENT.match(text):
        return [(_zh_rest(text, other=True), "event", None)]
    return []


def _log_secret(fact: Fact) -> None:
    _LOGGER.info(
        "Not keeping a fact (category %s, key %s): it contains a secret",
        fact.category,
        redact(fact.key) if fact.key else None,
    )


# -- LLM output ------------------------------------------------------------------------

LLM_EXTRACTION_INSTRUCTIONS: Final = """\
You pick out what a home voice assistant should remember long-term from a conversation.

Keep only durable facts about the people in the household that will still be useful in
weeks or months:
- personal facts (name, allergies, diet, where they live or work),
- preferences and dislikes,
- routines and habits (what they do every day, usually, on weekends),
- people and pets and how they relate to the user,
- birthdays, anniversaries and other dated events.

Do not keep: small talk and greetings, questions, device commands ("turn on the light",
"打开客厅的灯") and their results, what the assistant said, anything temporary (today's
weather, a timer, where something is right now), guesses and hypotheticals.
Never keep secrets: passwords, PINs, door or alarm codes, one-time codes, API keys or
tokens, card or bank account numbers.

Write each fact as one short sentence that makes sense on its own later, in the language
the user spoke, in the third person: "The user prefers oat milk", "用户喜欢燕麦奶",
"Anna's birthday is March 3".

Answer with JSON only, exactly this shape:
{"facts": [{"content": "...", "category": "preference", "key": "user_oat_milk",
"confidence": 0.9, "source": "user_stated"}]}
- category: one of preference, fact, pattern, event, person, routine, note
- key: a short snake_case subject such as "user_name", "anna_coffee",
  "user_allergy_peanut", or null
- source: "user_stated" when the user said it outright, "inferred" when you concluded it
- confidence: from 0 to 1
If nothing is worth keeping, answer {"facts": []}.
"""

FACTS_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "facts": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "content": {
                        "type": "string",
                        "minLength": 1,
                        "maxLength": MAX_LLM_CONTENT_LENGTH,
                        "description": "One self-contained sentence in the third person",
                    },
                    "category": {"type": "string", "enum": list(CATEGORIES)},
                    "key": {
                        "type": ["string", "null"],
                        "description": "Short snake_case subject, e.g. user_name",
                    },
                    "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                    "source": {"type": "string", "enum": list(EXTRACTION_SOURCES)},
                },
                "required": ["content", "category"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["facts"],
    "additionalProperties": False,
}

_FENCE: Final = re.compile(r"```(?:json|JSON)?\s*(?P<body>.*?)```", re.DOTALL)


class _DroppedItemError(Exception):
    """An LLM item that cannot become a fact; the message says why."""


def parse_llm_facts(raw: object) -> list[Fact]:
    """Facts from an LLM extractor's answer; bad items are dropped, one log line each.

    Accepts {"facts": [...]}, a list of items, one item, or their JSON text (also in a
    ```json fence or with prose around it).
    """
    items = _llm_items(raw)
    facts: list[Fact] = []
    for index, item in enumerate(items):
        try:
            facts.append(_llm_fact(item))
        except _DroppedItemError as err:
            _LOGGER.info("Dropped fact %d of the LLM's answer: %s", index, err)
    return facts


def _llm_items(raw: object) -> list[object]:
    if isinstance(raw, bytes | bytearray):
        raw = raw.decode("utf-8", errors="replace")
    if isinstance(raw, str):
        decoded = _decode_json(raw)
        if decoded is None:
            _LOGGER.warning("The LLM's extraction answer is not JSON; no facts taken")
            return []
        raw = decoded
    if isinstance(raw, Mapping):
        if "facts" in raw:
            facts = raw["facts"]
            if isinstance(facts, list | tuple):
                return list(facts)
            _LOGGER.warning("The LLM's extraction answer has no list of facts")
            return []
        if "content" in raw:
            return [raw]
        _LOGGER.warning("The LLM's extraction answer has no 'facts'")
        return []
    if isinstance(raw, list | tuple):
        return list(raw)
    _LOGGER.warning(
        "The LLM's extraction answer is a %s, not facts", type(raw).__name__
    )
    return []


def _decode_json(text: str) -> object | None:
    text = text.strip()
    if fence := _FENCE.search(text):
        text = fence.group("body").strip()
    try:
        decoded: object = json.loads(text)
    except ValueError:
        starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
        if not starts:
            return None
        start = min(starts)
        end = max(text.rfind("}"), text.rfind("]"))
        if end <= start:
            return None
        try:
            decoded = json.loads(text[start : end + 1])
        except ValueError:
            return None
    return decoded


def _llm_fact(item: object) -> Fact:
    if not isinstance(item, Mapping):
        raise _DroppedItemError(f"not an object but a {type(item).__name__}")
    content = item.get("content")
    if not isinstance(content, str):
        raise _DroppedItemError("content is not text")
    content = re.sub(r"\s+", " ", content).strip()
    if not content:
        raise _DroppedItemError("empty content")
    if len(content) > MAX_LLM_CONTENT_LENGTH:
        raise _DroppedItemError(
            f"content is {len(content)} characters, the limit is {MAX_LLM_CONTENT_LENGTH}"
        )
    if "\x00" in content:
        raise _DroppedItemError("content contains NUL characters")
    category = item.get("category")
    if not isinstance(category, str) or category.strip().lower() not in CATEGORIES:
        shown = repr(category)[:40]
        raise _DroppedItemError(f"unknown category {shown}")
    key = _llm_key(item.get("key"))
    confidence = _llm_confidence(item.get("confidence"))
    source = item.get("source")
    if isinstance(source, str) and source.strip().lower() == "user_stated":
        stated = STATED_CONFIDENCE if confidence is None else confidence
        fact = Fact(
            content, category, key, max(stated, MIN_STATED_CONFIDENCE), "user_stated"
        )
    else:
        inferred = DEFAULT_INFERRED_CONFIDENCE if confidence is None else confidence
        fact = Fact(
            content, category, key, min(inferred, MAX_INFERRED_CONFIDENCE), "inferred"
        )
    if mentions_secret(fact.content) or (fact.key and mentions_secret(fact.key)):
        raise _DroppedItemError(f"it contains a secret (category {fact.category})")
    return fact


def _llm_key(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise _DroppedItemError("key is not text")
    key = re.sub(r"[^\w]+", "_", normalize(value)).strip("_")
    if len(key) > MAX_FACT_KEY_LENGTH:
        raise _DroppedItemError(f"key is longer than {MAX_FACT_KEY_LENGTH} characters")
    return key or None


def _llm_confidence(value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            raise _DroppedItemError("confidence is not a number") from None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _DroppedItemError("confidence is not a number")
    if not math.isfinite(value) or not 0.0 <= value <= 1.0:
        raise _DroppedItemError("confidence is not between 0 and 1")
    return float(value)


# -- write-back --------------------------------------------------------------------------


@dataclass(slots=True)
class WriteBackPlan:
    """What to do with new facts, given the stored memories of one scope.

    - `adds`: new facts to store.
    - `refreshes`: ids of memories the facts repeat; the caller updates their
      `updated_at` (and may raise their confidence to the fact's: `refreshed_with`).
    - `replacements`: (memory id, fact): same key, different content; the newer fact
      wins and replaces the old memory's content.
    - `skipped`: (fact, reason) for secrets ("secret"), repeats within the batch
      ("duplicate_in_batch") and facts a later one in the batch overrides
      ("superseded_in_batch").
    """

    adds: list[Fact] = field(default_factory=list)
    refreshes: list[str] = field(default_factory=list)
    replacements: list[tuple[str, Fact]] = field(default_factory=list)
    skipped: list[tuple[Fact, str]] = field(default_factory=list)
    refreshed_with: dict[str, Fact] = field(default_factory=dict)

    @property
    def has_changes(self) -> bool:
        """Whether the caller has anything to write."""
        return bool(self.adds or self.refreshes or self.replacements)


_SUBJECT_WORDS: Final = re.compile(
    r"\b(?:the\s+)?(?:user|household)(?:'s)?\b|用户家的|用户家|用户的|用户|用戶的|用戶",
    re.IGNORECASE,
)
_NEGATION: Final = re.compile(
    r"\b(?:not|no|never|none|nothing|nobody|without|hates?|dislikes?|detests?|loathes?)\b"
    r"|n't\b|不|没|沒|别|別|无|無|讨厌|討厭|受不了",
    re.IGNORECASE,
)


def _normal(text: str) -> str:
    text = normalize(text).replace("\u2019", "'")
    return re.sub(r"\s+", " ", text).strip(_TRAILING + " ")


def _tokens(text: str) -> frozenset[str]:
    """English stems and Chinese pairs, without the subject words every fact has.

    Stop words and stop characters are dropped before the pairs are made, so particles
    (都, 很, 的) do not make two statements look different.
    """
    keywords = extract_keywords(_SUBJECT_WORDS.sub(" ", text))
    tokens = {light_stem(word.replace("'", "")) for word in keywords.words}
    if keywords.chinese:
        # Pairs over the pieces joined: "每天早上都跑步" and "每天早上跑步" agree.
        tokens.update(cjk_pairs("".join(keywords.chinese)))
    return frozenset(tokens)


@dataclass(frozen=True, slots=True)
class _Text:
    normal: str
    tokens: frozenset[str]
    negated: bool

    @classmethod
    def of(cls, text: str) -> _Text:
        return cls(_normal(text), _tokens(text), bool(_NEGATION.search(text)))

    def same_meaning(self, other: _Text, threshold: float) -> bool:
        if self.normal == other.normal:
            return True
        if self.negated != other.negated or not self.tokens or not other.tokens:
            return False
        shared = len(self.tokens & other.tokens)
        return shared / len(self.tokens | other.tokens) >= threshold


def _same_key(first: str | None, second: str | None) -> bool:
    return (
        first is not None
        and second is not None
        and first.casefold() == second.casefold()
    )


def _stronger(first: Fact, second: Fact) -> tuple[Fact, Fact]:
    """(kept, dropped): the higher confidence wins; a tie keeps the first."""
    if second.confidence > first.confidence:
        return second, first
    return first, second


def plan_write_back(
    facts: Iterable[Fact],
    existing: Sequence[Memory],
    *,
    scope: str,
    similarity: float = NEAR_DUPLICATE_SIMILARITY,
) -> WriteBackPlan:
    """Decide, for each new fact, add / refresh / replace / skip (see WriteBackPlan).

    A fact repeats a memory of the same scope (whatever the keys) when the normalised
    contents are equal, or when their keyword sets (English stems, Chinese pairs) have
    a Jaccard similarity of at least `similarity` with the same polarity ("likes tea"
    never repeats "doesn't like tea"): the memory is refreshed. Otherwise, a memory
    with the same key and different content is replaced by the newer fact (the most
    recently updated one, when several share the key). Facts within the batch are
    collapsed the same way first. Memories of other scopes are never touched.
    """
    plan = WriteBackPlan()
    batch: list[tuple[Fact, _Text]] = []
    for fact in facts:
        if mentions_secret(fact.content) or (fact.key and mentions_secret(fact.key)):
            _log_secret(fact)
            plan.skipped.append((fact, "secret"))
            continue
        text = _Text.of(fact.content)
        for index, (earlier, earlier_text) in enumerate(batch):
            same_meaning = text.same_meaning(earlier_text, similarity)
            if same_meaning:
                kept, dropped = _stronger(earlier, fact)
                batch[index] = (kept, earlier_text if kept is earlier else text)
                plan.skipped.append((dropped, "duplicate_in_batch"))
                break
            if _same_key(earlier.key, fact.key):
                batch[index] = (fact, text)
                plan.skipped.append((earlier, "superseded_in_batch"))
                break
        else:
            batch.append((fact, text))

    candidates = [
        (memory, _Text.of(memory.content))
        for memory in existing
        if memory.scope == scope
    ]
    replaced: set[str] = set()
    for fact, text in batch:
        target = _find_repeat(text, candidates, similarity)
        if target is not None:
            if target.id in replaced:
                plan.skipped.append((fact, "superseded_in_batch"))
                continue
            previous = plan.refreshed_with.get(target.id, fact)
            plan.refreshed_with[target.id] = _stronger(previous, fact)[0]
            continue
        same_key = [
            memory for memory, _ in candidates if _same_key(memory.key, fact.key)
        ]
        if same_key:
            newest = max(same_key, key=lambda memory: memory.updated_at)
            plan.refreshed_with.pop(newest.id, None)
            replaced.add(newest.id)
            plan.replacements.append((newest.id, fact))
            continue
        plan.adds.append(fact)
    plan.refreshes = list(plan.refreshed_with)
    return plan


def find_repeated(
    content: str,
    memories: Sequence[Memory],
    similarity: float = NEAR_DUPLICATE_SIMILARITY,
) -> Memory | None:
    """The memory among `memories` that `content` repeats (see `plan_write_back`)."""
    candidates = [(memory, _Text.of(memory.content)) for memory in memories]
    return _find_repeat(_Text.of(content), candidates, similarity)


def states_replaced_fact(stated: Fact, replaced: Memory, by: Fact) -> bool:
    """True when `stated` says what `replaced` said before the newer `by` replaced it.

    It is about the same thing (the same key, or the same meaning as the old memory)
    and does not agree with the newer fact. A summary of an earlier conversation
    that states it no longer reaches a prompt.
    """
    said = _Text.of(stated.content)
    if said.same_meaning(_Text.of(by.content), NEAR_DUPLICATE_SIMILARITY):
        return False
    return _same_key(stated.key, by.key) or said.same_meaning(
        _Text.of(replaced.content), NEAR_DUPLICATE_SIMILARITY
    )


def _find_repeat(
    text: _Text,
    candidates: Sequence[tuple[Memory, _Text]],
    similarity: float,
) -> Memory | None:
    """The stored memory the text repeats: an exact one first, else the closest."""
    for memory, memory_text in candidates:
        if memory_text.normal == text.normal:
            return memory
    close = [
        (len(text.tokens & other.tokens) / len(text.tokens | other.tokens), memory)
        for memory, other in candidates
        if text.same_meaning(other, similarity)
    ]
    if not close:
        return None
    return max(close, key=lambda pair: pair[0])[1]
