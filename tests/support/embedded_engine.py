"""An engine with the local model whose memories have all been embedded."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from custom_components.assist_memory.engine.memory.memory_engine import MemoryEngine
from custom_components.assist_memory.engine.model.local_model import (
    EmbeddingChoice,
    LocalModel,
)
from custom_components.assist_memory.engine.storage.settings import StoreSettings


@contextmanager
def embedded_engine(
    path: Path,
    texts: Iterable[str],
    embeddings: EmbeddingChoice | None = None,
    *,
    wait: float = 120,
) -> Iterator[MemoryEngine]:
    """The memories added and embedded (search by meaning caught up), then closed.

    By the local model unless `embeddings` says otherwise (an endpoint's settings).
    """
    engine = MemoryEngine(
        path, StoreSettings(max_items=0), embeddings=embeddings or LocalModel()
    )
    engine.init()
    try:
        for text in texts:
            engine.store.add(text)
        assert engine.vectors is not None
        assert engine.vectors.wait_until_idle(wait)
        yield engine
    finally:
        engine.close()
