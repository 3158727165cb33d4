"""`RuleBasedExtractor`: facts from statements in English and Chinese, no LLM.

Statements are recognised by the patterns in `rule_patterns` ("my name is Anna", "I
prefer oat milk", "我对花生过敏", "记住备用钥匙在门垫下面"), by the rules in
`english_rules` and `chinese_rules`. Questions, commands, small talk and hypotheticals
give nothing.
"""

from __future__ import annotations

from .chinese_rules import _chinese, _zh_remembered
from .english_rules import _en_remembered, _english
from .facts import EXPLICIT_CONFIDENCE, STATED_CONFIDENCE, Fact, _log_secret
from .rule_patterns import _EN_RATHER, _EN_REMEMBER, _ZH_REMEMBER, _Draft
from .rule_time import lasting_statement
from .secrets_filter import mentions_secret
from .sentences import (
    _STARTS_HAN,
    _clean,
    _is_hedged,
    _is_question,
    _normal,
    _split_clauses,
    _strip_fillers,
    split_sentences,
)
from .speech import in_speakers_script, spoken_clean


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
        chinese = bool(_STARTS_HAN.match(text))
        drafts = (_chinese if chinese else _english)(text, explicit=explicit)
        return drafts or lasting_statement(text, chinese=chinese)

    def _remembered(self, raw: str) -> list[_Draft]:
        text = _strip_fillers(_clean(raw))
        if not text or _is_question(text) or _is_hedged(text):
            return []
        if drafts := self._statement(text, explicit=True):
            return drafts
        if _STARTS_HAN.match(text):
            return _zh_remembered(text)
        return _en_remembered(text)
