"""The second look for secrets, from meaning, over the packaged model's real vectors.

The sentences are not from the corpora the secret head was trained or chosen on.
"""

from __future__ import annotations

import pytest

from custom_components.assist_memory.engine.language import (
    secrets_by_meaning,
    worth_keeping,
)
from custom_components.assist_memory.engine.language.secrets_by_meaning import (
    withheld,
    withheld_by_meaning,
)
from custom_components.assist_memory.engine.language.secrets_filter import redact


def test_the_values_of_a_piece_that_holds_a_secret_are_withheld() -> None:
    said = "Grandad's bank login number is 55102938 and he banks with Lloyds"
    assert redact(said) == said  # the filter alone keeps it
    assert withheld(said) == (
        "Grandad's bank login number is [secret withheld] and he banks with Lloyds"
    )


def test_a_piece_without_values_is_withheld_whole() -> None:
    # "correct" reads to the filter as a word about the password, not the password.
    said = "Remember this. The password is correct horse battery staple"
    assert redact(said) == said
    assert withheld(said) == "Remember this. [secret withheld]"


def test_everyday_words_and_the_filters_work_stay() -> None:
    for said in (
        "The bins go out on Thursday and the recycling on Friday",
        "Our flight is BA 2490 on the 14th",
        "My locker PIN there is [secret withheld], by the pool",
        "",
    ):
        assert withheld_by_meaning(said) == said


def test_without_the_model_the_filter_alone_decides(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(worth_keeping, "understanding", lambda: None)
    said = "Grandad's bank login number is 55102938"
    assert withheld(said) == said


def test_a_pasted_text_is_read_only_in_part(monkeypatch: pytest.MonkeyPatch) -> None:
    said = "Grandad's bank login number is 55102938"
    # A piece longer than anyone says is left to the filter.
    long = said + " la" * secrets_by_meaning.LONGEST_PIECE
    assert withheld_by_meaning(long) == long
    # Beyond the first pieces with a value, the same.
    monkeypatch.setattr(secrets_by_meaning, "MOST_PIECES", 0)
    assert withheld_by_meaning(said) == said
