"""Multi-stage retrieval: keywords, candidates, scores, top N.

1. Keywords are extracted from the message (and the session's topic, when given).
2. Candidates come from the full-text index (BM25 of the keywords, plus that of the
   message's secondary terms), and from vector similarity when embeddings are available.
3. Each candidate is scored with the scoring formula (`scoring.py`).
4. The best N are returned, each with its score parts and the words that matched.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
import functools
import itertools
from typing import TYPE_CHECKING, Final

from ..language.asked_values import AskedValue, asked_value, holds_value
from ..language.keywords import (
    Keywords,
    cjk_pairs,
    expresses_preference,
    extract_keywords,
    light_stem,
    secondary_terms,
)
from ..language.when import TimeAsked, time_asked
from ..storage.models import Memory
from .index import SearchIndex, searchable_text, stored_terms
from .nearness import MIN_STANDING, Nearness
from .relevance import ANSWER, SECOND_ANSWER, Evidence, relevance

if TYPE_CHECKING:
    from ..model.heads import Head
from .scoring import (
    TOPIC_BOOST,
    ScoredMemory,
    ScoreParts,
    category_score,
    frequency_score,
    recency_score,
)
from .second_round import follow_up, merged

DEFAULT_LIMIT: Final = 5
# How many index candidates to score for each result asked for.
_CANDIDATES_PER_RESULT: Final = 5
_MIN_CANDIDATES: Final = 25

# The memories nearest to a text by meaning (`neighbours.py`), at most so many, and
# the nearness of those given (found by words).
VectorSearch = Callable[[str, int, Iterable[str]], Mapping[str, Nearness]]


class Retriever:
    """Ranks memories for a message."""

    def __init__(
        self,
        index: SearchIndex,
        fetch: Callable[[Sequence[str]], dict[str, Memory]],
        *,
        vectors: VectorSearch | None = None,
        related: Callable[[Sequence[str]], list[str]] | None = None,
        relevance_head: Callable[[], Head | None] = lambda: None,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        """`fetch` returns the memories for ids; `vectors` the nearest ones to a text.

        `related`: the household's words for a question's terms (`expansion.py`);
        `relevance_head`: gives the trained head for the vectors' model
        (`relevance.py`), read on the first search.
        """
        self._related = related
        self._load_relevance_head = relevance_head
        self._index = index
        self._fetch = fetch
        self._vectors = vectors
        self._now = now

    def at(self, now: datetime) -> Retriever:
        """The same search, asked at `now` (a bench's question asked on a given day)."""
        return Retriever(
            self._index,
            self._fetch,
            vectors=self._vectors,
            related=self._related,
            relevance_head=self._load_relevance_head,
            now=lambda: now,
        )

    def retrieve(
        self,
        message: str,
        *,
        limit: int = DEFAULT_LIMIT,
        scopes: Sequence[str] | None = None,
        topic: str | None = None,
    ) -> list[ScoredMemory]:
        """The best `limit` memories for the message, best first ([] when none match).

        Names the best results give that the message does not say are searched
        again, for questions of two steps (`second_round.py`); by their words only
        (another embedding of the question would cost a request and add little).
        Not when the best result holds every word of the message: it is answered.
        """
        first = self._round(message, limit=limit, scopes=scopes, topic=topic)
        keywords = extract_keywords(message)
        if not first or _has_every_word(first[0], keywords):
            return first
        related: list[str] = []
        if self._related is not None:
            related = self._related([*keywords.words, *keywords.chinese])
        query = follow_up(message, first, related)
        if query is None:
            return first
        second = self._round(
            query, limit=limit, scopes=scopes, topic=topic, with_vectors=False
        )
        return merged(first, second, limit)

    def evidence(
        self, message: str, *, scopes: Sequence[str] | None = None
    ) -> dict[str, Evidence]:
        """What words and meaning say about each candidate of a message's first round.

        (For training and measuring the relevance head: `script/train_heads.py`.)
        """
        gathered = self._gather(
            message, limit=DEFAULT_LIMIT, scopes=scopes, topic=None, with_vectors=True
        )
        return {} if gathered is None else gathered.evidence

    def _gather(
        self,
        message: str,
        *,
        limit: int,
        scopes: Sequence[str] | None,
        topic: str | None,
        with_vectors: bool,
    ) -> _Gathered | None:
        """The candidates of one round and their evidence (None when there are none)."""
        now = self._now()
        # "What did Claire say two weeks ago?": the time is not a keyword; it favours
        # what was said then instead of what was used lately.
        asked = time_asked(message, now)
        searched = message
        if asked is not None and extract_keywords(asked.rest).all():
            searched = asked.rest
        else:
            asked = None
        keywords = extract_keywords(searched)
        topic_keywords = extract_keywords(topic) if topic else None
        pool = max(limit * _CANDIDATES_PER_RESULT, _MIN_CANDIDATES)
        found = self._index.match(
            keywords,
            limit=pool,
            scopes=scopes,
            enough=limit,
            context=topic_keywords,
            secondary=secondary_terms(searched),
        )
        bm25 = {c.memory_id: c.keyword_score for c in found}
        indexed_terms = {c.memory_id: c.terms for c in found}
        vectors = self._vectors if with_vectors else None
        nearest = dict(vectors(message, pool, bm25)) if vectors else {}
        memories = self._fetch([*bm25, *nearest])
        if scopes is not None:
            allowed = set(scopes)
            memories = {k: m for k, m in memories.items() if m.scope in allowed}
        # A memory whose end has come (the guests have left) is never found.
        at = now.astimezone(UTC).isoformat()
        memories = {k: m for k, m in memories.items() if not m.has_ended(at)}
        if not memories:
            return None
        best_bm25 = max(bm25.values(), default=0.0) or 1.0
        query = _QueryTerms.of(keywords)
        terms_of = {
            memory_id: _terms_of(memory, indexed_terms.get(memory_id))
            for memory_id, memory in memories.items()
        }
        matches = {
            memory_id: query.matched(terms) for memory_id, terms in terms_of.items()
        }
        evidence = {
            memory_id: Evidence(
                bm25.get(memory_id, 0.0) / best_bm25, coverage, nearest.get(memory_id)
            )
            for memory_id, (_, coverage) in matches.items()
        }
        return _Gathered(
            memories,
            evidence,
            # The fusion reads the vector search's own results, as without the head
            # (those of `also`, found by words, come after them).
            dict(itertools.islice(nearest.items(), pool)),
            bm25,
            terms_of,
            matches,
            asked,
            topic_keywords,
            now,
        )

    def _round(
        self,
        message: str,
        *,
        limit: int,
        scopes: Sequence[str] | None,
        topic: str | None,
        with_vectors: bool = True,
    ) -> list[ScoredMemory]:
        gathered = self._gather(
            message, limit=limit, scopes=scopes, topic=topic, with_vectors=with_vectors
        )
        if gathered is None:
            return []
        wants_preference = expresses_preference(message)
        topic_terms = (
            _QueryTerms.of(gathered.topic_keywords) if gathered.topic_keywords else None
        )
        keyword_scores, confidence = relevance(
            gathered.evidence, self._relevance_head, gathered.nearest
        )
        value = asked_value(message)
        results: list[ScoredMemory] = []
        for memory_id, memory in gathered.memories.items():
            terms = gathered.terms_of[memory_id]
            matched = gathered.matches[memory_id][0]
            near = gathered.evidence[memory_id].near
            by_meaning_alone = (
                near is not None and not matched and memory_id not in gathered.bm25
            )
            if by_meaning_alone and not _near_enough(near):
                continue
            on_topic = topic_terms is not None and topic_terms.matched(terms)[1] > 0
            asked = gathered.asked
            parts = ScoreParts(
                keyword=keyword_scores[memory_id],
                category=category_score(memory, wants_preference=wants_preference),
                recency=recency_score(memory, gathered.now)
                if asked is None
                else float(_said_within(memory, asked)),
                frequency=frequency_score(memory),
                confidence=memory.confidence,
                topic_boost=TOPIC_BOOST if on_topic else 1.0,
                bm25=gathered.bm25.get(memory_id, 0.0),
                vector=None if near is None else near.cosine,
            )
            results.append(
                ScoredMemory(
                    memory,
                    parts.total(),
                    parts,
                    matched,
                    None
                    if confidence is None
                    else _answer_confidence(confidence[memory_id], value, memory),
                )
            )
        results.sort(key=lambda r: (r.score, r.memory.updated_at), reverse=True)
        return said_as_answers(results[:limit], self._relevance_head)

    @functools.cached_property
    def _relevance_head(self) -> Head | None:
        """The trained head, read from its file on the first search.

        Not in `__init__`, which may run in an event loop.
        """
        return self._load_relevance_head()


def said_as_answers(
    results: list[ScoredMemory], head: Head | None
) -> list[ScoredMemory]:
    """Each result marked with whether it is sure enough to be said as an answer.

    The most confident at the head's "answer" threshold; any other, when that one
    is, at its "second_answer" one. Both were chosen on a development household this
    way (`script/train_heads.py`), whatever the results' order: the fusion's best is
    not always the one the head is surest of.
    """
    if head is None or not results or results[0].answer_confidence is None:
        return results
    surest = max(results, key=lambda r: r.answer_confidence or 0.0)
    first = (surest.answer_confidence or 0.0) >= head.at(*ANSWER)
    second = head.at(*SECOND_ANSWER)
    return [
        replace(
            result,
            answers=first
            and (result is surest or (result.answer_confidence or 0.0) >= second),
        )
        for result in results
    ]


@dataclass(frozen=True, slots=True)
class _Gathered:
    """One round's candidates: memories, evidence, and what scoring needs of them."""

    memories: dict[str, Memory]
    evidence: dict[str, Evidence]
    # What the vector search returned (its k nearest).
    nearest: dict[str, Nearness]
    bm25: dict[str, float]
    terms_of: dict[str, frozenset[str]]
    matches: dict[str, tuple[tuple[str, ...], float]]
    asked: TimeAsked | None
    topic_keywords: Keywords | None
    now: datetime


def _answer_confidence(
    confidence: float, value: AskedValue | None, memory: Memory
) -> float:
    """The head's confidence, or 0 for a memory without the value the question asks.

    ("How much do we pay the dog walker?": a memory with no amount does not answer.)
    """
    if value is not None and not holds_value(value, memory.content):
        return 0.0
    return confidence


def _near_enough(near: Nearness | None) -> bool:
    """Whether a memory found by meaning alone is near enough to be found at all.

    When it stands `MIN_STANDING` above its writing system's memories and
    background.
    """
    return near is not None and near.standing >= MIN_STANDING


def _has_every_word(result: ScoredMemory, keywords: Keywords) -> bool:
    """Whether the result's memory contains each of the keywords (Chinese: each pair)."""
    query = _QueryTerms.of(keywords)
    return query.matched(_terms_of(result.memory, None))[1] >= 1.0


def _said_within(memory: Memory, asked: TimeAsked) -> bool:
    try:
        return asked.holds(datetime.fromisoformat(memory.created_at))
    except ValueError:
        return False


def _terms_of(memory: Memory, indexed: str | None) -> frozenset[str]:
    """A memory's stemmed words and Chinese grams, in one set.

    From the terms the index stored for it when it came from there, else from its
    text. One set serves both kinds: a stemmed word is never Chinese, a gram always.
    """
    if indexed is None:
        indexed = _indexed_terms(searchable_text(memory))
    return _stemmed(indexed)


# Both cached: the same memories come back for many messages.
_indexed_terms = functools.lru_cache(maxsize=8192)(stored_terms)


@functools.lru_cache(maxsize=8192)
def _stemmed(terms: str) -> frozenset[str]:
    return frozenset(light_stem(term) for term in terms.split())


@dataclass(frozen=True, slots=True)
class _QueryTerms:
    """A message's keywords, stemmed and paired once for all the candidates."""

    words: tuple[tuple[str, str], ...]  # (word, stem)
    prefixes: tuple[str, ...]
    chinese: tuple[tuple[str, tuple[str, ...]], ...]  # (piece, its pairs)

    @classmethod
    def of(cls, keywords: Keywords) -> _QueryTerms:
        return cls(
            tuple((word, light_stem(word)) for word in keywords.words),
            keywords.prefixes,
            tuple((piece, tuple(cjk_pairs(piece))) for piece in keywords.chinese),
        )

    def matched(self, terms: frozenset[str]) -> tuple[tuple[str, ...], float]:
        """Which keywords a memory (its `_terms_of`) contains, and the share covered."""
        matched: list[str] = []
        units = 0.0
        total = len(self.words) + len(self.prefixes) + len(self.chinese)
        for word, stem in self.words:
            if stem in terms:
                matched.append(word)
                units += 1
        for prefix in self.prefixes:
            if any(term.startswith(prefix) for term in terms):
                matched.append(prefix + "*")
                units += 1
        for piece, wanted in self.chinese:
            found = sum(1 for gram in wanted if gram in terms)
            if found:
                matched.append(piece)
                units += found / len(wanted)
        return tuple(matched), (units / total if total else 0.0)
