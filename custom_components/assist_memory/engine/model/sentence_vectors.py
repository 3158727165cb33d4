"""A sentence's vector from the local model, for the heads that decide from meaning.

One vector per sentence serves every decision about it (is it worth keeping, is it a
secret, does a memory answer it): e5 reads a sentence to classify with the "query: "
prefix, the same vector search uses for a question, so a turn pays for it once. Kept in
a small cache, since a sentence is often decided on twice (answered, then learnt).

None when the local model cannot run here: the caller then keeps to its rules.
"""

from __future__ import annotations

from collections import OrderedDict
import threading
from typing import Final

import numpy as np

from .embeddings import EmbeddingError
from .heads import Vector
from .local_model import MODEL_NAME, local_model_problem, query_vectors

_CACHED: Final = 512


class SentenceVectors:
    """The local model's vectors for sentences, cached; thread-safe."""

    model: Final = MODEL_NAME

    def __init__(self, cached: int = _CACHED) -> None:
        """`cached`: how many sentences' vectors are kept (the newest)."""
        self._cached = cached
        self._cache: OrderedDict[str, Vector] = OrderedDict()
        self._lock = threading.Lock()

    def vector(self, text: str) -> Vector:
        """The sentence's vector (blocking: 10 to 20 ms on a small machine)."""
        return self.vectors([text])[0]

    def vectors(self, texts: list[str]) -> list[Vector]:
        """Vectors for several sentences, in order (one batch for the uncached)."""
        with self._lock:
            found = {t: self._cache[t] for t in texts if t in self._cache}
            for text in found:
                self._cache.move_to_end(text)
        missing = list(dict.fromkeys(t for t in texts if t not in found))
        if missing:
            found.update(zip(missing, query_vectors(missing), strict=True))
            with self._lock:
                for text in missing:
                    self._cache[text] = found[text]
                while len(self._cache) > self._cached:
                    self._cache.popitem(last=False)
        return [found[t] for t in texts]


_shared: SentenceVectors | None = None
_shared_lock = threading.Lock()


def sentence_vectors() -> SentenceVectors | None:
    """The process's sentence vectors, or None when the local model cannot run here."""
    global _shared  # noqa: PLW0603 - one cache per process, like the model
    with _shared_lock:
        if _shared is None:
            if local_model_problem() is not None:
                return None
            _shared = SentenceVectors()
        return _shared


def as_vector(values: list[float]) -> Vector:
    """A vector from plain numbers (a stored or cached one)."""
    return np.asarray(values, dtype=np.float32)


__all__ = ["EmbeddingError", "SentenceVectors", "as_vector", "sentence_vectors"]
