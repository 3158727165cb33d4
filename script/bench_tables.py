"""The bench's shared pieces: its targets, percentiles, timing and Markdown tables."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
import time

ROOT = Path(__file__).resolve().parent.parent
TARGETS = {
    "search_p99_ms": 10.0,
    "add_p99_ms": 5.0,
    "restart_s": 1.0,
    "restart_pending_s": 1.5,
    "rss_mb": 230.0,
    "after_add_p99_ms": 15.0,
    "mixed_throughput_share": 0.7,
    "health_p50_ms": 5.0,
    "agent_added_p95_ms": 5.0,
    "meaning_added_p95_ms": 50.0,
}


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
