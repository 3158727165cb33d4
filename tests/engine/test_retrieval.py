"""Retrieval and the scoring formula: keyword score, category boost, recency, frequency, confidence."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
import dataclasses
from datetime import UTC, datetime, timedelta
import math
from pathlib import Path
from typing import Any

import pytest

from custom_components.assist_memory.engine import (
    LocalBackend,
    MemoryStore,
    StoreSettings,
)
from custom_components.assist_memory.engine.config import InvalidConfigError
from custom_components.assist_memory.engine.memory.memory_engine import MemoryEngine
from custom_components.assist_memory.engine.search.fusion import (
    MEANING_WHEN_WORDS_MATCH,
)
from custom_components.assist_memory.engine.search.nearness import Nearness
from custom_components.assist_memory.engine.search.retrieval import (
    DEFAULT_LIMIT,
    Retriever,
)
from custom_components.assist_memory.engine.search.scoring import (
    PREFERENCE_BOOST,
    TOPIC_BOOST,
    ScoredMemory,
    ScoreParts,
    category_score,
    frequency_score,
    recency_score,
)
from custom_components.assist_memory.engine.search.second_round import (
    follow_up,
    names_in,
)
from custom_components.assist_memory.engine.storage.models import Memory

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)


def ago(days: float) -> str:
    return (NOW - timedelta(days=days)).isoformat()


def record(memory_id: str, content: str, **fields: Any) -> dict[str, Any]:
    """A stored record with fixed times (an import keeps ids and times exactly)."""
    fields.setdefault("created_at", ago(30))
    fields.setdefault("updated_at", fields["created_at"])
    return {"id": memory_id, "content": content, **fields}


@pytest.fixture
def engine(store_path: Path) -> Iterator[MemoryEngine]:
    engine = MemoryEngine(store_path)
    engine.init()
    yield engine
    engine.close()


@pytest.fixture
def retriever(engine: MemoryEngine) -> Retriever:
    """The engine's index and store, scored at a fixed time."""
    return Retriever(engine.index, engine.store.get_many, now=lambda: NOW)


def load(engine: MemoryEngine, *records: dict[str, Any]) -> None:
    engine.store.import_({"memories": list(records)}, mode="replace")


def favourites(prefix: str, texts: Iterable[str]) -> list[dict[str, Any]]:
    """Memories every signal but the words favours: changed yesterday, used 50 times,
    certain (what a rarer match must still outrank)."""
    return [
        record(f"{prefix}{n}", text, updated_at=ago(1), access_count=50, confidence=1.0)
        for n, text in enumerate(texts)
    ]


def by_id(results: list[ScoredMemory]) -> dict[str, ScoredMemory]:
    return {r.memory.id: r for r in results}


# -- the formula -----------------------------------------------------------------


def test_total_is_the_weighted_sum() -> None:
    parts = ScoreParts(
        keyword=0.8, category=1.0, recency=0.5, frequency=0.25, confidence=0.9
    )

    expected = 0.8 * 0.8 + 0.06 * 1.0 + 0.06 * 0.5 + 0.03 * 0.25 + 0.05 * 0.9
    assert parts.total() == pytest.approx(expected)
    boosted = ScoreParts(
        keyword=0.8,
        category=1.0,
        recency=0.5,
        frequency=0.25,
        confidence=0.9,
        topic_boost=TOPIC_BOOST,
    )
    assert boosted.total() == pytest.approx(expected * 1.3)
    perfect = ScoreParts(keyword=1, category=1, recency=1, frequency=1, confidence=1)
    assert perfect.total() == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("days", "expected"),
    [(0, 1.0), (3.5, 2**-0.5), (7, 0.5), (14, 0.25), (70, 2**-10), (-3, 1.0)],
)
def test_recency_halves_every_seven_days(days: float, expected: float) -> None:
    memory = Memory(id="m", content="x", created_at=ago(days), updated_at=ago(days))

    assert recency_score(memory, NOW) == pytest.approx(expected)


def test_recency_counts_from_the_latest_use_or_change() -> None:
    used = Memory(
        id="m",
        content="x",
        created_at=ago(60),
        updated_at=ago(60),
        last_accessed=ago(7),
    )
    changed = Memory(
        id="m",
        content="x",
        created_at=ago(60),
        updated_at=ago(7),
        last_accessed=ago(60),
    )

    assert recency_score(used, NOW) == pytest.approx(0.5)
    assert recency_score(changed, NOW) == pytest.approx(0.5)
    assert recency_score(Memory(id="m", content="x"), NOW) == 0.0  # no usable time


def test_frequency_is_log_normalised_and_capped() -> None:
    def score(count: int) -> float:
        return frequency_score(Memory(id="m", content="x", access_count=count))

    assert score(0) == 0.0
    assert score(9) == pytest.approx(math.log(10) / math.log(101))
    assert score(100) == pytest.approx(1.0)
    assert score(10_000) == 1.0
    counts = [0, 1, 2, 5, 10, 50, 99, 100]
    scores = [score(c) for c in counts]
    assert scores == sorted(scores)
    assert len(set(scores)) == len(scores)


def test_category_boost_only_for_preferences_when_asked() -> None:
    preference = Memory(id="p", content="x", category="preference")
    fact = Memory(id="f", content="x", category="fact")

    assert category_score(preference, wants_preference=True) == 1.0
    assert category_score(preference, wants_preference=False) == 1 / PREFERENCE_BOOST
    assert category_score(fact, wants_preference=True) == 1 / 1.5
    assert category_score(fact, wants_preference=False) == 1 / 1.5


def test_scored_memory_json_form(engine: MemoryEngine) -> None:
    engine.store.add("Black coffee in the morning")

    [result] = engine.search("coffee")
    document = result.to_dict()

    assert document["content"] == "Black coffee in the morning"
    assert document["score"] == round(result.score, 4)
    assert document["score"] == pytest.approx(result.parts.total(), abs=1e-4)
    assert set(document["score_parts"]) == {
        "keyword",
        "category",
        "recency",
        "frequency",
        "confidence",
        "topic_boost",
        "bm25",
        "vector",
    }
    assert document["score_parts"]["vector"] is None
    assert document["matched"] == ["coffee"]


# -- ranking ---------------------------------------------------------------------


def test_scores_follow_the_formula(engine: MemoryEngine, retriever: Retriever) -> None:
    load(
        engine,
        record(
            "m1",
            "Black coffee in the morning",
            confidence=0.8,
            updated_at=ago(7),
            access_count=9,
        ),
    )

    [result] = retriever.retrieve("coffee")

    parts = result.parts
    assert parts.recency == pytest.approx(0.5)
    assert parts.frequency == pytest.approx(math.log(10) / math.log(101))
    assert parts.confidence == 0.8
    assert parts.category == pytest.approx(1 / 1.5)
    assert parts.keyword == pytest.approx(1.0)  # the best BM25 match, every keyword
    assert parts.topic_boost == 1.0
    assert result.score == pytest.approx(
        0.8 * 1.0 + 0.06 / 1.5 + 0.06 * 0.5 + 0.03 * parts.frequency + 0.05 * 0.8
    )


def test_more_matched_keywords_rank_higher(engine: MemoryEngine) -> None:
    both = engine.store.add("Fresh coffee and a croissant")
    one = engine.store.add("Coffee beans are in the pantry")

    results = engine.search("coffee croissant")

    assert [r.memory.id for r in results] == [both.id, one.id]
    assert results[0].matched == ("coffee", "croissant")
    assert results[1].matched == ("coffee",)
    assert results[0].parts.keyword > results[1].parts.keyword


def test_a_possessive_matches_the_plain_word(engine: MemoryEngine) -> None:
    # "Dad's" in a memory is the dad a question names, and the other way round.
    said = engine.store.add("Remember Dad's knee hurts on long walks")
    engine.store.add("The walks by the river are long and muddy")

    results = engine.search("what is wrong with dad knee")

    assert results[0].memory.id == said.id
    assert results[0].matched == ("dad", "knee")
    grandpa = engine.store.add("Grandpa grows tomatoes in the garden")
    found = engine.search("Grandpa's garden")[0]
    assert (found.memory.id, found.matched) == (grandpa.id, ("grandpa's", "garden"))


def test_matched_lists_words_prefixes_and_chinese(engine: MemoryEngine) -> None:
    full = engine.store.add("Python 咖啡豆 in the garage")
    partial = engine.store.add("Garage 咖啡 machine")

    results = by_id(engine.search("garage pyth* 咖啡豆"))

    assert results[full.id].matched == ("garage", "pyth*", "咖啡豆")
    assert results[full.id].parts.keyword == pytest.approx(1.0)
    # One of the two pairs of 咖啡豆 (咖啡), and no Python: partial coverage.
    assert results[partial.id].matched == ("garage", "咖啡豆")
    assert results[partial.id].parts.keyword < results[full.id].parts.keyword


def test_recent_memory_outranks_an_old_one(
    engine: MemoryEngine, retriever: Retriever
) -> None:
    load(
        engine,
        record("old", "Coffee from the market", updated_at=ago(28)),
        record("new", "Coffee from the market", updated_at=ago(1)),
    )

    results = retriever.retrieve("coffee")

    assert [r.memory.id for r in results] == ["new", "old"]
    assert results[1].parts.recency == pytest.approx(1 / 16)


def test_frequently_used_memory_outranks_an_unused_one(
    engine: MemoryEngine, retriever: Retriever
) -> None:
    load(
        engine,
        record("unused", "Coffee from the market"),
        record("used", "Coffee from the market", access_count=40),
    )

    assert [r.memory.id for r in retriever.retrieve("coffee")] == ["used", "unused"]


def test_higher_confidence_ranks_higher(
    engine: MemoryEngine, retriever: Retriever
) -> None:
    load(
        engine,
        record("unsure", "Coffee from the market", confidence=0.5),
        record("sure", "Coffee from the market", confidence=0.95),
    )

    results = retriever.retrieve("coffee")

    assert [r.memory.id for r in results] == ["sure", "unsure"]
    assert results[0].score - results[1].score == pytest.approx(0.05 * 0.45)


@pytest.mark.parametrize(
    "message",
    [
        "I prefer coffee",
        "What coffee do I like?",
        "我喜欢咖啡",
        "我喜欢什么咖啡？",
    ],
)
def test_preference_outranks_an_identical_fact_when_asked(
    engine: MemoryEngine, retriever: Retriever, message: str
) -> None:
    load(
        engine,
        record("fact", "Coffee black, no sugar 咖啡", category="fact"),
        record("pref", "Coffee black, no sugar 咖啡", category="preference"),
    )

    results = by_id(retriever.retrieve(message))

    assert results["pref"].parts.category == 1.0
    assert results["fact"].parts.category == pytest.approx(1 / 1.5)
    assert results["pref"].score - results["fact"].score == pytest.approx(
        0.06 * (1 - 1 / 1.5)
    )
    assert retriever.retrieve(message)[0].memory.id == "pref"


@pytest.mark.parametrize("message", ["coffee", "Where is the coffee?", "咖啡在哪里"])
def test_no_preference_boost_for_neutral_messages(
    engine: MemoryEngine, retriever: Retriever, message: str
) -> None:
    load(
        engine,
        record("fact", "Coffee black, no sugar 咖啡", category="fact"),
        record("pref", "Coffee black, no sugar 咖啡", category="preference"),
    )

    results = by_id(retriever.retrieve(message))

    assert results["pref"].parts.category == results["fact"].parts.category
    assert results["pref"].score == pytest.approx(results["fact"].score)


def test_topic_boost_applies_only_to_memories_on_the_topic(
    engine: MemoryEngine, retriever: Retriever
) -> None:
    load(
        engine,
        record("garden", "Water the tomatoes in the garden"),
        record("kitchen", "Water filter in the kitchen"),
        record("topic_only", "Garden shed key is on the hook"),
        record("unrelated", "Dentist on Thursday"),
    )

    results = by_id(retriever.retrieve("water", topic="garden"))

    assert set(results) == {"garden", "kitchen", "topic_only"}
    assert results["garden"].parts.topic_boost == TOPIC_BOOST
    assert results["topic_only"].parts.topic_boost == TOPIC_BOOST
    assert results["kitchen"].parts.topic_boost == 1.0
    boosted = results["garden"]
    assert boosted.score == pytest.approx(
        ScoreParts(
            keyword=boosted.parts.keyword,
            category=boosted.parts.category,
            recency=boosted.parts.recency,
            frequency=boosted.parts.frequency,
            confidence=boosted.parts.confidence,
        ).total()
        * 1.3
    )
    # Without the topic the same message ranks the same memories without boosts.
    plain = by_id(retriever.retrieve("water"))
    assert set(plain) == {"garden", "kitchen"}
    assert all(r.parts.topic_boost == 1.0 for r in plain.values())
    assert retriever.retrieve("water", topic="garden")[0].memory.id == "garden"


def test_topic_through_the_engine(engine: MemoryEngine) -> None:
    on_topic = engine.store.add("Coffee grinder in the garage")
    engine.store.add("Coffee mugs in the kitchen")

    results = engine.search("coffee", topic="garage")

    assert results[0].memory.id == on_topic.id
    assert results[0].parts.topic_boost == TOPIC_BOOST
    assert results[1].parts.topic_boost == 1.0


def test_vector_scores_are_fused_when_available(
    engine: MemoryEngine,
) -> None:
    load(
        engine,
        record("lexical", "Coffee from the market"),
        record("semantic", "Espresso beans from Italy"),
        record("opposite", "Tea from the market"),
    )
    asked: list[tuple[str, int]] = []

    def vectors(text: str, pool: int, also: Iterable[str] = ()) -> dict[str, Nearness]:
        asked.append((text, pool))
        return {
            "semantic": Nearness(cosine=0.9, standing=3.0),
            "opposite": Nearness(cosine=-0.4, standing=-1.0),
            "missing": Nearness(cosine=0.99, standing=4.0),
        }

    retriever = Retriever(
        engine.index, engine.store.get_many, vectors=vectors, now=lambda: NOW
    )

    results = by_id(retriever.retrieve("coffee", limit=5))

    assert asked == [("coffee", 25)]
    # An unknown id is dropped; "opposite", found by meaning alone and standing
    # below MIN_STANDING, is not found.
    assert set(results) == {"lexical", "semantic"}
    assert results["semantic"].parts.vector == 0.9
    # Every word of the question matched ("lexical"): meaning weighs its least, and
    # standings are rescaled between the nearest (4) and the farthest (-1).
    assert results["semantic"].parts.keyword == pytest.approx(
        MEANING_WHEN_WORDS_MATCH * (3.0 + 1.0) / (4.0 + 1.0)
    )
    lexical = results["lexical"].parts
    assert lexical.vector is None  # not returned by the vector search: the farthest
    assert lexical.keyword == pytest.approx(1 - MEANING_WHEN_WORDS_MATCH)


# -- limits, empty results, scopes ----------------------------------------------


def test_limit_defaults_to_the_retrieval_limit(engine: MemoryEngine) -> None:
    for n in range(8):
        engine.store.add(f"Coffee note number {n}")

    assert DEFAULT_LIMIT == 5
    assert engine.settings.retrieval_limit == 5
    assert len(engine.search("coffee")) == 5
    assert len(engine.search("coffee", limit=2)) == 2
    assert len(engine.search("coffee", limit=20)) == 8
    engine.store.set_settings(StoreSettings(retrieval_limit=3))
    assert len(engine.search("coffee")) == 3


def test_retrieval_limit_from_the_environment(store_path: Path) -> None:
    settings = StoreSettings.from_env({"MEMORY_RETRIEVAL_LIMIT": " 7 "})
    assert settings.retrieval_limit == 7
    assert StoreSettings.from_env({}).retrieval_limit == 5
    assert StoreSettings.from_env({"MEMORY_RETRIEVAL_LIMIT": ""}).retrieval_limit == 5

    engine = MemoryEngine(store_path, settings)
    engine.init()
    try:
        for n in range(9):
            engine.store.add(f"Coffee note number {n}")
        assert len(engine.search("coffee")) == 7
    finally:
        engine.close()


@pytest.mark.parametrize("raw", ["0", "-2", "five", "2.5"])
def test_bad_retrieval_limit_is_rejected(raw: str) -> None:
    with pytest.raises(InvalidConfigError, match="MEMORY_RETRIEVAL_LIMIT"):
        StoreSettings.from_env({"MEMORY_RETRIEVAL_LIMIT": raw})


def test_results_are_best_first(engine: MemoryEngine) -> None:
    for text in (
        "Coffee",
        "Coffee and croissant",
        "Coffee, croissant and jam",
        "Tea and jam",
    ):
        engine.store.add(text)

    results = engine.search("coffee croissant jam")

    scores = [r.score for r in results]
    assert scores == sorted(scores, reverse=True)
    assert results[0].memory.content == "Coffee, croissant and jam"


@pytest.mark.parametrize("query", ["helicopter", "what is the", "我的", "🙂", "x"])
def test_no_match_is_an_empty_list(engine: MemoryEngine, query: str) -> None:
    engine.store.add("Black coffee in the morning")

    assert engine.search(query) == []


def test_empty_store_gives_an_empty_list(engine: MemoryEngine) -> None:
    assert engine.search("coffee") == []


def test_scopes_never_return_another_users_memory(engine: MemoryEngine) -> None:
    house = engine.store.add("Coffee machine needs descaling", scope="household")
    alice = engine.store.add("Coffee with oat milk", scope="alice")
    bob = engine.store.add("Coffee with two sugars", scope="bob")

    for_alice = engine.search("coffee", scopes=["household", "alice"])
    assert {r.memory.id for r in for_alice} == {house.id, alice.id}
    for_bob = engine.search("coffee", scopes=["household", "bob"])
    assert {r.memory.id for r in for_bob} == {house.id, bob.id}
    assert engine.search("sugars", scopes=["household", "alice"]) == []
    everyone = engine.search("coffee")
    assert {r.memory.id for r in everyone} == {house.id, alice.id, bob.id}

    # A memory moved to another user stops being found at once.
    engine.store.update(alice.id, scope="bob")
    for_alice = engine.search("coffee", scopes=["household", "alice"])
    assert {r.memory.id for r in for_alice} == {house.id}


def test_scopes_checked_against_the_store_too(engine: MemoryEngine) -> None:
    """A stale index entry never leaks a memory into another user's results."""
    alice = engine.store.add("Coffee with oat milk", scope="alice")
    engine.flush_index()
    # The index still believes it is a household memory.
    engine.index.db.execute("UPDATE docs SET scope='household'")
    if engine.index.fts_available:
        engine.index.db.execute("UPDATE fts SET scope='household'")

    assert engine.search("coffee", scopes=["household"]) == []
    assert [r.memory.id for r in engine.search("coffee", scopes=["alice"])] == []
    engine.reindex()
    assert [r.memory.id for r in engine.search("coffee", scopes=["alice"])] == [
        alice.id
    ]


# -- access tracking -------------------------------------------------------------


def test_search_for_a_prompt_records_access(
    engine: MemoryEngine, store_path: Path
) -> None:
    used = engine.store.add("Black coffee in the morning")
    other = engine.store.add("Green tea after lunch")

    results = engine.search("coffee", record_access=True)
    engine.search("coffee", record_access=True)

    assert [r.memory.id for r in results] == [used.id]
    touched = engine.store.get(used.id)
    assert touched is not None
    assert touched.access_count == 2
    assert touched.last_accessed is not None
    assert touched.last_accessed >= touched.created_at
    assert touched.updated_at == used.updated_at  # a use is not an edit
    untouched = engine.store.get(other.id)
    assert untouched is not None
    assert untouched.access_count == 0
    assert untouched.last_accessed is None
    # Another process (or a restart) sees the counts.
    reopened = MemoryStore(store_path).get(used.id)
    assert reopened is not None
    assert reopened.access_count == 2


def test_a_person_searching_or_listing_records_no_access(
    engine: MemoryEngine,
) -> None:
    memory = engine.store.add("Black coffee in the morning")

    assert engine.search("coffee")
    assert engine.search("coffee", record_access=False)
    assert engine.store.list().items == [memory]
    assert engine.store.get_all() == [memory]

    stored = engine.store.get(memory.id)
    assert stored is not None
    assert stored.access_count == 0
    assert stored.last_accessed is None


def test_no_access_recorded_when_nothing_matches(engine: MemoryEngine) -> None:
    memory = engine.store.add("Black coffee in the morning")

    assert engine.search("helicopter", record_access=True) == []
    assert engine.store.get(memory.id) == memory


async def test_build_prompt_with_a_query_records_access(store_path: Path) -> None:
    backend, _ = await LocalBackend.open(store_path, watch=False)
    try:
        coffee = await backend.add("Black coffee in the morning")
        tea = await backend.add("Green tea after lunch", scope="alice")

        prompt = await backend.build_prompt("What should I drink?", query="coffee")

        assert "Black coffee in the morning" in prompt
        assert "Green tea" not in prompt
        used = await backend.get(coffee.id)
        assert used is not None
        assert used.access_count == 1
        assert used.last_accessed is not None
        unused = await backend.get(tea.id)
        assert unused is not None
        assert unused.access_count == 0

        # A person searching through the backend leaves the counts alone.
        results = await backend.search("coffee")
        assert [r.memory.id for r in results] == [coffee.id]
        used = await backend.get(coffee.id)
        assert used is not None
        assert used.access_count == 1

        scoped = await backend.build_prompt(
            "What should I drink?", query="tea", scopes=["household"]
        )
        assert "Green tea" not in scoped
    finally:
        await backend.close()


def test_the_words_outweigh_recency_use_confidence_and_category(
    engine: MemoryEngine, retriever: Retriever
) -> None:
    """A memory saying all the question's words beats a fresh, used, sure one saying one."""
    load(
        engine,
        record(
            "words",
            "The piano tuner comes in spring",
            updated_at=ago(120),
            confidence=0.6,
        ),
        record(
            "signals",
            "The user prefers the spring water brand",
            category="preference",
            updated_at=ago(0),
            access_count=100,
            confidence=1.0,
        ),
    )

    results = retriever.retrieve("when does the piano tuner come in spring")

    assert [r.memory.id for r in results] == ["words", "signals"]


# -- words the keywords drop: secondary terms ---------------------------------------


def test_a_pair_across_a_function_character_finds_its_memory(
    engine: MemoryEngine, retriever: Retriever
) -> None:
    """妈妈的车 (mum's car): 的 cuts the keywords into 妈妈 and 车, which many memories share.

    Plain BM25 over every pair finds the one memory holding 的车; ours must too,
    however fresh, used and short the memories that only share the keywords are.
    """
    load(
        engine,
        record("source", "妈妈的车是一辆白色的丰田，停在小区东门", updated_at=ago(200)),
        *favourites(
            "other",
            (
                f"妈妈开车去{place}"
                for place in "超市 公司 医院 学校 公园 银行 机场 车站 菜场 邮局 "
                "书店 药店 花店 饭店 酒店 商场 剧院 体育馆 图书馆 博物馆 动物园 游泳馆 "
                "火车站 加油站 洗车店 修车铺 健身房 理发店 菜市场 幼儿园".split()
            ),
        ),
    )

    results = retriever.retrieve("妈妈的车")

    assert results[0].memory.id == "source"
    # The pair adds to the words' score but is no keyword of its own.
    assert results[0].matched == ("妈妈", "车")


def test_a_word_the_keywords_drop_still_finds_its_memory(
    engine: MemoryEngine, retriever: Retriever
) -> None:
    """ "anything" is no keyword, but the one memory saying it is what is asked for."""
    load(
        engine,
        record(
            "source",
            "Buy Grace anything in purple for her birthday and she will be happy",
            updated_at=ago(200),
        ),
        *favourites(
            "other",
            (
                f"The {thing} is purple"
                for thing in "sofa rug vase lamp mug towel blanket kettle bike scarf "
                "coat hat umbrella bag wallet notebook pen folder bowl plate cushion "
                "curtain door fence shed gate car van boat kite".split()
            ),
        ),
    )

    results = retriever.retrieve("anything purple")

    assert results[0].memory.id == "source"
    assert results[0].matched == ("purple",)


def test_a_secondary_term_never_counts_as_a_keyword(
    engine: MemoryEngine, retriever: Retriever
) -> None:
    """放在 of "Switch 放在哪" is no second word beside 放: the memory naming the Switch wins."""
    load(
        engine,
        record("switch", "Switch 在电视柜的抽屉里", updated_at=ago(200)),
        *favourites(
            "put", ["雨伞放在门口", "药箱放在厨房", "工具箱放在车库", "毛毯放在衣柜"]
        ),
    )

    results = retriever.retrieve("Switch 放在哪")

    assert results[0].memory.id == "switch"
    assert {r.matched for r in results[1:]} == {("放",)}


# -- a second round for questions of two steps -------------------------------------


def test_a_second_round_follows_a_name_the_first_round_found(
    engine: MemoryEngine, retriever: Retriever
) -> None:
    # "Where did the plumber grow up?": the first memory names him, the second says
    # where he grew up, and shares no word with the question.
    load(
        engine,
        record("hop1", "The plumber who fixed the leaking radiator was Tomasz"),
        record("hop2", "Tomasz grew up in Gdansk"),
        record("other", "Marta grew up in Porto"),
        record("noise", "The radiator in the hall is cold again"),
    )

    results = retriever.retrieve(
        "Where did the plumber who fixed the radiator grow up?"
    )

    ids = [r.memory.id for r in results]
    assert ids[0] == "hop1"
    assert "hop2" in ids
    assert "other" not in ids
    found = by_id(results)
    # Found through the name only: below what the question itself matched.
    assert found["hop2"].score < found["hop1"].score
    assert found["hop2"].matched == ("tomasz",)


def test_no_second_round_for_names_the_question_already_says(
    engine: MemoryEngine, retriever: Retriever
) -> None:
    load(
        engine,
        record("said", "Tomasz fixed the leaking radiator"),
        record("elsewhere", "Tomasz grew up in Gdansk"),
    )

    results = retriever.retrieve("Who fixed the radiator, was it Tomasz?")

    # Both match the question's own words; nothing is added or reordered by a name
    # the question already said.
    assert [r.memory.id for r in results] == ["said", "elsewhere"]
    assert all(r.parts.keyword > 0 for r in results)


def test_no_second_round_when_the_best_result_has_every_word(
    engine: MemoryEngine, retriever: Retriever
) -> None:
    # The question's own words are all in its best memory: it is answered, and a
    # name in that memory is not searched again (a second round would cost a second
    # search and bring in what the question never asked about).
    load(
        engine,
        record("answer", "Mila bought the kids school shoes at Clarks"),
        record("aside", "Clarks in town closes at six"),
    )

    results = retriever.retrieve("Mila kids school shoes")

    assert [r.memory.id for r in results] == ["answer"]


def test_a_memory_found_by_meaning_alone_gives_no_names() -> None:
    # "whisky" found "Anna takes her COFFEE black" by meaning alone: near, not an
    # answer; searching its "COFFEE" again would bring in memories about coffee.
    near = ScoredMemory(
        Memory(id="near", content="Anna takes her COFFEE black"),
        0.3,
        ScoreParts(keyword=0.3, category=1, recency=1, frequency=0, confidence=1),
    )
    assert follow_up("whisky", [near]) is None
    assert follow_up("whisky", [dataclasses.replace(near, answers=True)]) == (
        "whisky COFFEE"
    )
    matched = dataclasses.replace(near, matched=("anna",))
    assert follow_up("What does Anna take?", [matched]) == "What does Anna take? COFFEE"


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Rachel: I'm on nights, so Sam's doing the school runs", ["Sam"]),
        ("The plumber was Tomasz. He grew up in Gdansk", ["Tomasz", "Gdansk"]),
        ("Anna takes her coffee black", []),
        ("小宇报了周六上午的奥数班", []),
    ],
)
def test_names_for_a_second_round(text: str, names: list[str]) -> None:
    # Capitalised words inside a sentence; a sentence's first word, a speaker's
    # name before a colon and "I'm" are not names.
    assert list(names_in(text)) == names
