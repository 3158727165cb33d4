"""How a fact is worded: the user's own words, in the third person.

A memory is read later, out of context, by another model and by people in a list: each
fact is one self-contained sentence, without a final full stop, in the language the user
spoke, in the third person, keeping the user's own words for what they said:

- English: "The user ..." for the speaker, "The household ..." for "we/our":
  "I prefer oat milk" -> "The user prefers oat milk"; "my wife's birthday is June 3" ->
  "The user's wife's birthday is June 3"; "I always walk the dog at 7" -> "The user
  always walks the dog at 7"; later "I/my" in the same sentence become "they/their".
  Statements about someone else keep their words: "Anna's birthday is March 3".
- Chinese: "用户" for the speaker, "用户家" for 我家/我们家: "我喜欢燕麦奶" ->
  "用户喜欢燕麦奶"; "我的生日是五月三号" -> "用户的生日是五月三号"; a later 我 in the
  same sentence becomes 自己 ("我每天送我女儿上学" -> "用户每天送自己女儿上学").
"""

from __future__ import annotations

from collections.abc import Mapping
import re
from typing import Final

from .rule_patterns import _ZH_PERSON_SUBJECT

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
