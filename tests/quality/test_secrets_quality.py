"""The secrets bench counts by the corpus's matching rule (made-up utterances here).

`script/bench --secrets` measures the corpora; no test measures them (one checks
that the later probes are well formed).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from script.secrets_quality import (
    FRESH,
    HOME,
    MORE,
    PROBE,
    SPLITS,
    bare,
    items,
    listed,
    measure,
)


def utterance(
    item_id: str, say: str, secrets: list[str], require: list[str] | None = None
) -> dict[str, Any]:
    """A corpus item of the development split in English."""
    keep = [{"require": require, "forbid": []}] if require else []
    return {
        "id": item_id,
        "split": "development",
        "lang": "en",
        "say": say,
        "keep": keep,
        "secrets": secrets,
    }


def test_digits_are_compared_without_their_spaces_and_hyphens() -> None:
    assert bare("The Code Is 771 204") == "the code is 771204"
    assert bare("sort code 04-00-04, it’s") == "sort code 040004, it's"
    assert bare("nine one eight two") == "nine one eight two"


def test_a_secret_left_a_false_alarm_and_a_kept_term_removed_are_counted() -> None:
    found = [
        # Withheld: not missed, and the gym stays.
        utterance(
            "a",
            "My gym is PureMove, and my locker PIN there is 2218.",
            ["2218"],
            ["PureMove"],
        ),
        # A secret no filter can know: missed.
        utterance("b", "the answer is purple", ["purple"]),
        # Kept as said: no false alarm, its terms stay.
        utterance("c", "The bins go out on Thursday", [], ["bins", "Thursday"]),
        # No secret said, but the filter sees one (a code after "the code is").
        utterance("d", "the code is 1234 says the film", [], ["film|movie"]),
    ]

    (tally,) = measure(found).values()

    assert (tally.utterances, tally.secrets, tally.missed) == (4, 2, 1)
    assert (tally.clean, tally.false_alarms) == (2, 1)
    assert (tally.terms, tally.terms_removed) == (4, 0)
    assert listed(measure(found)) == "Missed in: b\nFalse alarms: d"


def test_only_the_splits_asked_for_are_read(tmp_path: Path) -> None:
    corpus = tmp_path / "extraction.json"
    corpus.write_text(
        '{"items": [{"id": "t", "split": "train"}, {"id": "x", "split": "test"}]}',
        encoding="utf-8",
    )

    assert [item["id"] for item in items(["train"], corpus)] == ["t"]
    with pytest.raises(ValueError, match="unknown split"):
        items(["holdout"], corpus)


@pytest.mark.parametrize(
    ("path", "size"), [(PROBE, 260), (FRESH, 300), (MORE, 400), (HOME, 1000)]
)
def test_the_probes_are_well_formed(path: Path, size: int) -> None:
    probe = items(SPLITS, path)

    assert len(probe) == size
    assert {item["lang"] for item in probe} == {"en", "zh-Hans", "zh-Hant"}
    assert all(secret in item["say"] for item in probe for secret in item["secrets"])
    assert all(
        value in item["say"]
        for item in probe
        for label in item["keep"]
        for value in label["require"]
    )
    assert len({item["id"] for item in probe}) == len(probe)


def test_what_keeps_a_message_is_the_one_measured() -> None:
    found = [
        utterance("a", "the box is 4412", ["4412"], ["box"]),
        utterance("b", "The bins go out on Thursday", [], ["bins"]),
    ]
    (kept,) = measure(found).values()
    (nothing,) = measure(found, lambda said: "").values()

    assert (kept.missed, kept.terms_removed) == (1, 0)
    assert (nothing.missed, nothing.terms_removed) == (0, 2)
