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
) -> None:
    """A head's JSON: what it reads and says, its numbers, and what it learnt from."""
    data = {
        "model": model,
        "labels": list(labels),
        "extra": list(extra),
        "threshold": float(f"{threshold:.4g}"),
        "trained_on": trained_on,
        "bias": _rounded(bias),
        "weights": [_rounded(row) for row in weights],
    }
    path.write_text(json.dumps(data, ensure_ascii=False) + "\n", encoding="utf-8")
