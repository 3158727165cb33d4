"""Sentences and clauses of what the user said.

Split, cleaned of fillers, and told apart from questions and hedges.
"""

from __future__ import annotations

import re
from typing import Final

from .keywords import normalize

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
    return [" ".join(text[a:b] for a, b in parts) for parts in _sentence_parts(text)]


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Where each of the text's sentences (as `split_sentences` finds them) is in it."""
    return [(parts[0][0], parts[-1][1]) for parts in _sentence_parts(text)]


def _sentence_parts(text: str) -> list[list[tuple[int, int]]]:
    """Where each sentence's parts are in the text.

    A sentence has more than one part where it goes on after an abbreviation ("Dr.
    Miller").
    """
    breaks = [(m.start(), m.end()) for m in _SENTENCE_BREAK.finditer(text)]
    sentences: list[list[tuple[int, int]]] = []
    at = 0
    for start, end in [*breaks, (len(text), len(text))]:
        raw = text[at:start]
        part_start = at + len(raw) - len(raw.lstrip())
        part = (part_start, part_start + len(raw.strip()))
        at = end
        if part[0] == part[1]:
            continue
        if sentences and _ABBREVIATIONS.search(text[slice(*sentences[-1][-1])]):
            sentences[-1].append(part)
        else:
            sentences.append([part])
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


def _normal(text: str) -> str:
    text = normalize(text).replace("\u2019", "'")
    return re.sub(r"\s+", " ", text).strip(_TRAILING + " ")
