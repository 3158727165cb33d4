"""The model's average vectors: shipped for the local model, none for another."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from custom_components.assist_memory.engine.model import centres as centres_module
from custom_components.assist_memory.engine.model.centres import load_centres
from custom_components.assist_memory.engine.model.heads import HeadFileError
from custom_components.assist_memory.engine.model.local_model import MODEL_NAME


def test_the_local_model_has_its_averages_and_another_model_none() -> None:
    found = load_centres(f"{MODEL_NAME}@1.2.3")
    assert found is not None
    assert found.questions.shape == found.memories.shape == (2, 384)
    # Averages of unit vectors of one model: long, and not the same for both roles.
    assert np.all(np.linalg.norm(found.memories, axis=1) > 0.5)
    assert not np.allclose(found.questions, found.memories)
    assert load_centres("someone-elses-embedding-model") is None


def test_a_centred_question_and_memories_are_of_length_one() -> None:
    found = load_centres(MODEL_NAME)
    assert found is not None
    vector = np.ones(384, np.float32) / np.sqrt(384)
    assert np.linalg.norm(found.question(vector, chinese=True)) == pytest.approx(1.0)
    rows = found.memories_of(np.stack([vector, vector]), np.array([True, False]))
    assert np.linalg.norm(rows, axis=1) == pytest.approx([1.0, 1.0])
    assert not np.allclose(rows[0], rows[1])  # each its own system's average


@pytest.mark.parametrize(
    "content",
    [
        {"model": "m", "questions": [[1.0, 0.0]], "memories": [[1.0, 0.0]]},
        {"model": "m", "questions": [[1.0], [1.0]], "memories": [[1.0, 0.0], [0, 1]]},
        {"model": "m", "questions": "none", "memories": [[1.0]]},
        {"model": "m"},
    ],
)
def test_a_broken_file_is_a_packaging_fault(
    content: dict[str, object], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "centres.json").write_text(json.dumps(content), encoding="utf-8")
    monkeypatch.setattr(centres_module, "WEIGHTS", tmp_path)
    load_centres.cache_clear()
    try:
        with pytest.raises(HeadFileError):
            load_centres("m")
        (tmp_path / "centres.json").unlink()
        assert load_centres("other") is None  # no file at all
    finally:
        load_centres.cache_clear()
