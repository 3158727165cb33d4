"""Small trained heads over the local model's sentence vectors.

A head is a logistic regression: a weight row per label over a sentence's features (its
vector from the local model, and a few named features the caller adds), softmax on top;
some read the features through one hidden layer first (rectified, `hidden`).
Its numbers are a JSON file beside this module (`weights/<name>.json`), written by
`script/train_heads.py` from the labelled corpus, never a pickle: a reader sees what was
learnt, and retraining from the same corpus writes the same file.

A head knows the model it was trained on: with another model (an embedding endpoint)
its numbers mean nothing, and `load_head` gives None (the caller keeps to its rules).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
import functools
import json
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

WEIGHTS: Final = Path(__file__).parent / "weights"

type Vector = npt.NDArray[np.float32]


class HeadFileError(ValueError):
    """A weights file that cannot be used (a packaging fault, not a user's)."""


@dataclass(frozen=True, slots=True)
class Head:
    """One trained decision: labels, weights, and the threshold chosen on development."""

    name: str
    # The sentence vectors' model ("multilingual-e5-small-q4").
    model: str
    labels: tuple[str, ...]
    # Names of the features after the vector, in order (the caller computes them).
    extra: tuple[str, ...]
    weights: npt.NDArray[np.float64]  # (labels, features)
    bias: npt.NDArray[np.float64]  # (labels,)
    # The probability of `labels[-1]` at which the head says it (binary heads), chosen
    # on the development split; see the training script's report for the trade-off.
    threshold: float
    # An optional hidden layer: (units, features) weights and (units,) bias.
    hidden: tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]] | None = None
    # Named thresholds of the code that uses the head, chosen with it on development.
    thresholds: Mapping[str, float] = field(default_factory=dict)

    def at(self, name: str, default: float) -> float:
        """A named threshold, or `default` when the file does not set it."""
        return self.thresholds.get(name, default)

    @property
    def inputs(self) -> int:
        """How many features the head reads."""
        return int((self.hidden[0] if self.hidden else self.weights).shape[1])

    def probabilities(self, features: Vector) -> dict[str, float]:
        """Each label's probability for one sentence's features."""
        if features.shape != (self.inputs,):
            raise ValueError(
                f"{self.name}: {features.shape[0]} features, the head needs {self.inputs}"
            )
        read = features.astype(np.float64)
        if self.hidden is not None:
            read = np.maximum(self.hidden[0] @ read + self.hidden[1], 0.0)
        logits = self.weights @ read + self.bias
        logits -= logits.max()
        exp = np.exp(logits)
        return dict(zip(self.labels, (exp / exp.sum()).tolist(), strict=True))

    def says(self, features: Vector) -> tuple[bool, float]:
        """A binary head's decision and its probability (of the last label)."""
        probability = self.probabilities(features)[self.labels[-1]]
        return probability >= self.threshold, probability

    def best(self, features: Vector) -> tuple[str, float]:
        """The most probable label and its probability."""
        probabilities = self.probabilities(features)
        label = max(probabilities, key=probabilities.__getitem__)
        return label, probabilities[label]


def features(vector: Vector, extra: tuple[float, ...] = ()) -> Vector:
    """A sentence's vector followed by the caller's named features."""
    if not extra:
        return vector
    return np.concatenate([vector, np.asarray(extra, dtype=np.float32)])


@functools.cache
def load_head(name: str, model: str) -> Head | None:
    """The head `name` trained on `model`'s vectors, or None when there is none."""
    path = WEIGHTS / f"{name}.json"
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    head = head_from_json(name, raw)
    return head if head.model == model else None


def trained_head(name: str, embedding_model: str) -> Head | None:
    """The head `name` for an embedding model's vectors ("model@version"), if any.

    A head trained on the local model serves any version of its package; a model it
    was not trained on (an endpoint's) gets none.
    """
    return load_head(name, embedding_model.partition("@")[0])


def head_from_json(name: str, raw: Any) -> Head:
    """A head from its file's JSON (`script/train_heads.py` writes it)."""
    try:
        labels = tuple(str(label) for label in raw["labels"])
        weights = np.asarray(raw["weights"], dtype=np.float64)
        bias = np.asarray(raw["bias"], dtype=np.float64)
        hidden = None
        if "hidden" in raw:
            hidden = (
                np.asarray(raw["hidden"]["weights"], dtype=np.float64),
                np.asarray(raw["hidden"]["bias"], dtype=np.float64),
            )
        head = Head(
            name=name,
            model=str(raw["model"]),
            labels=labels,
            extra=tuple(str(e) for e in raw.get("extra", ())),
            weights=weights,
            bias=bias,
            threshold=float(raw.get("threshold", 0.5)),
            hidden=hidden,
            thresholds={str(k): float(v) for k, v in raw.get("thresholds", {}).items()},
        )
    except (KeyError, TypeError, ValueError) as err:
        raise HeadFileError(f"{name}: not a head's weights ({err})") from err
    if (
        weights.ndim != 2
        or weights.shape[0] != len(labels)
        or bias.shape != (len(labels),)
    ):
        raise HeadFileError(f"{name}: weights and labels do not agree")
    if hidden is not None and (
        hidden[0].ndim != 2
        or hidden[0].shape[0] != weights.shape[1]
        or hidden[1].shape != (weights.shape[1],)
    ):
        raise HeadFileError(f"{name}: the hidden layer and the weights do not agree")
    return head
