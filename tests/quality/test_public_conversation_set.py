"""The public long-conversation set that script/bench reads: questions and what counts.

It runs on the wheel script/setup downloads (skipped where it could not); the bench's
figures themselves need the local model over 2 862 turns, so they stay in the bench.
"""

from __future__ import annotations

import importlib
from pathlib import Path
import sys

import pytest

# The bench's modules import each other by their plain names, as script/bench runs them.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "script"))
public = importlib.import_module("public_conversation_quality")


def test_a_question_is_found_when_any_evidence_turn_is_ranked() -> None:
    found = public.found(["a", "b", "c", "d", "e", "f"], ["f", "z"])

    assert (found.recall_at_5, found.recall_at_10) == (0.0, 1.0)
    assert found.reciprocal_rank == pytest.approx(1 / 6)
    assert public.found([], ["a"]).recall_at_10 == 0.0


def test_a_wheel_without_the_pinned_hash_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wheel = tmp_path / public.WHEEL
    monkeypatch.setattr(public, "wheel_path", lambda: wheel)
    assert "missing" in (public.missing() or "")

    wheel.write_bytes(b"not the wheel")

    assert "sha256" in (public.missing() or "")


@pytest.mark.skipif(public.missing() is not None, reason="the wheel is not here")
def test_every_label_that_names_a_turn_is_a_question() -> None:
    messages, truth = public.load()
    turns = {memory["id"] for memory in public.memories(messages)}

    asked = public.questions(messages, truth)

    assert len(turns) == 2862
    kinds = [q["category"] for q in asked]
    assert (kinds.count("change"), kinds.count("conflict"), kinds.count("signal")) == (
        7,
        8,
        18,
    )
    assert all(q["evidence"] and set(q["evidence"]) <= turns for q in asked)
