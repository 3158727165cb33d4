"""The bench at scale: search by query class, reads right after writes, a server under load.

Measured next to a fair baseline in the same run: a raw SQLite FTS5 table over the same
texts where a person who knows FTS5 would set it up for this corpus (stop words dropped
from the query, Chinese indexed character by character and searched as pairs, since
FTS5's default tokenizer sees a Chinese sentence as one word). The restart is a whole
`assist-memory search` process (the interpreter, the imports, the load, the search).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
import contextlib
import os
from pathlib import Path
import random
import re
import signal
import sqlite3
import subprocess
import sys
import time

import aiohttp

from assist_memory_engine.backend.local import LocalBackend
from assist_memory_engine.language.keywords import ENGLISH_STOP_WORDS
from assist_memory_engine.memory.memory_engine import MemoryEngine
from assist_memory_engine.search import index
from assist_memory_engine.storage.settings import StoreSettings
from assist_memory_engine.storage.store import MemoryStore

# The first name a quarter of the generated memories mention (see bench_corpus.scaled_texts).
COMMON_NAME = "Mila"
COMMON_SHARE = 0.25
_HAN = "\u4e00-\u9fff"
_WORD = re.compile(rf"[{_HAN}]+|[^\W_{_HAN}]+")
_HAN_CHAR = re.compile(rf"([{_HAN}])")
CLI = str(Path(sys.executable).parent / "assist-memory")


def fair_terms(text: str) -> list[str]:
    """FTS5 query terms a fair user would write: no stop words, Chinese as pairs."""
    terms: list[str] = []
    for word in _WORD.findall(text.lower()):
        if re.match(rf"[{_HAN}]", word):
            pairs = [word[i : i + 2] for i in range(max(len(word) - 1, 1))]
            terms += ['"' + " ".join(pair) + '"' for pair in pairs]
        elif word not in ENGLISH_STOP_WORDS:
            terms.append(f'"{word}"')
    return list(dict.fromkeys(terms))


class FairFts5:
    """The baseline: FTS5 over the raw texts, Chinese characters indexed one by one."""

    def __init__(self, texts: Sequence[tuple[str, str]]) -> None:
        self.db = sqlite3.connect(":memory:")
        self.db.execute("CREATE VIRTUAL TABLE t USING fts5(id UNINDEXED, content)")
        self.db.executemany(
            "INSERT INTO t VALUES (?, ?)",
            ((key, _HAN_CHAR.sub(r" \1 ", text)) for key, text in texts),
        )

    def search(self, text: str, limit: int) -> list[str]:
        """The ids of the best `limit` texts."""
        terms = fair_terms(text)
        if not terms:
            return []
        rows = self.db.execute(
            "SELECT id FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT ?",
            (" OR ".join(terms), limit),
        )
        return [key for (key,) in rows]


def query_classes(
    texts: Sequence[str], labelled: Sequence[str], count: int, seed: int
) -> dict[str, list[str]]:
    """Queries by class: labelled sentences, 1-4 words of a memory, one common word."""
    rng = random.Random(seed)
    short: dict[int, list[str]] = {1: [], 2: [], 4: []}
    while any(len(found) < count for found in short.values()):
        words = [
            w
            for w in _WORD.findall(rng.choice(texts))
            if w.lower() not in ENGLISH_STOP_WORDS
        ]
        for size, found in short.items():
            if len(words) >= size and len(found) < count:
                start = rng.randrange(len(words) - size + 1)
                found.append(" ".join(words[start : start + size]))
    return {
        "labelled sentences": list(labelled[:count]),
        "1 word of a memory": short[1],
        "2 words of a memory": short[2],
        "4 words of a memory": short[4],
        f"one common word ({COMMON_NAME}, {COMMON_SHARE:.0%} of memories)": [
            COMMON_NAME
        ]
        * count,
    }


# -- whole processes ---------------------------------------------------------------


def cli_search_seconds(
    data_dir: Path, query: str, bytecode: Path | None = None
) -> float:
    """Wall time of a whole `assist-memory search` process.

    `bytecode`: a folder for compiled modules, as an installed Python and package have
    them (this machine's Python compiles every module at every start without one).
    """
    env = dict(os.environ)
    if bytecode is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(bytecode)
    start = time.perf_counter()
    subprocess.run(
        [CLI, "--data-dir", str(data_dir), "search", query],
        check=True,
        capture_output=True,
        env=env,
    )
    return time.perf_counter() - start


def leave_pending_journal(store_path: Path, text: str) -> None:
    """Add one memory as a running program does: journaled, not folded yet."""
    store = MemoryStore(store_path, StoreSettings(max_items=0))
    store.init()
    store.add(text)  # no close: the change stays in the journal


@contextlib.asynccontextmanager
async def server_process(data_dir: Path) -> AsyncIterator[tuple[str, dict[str, str]]]:
    """A memory server process on a free port: its URL and the token's header."""
    server = await asyncio.create_subprocess_exec(
        CLI,
        *("serve", "--port", "0", "--data-dir", str(data_dir)),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        if server.stdout is None:  # pragma: no cover - PIPE was asked for
            raise RuntimeError("no stdout")
        url = ""
        while not url:
            line = (await server.stdout.readline()).decode()
            if not line:
                raise RuntimeError("the memory server did not start")
            if match := re.search(r"serving on (http://\S+)", line):
                url = match.group(1)
        token = (data_dir / "token").read_text(encoding="utf-8").strip()
        yield url, {"Authorization": f"Bearer {token}"}
    finally:
        server.send_signal(signal.SIGTERM)
        await server.wait()


# -- reads right after writes, and load ----------------------------------------------


async def local_search_after_add(
    store_path: Path, queries: Sequence[str], pause: float
) -> list[float]:
    """Milliseconds of a search right after an add, in the backend HA and the server use."""
    backend, _ = await LocalBackend.open(
        store_path, StoreSettings(max_items=0), watch=False
    )
    try:
        timings = []
        for n, query in enumerate(queries):
            await backend.add(f"bench note {n}: {query}")
            start = time.perf_counter()
            await backend.search(query)
            timings.append((time.perf_counter() - start) * 1000)
            await asyncio.sleep(pause)
        return timings
    finally:
        await backend.close()


async def server_search_after_add(
    http: aiohttp.ClientSession, queries: Sequence[str], pause: float
) -> list[float]:
    """Milliseconds of a search request right after an add request."""
    timings = []
    for n, query in enumerate(queries):
        async with http.post(
            "/memory/long-term", json={"content": f"bench note {n}: {query}"}
        ) as answer:
            answer.raise_for_status()
        start = time.perf_counter()
        async with http.get("/api/memory/search", params={"q": query}) as answer:
            answer.raise_for_status()
            await answer.read()
        timings.append((time.perf_counter() - start) * 1000)
        await asyncio.sleep(pause)
    return timings


async def search_load(
    http: aiohttp.ClientSession,
    queries: Sequence[str],
    *,
    clients: int,
    seconds: float,
    add_every: float | None,
) -> tuple[float, list[float], int]:
    """Searches per second and their latencies (ms) with `clients` searching at once.

    With `add_every`, one more client adds a memory every that many seconds.
    """
    deadline = time.perf_counter() + seconds
    latencies: list[float] = []
    adds = 0

    async def searcher(offset: int) -> None:
        n = offset
        while time.perf_counter() < deadline:
            start = time.perf_counter()
            async with http.get(
                "/api/memory/search", params={"q": queries[n % len(queries)]}
            ) as answer:
                answer.raise_for_status()
                await answer.read()
            latencies.append((time.perf_counter() - start) * 1000)
            n += clients

    async def adder(every: float) -> None:
        nonlocal adds
        while time.perf_counter() < deadline:
            async with http.post(
                "/memory/long-term", json={"content": f"load note {adds}"}
            ) as answer:
                answer.raise_for_status()
            adds += 1
            await asyncio.sleep(every)

    jobs = [searcher(n) for n in range(clients)]
    if add_every is not None:
        jobs.append(adder(add_every))
    await asyncio.gather(*jobs)
    return len(latencies) / seconds, latencies, adds


async def health_load(
    http: aiohttp.ClientSession, *, clients: int, seconds: float
) -> list[float]:
    """Milliseconds per /health request with `clients` asking at once."""
    deadline = time.perf_counter() + seconds
    latencies: list[float] = []

    async def client() -> None:
        while time.perf_counter() < deadline:
            start = time.perf_counter()
            async with http.get("/health") as answer:
                answer.raise_for_status()
                await answer.read()
            latencies.append((time.perf_counter() - start) * 1000)

    await asyncio.gather(*(client() for _ in range(clients)))
    return latencies


def load_average() -> float:
    """The machine's 1-minute load average (other work on the shared machine)."""
    return os.getloadavg()[0]


def common_word_overlap(engine: MemoryEngine) -> float:
    """The share of the common word's top 10 that ranking every match also has."""
    bounded = {r.memory.id for r in engine.search(COMMON_NAME, limit=10)}
    bound = index.COMMON_WORD_ROWS
    index.COMMON_WORD_ROWS = 10**9  # every match ranked, as without the bound
    try:
        unbounded = {r.memory.id for r in engine.search(COMMON_NAME, limit=10)}
    finally:
        index.COMMON_WORD_ROWS = bound
    return len(bounded & unbounded) / max(len(unbounded), 1)
