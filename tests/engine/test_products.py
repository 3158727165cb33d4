"""Each row's product with a vector, read in halves on two threads for a large matrix."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from custom_components.assist_memory.engine.search import products
from custom_components.assist_memory.engine.search.products import RowProducts

_HELPER = "assist_memory_products"


def _helpers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith(_HELPER)]


@pytest.mark.parametrize("rows", [0, 1, 7, 8, 9, 1001])
def test_the_products_are_numpys_at_every_size(rows: int) -> None:
    rng = np.random.default_rng(rows)
    matrix = rng.standard_normal((rows, 16)).astype(np.float32)
    vector = rng.standard_normal(16).astype(np.float32)
    split = RowProducts(split_from=8)
    try:
        found = split.of(matrix, vector)
        assert found.dtype == np.float32
        np.testing.assert_allclose(found, matrix @ vector, rtol=1e-5, atol=1e-5)
    finally:
        split.close()


def test_a_small_matrix_is_read_on_the_calling_thread() -> None:
    rng = np.random.default_rng(1)
    small = RowProducts()
    small.of(rng.standard_normal((100, 8)).astype(np.float32), np.ones(8, np.float32))
    assert not _helpers()


def test_the_helper_thread_ends_when_closed_and_comes_back_when_needed() -> None:
    rng = np.random.default_rng(2)
    matrix = rng.standard_normal((64, 8)).astype(np.float32)
    vector = rng.standard_normal(8).astype(np.float32)
    split = RowProducts(split_from=10)
    try:
        split.of(matrix, vector)
        assert len(_helpers()) == 1
        split.close()
        assert not _helpers()
        split.close()  # closing twice is harmless
        found = split.of(matrix, vector)
        # The halves sum in another order than numpy's `@`: equal to float32 rounding.
        np.testing.assert_allclose(found, matrix @ vector, rtol=1e-5, atol=1e-5)
        assert len(_helpers()) == 1
    finally:
        split.close()
    assert not _helpers()


def test_one_core_reads_a_large_matrix_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(products.os, "process_cpu_count", lambda: 1)
    rng = np.random.default_rng(3)
    matrix = rng.standard_normal((64, 8)).astype(np.float32)
    vector = rng.standard_normal(8).astype(np.float32)
    alone = RowProducts(split_from=10)
    try:
        found = alone.of(matrix, vector)
        np.testing.assert_allclose(found, matrix @ vector, rtol=1e-5, atol=1e-5)
        assert not _helpers()
    finally:
        alone.close()
