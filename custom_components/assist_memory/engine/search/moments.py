"""Each writing system's vectors summed, for a question's mean and spread of cosines.

A question's standing against a writing system's memories needs the mean and the
spread of its cosines with them (`neighbours.py`). Read from every cosine that is
four passes over 100 000 numbers per question. The same two numbers follow from the
system's vectors summed (a vector) and their second moments summed (a 384 × 384
matrix): the mean cosine is the question's product with the sum, the mean square
its product with the matrix, on both sides. Both are kept as vectors come and go,
in float64 so that many changes add no drift worth a digit.

They are summed from the vectors in one go the first time they are asked for (about a
second at 100 000 vectors of 384 dimensions, in slices of `_SLICE` rows), and kept
up to date after that (a vector changed costs two outer products).
"""

from __future__ import annotations

from typing import Final

import numpy as np

# Rows summed at once the first time: 10 000 rows of 384 in float64 take 31 MB.
_SLICE: Final = 10_000


class SystemSums:
    """The count, sum and summed second moments of one writing system's vectors."""

    def __init__(self, size: int) -> None:
        self.count = 0
        self.total = np.zeros(size, dtype=np.float64)
        self.squares = np.zeros((size, size), dtype=np.float64)

    @classmethod
    def of(cls, rows: np.ndarray, chosen: np.ndarray) -> SystemSums:
        """The sums of the chosen rows (a mask), copied a slice at a time."""
        sums = cls(rows.shape[1])
        for start in range(0, len(rows), _SLICE):
            part = rows[start : start + _SLICE][chosen[start : start + _SLICE]]
            wide = part.astype(np.float64)
            sums.total += wide.sum(axis=0)
            sums.squares += wide.T @ wide
        sums.count = int(np.count_nonzero(chosen))
        return sums

    def add(self, row: np.ndarray, sign: int = 1) -> None:
        """Count a row in (`sign` 1) or out (`sign` -1)."""
        wide = row.astype(np.float64)
        self.count += sign
        self.total += sign * wide
        self.squares += sign * np.outer(wide, wide)

    def moments(self, query: np.ndarray) -> tuple[float, float, int]:
        """The cosines' sum, their squares' sum and their count, for a question."""
        wide = query.astype(np.float64)
        # einsum, not `@`: BLAS would start threads that spin on past the question
        # (see `products.py`).
        return (
            float(np.einsum("i,i->", wide, self.total)),
            float(np.einsum("i,i->", np.einsum("ij,j->i", self.squares, wide), wide)),
            self.count,
        )

    def plus(self, other: SystemSums) -> SystemSums:
        """Both systems' sums together."""
        both = SystemSums(len(self.total))
        both.count = self.count + other.count
        both.total = self.total + other.total
        both.squares = self.squares + other.squares
        return both
