"""Fitting and writing the small heads: deterministic logistic regression in numpy.

The same data gives the same numbers: a regularised Newton's method (iteratively
reweighted least squares) from zero, a fixed number of steps, no randomness. Features
are standardised for the fit and the standardisation folded back into the weights, so
the head reads raw features. Weights are written rounded to seven significant digits
(`write_head`), as numbers in JSON, never a pickle.
"""

from __future__ import annotations

from collections.abc import Sequence
import json
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

type Matrix = npt.NDArray[np.float64]

_STEPS = 30
_DIGITS = 7


CACHE = Path.home() / ".cache" / "assist-memory"


class CachedVectors:
    """The local model's sentence vectors, kept on disk between training runs.

    Only a cache (~/.cache/assist-memory): deleting it changes nothing but the time a
    run takes. Serves `SentenceVectors`' interface to the code being trained.
    """

    def __init__(self, inner: Any, name: str) -> None:
        self.model = inner.model
        self._inner = inner
        self._path = CACHE / f"vectors-{name}.npz"
        self._known: dict[str, np.ndarray] = {}
        if self._path.exists():
            saved = np.load(self._path)
            self._known = dict(
                zip(saved["texts"].tolist(), saved["vectors"], strict=True)
            )
        self._new = 0

    def vector(self, text: str) -> np.ndarray:
        """One text's vector."""
        return self.vectors([text])[0]

    def vectors(self, texts: list[str]) -> list[np.ndarray]:
        """The texts' vectors, computing only those not cached."""
        missing = list(dict.fromkeys(t for t in texts if t not in self._known))
        for start in range(0, len(missing), 64):
            batch = missing[start : start + 64]
            self._known.update(zip(batch, self._inner.vectors(batch), strict=True))
            self._new += len(batch)
        return [self._known[t] for t in texts]

    def save(self) -> None:
        """Write the cache when it learnt new vectors."""
        if self._new:
            CACHE.mkdir(parents=True, exist_ok=True)
            texts = list(self._known)
            np.savez(
                self._path,
                texts=np.asarray(texts),
                vectors=np.asarray([self._known[t] for t in texts]),
            )


def fit_logistic(
    features: Matrix,
    labels: npt.NDArray[np.int_],
    *,
    l2: float,
    weights: npt.NDArray[np.float64] | None = None,
) -> tuple[npt.NDArray[np.float64], float]:
    """Weights and bias of a binary logistic regression (labels 0/1) on raw features.

    `l2`: the penalty on the standardised weights (not on the bias); `weights`: one
    per sample (a rare class weighed up), 1 by default.
    """
    mean = features.mean(axis=0)
    scale = features.std(axis=0)
    scale[scale < 1e-9] = 1.0
    x = np.hstack([(features - mean) / scale, np.ones((len(features), 1))])
    y = labels.astype(np.float64)
    sample = np.ones(len(y)) if weights is None else weights
    penalty = np.full(x.shape[1], l2)
    penalty[-1] = 0.0
    beta = np.zeros(x.shape[1])
    for _ in range(_STEPS):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ beta, -30, 30)))
        gradient = x.T @ (sample * (p - y)) + penalty * beta
        hessian = (x.T * (sample * p * (1 - p))) @ x + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if float(np.max(np.abs(step))) < 1e-10:
            break
    coefficients = beta[:-1] / scale
    bias = float(beta[-1] - coefficients @ mean)
    return coefficients, bias


def fit_mlp(
    features: Matrix,
    labels: npt.NDArray[np.int_],
    *,
    hidden: int,
    l2: float,
    epochs: int = 400,
    seed: int = 0,
) -> tuple[tuple[Matrix, npt.NDArray[np.float64]], npt.NDArray[np.float64], float]:
    """A binary classifier with one rectified hidden layer, fitted on the whole batch.

    Adam from a fixed seed, a fixed number of epochs: the same data gives the same
    numbers on the same machine. Returns the hidden layer (weights, bias) reading raw
    features, then the output weights and bias.
    """
    rng = np.random.default_rng(seed)
    mean = features.mean(axis=0)
    scale = features.std(axis=0)
    scale[scale < 1e-9] = 1.0
    x = (features - mean) / scale
    y = labels.astype(np.float64)
    n, d = x.shape
    params = [
        rng.normal(0.0, np.sqrt(2.0 / d), (d, hidden)),
        np.zeros(hidden),
        rng.normal(0.0, np.sqrt(1.0 / hidden), hidden),
        np.zeros(1),
    ]
    moments = [np.zeros_like(q) for q in params]
    squares = [np.zeros_like(q) for q in params]
    rate, beta1, beta2 = 1e-3, 0.9, 0.999
    for step in range(1, epochs + 1):
        w1, b1, w2, b2 = params
        before = x @ w1 + b1
        h = np.maximum(before, 0.0)
        p = 1.0 / (1.0 + np.exp(-np.clip(h @ w2 + b2[0], -30, 30)))
        error = (p - y) / n
        grads = [
            np.zeros_like(w1),
            np.zeros_like(b1),
            h.T @ error + l2 * w2 / n,
            np.array([error.sum()]),
        ]
        back = np.outer(error, w2) * (before > 0)
        grads[0] = x.T @ back + l2 * w1 / n
        grads[1] = back.sum(axis=0)
        for i, grad in enumerate(grads):
            moments[i] = beta1 * moments[i] + (1 - beta1) * grad
            squares[i] = beta2 * squares[i] + (1 - beta2) * grad * grad
            corrected = moments[i] / (1 - beta1**step)
            spread = np.sqrt(squares[i] / (1 - beta2**step)) + 1e-8
            params[i] = params[i] - rate * corrected / spread
    w1, b1, w2, b2 = params
    # Fold the standardisation into the hidden layer: it reads raw features.
    hidden_weights = (w1 / scale[:, None]).T
    hidden_bias = b1 - (mean / scale) @ w1
    return (hidden_weights, hidden_bias), w2, float(b2[0])


def mlp_probability(
    features: Matrix,
    layer: tuple[Matrix, npt.NDArray[np.float64]],
    weights: npt.NDArray[np.float64],
    bias: float,
) -> npt.NDArray[np.float64]:
    """The fitted classifier's probability for each row."""
    h = np.maximum(features @ layer[0].T + layer[1], 0.0)
    result: npt.NDArray[np.float64] = 1.0 / (1.0 + np.exp(-(h @ weights + bias)))
    return result


def probability(
    features: Matrix, coefficients: npt.NDArray[np.float64], bias: float
) -> npt.NDArray[np.float64]:
    """The fitted model's probability for each row."""
    result: npt.NDArray[np.float64] = 1.0 / (
        1.0 + np.exp(-(features @ coefficients + bias))
    )
    return result


def _rounded(values: Sequence[float]) -> list[float]:
    return [float(f"{value:.{_DIGITS}g}") for value in values]


def write_head(
    path: Path,
    *,
    model: str,
    labels: Sequence[str],
    extra: Sequence[str],
    weights: Sequence[Sequence[float]],
    bias: Sequence[float],
    threshold: float,
    trained_on: dict[str, Any],
    hidden: tuple[Matrix, npt.NDArray[np.float64]] | None = None,
    thresholds: dict[str, float] | None = None,
) -> None:
    """A head's JSON: what it reads and says, its numbers, and what it learnt from."""
    data: dict[str, Any] = {
        "model": model,
        "labels": list(labels),
        "extra": list(extra),
        "threshold": float(f"{threshold:.4g}"),
        "trained_on": trained_on,
        "bias": _rounded(bias),
        "weights": [_rounded(row) for row in weights],
    }
    if thresholds:
        data["thresholds"] = {k: float(f"{v:.4g}") for k, v in thresholds.items()}
    if hidden is not None:
        data["hidden"] = {
            "bias": _rounded(hidden[1].tolist()),
            "weights": [_rounded(row) for row in hidden[0].tolist()],
        }
    path.write_text(json.dumps(data, ensure_ascii=False) + "\n", encoding="utf-8")
