"""LoCoMo: the public benchmark's ten very long conversations, searched as memories.

LoCoMo (Maharana et al., "Evaluating Very Long-Term Conversational Memory of LLM
Agents", ACL 2024) is ten conversations between two people over 19 to 32 dated sessions,
5 882 turns in all, and 1 986 questions, each labelled with its category and the turns
that hold its evidence. Its licence is CC BY-NC 4.0 (non-commercial, declared on the
authors' dataset card, huggingface.co/datasets/adymaharana/locomo; the GitHub
repository's snapshot read here has no licence file of its own): nothing of it is
copied into this repository, and nothing is cached. Get data/locomo10.zip from
https://github.com/snap-research/locomo, unzip it, and give `script/bench --locomo`
the folder of its ten conversations (data/multimodal_dialog/locomo10_v2), or one of
its files; a locomo10.json holding the ten as one list is read too.

As a memory product sees it: every turn is one memory of its conversation's own store,
"Speaker: text" (a shared photo's caption left out: Assist sees no picture), created at
its session's date and time (turns a minute apart). Each question searches its own
conversation's memories, asked at noon the day after the last session. The adversarial
category (5: its answers are not in the conversation) is left out; the other four are
kept under the names LoCoMo's own code gives them (task_eval/dpr_qa.py): 1 multi-hop,
2 temporal, 3 open-domain knowledge, 4 single-hop. Evidence ids are read as written,
with their typing slips repaired ("D3:4; D5:1" is two turns, "D12:07" is D12:7); a
question none of whose evidence ids names a turn of its conversation is left out.

Recall@k is the share of a question's evidence turns in the top k (LoCoMo's own
retrieval recall), MRR 1 / the rank of the first; per category and overall, for three
systems in the same run over the same memories:

- words: BM25 alone, the fair FTS5 baseline of script/scale.py (FairFts5);
- model: the local model alone (multilingual-e5-small), the plain cosine between the
  question ("query: ") and each memory ("passage: "), as the engine embeds them;
- ours: the engine's own search with the local model, every memory embedded first.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
import json
from pathlib import Path
import re
import time
from typing import Any, Final

from conversation_quality import ASKED_AT, ranked_by_us
from retrieval_quality import (
    DEPTH,
    GroupScores,
    cosine_search,
    group_rows,
    labelled_engine,
    score,
)
from scale import FairFts5

SOURCE: Final = "https://github.com/snap-research/locomo"
LICENCE: Final = "CC BY-NC 4.0, non-commercial"
SYSTEMS: Final = ("words", "model", "ours")
ADVERSARIAL: Final = 5
# LoCoMo's categories by number, named as its own code names them.
CATEGORIES: Final = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain knowledge",
    4: "single-hop",
}
_SESSION: Final = re.compile(r"session_(\d+)")
_DIALOGUE_ID: Final = re.compile(r"D:?(\d+):(\d+)")
_SAID: Final = "%I:%M %p on %d %B, %Y"  # "4:05 pm on 3 March, 2021"


@dataclass(frozen=True, slots=True)
class Conversation:
    """One conversation: its turns as memories, its questions, and when they are asked."""

    name: str
    memories: list[dict[str, Any]]
    questions: list[dict[str, Any]]  # question, category, evidence (memory ids)
    asked_at: datetime
    left_out: Counter[str] = field(default_factory=Counter)


@dataclass(frozen=True, slots=True)
class Report:
    """What one run measured: the table's rows and what they were measured over."""

    conversations: int
    memories: int
    questions: int
    by_category: dict[str, int]
    left_out: dict[str, int]
    seconds: float
    scores: GroupScores
    rows: list[list[object]]


def missing(path: Path | None) -> str | None:
    """Why LoCoMo cannot be measured from `path`, or None when it can."""
    if path is None:
        return (
            "no data given (script/bench --locomo PATH, PATH the folder of"
            f" conversations in data/locomo10.zip of {SOURCE}, unzipped; {LICENCE})"
        )
    if not any(True for _ in _files(path)):
        return f"{path} holds no LoCoMo conversation (*.json)"
    return None


def _files(path: Path) -> Iterator[Path]:
    if path.is_file():
        yield path
    elif path.is_dir():
        yield from sorted(path.glob("*.json"))


def load(path: Path) -> list[Conversation]:
    """The conversations in a file or folder of LoCoMo's JSON, in the order read."""
    found: list[Conversation] = []
    for file in _files(path):
        data = json.loads(file.read_text(encoding="utf-8"))
        samples = data if isinstance(data, list) else [data]
        for number, sample in enumerate(samples):
            name = str(sample.get("sample_id") or file.stem)
            if len(samples) > 1 and not sample.get("sample_id"):
                name = f"{file.stem}-{number}"
            found.append(conversation(name, sample))
    return found


def conversation(name: str, sample: dict[str, Any]) -> Conversation:
    """One LoCoMo sample: its sessions' turns as memories, its questions kept."""
    said = sample.get("conversation", sample)  # the sessions, at the top or inside
    memories: list[dict[str, Any]] = []
    sessions = sorted(
        (int(match.group(1)), turns)
        for key, turns in said.items()
        if (match := _SESSION.fullmatch(key)) and isinstance(turns, list) and turns
    )
    for number, turns in sessions:
        start = datetime.strptime(said[f"session_{number}_date_time"], _SAID).replace(
            tzinfo=UTC
        )
        memories += [
            {
                "id": memory_id(turn["dia_id"]),
                "content": f"{turn['speaker']}: {turn['text']}",
                "created_at": (start + timedelta(minutes=n)).isoformat(),
            }
            for n, turn in enumerate(turns)
        ]
    held = {m["id"] for m in memories}
    last = max(datetime.fromisoformat(m["created_at"]) for m in memories)
    asked: list[dict[str, Any]] = []
    left_out: Counter[str] = Counter()
    for qa in sample.get("qa", []):
        if qa["category"] == ADVERSARIAL:
            left_out["adversarial (5)"] += 1
            continue
        evidence = [e for e in evidence_ids(qa.get("evidence", [])) if e in held]
        if not evidence:
            left_out["no evidence turn in the conversation"] += 1
            continue
        asked.append(
            {
                "question": str(qa["question"]),
                "category": int(qa["category"]),
                "evidence": evidence,
            }
        )
    return Conversation(
        name,
        memories,
        asked,
        datetime.combine(last.date() + timedelta(days=1), ASKED_AT),
        left_out,
    )


def memory_id(dialogue_id: str) -> str:
    """A memory id the store accepts for a turn: "D1:3" is "D1-3"."""
    return dialogue_id.replace(":", "-")


def evidence_ids(labels: Sequence[object]) -> list[str]:
    """The memory ids an evidence list names, typing slips repaired, in order."""
    return list(
        dict.fromkeys(
            f"D{int(session)}-{int(turn)}"
            for label in labels
            for session, turn in _DIALOGUE_ID.findall(str(label))
        )
    )


def group(category: int) -> str:
    """A category's row: "single-hop (4)"."""
    return f"{CATEGORIES[category]} ({category})"


def measure(path: Path) -> Report:
    """Every kept question of every conversation at `path`, searched by the three systems.

    The rows are the bench's table: group, questions, then R@5, R@10 and MRR of words,
    model and ours ("all" first).
    """
    start = time.perf_counter()
    conversations = load(path)
    scores: GroupScores = defaultdict(list)
    for talk in conversations:
        words = FairFts5([(m["id"], m["content"]) for m in talk.memories])
        with labelled_engine(talk.memories, embedded=True) as engine:
            model = cosine_search(engine)
            for question in talk.questions:
                text = question["question"]
                rankings = {
                    "words": words.search(text, DEPTH),
                    "model": model(text),
                    "ours": ranked_by_us(engine, text, talk.asked_at),
                }
                for system, ranked in rankings.items():
                    entry = score(ranked, question["evidence"])
                    for name in ("all", group(question["category"])):
                        scores[(system, name)].append(entry)
    left_out: Counter[str] = Counter()
    for talk in conversations:
        left_out.update(talk.left_out)
    return Report(
        conversations=len(conversations),
        memories=sum(len(talk.memories) for talk in conversations),
        questions=len(scores[("ours", "all")]),
        by_category={
            name: len(entries)
            for (system, name), entries in scores.items()
            if system == "ours" and name != "all"
        },
        left_out=dict(left_out),
        seconds=time.perf_counter() - start,
        scores=scores,
        rows=group_rows(scores, SYSTEMS),
    )
