"""The labelled sets stay apart from the code they judge and the tests that tune it.

Only the retrieval quality guard and the held-out set's checks read the retrieval
sets; the sets of learning and long conversations, and the everyday questions
answered without an LLM, are read by `script/bench` and checked by
test_labelled_sets.py.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SETS = (
    "retrieval_set",
    "retrieval_heldout",
    "extraction_set",
    "conversation_set",
    "time_set",
    "time_probe",
    "question_set",
    "scope_set",
    "scope_probe",
)
ALLOWED = {
    "tests/quality/test_retrieval_quality.py",
    "tests/quality/test_retrieval_heldout.py",
    "tests/quality/test_labelled_sets.py",
    "tests/quality/test_set_isolation.py",
}


def test_only_the_quality_tests_read_the_labelled_sets() -> None:
    readers = sorted(
        str(path.relative_to(ROOT))
        for folder in ("tests", "custom_components")
        for path in (ROOT / folder).rglob("*.py")
        if any(name in path.read_text(encoding="utf-8") for name in SETS)
    )

    assert "tests/quality/test_retrieval_quality.py" in readers  # the scan sees them
    assert set(readers) <= ALLOWED, readers
