"""`plan_write_back`: what to do with new facts given the stored memories.

Asynchronous write-back with duplicate and conflict detection: a newer fact replaces an
older one about the same thing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
import re
from typing import Final

from ..storage.models import Memory
from .facts import NEAR_DUPLICATE_SIMILARITY, Fact, _log_secret
from .keywords import cjk_pairs, extract_keywords, light_stem
from .secrets_filter import mentions_secret
from .sentences import _normal

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


_SUBJECT_WORDS: Final = re.compile(
    r"\b(?:the\s+)?(?:user|household)(?:'s)?\b|用户家的|用户家|用户的|用户|用戶的|用戶",
    re.IGNORECASE,
)
_NEGATION: Final = re.compile(
    r"\b(?:not|no|never|none|nothing|nobody|without|hates?|dislikes?|detests?|loathes?)\b"
    r"|n't\b|不|没|沒|别|別|无|無|讨厌|討厭|受不了",
    re.IGNORECASE,
)


def fact_terms(text: str) -> frozenset[str]:
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
        return cls(_normal(text), fact_terms(text), bool(_NEGATION.search(text)))

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


def _key_words(key: str) -> frozenset[str]:
    """A key's words as fact terms ("user_favourite_colour" -> favourit, colour)."""
    return fact_terms(key.replace("_", " "))


def _replaces(fact: Fact, text: _Text, key: str | None, other: _Text) -> bool:
    """Whether `fact` replaces what has `key` and the words `other`: the same key.

    An LLM's key counts only when it names what the fact is about: the fact says one
    of the key's words, or shares a content word with what it would replace. A small
    model gives every fact the same key ("user_name"), and "We got a new dishwasher"
    must not replace "Leo plays football on Saturdays".
    """
    if not _same_key(key, fact.key):
        return False
    if not fact.from_llm or fact.key is None:
        return True
    return bool(text.tokens & (_key_words(fact.key) | other.tokens))


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
    recently updated one, when several share the key; an LLM's key only when it names
    what the fact is about, `_replaces`). Facts within the batch are
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
            if _replaces(fact, text, earlier.key, earlier_text):
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
            memory
            for memory, memory_text in candidates
            if _replaces(fact, text, memory.key, memory_text)
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
