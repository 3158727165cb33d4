"""Ranking at scale: how often the memory a query was taken from is in the top 10.

Many household memories (the bench's scaled-up labelled memories) are given what a real
store has: ages from a day to two years, uses, confidences and categories, drawn at
random. Each query is taken from one memory: a few of its words (English) or a piece of
it (Chinese), so other memories share them too. Our ranking (the scoring formula over
the index's candidates) is put next to a fair BM25 over the same texts (FTS5 with the
Porter stemmer, stop words dropped, Chinese cut into characters and pairs): the share of
queries whose memory is in each one's top 10. Recency, use, confidence and category
must not bury the words.

The queries are split by whether our keywords keep all their words: a query may hold a
word our stop words drop ("most", "anything") or a Chinese pair across a function
character (了电), which the baseline keeps as words and we as secondary terms only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
import random
import re
import tempfile
from typing import Final

from conversation_quality import FairBm25, ranked_by_us, stop_words
from scale import common_word_overlap

from assist_memory_engine.language.keywords import extract_keywords
from assist_memory_engine.memory.memory_engine import MemoryEngine
from assist_memory_engine.storage.settings import StoreSettings

TOP: Final = 10
NOW: Final = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
_CATEGORIES: Final = ("fact", "preference", "person", "routine", "event", "note")
_WORD: Final = re.compile(r"[A-Za-z][A-Za-z'-]+")
_HAN_RUN: Final = re.compile(r"[\u3400-\u9fff]{4,}")
_HAN: Final = re.compile(r"[\u3400-\u9fff]+")


@dataclass(frozen=True, slots=True)
class Hits:
    """How many queries, and how often the source memory is in ours and BM25's top 10."""

    queries: int
    ours: float
    bm25: float


@dataclass(frozen=True, slots=True)
class ScaleRanking:
    """Hits of all the queries, and by whether our keywords keep all their words."""

    memories: int
    queries: int
    ours: float
    bm25: float
    by_words: dict[str, Hits]
    # The common word's bounded top 10 against the ranking of every match.
    common_word_overlap: float


def household_records(texts: Sequence[str], seed: int) -> list[dict[str, object]]:
    """The texts as memories with varied ages, uses, confidences and categories."""
    rng = random.Random(seed)
    records: list[dict[str, object]] = []
    for number, text in enumerate(texts):
        created = NOW - timedelta(days=rng.uniform(1, 730))
        used = rng.random() < 0.3
        record: dict[str, object] = {
            "id": f"m{number:07d}",
            "content": text,
            "category": rng.choice(_CATEGORIES),
            "confidence": round(rng.uniform(0.5, 1.0), 2),
            "created_at": created.isoformat(),
            "updated_at": created.isoformat(),
            "access_count": rng.randint(1, 200) if used else 0,
        }
        if used:
            last = created + (NOW - created) * rng.random()
            record["last_accessed"] = last.isoformat()
        records.append(record)
    return records


def query_from(text: str, stop: frozenset[str], rng: random.Random) -> str | None:
    """A few of a memory's words, or a piece of its Chinese (None: too little to ask)."""
    pieces: list[str] = _HAN_RUN.findall(text)
    if pieces:
        piece = rng.choice(pieces)
        length = rng.randint(2, min(4, len(piece)))
        start = rng.randrange(len(piece) - length + 1)
        return piece[start : start + length]
    words = [w for w in _WORD.findall(text) if w.lower() not in stop]
    if len(words) < 2:
        return None
    return " ".join(rng.sample(words, min(len(words), rng.randint(2, 3))))


def keeps_every_word(query: str) -> bool:
    """Whether our keywords keep all of the query's words (or its Chinese piece whole)."""
    keywords = extract_keywords(query)
    if _HAN.fullmatch(query):
        return list(keywords.chinese) == [query]
    return set(keywords.words) == {word.lower() for word in query.split()}


def measure_at_scale(texts: Sequence[str], query_count: int, seed: int) -> ScaleRanking:
    """Both rankings over the texts, for queries taken from memories picked at random."""
    rng = random.Random(seed)
    stop = stop_words()
    records = household_records(texts, seed)
    asked: list[tuple[str, str]] = []
    while len(asked) < query_count:
        record = rng.choice(records)
        if query := query_from(str(record["content"]), stop, rng):
            asked.append((query, str(record["id"])))
    baseline = FairBm25(stop)
    baseline.add({"id": r["id"], "content": r["content"]} for r in records)
    with tempfile.TemporaryDirectory() as folder:
        engine = MemoryEngine(
            Path(folder) / "memories.json", StoreSettings(max_items=0)
        )
        engine.init()
        try:
            engine.store.import_({"memories": records}, mode="replace")
            ours = [source in ranked_by_us(engine, q, NOW)[:TOP] for q, source in asked]
            overlap = common_word_overlap(engine)
        finally:
            engine.close()
    bm25 = [source in baseline.search(q, TOP) for q, source in asked]
    groups: dict[str, list[int]] = {"all words kept": [], "a word dropped": []}
    for number, (query, _) in enumerate(asked):
        kept = keeps_every_word(query)
        groups["all words kept" if kept else "a word dropped"].append(number)
    by_words = {
        name: Hits(
            len(numbers),
            sum(ours[n] for n in numbers) / max(len(numbers), 1),
            sum(bm25[n] for n in numbers) / max(len(numbers), 1),
        )
        for name, numbers in groups.items()
    }
    return ScaleRanking(
        len(texts),
        len(asked),
        sum(ours) / len(asked),
        sum(bm25) / len(asked),
        by_words,
        overlap,
    )
