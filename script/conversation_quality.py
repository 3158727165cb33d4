"""Long-conversation retrieval, LoCoMo-style: our ranking next to a fair BM25.

The set is tests/data/conversation_set.json (script/make_conversation_set.py writes
it). Every turn is one memory, "Speaker: text", created at its session's date; each
question is asked on its day of the turns said by then: both systems get the sessions
up to that day, and our ranking takes that day as "now" (recency counts from it).

Questions are also grouped by wording: whether a question shares a term (as the
baseline cuts text) with its evidence, or none (a paraphrase only meaning can find).

The baseline is what a careful user of SQLite would build: FTS5 with the Porter stemmer
over the same turns, stop words dropped, Chinese cut into characters and character
pairs (a Chinese sentence is otherwise one token), the question's terms ORed, ranked by
BM25.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from datetime import UTC, date, datetime, time
import json
from pathlib import Path
import re
import sqlite3
from typing import Any, Final

from retrieval_quality import (
    DEPTH,
    Score,
    import_memories,
    labelled_engine,
    score,
    vector_search,
    wait_for_vectors,
)

from assist_memory_engine.memory.memory_engine import MemoryEngine

ROOT = Path(__file__).resolve().parent.parent
CONVERSATION_SET = ROOT / "tests" / "data" / "conversation_set.json"
# Stop words: the retrieval set's lists (script/retrieval_set), shared by both sets.
STOP_WORDS = ROOT / "script" / "retrieval_set"
# Turns are said in the evening of their session's day; questions are asked at noon.
SAID_AT: Final = time(18, 0, tzinfo=UTC)
ASKED_AT: Final = time(12, 0, tzinfo=UTC)
_TOKEN: Final = re.compile(r"[a-z0-9]+|[\u3400-\u9fff\uf900-\ufaff]+")
_CJK: Final = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")

type Scores = dict[tuple[str, str], list[Score]]


def stop_words() -> frozenset[str]:
    """English stop words and Chinese function characters."""
    words: set[str] = set()
    for language in ("en", "zh"):
        data = json.loads((STOP_WORDS / f"{language}.json").read_text("utf-8"))
        words.update(data["stop_words"])
    return frozenset(words)


class FairBm25:
    """FTS5 BM25 over stemmed words without stop words, and Chinese characters and pairs."""

    def __init__(self, stop: frozenset[str]) -> None:
        self.stop = stop
        self.db = sqlite3.connect(":memory:")
        self.db.execute(
            "CREATE VIRTUAL TABLE t USING fts5(id UNINDEXED, terms,"
            " tokenize='porter unicode61')"
        )

    def terms(self, text: str) -> list[str]:
        """Words (no stop words, no single letters), Chinese characters and pairs."""
        found: list[str] = []
        for run in _TOKEN.findall(text.lower()):
            if _CJK.match(run):
                found += [char for char in run if char not in self.stop]
                found += [run[i : i + 2] for i in range(len(run) - 1)]
            elif run not in self.stop and (len(run) > 1 or run.isdigit()):
                found.append(run)
        return found

    def add(self, memories: Iterable[dict[str, Any]]) -> None:
        """Index memories."""
        self.db.executemany(
            "INSERT INTO t VALUES (?, ?)",
            [(m["id"], " ".join(self.terms(m["content"]))) for m in memories],
        )

    def search(self, text: str, limit: int) -> list[str]:
        """The ids of the best `limit` memories."""
        terms = dict.fromkeys(self.terms(text))
        if not terms:
            return []
        query = " OR ".join(f'"{term}"' for term in terms)
        rows = self.db.execute(
            "SELECT id FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT ?", (query, limit)
        )
        return [memory_id for (memory_id,) in rows]


def conversation_set() -> dict[str, Any]:
    """The set: conversations and questions."""
    data: dict[str, Any] = json.loads(CONVERSATION_SET.read_text(encoding="utf-8"))
    return data


def session_memories(session: dict[str, Any]) -> list[dict[str, Any]]:
    """A session's turns as memories, in the order they were said."""
    said = datetime.combine(date.fromisoformat(session["date"]), SAID_AT)
    return [
        {
            "id": turn["id"],
            "content": f"{turn['speaker']}: {turn['text']}",
            "created_at": said.replace(minute=number).isoformat(),
        }
        for number, turn in enumerate(session["turns"])
    ]


def ranked_by_us(engine: MemoryEngine, text: str, now: datetime) -> list[str]:
    """Our ranking of the store's memories for a question asked at `now`."""
    engine.flush_index()
    retriever = engine.retriever.at(now)
    return [result.memory.id for result in retriever.retrieve(text, limit=DEPTH)]


def measure(*, embedded: bool = False) -> tuple[Scores, int, int]:
    """Scores by system and group; how many questions and turns.

    `embedded`: ours with the local model ("hybrid"), and that model alone ("vectors").
    """
    data = conversation_set()
    stop = stop_words()
    scores: Scores = defaultdict(list)
    for conversation in data["conversations"]:
        asked = [
            q for q in data["questions"] if q["conversation"] == conversation["id"]
        ]
        score_conversation(
            conversation, asked, FairBm25(stop), scores, embedded=embedded
        )
    turns = sum(
        len(session["turns"])
        for conversation in data["conversations"]
        for session in conversation["sessions"]
    )
    return scores, len(data["questions"]), turns


def score_conversation(
    conversation: dict[str, Any],
    questions: list[dict[str, Any]],
    baseline: FairBm25,
    scores: Scores,
    *,
    embedded: bool = False,
) -> None:
    """Ask a conversation's questions in the order of their days, of what was said."""
    sessions = sorted(conversation["sessions"], key=lambda s: str(s["date"]))
    said_by_id = {
        memory["id"]: memory["content"]
        for session in sessions
        for memory in session_memories(session)
    }
    with labelled_engine([], embedded=embedded) as engine:
        said = 0  # sessions in both systems so far
        for question in sorted(questions, key=lambda q: str(q["asked_at"])):
            while (
                said < len(sessions) and sessions[said]["date"] <= question["asked_at"]
            ):
                memories = session_memories(sessions[said])
                import_memories(engine, memories)
                baseline.add(memories)
                said += 1
            wait_for_vectors(engine)
            now = datetime.combine(date.fromisoformat(question["asked_at"]), ASKED_AT)
            rankings = {
                "hybrid" if embedded else "ours": ranked_by_us(
                    engine, question["question"], now
                ),
                "BM25": baseline.search(question["question"], DEPTH),
            }
            if embedded:
                rankings["vectors"] = vector_search(engine)(question["question"])
            evidence = " ".join(said_by_id[i] for i in question["evidence"])
            shared = set(baseline.terms(question["question"]))
            shared &= set(baseline.terms(evidence))
            groups = (
                "all",
                f"category: {question['category']}",
                f"lang: {question['lang']}",
                f"wording: {'shares a term' if shared else 'shares no term'}",
            )
            for system, ranked in rankings.items():
                entry = score(ranked, question["evidence"])
                for group in groups:
                    scores[(system, group)].append(entry)
