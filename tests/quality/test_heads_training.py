"""The training of the heads: it learns what it is shown, and the same data gives the same numbers."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from custom_components.assist_memory.engine.model.heads import Head, head_from_json
from script.heads_training import fit_logistic, fit_mlp, write_head


def _points(seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(400, 3))
    return x, (x[:, 0] - 2 * x[:, 1] > 0).astype(np.int_)


def test_a_logistic_regression_finds_the_direction_that_separates() -> None:
    x, y = _points()
    weights, bias = fit_logistic(x, y, l2=1.0)
    direction = weights / np.linalg.norm(weights)
    expected = np.asarray([1.0, -2.0, 0.0]) / np.sqrt(5.0)
    assert float(direction @ expected) > 0.99
    assert abs(bias) < 1.0
    again = fit_logistic(x, y, l2=1.0)
    assert np.array_equal(again[0], weights)
    assert again[1] == bias


def test_a_hidden_layer_learns_what_no_line_separates(tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    x = rng.uniform(-1, 1, size=(400, 2))
    y = ((x[:, 0] > 0) ^ (x[:, 1] > 0)).astype(np.int_)  # the two opposite corners
    layer, weights, bias = fit_mlp(x, y, hidden=16, l2=0.01, epochs=600)
    assert np.array_equal(
        fit_mlp(x, y, hidden=16, l2=0.01, epochs=600)[1], weights
    )  # the same data, the same numbers
    path = tmp_path / "xor.json"
    write_head(
        path,
        model="m",
        labels=("no", "yes"),
        extra=(),
        weights=[[0.0] * len(weights), weights.tolist()],
        bias=[0.0, bias],
        threshold=0.5,
        trained_on={"corpus": "four corners"},
        hidden=layer,
    )
    head: Head = head_from_json("xor", json.loads(path.read_text(encoding="utf-8")))
    right = sum(
        head.says(point.astype(np.float32))[0] == bool(label)
        for point, label in zip(x, y, strict=True)
    )
    assert right / len(y) > 0.9
