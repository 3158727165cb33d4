"""Optional vectors: hybrid score, background embeddings, cache, fallbacks.

A real HTTP server on 127.0.0.1 speaks the OpenAI embeddings protocol.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
import logging
from pathlib import Path
import threading

import aiohttp
import pytest

from custom_components.assist_memory.engine.memory.memory_engine import MemoryEngine
from custom_components.assist_memory.engine.model.embeddings import (
    EmbeddingClient,
    EmbeddingConfig,
    EmbeddingError,
)
from custom_components.assist_memory.engine.search import products
from custom_components.assist_memory.engine.search.background import BACKGROUND
from custom_components.assist_memory.engine.search.fusion import (
    MEANING_WHEN_WORDS_MATCH,
)
from custom_components.assist_memory.engine.storage.settings import StoreSettings
from tests.support.embedded_engine import embedded_engine
from tests.support.embedding_server import EmbeddingServer

# Home Assistant's test plugin blocks sockets; these tests talk to a local server.
pytestmark = pytest.mark.usefixtures("socket_enabled")

MEMORIES = [
    "Anna takes her coffee black",
    "Anna walks the dog at seven",
    "The boiler is serviced every October",
    "Tom has a peanut allergy",
    "Anna's favourite playlist is on the kitchen speaker",
]


@pytest.fixture
def server() -> Iterator[EmbeddingServer]:
    with EmbeddingServer() as running:
        yield running


def endpoint(server: EmbeddingServer) -> EmbeddingConfig:
    return EmbeddingConfig(server.base_url, "test-model", api_key="sk-test")


def open_engine(store_path: Path, server: EmbeddingServer) -> MemoryEngine:
    engine = MemoryEngine(
        store_path, StoreSettings(max_items=0), embeddings=endpoint(server)
    )
    engine.init()
    return engine


@pytest.fixture
def engine(store_path: Path, server: EmbeddingServer) -> Iterator[MemoryEngine]:
    with embedded_engine(store_path, MEMORIES, endpoint(server), wait=10) as engine:
        yield engine


def test_backend_in_use(engine: MemoryEngine) -> None:
    assert engine.vectors is not None
    assert engine.vectors.backend == "in-process"


def test_query_without_shared_words_is_found_by_meaning(engine: MemoryEngine) -> None:
    results = engine.search("hot beverage", limit=3)
    assert results[0].memory.content == "Anna takes her coffee black"
    assert results[0].parts.vector is not None
    assert results[0].parts.bm25 == 0.0  # no word in common: found by the vector alone


def test_words_that_all_match_keep_most_of_the_keyword_score(
    engine: MemoryEngine,
) -> None:
    result = engine.search("Anna coffee", limit=1)[0]
    parts = result.parts
    assert parts.vector is not None
    assert result.memory.content == "Anna takes her coffee black"
    # Every word matched and it is the nearest: full marks from both parts.
    assert parts.keyword == pytest.approx(1.0)
    others = engine.search("Anna coffee", limit=5)[1:]
    assert all(
        r.parts.keyword <= 1 - MEANING_WHEN_WORDS_MATCH + 1e-9
        for r in others
        if r.parts.bm25 == 0
    )


def test_progress_counts_the_memories_embedded(
    engine: MemoryEngine, server: EmbeddingServer
) -> None:
    assert engine.vectors is not None
    assert engine.vectors.progress() == (len(MEMORIES), len(MEMORIES))
    server.gate.clear()  # the endpoint hangs: the new memory waits
    try:
        engine.store.add("The bins go out on Tuesday")
        assert engine.vectors.progress() == (len(MEMORIES), len(MEMORIES) + 1)
    finally:
        server.gate.set()
    assert engine.vectors.wait_until_idle(10)
    assert engine.vectors.progress() == (len(MEMORIES) + 1, len(MEMORIES) + 1)


def test_another_model_embeds_every_memory_again(
    store_path: Path, server: EmbeddingServer
) -> None:
    engine = open_engine(store_path, server)
    try:
        engine.store.add("Anna takes her coffee black")
        assert engine.vectors is not None
        assert engine.vectors.wait_until_idle(10)
    finally:
        engine.close()
    first = len(server.texts_embedded())
    engine = MemoryEngine(
        store_path,
        StoreSettings(max_items=0),
        embeddings=EmbeddingConfig(server.base_url, "another-model"),
    )
    engine.init()
    try:
        assert engine.vectors is not None
        assert engine.vectors.wait_until_idle(10)
        again = [t for t in server.texts_embedded()[first:] if t not in BACKGROUND]
        assert again == ["Anna takes her coffee black"]
        assert server.requests[-1]["model"] == "another-model"
        assert engine.search("hot beverage")[0].parts.vector is not None
    finally:
        engine.close()


def test_chinese_query_reaches_english_memory_through_vectors(
    engine: MemoryEngine,
) -> None:
    results = engine.search("谁对花生过敏", limit=1)
    assert results[0].memory.content == "Tom has a peanut allergy"


def test_deleted_memories_leave_the_vector_index(engine: MemoryEngine) -> None:
    coffee = next(m for m in engine.store.get_all() if "coffee" in m.content)
    engine.store.delete(coffee.id)
    assert all(r.memory.id != coffee.id for r in engine.search("hot beverage", limit=5))


def test_api_key_is_sent(engine: MemoryEngine, server: EmbeddingServer) -> None:
    assert server.headers[0]["Authorization"] == "Bearer sk-test"
    assert server.requests[0]["model"] == "test-model"


def test_embeddings_are_cached_by_content(
    store_path: Path, server: EmbeddingServer
) -> None:
    engine = open_engine(store_path, server)
    try:
        memory = engine.store.add("Anna takes her coffee black")
        engine.store.add("Tom has a peanut allergy")
        assert engine.vectors is not None
        assert engine.vectors.wait_until_idle(10)
    finally:
        engine.close()
    embedded = len(server.texts_embedded())
    assert embedded == 2

    engine = open_engine(store_path, server)  # a restart re-embeds nothing
    try:
        assert engine.vectors is not None
        assert engine.vectors.wait_until_idle(10)
        assert len(server.texts_embedded()) == embedded
        engine.store.update(memory.id, "Anna takes her coffee with milk")
        assert engine.vectors.wait_until_idle(10)
        assert server.texts_embedded()[embedded:] == ["Anna takes her coffee with milk"]
        # The same text again (here: changed back) comes from the cache.
        engine.store.update(memory.id, "Anna takes her coffee black")
        assert engine.vectors.wait_until_idle(10)
        assert len(server.texts_embedded()) == embedded + 1
    finally:
        engine.close()


def test_adding_never_waits_for_the_endpoint(
    store_path: Path, server: EmbeddingServer
) -> None:
    engine = open_engine(store_path, server)
    try:
        server.gate.clear()  # the endpoint hangs
        added = [engine.store.add(f"memory number {n}") for n in range(5)]
        assert engine.store.count() == 5  # every add returned while the endpoint hung
        assert engine.vectors is not None
        assert not engine.vectors.wait_until_idle(0.2)
        server.gate.set()
        assert engine.vectors.wait_until_idle(10)
        assert sorted(server.texts_embedded()) == sorted(m.content for m in added)
    finally:
        engine.close()


def test_endpoint_failure_falls_back_to_bm25_and_recovers(
    store_path: Path, server: EmbeddingServer, caplog: pytest.LogCaptureFixture
) -> None:
    engine = open_engine(store_path, server)
    try:
        assert engine.vectors is not None
        server.fail_with = 503
        engine.store.add("Anna takes her coffee black")
        with caplog.at_level(logging.WARNING):
            results = engine.search("coffee")
            engine.search("black coffee")
        assert [r.memory.content for r in results] == ["Anna takes her coffee black"]
        assert results[0].parts.vector is None
        assert (
            engine.vectors.degraded_reason == "the embedding endpoint answered HTTP 503"
        )
        warnings = [r for r in caplog.records if "BM25 only" in r.getMessage()]
        assert len(warnings) == 1

        server.fail_with = None
        engine.search("coffee please")  # the endpoint answers again...
        assert engine.vectors.degraded_reason is None
        assert engine.vectors.wait_until_idle(
            10
        )  # ...so the waiting memory is embedded
        results = engine.search("coffee please")
        assert results[0].parts.vector is not None
    finally:
        engine.close()


def test_unreachable_endpoint(store_path: Path) -> None:
    engine = MemoryEngine(
        store_path, embeddings=EmbeddingConfig("http://127.0.0.1:9", "m", timeout=1)
    )
    engine.init()
    try:
        engine.store.add("Anna takes her coffee black")
        assert [r.memory.content for r in engine.search("coffee")] == [
            "Anna takes her coffee black"
        ]
        assert engine.vectors is not None
        assert "failed" in (engine.vectors.degraded_reason or "")
    finally:
        engine.close()


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ({"data": []}, "one vector per text"),
        ("not an object", "one vector per text"),
        ({"data": [{"index": 0, "embedding": ["x"]}]}, "invalid vector"),
        ({"data": [{"index": 0, "embedding": []}]}, "invalid vector"),
        ({"data": [{"index": 0}]}, "invalid vector"),
    ],
)
def test_bad_answers_are_rejected(
    server: EmbeddingServer, answer: object, message: str
) -> None:
    server.answer_override = answer
    client = EmbeddingClient(EmbeddingConfig(server.base_url, "m"))
    with pytest.raises(EmbeddingError, match=message):
        client.embed(["hello"])


def test_vectors_of_different_sizes_are_rejected(server: EmbeddingServer) -> None:
    server.answer_override = {
        "data": [
            {"index": 0, "embedding": [1.0, 0.0]},
            {"index": 1, "embedding": [1.0]},
        ]
    }
    client = EmbeddingClient(EmbeddingConfig(server.base_url, "m"))
    with pytest.raises(EmbeddingError, match="different sizes"):
        client.embed(["a", "b"])


def test_answers_are_put_back_in_order(server: EmbeddingServer) -> None:
    server.answer_override = {
        "data": [
            {"index": 1, "embedding": [0.0, 1.0]},
            {"index": 0, "embedding": [1.0, 0.0]},
        ]
    }
    client = EmbeddingClient(EmbeddingConfig(server.base_url, "m"))
    assert client.embed(["first", "second"]) == [[1.0, 0.0], [0.0, 1.0]]


@pytest.mark.parametrize(
    ("base", "endpoint"),
    [
        ("http://localhost:11434", "http://localhost:11434/v1/embeddings"),
        ("http://localhost:11434/", "http://localhost:11434/v1/embeddings"),
        ("https://api.openai.com/v1", "https://api.openai.com/v1/embeddings"),
        ("http://host:8080/v1/", "http://host:8080/v1/embeddings"),
    ],
)
def test_endpoint_url(base: str, endpoint: str) -> None:
    assert EmbeddingConfig(base, "m").endpoint == endpoint


def test_many_texts_are_sent_in_batches(server: EmbeddingServer) -> None:
    client = EmbeddingClient(EmbeddingConfig(server.base_url, "m"))
    vectors = client.embed([f"text {n}" for n in range(70)])
    assert len(vectors) == 70
    assert [len(body["input"]) for body in server.requests] == [32, 32, 6]  # type: ignore[arg-type]


async def test_the_hosts_session_carries_every_request(server: EmbeddingServer) -> None:
    async with aiohttp.ClientSession(headers={"User-Agent": "the host"}) as session:
        client = EmbeddingClient(
            EmbeddingConfig(server.base_url, "m"),
            session=session,
            loop=asyncio.get_running_loop(),
        )
        assert len(await client.async_embed(["from the loop"])) == 1
        # The engine's worker threads wait while the request runs on the host's loop.
        assert len(await asyncio.to_thread(client.embed, ["from a thread"])) == 1
        with pytest.raises(RuntimeError, match="await async_embed"):
            client.embed(["blocking the loop"])
    assert server.texts_embedded() == ["from the loop", "from a thread"]
    assert [headers["User-Agent"] for headers in server.headers] == ["the host"] * 2


def test_a_closed_host_loop_is_an_embedding_error(server: EmbeddingServer) -> None:
    loop = asyncio.new_event_loop()
    loop.close()
    client = EmbeddingClient(EmbeddingConfig(server.base_url, "m"), loop=loop)
    with pytest.raises(EmbeddingError, match="closed"):
        client.embed(["too late"])


def test_stopping_ends_the_products_helper_thread(
    store_path: Path, server: EmbeddingServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every matrix counts as large: its products are read in halves on two threads.
    monkeypatch.setattr(products, "SPLIT_FROM", 1)
    with embedded_engine(store_path, MEMORIES, endpoint(server), wait=10) as engine:
        found = engine.search("hot beverage", limit=3)
        assert found[0].memory.content == "Anna takes her coffee black"
        assert any(
            t.name.startswith("assist_memory_products") for t in threading.enumerate()
        )
    assert not any(
        t.name.startswith("assist_memory_products") for t in threading.enumerate()
    )
