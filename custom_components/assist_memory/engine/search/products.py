"""A matrix's products with one vector, on threads that sleep when they are done.

numpy's `@` hands a large product to its BLAS (OpenBLAS), whose threads keep spinning
on the cores for a while after it. On a small machine they took a core from the local
model as it embedded the next question: on 2 cores, after a product with 100 000
memories' vectors, a question's vector took a median 26 ms instead of 20 and a 95th
percentile 46 ms instead of 27. `einsum` computes on the calling thread; a large
matrix is read in two halves, one on a helper thread, which is about as fast as the
BLAS (the product is bound by reading the matrix from memory).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
import os
import threading
from typing import Final

import numpy as np

# Fewer rows are read on the calling thread: handing half of them over costs more
# than it saves (at 10 000 rows of 384 the whole product takes about 1.5 ms).
SPLIT_FROM: Final = 20_000


class RowProducts:
    """Each row's product with a vector; the helper thread lives until `close`."""

    def __init__(self, split_from: int | None = None) -> None:
        self._split_from = SPLIT_FROM if split_from is None else split_from
        self._split = (os.process_cpu_count() or 1) > 1
        self._helper: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    def of(self, matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
        """`matrix @ vector`, as float32."""
        rows = len(matrix)
        out = np.empty(rows, dtype=np.float32)
        if rows < self._split_from or not self._split:
            np.einsum("ij,j->i", matrix, vector, out=out)
            return out
        half = rows // 2
        first = self._helper_thread().submit(
            np.einsum, "ij,j->i", matrix[:half], vector, out=out[:half]
        )
        np.einsum("ij,j->i", matrix[half:], vector, out=out[half:])
        first.result()
        return out

    def close(self) -> None:
        """End the helper thread (a later product starts another)."""
        with self._lock:
            helper, self._helper = self._helper, None
        if helper is not None:
            helper.shutdown(wait=True)

    def _helper_thread(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._helper is None:
                self._helper = ThreadPoolExecutor(
                    max_workers=1, thread_name_prefix="assist_memory_products"
                )
            return self._helper
