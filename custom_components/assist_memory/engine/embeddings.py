"""A client for OpenAI-compatible embedding endpoints (OpenAI, Ollama, LocalAI, ...).

POST {base}/v1/embeddings {"model": ..., "input": [...]} answers
{"data": [{"index": i, "embedding": [...]}, ...]}. Synchronous (urllib): the engine calls
it from worker threads, never from an event loop.
"""

from __future__ import annotations

from dataclasses import dataclass
import json
import math
from typing import Any, Final

from .errors import MemoryEngineError

DEFAULT_TIMEOUT: Final = 10.0
MAX_BATCH: Final = 32


class EmbeddingError(MemoryEngineError):
    """The endpoint could not be reached or answered something unusable."""

    code = "embedding_error"


@dataclass(frozen=True, slots=True)
class EmbeddingConfig:
    """Where embeddings come from."""

    base_url: str
    model: str
    api_key: str | None = None
    timeout: float = DEFAULT_TIMEOUT

    @property
    def endpoint(self) -> str:
        """The embeddings URL; `/v1` is added when the base URL lacks it."""
        base = self.base_url.rstrip("/")
        if not base.endswith("/v1"):
            base += "/v1"
        return f"{base}/embeddings"


class EmbeddingClient:
    """Turns texts into vectors through an OpenAI-compatible endpoint."""

    def __init__(self, config: EmbeddingConfig) -> None:
        self.config = config

    def embed(self, texts: list[str]) -> list[list[float]]:
        """One vector per text, in order; EmbeddingError when that is not possible."""
        vectors: list[list[float]] = []
        for start in range(0, len(texts), MAX_BATCH):
            vectors.extend(self._embed_batch(texts[start : start + MAX_BATCH]))
        return vectors

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        # Loaded on first use: most setups have no endpoint, and start faster.
        import urllib.error
        import urllib.request

        body = json.dumps({"model": self.config.model, "input": texts}).encode()
        request = urllib.request.Request(  # noqa: S310 - the URL is the user's setting
            self.config.endpoint,
            data=body,
            method="POST",
            headers={"Content-Type": "application/json"},
        )
        if self.config.api_key:
            request.add_header("Authorization", f"Bearer {self.config.api_key}")
        try:
            with urllib.request.urlopen(  # noqa: S310
                request, timeout=self.config.timeout
            ) as response:
                answer = json.load(response)
        except urllib.error.HTTPError as err:
            raise EmbeddingError(
                f"the embedding endpoint answered HTTP {err.code}", status=err.code
            ) from err
        except (OSError, ValueError) as err:
            raise EmbeddingError(f"the embedding endpoint failed: {err}") from err
        return _parse(answer, len(texts))


def _parse(answer: Any, expected: int) -> list[list[float]]:
    data = answer.get("data") if isinstance(answer, dict) else None
    if not isinstance(data, list) or len(data) != expected:
        raise EmbeddingError(
            "the embedding endpoint answered without one vector per text"
        )
    ordered = sorted(
        data, key=lambda item: item.get("index", 0) if isinstance(item, dict) else 0
    )
    vectors: list[list[float]] = []
    for item in ordered:
        vector = item.get("embedding") if isinstance(item, dict) else None
        if (
            not isinstance(vector, list)
            or not vector
            or not all(
                isinstance(x, int | float)
                and not isinstance(x, bool)
                and math.isfinite(x)
                for x in vector
            )
        ):
            raise EmbeddingError("the embedding endpoint answered an invalid vector")
        vectors.append([float(x) for x in vector])
    if len({len(v) for v in vectors}) > 1:
        raise EmbeddingError(
            "the embedding endpoint answered vectors of different sizes"
        )
    return vectors
