"""A client for OpenAI-compatible embedding endpoints (OpenAI, Ollama, LocalAI, ...).

POST {base}/v1/embeddings {"model": ..., "input": [...]} answers
{"data": [{"index": i, "embedding": [...]}, ...]}. The request is asyncio (aiohttp),
through the host's session when it gives one (Home Assistant's shared session), else a
session made for the call. The engine's worker threads call the blocking `embed`: it
runs the request on the host's event loop when the client is bound to one, else on a
loop of its own.
"""

from __future__ import annotations

from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
import json
import math
from typing import TYPE_CHECKING, Any, Final, Protocol

from ..errors import MemoryEngineError

if TYPE_CHECKING:
    import asyncio

    import aiohttp

DEFAULT_TIMEOUT: Final = 10.0
MAX_BATCH: Final = 32


class EmbeddingError(MemoryEngineError):
    """The endpoint could not be reached or answered something unusable."""

    code = "embedding_error"


class Embedder(Protocol):
    """Turns texts into vectors: an endpoint (`EmbeddingClient`) or the local model.

    Blocking; the engine calls it from its worker threads.
    """

    @property
    def model(self) -> str:
        """The model's name, part of every cached vector's key."""

    def embed(self, texts: list[str]) -> list[list[float]]:
        """Vectors for stored texts (memories), one per text, in order."""

    def embed_query(self, text: str) -> list[float]:
        """The vector of a question."""

    def warm_up(self) -> None:
        """Get ready before the first question (the worker calls it once)."""


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


@dataclass(frozen=True, slots=True)
class HttpContext:
    """The host's event loop, and its aiohttp session when it shares one."""

    loop: asyncio.AbstractEventLoop
    session: aiohttp.ClientSession | None = None


class EmbeddingClient:
    """Turns texts into vectors through an OpenAI-compatible endpoint."""

    def __init__(
        self,
        config: EmbeddingConfig,
        *,
        session: aiohttp.ClientSession | None = None,
        loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        """`session` and the `loop` it belongs to are the host's (both or neither)."""
        self.config = config
        self._session = session
        self._loop = loop

    @property
    def model(self) -> str:
        """The endpoint's model name."""
        return self.config.model

    def embed_query(self, text: str) -> list[float]:
        """A question's vector: the endpoint embeds questions and memories alike."""
        return self.embed([text])[0]

    def warm_up(self) -> None:
        """Nothing to prepare: the endpoint is asked when there is work."""

    def embed(self, texts: list[str]) -> list[list[float]]:
        """`async_embed` for a worker thread: blocks until the vectors are there."""
        import asyncio  # only with embeddings: a CLI start skips it

        if self._loop is None:
            return asyncio.run(self.async_embed(texts))
        if _running_loop() is self._loop:
            raise RuntimeError("embed() blocks: await async_embed() on the event loop")
        request = self.async_embed(texts)
        try:
            future = asyncio.run_coroutine_threadsafe(request, self._loop)
        except RuntimeError as err:  # the host's loop is closed: it is stopping
            request.close()
            raise EmbeddingError("the event loop is closed") from err
        try:
            # The request has its own timeout per batch; this only bounds a stuck loop.
            return future.result(self.config.timeout * (len(texts) // MAX_BATCH + 2))
        except FutureTimeout as err:
            future.cancel()
            raise EmbeddingError("the embedding endpoint did not answer") from err

    async def async_embed(self, texts: list[str]) -> list[list[float]]:
        """One vector per text, in order; EmbeddingError when that is not possible."""
        # Loaded on first use: most setups have no endpoint, and start faster.
        import aiohttp

        if self._session is not None:
            return await self._embed_all(self._session, texts)
        async with aiohttp.ClientSession() as session:
            return await self._embed_all(session, texts)

    async def _embed_all(
        self, session: aiohttp.ClientSession, texts: list[str]
    ) -> list[list[float]]:
        vectors: list[list[float]] = []
        for start in range(0, len(texts), MAX_BATCH):
            batch = texts[start : start + MAX_BATCH]
            vectors.extend(await self._embed_batch(session, batch))
        return vectors

    async def _embed_batch(
        self, session: aiohttp.ClientSession, texts: list[str]
    ) -> list[list[float]]:
        import aiohttp

        headers = {"Content-Type": "application/json"}
        if self.config.api_key:
            headers["Authorization"] = f"Bearer {self.config.api_key}"
        body = json.dumps({"model": self.config.model, "input": texts}).encode()
        try:
            async with session.post(
                self.config.endpoint,
                data=body,
                headers=headers,
                timeout=aiohttp.ClientTimeout(total=self.config.timeout),
            ) as response:
                if response.status >= 400:
                    raise EmbeddingError(
                        f"the embedding endpoint answered HTTP {response.status}",
                        status=response.status,
                    )
                answer = json.loads(await response.read())
        except TimeoutError as err:
            raise EmbeddingError(
                f"the embedding endpoint failed: no answer within "
                f"{self.config.timeout:g} s"
            ) from err
        except (aiohttp.ClientError, ValueError) as err:
            raise EmbeddingError(f"the embedding endpoint failed: {err}") from err
        return _parse(answer, len(texts))


def _running_loop() -> asyncio.AbstractEventLoop | None:
    import asyncio  # see `EmbeddingClient.embed`

    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


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
