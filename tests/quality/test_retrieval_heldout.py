"""The held-out retrieval queries are what they claim to be.

tests/data/retrieval_heldout.json holds queries written by hand after search by
meaning was built, over the labelled set's memories (by id), so that a change to
search can be judged on queries nobody tuned it against. `script/bench
--meaning-quality` measures them; these tests check the labels' shape and the claims
of each kind: a "no_overlap" query shares no keyword with its answers as the engine
itself extracts keywords (English words by their light stem, Chinese by character
pairs; names count too), and a "cross" query is in the other language.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from assist_memory_engine.language.keywords import (
    cjk_pairs,
    extract_keywords,
    light_stem,
)
from script.retrieval_quality import heldout_set, labelled_set

KINDS = {"cross": 36, "no_overlap": 30, "paraphrase": 24, "keyword": 10}
LANGS = {"en", "zh"}


@pytest.fixture(scope="module")
def heldout() -> dict[str, Any]:
    return heldout_set()


@pytest.fixture(scope="module")
def memories() -> dict[str, dict[str, Any]]:
    return {memory["id"]: memory for memory in labelled_set()["memories"]}


def keywords(text: str) -> set[str]:
    """What the engine searches by: stemmed English words and Chinese pairs."""
    found = extract_keywords(text)
    return {light_stem(word) for word in found.words} | {
        pair for piece in found.chinese for pair in cjk_pairs(piece)
    }


def shared(query: dict[str, Any], memory: dict[str, Any]) -> set[str]:
    """The keywords a query shares with a memory's content and tags."""
    return keywords(query["query"]) & keywords(
        " ".join([memory["content"], *memory["tags"]])
    )


def test_the_set_refers_to_the_labelled_memories(
    heldout: dict[str, Any], memories: dict[str, dict[str, Any]]
) -> None:
    queries = heldout["queries"]
    unknown = [
        (query["id"], rid)
        for query in queries
        for rid in query["relevant"]
        if rid not in memories
    ]

    assert heldout["memories_from"] == "retrieval_set.json"
    assert unknown == []
    assert all(
        query["relevant"] and len(set(query["relevant"])) == len(query["relevant"])
        for query in queries
    )
    assert len({query["id"] for query in queries}) == len(queries)


def test_no_query_repeats_another(heldout: dict[str, Any]) -> None:
    texts = [query["query"] for query in heldout["queries"]]
    labelled = {query["query"] for query in labelled_set()["queries"]}

    assert len(set(texts)) == len(texts)
    assert [text for text in texts if text in labelled] == []


def test_kinds_languages_and_counts(heldout: dict[str, Any]) -> None:
    queries = heldout["queries"]
    cross_langs = Counter(q["lang"] for q in queries if q["kind"] == "cross")

    assert {query["lang"] for query in queries} <= LANGS
    assert Counter(query["kind"] for query in queries) == KINDS
    assert cross_langs == {"en": 18, "zh": 18}


def test_no_overlap_queries_share_no_keyword_with_their_answers(
    heldout: dict[str, Any], memories: dict[str, dict[str, Any]]
) -> None:
    overlaps = {
        (query["query"], rid): found
        for query in heldout["queries"]
        if query["kind"] == "no_overlap"
        for rid in query["relevant"]
        if (found := shared(query, memories[rid]))
    }
    other_language = [
        query["id"]
        for query in heldout["queries"]
        if query["kind"] == "no_overlap"
        and any(memories[rid]["lang"] != query["lang"] for rid in query["relevant"])
    ]

    assert overlaps == {}
    assert other_language == []


def test_keyword_and_paraphrase_queries_share_a_keyword(
    heldout: dict[str, Any], memories: dict[str, dict[str, Any]]
) -> None:
    nothing_shared = [
        query["query"]
        for query in heldout["queries"]
        if query["kind"] in ("keyword", "paraphrase")
        and not any(shared(query, memories[rid]) for rid in query["relevant"])
    ]

    assert nothing_shared == []


def test_cross_queries_ask_in_the_other_language(
    heldout: dict[str, Any], memories: dict[str, dict[str, Any]]
) -> None:
    same_language = [
        (query["query"], rid)
        for query in heldout["queries"]
        if query["kind"] == "cross"
        for rid in query["relevant"]
        if {query["lang"], memories[rid]["lang"]} != LANGS
    ]

    assert same_language == []


def test_the_checks_see_a_shared_keyword() -> None:
    """The overlap rule catches a stem, a tag and a Chinese pair (it can fail)."""
    memory = {"content": "Biscuit steals socks.", "tags": ["dog"], "lang": "en"}
    chinese = {"content": "燃气表在厨房门后面。", "tags": [], "lang": "zh"}

    assert shared({"query": "Who stole my sock?"}, memory) == {"sock"}
    assert shared({"query": "Where's the dog?"}, memory) == {"dog"}
    assert shared({"query": "燃气表呢"}, chinese) == {"燃气", "气表"}
    assert shared({"query": "煤气的计量器呢"}, chinese) == set()
