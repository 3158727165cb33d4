"""Benchmarks: search quality and speed, ours next to baselines measured in the same run.

    script/bench [--sizes 1000,10000,100000] [--queries 300] [--skip-quality]

Quality: the labelled set in tests/data/retrieval_set.json, Recall@5, Recall@10 and MRR
for our search and two baselines over the raw texts: plain BM25 (SQLite FTS5, default
tokenizer) and BM25 over character trigrams (FTS5's trigram tokenizer, which finds
Chinese text without word boundaries).
Speed and memory, at each size: the labelled memories scaled up with other names, and
the labelled queries. Search latency (ours vs a raw FTS5 query over the same texts),
durable add latency (ours vs a bare append + fdatasync, the disk's floor), cold start
(load + index, first start and restart) and resident memory in a fresh process.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
import functools
import json
import os
from pathlib import Path
import random
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

from assist_memory_engine.memory import MemoryEngine
from assist_memory_engine.settings import StoreSettings

ROOT = Path(__file__).resolve().parent.parent
RETRIEVAL_SET = ROOT / "tests" / "data" / "retrieval_set.json"
TARGETS = {
    "search_p99_ms": 15.0,
    "search_ratio": 3.0,
    "add_p99_ms": 5.0,
    "start_s": 2.0,
    "rss_mb": 300.0,
}


# -- helpers -----------------------------------------------------------------------


def percentile(values: Sequence[float], share: float) -> float:
    """The value below which `share` of the values fall (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def timed[T](func: Callable[[T], object], arguments: Iterable[T]) -> list[float]:
    """Milliseconds per call, one call per argument."""
    result: list[float] = []
    for argument in arguments:
        start = time.perf_counter()
        func(argument)
        result.append((time.perf_counter() - start) * 1000)
    return result


def table(title: str, header: Sequence[str], rows: Iterable[Sequence[object]]) -> None:
    """Print a Markdown table."""
    print(f"\n### {title}\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join(" --- " for _ in header) + "|")
    for row in rows:
        print("| " + " | ".join(str(cell) for cell in row) + " |")


_BASELINE_TOKEN = re.compile(r"\w+")


def baseline_query(text: str) -> str:
    """Plain BM25: the words of the text as FTS5's default tokenizer sees them, ORed."""
    words = dict.fromkeys(w.lower() for w in _BASELINE_TOKEN.findall(text))
    return " OR ".join(f'"{w}"' for w in words)


class PlainBm25:
    """The baseline: an FTS5 table over the raw texts, default tokenizer."""

    def __init__(self, texts: Sequence[tuple[str, str]]) -> None:
        self.db = sqlite3.connect(":memory:")
        self.db.execute("CREATE VIRTUAL TABLE t USING fts5(id UNINDEXED, content)")
        self.db.executemany("INSERT INTO t VALUES (?, ?)", texts)

    def search(self, text: str, limit: int) -> list[str]:
        """The ids of the best `limit` texts."""
        query = baseline_query(text)
        if not query:
            return []
        rows = self.db.execute(
            "SELECT id FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT ?", (query, limit)
        )
        return [memory_id for (memory_id,) in rows]


class TrigramBm25:
    """A stronger baseline for Chinese: FTS5's trigram tokenizer, any 3-character window."""

    def __init__(self, texts: Sequence[tuple[str, str]]) -> None:
        self.db = sqlite3.connect(":memory:")
        self.db.execute(
            "CREATE VIRTUAL TABLE t USING fts5(id UNINDEXED, content, tokenize='trigram')"
        )
        self.db.executemany("INSERT INTO t VALUES (?, ?)", texts)

    def search(self, text: str, limit: int) -> list[str]:
        """The ids of the best `limit` texts."""
        windows = {
            word[i : i + 3].lower()
            for word in _BASELINE_TOKEN.findall(text)
            for i in range(max(len(word) - 2, 0))
        }
        if not windows:
            return []
        query = " OR ".join(f'"{w}"' for w in sorted(windows))
        rows = self.db.execute(
            "SELECT id FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT ?", (query, limit)
        )
        return [memory_id for (memory_id,) in rows]


# -- quality -----------------------------------------------------------------------


def quality() -> None:
    """Print Recall@5, Recall@10 and MRR of ours and plain BM25, by kind and language."""
    data = json.loads(RETRIEVAL_SET.read_text(encoding="utf-8"))
    memories, queries = data["memories"], data["queries"]
    with tempfile.TemporaryDirectory() as folder:
        engine = MemoryEngine(
            Path(folder) / "memories.json", StoreSettings(max_items=0)
        )
        engine.init()
        engine.store.import_(
            [
                {
                    "id": m["id"],
                    "content": m["content"],
                    "category": m["category"],
                    "tags": m.get("tags", []),
                }
                for m in memories
            ]
        )
        texts = [(m["id"], m["content"]) for m in memories]
        baseline, trigram = PlainBm25(texts), TrigramBm25(texts)
        systems: dict[str, Callable[[str], list[str]]] = {
            "ours": lambda q: [r.memory.id for r in engine.search(q, limit=10)],
            "BM25": lambda q: baseline.search(q, 10),
            "BM25 trigram": lambda q: trigram.search(q, 10),
        }
        scores: dict[tuple[str, str], list[tuple[float, float, float]]] = defaultdict(
            list
        )
        for query in queries:
            relevant = set(query["relevant"])
            for name, search in systems.items():
                ranked = search(query["query"])
                found5 = len(relevant & set(ranked[:5])) / len(relevant)
                found10 = len(relevant & set(ranked[:10])) / len(relevant)
                rank = next((i for i, m in enumerate(ranked, 1) if m in relevant), None)
                entry = (found5, found10, 1 / rank if rank else 0.0)
                for group in (
                    "all",
                    f"kind: {query['kind']}",
                    f"lang: {query['lang']}",
                ):
                    scores[(name, group)].append(entry)
        engine.close()
    groups = sorted({g for _, g in scores}, key=lambda g: (g != "all", g))
    rows = []
    for group in groups:
        row: list[object] = [group, len(scores[("ours", group)])]
        for name in systems:
            values = scores[(name, group)]
            row += [f"{statistics.fmean(v[i] for v in values):.3f}" for i in range(3)]
        rows.append(row)
    table(
        f"Retrieval quality ({len(queries)} queries over {len(memories)} memories)",
        [
            "queries",
            "n",
            *(f"{name} {m}" for name in systems for m in ("R@5", "R@10", "MRR")),
        ],
        rows,
    )


# -- speed and memory --------------------------------------------------------------

_NOT_NAMES = frozenset(
    "The We Our My Aunt Uncle Mrs Mr Dr Grandma Grandpa Mum Dad Monday Tuesday Wednesday"
    " Thursday Friday Saturday Sunday January February March April May June July August"
    " September October November December Christmas Easter".split()
)
_SYLLABLES = [
    "ka",
    "ri",
    "mo",
    "ta",
    "len",
    "sa",
    "vi",
    "dor",
    "el",
    "na",
    "bo",
    "zi",
    "ar",
    "lu",
]
_SURNAMES = (
    "王李张刘陈杨赵黄周吴徐孙胡朱高林何郭马罗梁宋郑谢韩唐冯于董萧程曹袁邓许傅沈曾彭吕"
)
_GIVEN = "伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂英华玉兰红梅鹏飞云雪琳晨浩宇轩"


def _labelled() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(RETRIEVAL_SET.read_text(encoding="utf-8"))
    return data


def scaled_texts(count: int, seed: int) -> list[str]:
    """The labelled set's memories, repeated with other people's names up to `count`.

    Copy 0 is the set itself; later copies swap every English name for a made-up one
    and put a made-up Chinese name in front of Chinese memories, so the vocabulary
    grows with the size, as it does in a real household's memory.
    """
    rng = random.Random(seed)
    originals = [m["content"] for m in _labelled()["memories"]]
    names = sorted(
        {w for text in originals for w in re.findall(r"\b[A-Z][a-z]+\b", text)}
        - _NOT_NAMES
    )
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b")
    texts: list[str] = []
    copy = 0
    while len(texts) < count:
        if copy == 0:
            texts.extend(originals)
        else:
            swap = {
                name: "".join(rng.choice(_SYLLABLES) for _ in range(2)).title()
                for name in names
            }
            rename = functools.partial(_renamed, swap)
            for text in originals:
                if text.isascii():
                    texts.append(pattern.sub(rename, text))
                else:
                    person = rng.choice(_SURNAMES) + "".join(rng.sample(_GIVEN, 2))
                    texts.append(f"{person}：{text}")
        copy += 1
    return texts[:count]


def _renamed(swap: dict[str, str], match: re.Match[str]) -> str:
    return swap[match.group(1)]


def labelled_queries(count: int) -> list[str]:
    """The labelled set's queries, as many times over as needed."""
    queries = [q["query"] for q in _labelled()["queries"]]
    return [queries[n % len(queries)] for n in range(count)]


_START_PROBE = """
import json, resource, sys, time
from pathlib import Path
start = time.perf_counter()
from assist_memory_engine.memory import MemoryEngine
from assist_memory_engine.settings import StoreSettings
engine = MemoryEngine(Path(sys.argv[1]), StoreSettings(max_items=0))
engine.init()
seconds = time.perf_counter() - start
engine.search("How does Anna take her coffee?")
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
engine.index.close()
print(json.dumps({"seconds": seconds, "rss_mb": rss}))
"""


def start_in_fresh_process(store: Path) -> dict[str, float]:
    """Load time (imports, store, index) and peak resident memory of a new process."""
    out = subprocess.run(
        [sys.executable, "-c", _START_PROBE, str(store)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    result: dict[str, float] = json.loads(out)
    return result


def raw_append_floor(folder: Path, count: int, line: bytes) -> list[float]:
    """The disk's floor for a durable write: append one line, fdatasync."""
    fd = os.open(folder / "floor.bin", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:

        def write(data: bytes) -> None:
            os.write(fd, data)
            os.fdatasync(fd)

        return timed(write, [line] * count)
    finally:
        os.close(fd)


def speed(sizes: Sequence[int], query_count: int) -> bool:
    """Print the latency and memory table; True when every target is met."""
    rows = []
    met = True
    for size in sizes:
        with tempfile.TemporaryDirectory(dir=ROOT) as folder:
            store = Path(folder) / "memories.json"
            texts = scaled_texts(size, seed=size)
            engine = MemoryEngine(store, StoreSettings(max_items=0))
            engine.init()
            engine.store.import_(
                [{"id": f"m{n:07d}", "content": text} for n, text in enumerate(texts)]
            )
            engine.close()
            os.remove(store.with_suffix(".index.db"))
            first = start_in_fresh_process(store)  # builds the index
            restart = start_in_fresh_process(store)

            engine = MemoryEngine(store, StoreSettings(max_items=0))
            engine.init()
            queries = labelled_queries(query_count)
            baseline = PlainBm25([(str(n), t) for n, t in enumerate(texts)])
            for query in queries[:20]:  # warm both caches alike
                engine.search(query)
                baseline.search(query, 5)
            ours = timed(functools.partial(engine.search, limit=5), queries)
            raw = timed(functools.partial(baseline.search, limit=5), queries)
            add = timed(
                engine.store.add, scaled_texts(size + query_count, seed=size)[size:]
            )
            floor = raw_append_floor(Path(folder), query_count, b"x" * 300 + b"\n")
            engine.close()

        search_p99, raw_p99 = percentile(ours, 0.99), percentile(raw, 0.99)
        add_p99 = percentile(add, 0.99)
        checks = [
            search_p99 <= TARGETS["search_p99_ms"],
            search_p99 <= TARGETS["search_ratio"] * max(raw_p99, 1.0),
            add_p99 <= TARGETS["add_p99_ms"],
            restart["seconds"] <= TARGETS["start_s"],
            restart["rss_mb"] <= TARGETS["rss_mb"],
        ]
        met = met and all(checks)
        rows.append(
            [
                f"{size:,}",
                f"{percentile(ours, 0.5):.2f} / {search_p99:.2f}",
                f"{percentile(raw, 0.5):.2f} / {raw_p99:.2f}",
                f"{search_p99 / max(raw_p99, 1e-9):.1f}x",
                f"{percentile(add, 0.5):.2f} / {add_p99:.2f}",
                f"{percentile(floor, 0.5):.2f} / {percentile(floor, 0.99):.2f}",
                f"{first['seconds']:.2f} / {restart['seconds']:.2f}",
                f"{restart['rss_mb']:.0f}",
                "yes" if all(checks) else "NO",
            ]
        )
    table(
        "Speed and memory (milliseconds p50 / p99; seconds; MB)",
        [
            "memories",
            "search ours",
            "search raw FTS5",
            "p99 ratio",
            "durable add ours",
            "append+fdatasync floor",
            "start: first / restart",
            "RSS",
            "targets met",
        ],
        rows,
    )
    print(
        "\nTargets: search p99 <= 15 ms and <= 3x raw FTS5 (raw p99 floored at 1 ms);"
        " durable add p99 <= 5 ms; restart <= 2 s; RSS <= 300 MB."
    )
    return met


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmarks; exit 1 when a speed target is missed."""
    parser = argparse.ArgumentParser(
        prog="script/bench", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--skip-quality", action="store_true")
    parser.add_argument("--skip-speed", action="store_true")
    args = parser.parse_args(argv)
    print(
        f"# Assist Memory benchmarks ({os.cpu_count()} cores, Python {sys.version.split()[0]})"
    )
    if not args.skip_quality:
        quality()
    ok = True
    if not args.skip_speed:
        ok = speed([int(s) for s in args.sizes.split(",")], args.queries)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
