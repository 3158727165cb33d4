"""The search index: FTS5 with a LIKE fallback, kept in step with the store (real files)."""

from __future__ import annotations

from collections.abc import Iterator
import logging
from pathlib import Path
import random
import sqlite3
import threading

import pytest

from custom_components.assist_memory.engine import LocalBackend, MemoryStore
from custom_components.assist_memory.engine.errors import InvalidMemoryError
from custom_components.assist_memory.engine.language.keywords import extract_keywords
from custom_components.assist_memory.engine.memory.memory_engine import (
    MemoryEngine,
    index_path_for,
)
from custom_components.assist_memory.engine.search import index as index_module
from custom_components.assist_memory.engine.search.index import (
    COMMON_WORD_ROWS,
    TOKENIZER_VERSION,
    SearchIndex,
    SyncResult,
    fts_query,
    like_terms,
)
from custom_components.assist_memory.engine.storage.models import Memory

STAMP = "2025-01-01T00:00:00+00:00"


def indexed(engine: MemoryEngine) -> int:
    """Rows in the index once queued changes are applied."""
    engine.flush_index()
    return engine.index.count()


def memory(memory_id: str, content: str, **fields: object) -> Memory:
    fields.setdefault("created_at", STAMP)
    fields.setdefault("updated_at", STAMP)
    return Memory(id=memory_id, content=content, **fields)  # type: ignore[arg-type]


@pytest.fixture(params=[True, False], ids=["fts5", "like"])
def engine(request: pytest.FixtureRequest, store_path: Path) -> Iterator[MemoryEngine]:
    engine = MemoryEngine(store_path, use_fts=request.param)
    engine.init()
    yield engine
    engine.close()


@pytest.fixture
def fts_engine(store_path: Path) -> Iterator[MemoryEngine]:
    engine = MemoryEngine(store_path)
    engine.init()
    yield engine
    engine.close()


def contents(engine: MemoryEngine, query: str) -> list[str]:
    return [r.memory.content for r in engine.search(query)]


def rowid(index: SearchIndex, memory_id: str) -> int:
    row = index.db.execute("SELECT rowid FROM docs WHERE id=?", (memory_id,)).fetchone()
    return int(row[0])


# -- unsafe queries --------------------------------------------------------------

UNSAFE_QUERIES = [
    '"',
    '""',
    '"coffee',
    "coffee\"'",
    "(coffee",
    "coffee)",
    "[coffee",
    "{coffee}",
    "*",
    "**",
    "coffee*",
    "*coffee",
    ":",
    "coffee:",
    "terms:coffee",
    "docs:coffee",
    "-coffee",
    "coffee -tea",
    "coffee AND",
    "OR coffee",
    "NOT",
    "coffee NOT tea",
    "NEAR(coffee tea, 2)",
    "NEAR",
    "^coffee",
    "coffee^",
    "+",
    "🙂🙂🙂",
    "☕",
    "%",
    "_",
    "coffee%'; DROP TABLE docs; --",
    "\\",
    "\x01\x02\x07\x1b[31m coffee\x1b[0m\x7f",
    "\t\r\n\v\f",
    "a" * 100_000,
    "coffee " * 20_000,
    "咖啡" * 50_000,
]


@pytest.mark.parametrize("query", UNSAFE_QUERIES, ids=range(len(UNSAFE_QUERIES)))
def test_unsafe_queries_are_searched_as_text(engine: MemoryEngine, query: str) -> None:
    engine.store.add("Black coffee in the morning")
    engine.store.add("我喜欢喝咖啡")

    fts_before = engine.index.fts_available
    if not query.strip():  # nothing to search for: a clear error, as for ""
        with pytest.raises(InvalidMemoryError):
            engine.search(query)
        return

    results = engine.search(query)

    assert isinstance(results, list)
    assert engine.index.fts_available == fts_before  # the query did not fail
    if "coffee" in query.casefold():
        assert "Black coffee in the morning" in [r.memory.content for r in results]


@pytest.mark.parametrize("use_fts", [True, False], ids=["fts5", "like"])
@pytest.mark.parametrize("query", UNSAFE_QUERIES[:30], ids=range(30))
def test_unsafe_queries_on_the_index_itself(use_fts: bool, query: str) -> None:
    index = SearchIndex(None, use_fts=use_fts)
    index.upsert([memory("m1", "Black coffee 100% of the time", tags=("a_b",))])

    candidates = index.match(extract_keywords(query), limit=5)

    assert all(c.memory_id == "m1" for c in candidates)
    assert index.fts_available == use_fts
    index.close()


def test_fts_query_quotes_every_term() -> None:
    assert fts_query(["coffee", 'say "hi"'], ["pyth"]) == (
        '"coffee" OR "say ""hi""" OR "pyth"*'
    )
    index = SearchIndex(None)
    index.upsert([memory("m1", "say hi to Python")])
    rows = index.db.execute(
        "SELECT rowid FROM fts WHERE fts MATCH ?",
        (fts_query(['say "hi"', "NOT", "AND"], ["pyth"]),),
    ).fetchall()
    assert len(rows) == 1
    index.close()


def test_like_terms_are_stems_prefixes_and_chinese_pairs() -> None:
    keywords = extract_keywords("running likes Pyth* 咖啡豆 猫")

    assert like_terms(keywords) == ["run", "lik", "pyth", "咖啡", "啡豆", "猫"]


# -- LIKE fallback ---------------------------------------------------------------


def test_like_fallback_scores_by_keyword_count(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        index = SearchIndex(tmp_path / "index.db", use_fts=False)
        index.upsert(
            [
                memory("both", "Fresh coffee and a croissant"),
                memory("one", "Coffee beans are in the pantry"),
                memory("none", "The cat sleeps on the sofa"),
            ]
        )
        candidates = index.match(extract_keywords("coffee croissant"), limit=5)
        index.match(extract_keywords("cat"), limit=5)

    assert [(c.memory_id, c.keyword_score) for c in candidates] == [
        ("both", 1.0),
        ("one", 0.5),
    ]
    assert not index.fts_available
    assert index.fallback_reason
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "LIKE" in warnings[0].getMessage()
    index.close()


def test_like_fallback_through_the_engine_and_stats(store_path: Path) -> None:
    engine = MemoryEngine(store_path, use_fts=False)
    engine.init()
    try:
        both = engine.store.add("Fresh coffee and a croissant")
        one = engine.store.add("Coffee beans are in the pantry")
        engine.store.add("The cat sleeps on the sofa")

        results = engine.search("coffee croissant")

        assert [r.memory.id for r in results] == [both.id, one.id]
        assert results[0].parts.bm25 > results[1].parts.bm25
        assert engine.index.fallback_reason
    finally:
        engine.close()


async def test_stats_report_the_index(store_path: Path) -> None:
    backend, _ = await LocalBackend.open(store_path, watch=False)
    try:
        await backend.add("one")
        await backend.add("two")
        stats = await backend.stats()
        assert stats.indexed == 2
        assert stats.full_text_search is True
        assert stats.search_fallback_reason is None
    finally:
        await backend.close()


def test_runtime_fts_failure_falls_back_to_like(
    fts_engine: MemoryEngine, caplog: pytest.LogCaptureFixture
) -> None:
    kept = fts_engine.store.add("Black coffee in the morning")
    fts_engine.store.add("Green tea after lunch")
    fts_engine.index.db.execute("DROP TABLE fts")

    with caplog.at_level(logging.WARNING):
        results = fts_engine.search("coffee")

    assert [r.memory.id for r in results] == [kept.id]
    assert fts_engine.index.fallback_reason
    assert "full-text" in fts_engine.index.fallback_reason
    assert "failed" in fts_engine.index.fallback_reason
    assert any("LIKE" in r.getMessage() for r in caplog.records)


def test_index_keeps_working_after_a_runtime_fts_failure(
    fts_engine: MemoryEngine, store_path: Path
) -> None:
    fts_engine.store.add("Black coffee in the morning")
    fts_engine.index.db.execute("DROP TABLE fts")
    fts_engine.search("coffee")

    added = fts_engine.store.add("Coffee grinder is in the cupboard")
    assert {r.memory.id for r in fts_engine.search("grinder")} == {added.id}
    fts_engine.close()

    # The next start rebuilds the full-text index from the store.
    reopened = MemoryEngine(store_path)
    reopened.init()
    try:
        assert reopened.index.fts_available
        assert reopened.index.fallback_reason is None
        assert len(reopened.search("coffee")) == 2
        assert [r.memory.id for r in reopened.search("grinder")] == [added.id]
    finally:
        reopened.close()


# -- lifecycle -------------------------------------------------------------------


def test_index_follows_every_change(engine: MemoryEngine) -> None:
    tea = engine.store.add("Green tea after lunch")
    cake = engine.store.add("Cheesecake for birthdays")
    assert contents(engine, "tea") == ["Green tea after lunch"]

    engine.store.update(tea.id, "Jasmine tea after lunch")
    assert contents(engine, "jasmine") == ["Jasmine tea after lunch"]
    assert contents(engine, "green") == []

    engine.store.update(cake.id, tags=["dessert"])
    assert contents(engine, "dessert") == ["Cheesecake for birthdays"]

    assert engine.store.delete(cake.id)
    assert engine.search("cheesecake") == []
    assert indexed(engine) == 1

    document = engine.store.export()
    assert engine.store.clear() == 1
    assert engine.search("tea") == []
    assert indexed(engine) == 0

    engine.store.import_(document)
    assert contents(engine, "jasmine") == ["Jasmine tea after lunch"]
    engine.store.import_(
        {"memories": [{"id": "imported1", "content": "Imported: the wifi password"}]},
        mode="replace",
    )
    assert contents(engine, "wifi") == ["Imported: the wifi password"]
    assert engine.search("jasmine") == []
    assert indexed(engine) == 1


def test_index_file_lives_beside_the_store(fts_engine: MemoryEngine) -> None:
    fts_engine.store.add("something")

    assert index_path_for(fts_engine.store.path) == (
        fts_engine.store.path.parent / "memories.index.db"
    )
    assert fts_engine.index.path == index_path_for(fts_engine.store.path)
    assert fts_engine.index.path.is_file()


def test_a_sync_where_most_are_gone_starts_the_index_again(store_path: Path) -> None:
    engine = MemoryEngine(store_path)
    engine.init()
    memories = [engine.store.add(f"Memory {n} about the garden") for n in range(5)]
    engine.flush_index()
    engine.close()
    other = MemoryStore(store_path)
    for memory in memories[1:]:
        other.delete(memory.id)
    other.close()

    index = SearchIndex(index_path_for(store_path))
    with other.locked_records() as records:
        assert index.sync(records) == SyncResult(added=1, updated=0, removed=4)
    assert index.count() == 1
    assert [c.memory_id for c in index.match(extract_keywords("garden"), limit=5)] == [
        memories[0].id
    ]
    index.close()


def test_restart_only_syncs_what_changed(store_path: Path) -> None:
    engine = MemoryEngine(store_path)
    engine.init()
    kept = engine.store.add("The spare key is under the flowerpot")
    edited = engine.store.add("Bins go out on Tuesday")
    removed = engine.store.add("Dentist on the 3rd")
    engine.flush_index()
    kept_rowid = rowid(engine.index, kept.id)
    engine.close()

    # Another program changes the store while no index is open.
    other = MemoryStore(store_path)
    other.update(edited.id, "Bins go out on Wednesday")
    other.delete(removed.id)
    other.add("Plants need water on Fridays")
    other.add("The boiler was serviced in May")
    other.close()

    index = SearchIndex(index_path_for(store_path))
    with other.locked_records() as records:
        assert index.sync(records) == SyncResult(added=2, updated=1, removed=1)
        assert index.sync(records) == SyncResult(added=0, updated=0, removed=0)
    assert rowid(index, kept.id) == kept_rowid  # unchanged memories are not rewritten
    index.close()

    reopened = MemoryEngine(store_path)
    reopened.init()
    try:
        assert indexed(reopened) == 4
        assert contents(reopened, "wednesday") == ["Bins go out on Wednesday"]
        assert reopened.search("dentist") == []
        assert contents(reopened, "boiler") == ["The boiler was serviced in May"]
    finally:
        reopened.close()


def test_restart_catches_up_with_changes_made_without_the_index(
    store_path: Path,
) -> None:
    engine = MemoryEngine(store_path)
    engine.init()
    engine.store.add("First memory")
    engine.close()
    other = MemoryStore(store_path)
    other.add("Second memory, added by the CLI")
    other.close()

    reopened = MemoryEngine(store_path)
    reopened.init()
    try:
        assert indexed(reopened) == 2
        assert contents(reopened, "CLI") == ["Second memory, added by the CLI"]
    finally:
        reopened.close()


def test_damaged_index_file_is_rebuilt(
    store_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    engine = MemoryEngine(store_path)
    engine.init()
    engine.store.add("Black coffee in the morning")
    engine.store.add("Green tea after lunch")
    engine.close()
    index_file = index_path_for(store_path)
    index_file.write_bytes(b"this is not a database, just garbage \x00\xff" * 200)

    reopened = MemoryEngine(store_path)
    with caplog.at_level(logging.WARNING):
        reopened.init()
    try:
        assert any(
            "Rebuilding the search index" in r.getMessage() for r in caplog.records
        )
        assert indexed(reopened) == 2
        assert contents(reopened, "coffee") == ["Black coffee in the morning"]
        assert reopened.index.fts_available
    finally:
        reopened.close()


def test_reindex_rebuilds_and_counts(fts_engine: MemoryEngine) -> None:
    fts_engine.store.add("Black coffee in the morning")
    fts_engine.store.add("Green tea after lunch")
    fts_engine.store.add("Water before bed")
    fts_engine.flush_index()
    # Lose the index's content behind its back.
    fts_engine.index.db.execute("DELETE FROM docs")
    fts_engine.index.db.execute("DELETE FROM fts")
    assert fts_engine.search("coffee") == []

    assert fts_engine.reindex() == 3

    assert indexed(fts_engine) == 3
    assert contents(fts_engine, "coffee") == ["Black coffee in the morning"]


async def test_backend_reindex(store_path: Path) -> None:
    backend, _ = await LocalBackend.open(store_path, watch=False)
    try:
        await backend.add("Black coffee in the morning")
        assert await backend.reindex() == 1
        assert [r.memory.content for r in await backend.search("coffee")] == [
            "Black coffee in the morning"
        ]
    finally:
        await backend.close()


def test_reindex_with_like_fallback(store_path: Path) -> None:
    engine = MemoryEngine(store_path, use_fts=False)
    engine.init()
    try:
        engine.store.add("Black coffee in the morning")
        assert engine.reindex() == 1
        assert contents(engine, "coffee") == ["Black coffee in the morning"]
    finally:
        engine.close()


def test_tokenizer_version_change_rebuilds(store_path: Path) -> None:
    engine = MemoryEngine(store_path)
    engine.init()
    for text in ("one apple", "two pears", "three plums"):
        engine.store.add(text)
    engine.close()
    records = {m.id: m for m in MemoryStore(store_path).get_all()}

    # Same version: the index is reused, nothing to add.
    same = SearchIndex(index_path_for(store_path))
    assert same.sync(records) == SyncResult(added=0, updated=0, removed=0)
    same.db.execute("UPDATE meta SET value='0' WHERE key='tokenizer'")
    same.close()

    # Older version: everything is dropped and indexed again.
    rebuilt = SearchIndex(index_path_for(store_path))
    assert rebuilt.count() == 0
    assert rebuilt.sync(records) == SyncResult(added=3, updated=0, removed=0)
    version = rebuilt.db.execute("SELECT value FROM meta WHERE key='tokenizer'")
    assert version.fetchone() == (TOKENIZER_VERSION,)
    assert [c.memory_id for c in rebuilt.match(extract_keywords("pears"), limit=5)]
    rebuilt.close()


def test_two_engines_on_one_folder_see_each_others_changes(store_path: Path) -> None:
    home_assistant = MemoryEngine(store_path)
    home_assistant.init()
    cli = MemoryEngine(store_path)
    cli.init()
    try:
        from_cli = cli.store.add("The plumber comes on Monday")
        assert [r.memory.id for r in home_assistant.search("plumber")] == [from_cli.id]

        from_ha = home_assistant.store.add("The electrician comes on Friday")
        assert [r.memory.id for r in cli.search("electrician")] == [from_ha.id]

        cli.store.update(from_ha.id, "The electrician comes on Thursday")
        assert contents(home_assistant, "thursday") == [
            "The electrician comes on Thursday"
        ]
        home_assistant.store.delete(from_cli.id)
        assert cli.search("plumber") == []
    finally:
        cli.close()
        home_assistant.close()


def test_in_memory_index_and_reopening(tmp_path: Path) -> None:
    index = SearchIndex(None)
    index.upsert([memory("m1", "Black coffee"), memory("m2", "Green tea")])
    assert index.count() == 2
    index.remove(["m1"])
    assert [
        c.memory_id for c in index.match(extract_keywords("coffee tea"), limit=5)
    ] == ["m2"]
    index.close()
    index.close()  # closing twice is harmless

    on_disk = SearchIndex(tmp_path / "index.db")
    on_disk.upsert([memory("m1", "Black coffee")])
    on_disk.close()
    assert on_disk.count() == 1  # reopened on first use
    on_disk.close()


def test_match_filters_by_scope_and_honours_limit() -> None:
    index = SearchIndex(None)
    index.upsert(
        [
            memory("house", "coffee machine descaling", scope="household"),
            memory("alice", "coffee with oat milk", scope="alice"),
            memory("bob", "coffee with sugar", scope="bob"),
        ]
    )
    coffee = extract_keywords("coffee")

    for use_like in (False, True):
        if use_like:
            index.db.execute("DROP TABLE fts")
        scoped = index.match(coffee, limit=10, scopes=["household", "alice"])
        assert {c.memory_id for c in scoped} == {"house", "alice"}
        assert len(index.match(coffee, limit=2)) == 2
        assert index.match(coffee, limit=10, scopes=[]) == []
    index.close()


def test_nothing_to_match() -> None:
    index = SearchIndex(None, use_fts=False)
    index.upsert([memory("m1", "coffee")])

    assert index.match(extract_keywords("the a I"), limit=5) == []
    index.close()


def test_failed_write_leaves_the_index_unchanged(tmp_path: Path) -> None:
    index = SearchIndex(tmp_path / "index.db")
    index.upsert([memory("m1", "Black coffee")])
    # A memory the index cannot store (id is NOT NULL) fails the whole batch.
    with pytest.raises(sqlite3.IntegrityError):
        index.upsert([memory("m2", "Green tea"), memory(None, "broken")])  # type: ignore[arg-type]

    assert index.count() == 1
    assert [c.memory_id for c in index.match(extract_keywords("coffee"), limit=5)] == [
        "m1"
    ]
    index.close()


def test_fallback_is_logged_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    index = SearchIndex(tmp_path / "index.db", use_fts=False)
    with caplog.at_level(logging.WARNING):
        index.open()
        assert index.open() is index.db  # opening again reuses the connection
        index.close()
        index.upsert([memory("m1", "Black coffee")])  # reopens
        index.match(extract_keywords("coffee"), limit=5)

    assert len(caplog.records) == 1
    assert index.fallback_reason == "full-text search is turned off"
    index.close()


def test_fts_table_that_cannot_be_created_falls_back_to_like(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "index.db"
    index = SearchIndex(path)
    index.upsert([memory("m1", "Black coffee"), memory("m2", "Green tea")])
    # Damage: the name the FTS table needs is taken by something else.
    index.db.execute("DROP TABLE fts")
    index.db.execute("CREATE INDEX fts ON docs(version)")
    index.close()

    reopened = SearchIndex(path)
    with caplog.at_level(logging.WARNING):
        candidates = reopened.match(extract_keywords("coffee"), limit=5)

    assert [c.memory_id for c in candidates] == ["m1"]
    assert not reopened.fts_available
    assert reopened.fallback_reason
    assert reopened.fallback_reason.startswith("FTS5 is not available")
    assert any("LIKE" in r.getMessage() for r in caplog.records)
    reopened.close()


def test_two_processes_writing_the_index_wait_for_each_other(tmp_path: Path) -> None:
    """Another process committing between this index's read and its write (several
    engines on one folder) is waited for: no "database is locked", and the full-text
    table stays in use."""
    path = tmp_path / "memories.index.db"
    index = SearchIndex(path)
    index.open()
    index.upsert([memory("m1", "Black coffee in the morning")])
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO meta(key, value) VALUES ('other', 'process')")
    errors: list[BaseException] = []

    def write() -> None:
        try:
            index.upsert([memory("m2", "Green tea after lunch")])
        except BaseException as err:  # noqa: BLE001 - reported below
            errors.append(err)

    writer = threading.Thread(target=write)
    writer.start()
    writer.join(0.3)  # it reads, then waits for the other writer's lock
    other.execute("COMMIT")
    writer.join()
    other.close()

    assert errors == []
    assert index.fts_available
    assert index.fallback_reason is None
    assert index.count() == 2
    index.close()


def test_changes_wait_in_the_queue_while_the_index_is_busy(
    fts_engine: MemoryEngine,
) -> None:
    """A flush that finds the index locked by another process past SQLite's wait
    fails, and the next flush applies the same changes."""
    fts_engine.store.add("Black coffee in the morning")
    fts_engine.flush_index()
    assert fts_engine.index.path is not None
    other = sqlite3.connect(fts_engine.index.path, isolation_level=None, timeout=0)
    other.execute("BEGIN IMMEDIATE")
    fts_engine.index.db.execute("PRAGMA busy_timeout=0")
    added = fts_engine.store.add("Green tea after lunch")

    with pytest.raises(sqlite3.OperationalError, match="locked"):
        fts_engine.flush_index()

    other.execute("ROLLBACK")
    other.close()
    assert fts_engine.flush_index() == 1
    assert fts_engine.index.fts_available
    assert [r.memory.id for r in fts_engine.search("tea")] == [added.id]


def test_one_very_common_word_ranks_the_matches_bm25_values_most(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """BM25 costs time for every row it ranks: a word in a quarter of 100 000
    memories would rank 25 000 of them on every search. One common word alone ranks
    only COMMON_WORD_ROWS of its matches: the shortest texts, which BM25 values most,
    so its best ten are (nearly) those of ranking every match."""
    rng = random.Random(15)
    index = SearchIndex(tmp_path / "index.db")
    words = ["walked", "dog", "river", "garden", "kitchen", "bread", "bike", "school"]
    # Ages and lengths unrelated: the shortest texts are among the oldest as often as
    # among the newest.
    index.upsert(
        memory(
            f"m{n:05d}",
            " ".join(["Mila", *rng.sample(words, rng.randint(0, 7)), f"n{n}"]),
        )
        for n in range(COMMON_WORD_ROWS + COMMON_WORD_ROWS // 2)
    )
    keywords = extract_keywords("Mila")
    bounded = {c.memory_id for c in index.match(keywords, limit=10)}
    monkeypatch.setattr(index_module, "COMMON_WORD_ROWS", 10**9)
    every_match = {c.memory_id for c in index.match(keywords, limit=10)}
    assert len(bounded) == len(every_match) == 10
    assert len(bounded & every_match) >= 8
    # With another word the query is paired as before: the best rows come first.
    paired = index.match(extract_keywords("Mila walked"), limit=10)
    assert len(paired) == 10
    index.close()


def test_a_query_writes_its_phrases_few_times_and_still_matches_in_pairs() -> None:
    """A query with rare and common phrases matches every row holding a rare one or
    two common ones, a rare phrase written twice at most, not once per common one (a
    long Chinese sentence has many common pairs of characters)."""
    rare, common = ['"r1"', '"r2"'], ['"c1"', '"c2"', '"c3"']
    counts = {**dict.fromkeys(rare, 1), **dict.fromkeys(common, 1_000)}
    plan = index_module._plan_query([*rare, *common], [], counts.__getitem__)
    # Not once per pair: ranking costs every matched row once per phrase written.
    assert all(plan.count(phrase) <= 2 for phrase in rare)
    assert all(plan.count(phrase) <= len(common) for phrase in common)

    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(terms)")
    words = [phrase.strip('"') for phrase in rare + common]
    subsets = [
        [word for bit, word in enumerate(words) if number >> bit & 1]
        for number in range(1 << len(words))
    ]
    db.executemany(
        "INSERT INTO t(rowid, terms) VALUES (?, ?)", enumerate(map(" ".join, subsets))
    )
    matched = {
        row for (row,) in db.execute("SELECT rowid FROM t WHERE t MATCH ?", (plan,))
    }
    assert matched == {
        row
        for row, subset in enumerate(subsets)
        if any(w in subset for w in ("r1", "r2"))
        or sum(w in subset for w in ("c1", "c2", "c3")) >= 2
    }
    db.close()


def test_a_very_common_phrase_beside_a_rare_one_pairs_only_with_the_rare() -> None:
    """A first name in a quarter of the memories, in a query that also has a rare
    phrase, is not paired with the other common phrases: those pairs ranked thousands
    of rows sharing no rare word. Without a rare phrase it still pairs."""
    rare, common, very = '"r1"', ['"c1"', '"c2"'], '"mila"'
    counts = {
        rare: 1,
        **dict.fromkeys(common, 1_000),
        very: index_module.VERY_COMMON_TERM_DOCS + 1,
    }
    plan = index_module._plan_query([very, rare, *common], [], counts.__getitem__)
    assert plan == (
        f"{rare} OR (({rare}) AND ({very} OR {' OR '.join(common)}))"
        f" OR ({common[0]} AND ({common[1]}))"
    )
    without_rare = index_module._plan_query([very, *common], [], counts.__getitem__)
    assert f"({very} AND ({' OR '.join(common)}))" in without_rare


def test_secondary_terms_bring_in_memories_within_their_row_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A rare secondary term brings in the memory holding it (in the scopes asked);
    one in more memories than the budget allows is left out of the search."""
    monkeypatch.setattr(index_module, "SECONDARY_TERM_ROWS", 3)
    index = SearchIndex(None)
    index.upsert(
        [
            memory("purple", "purple", scope="grace"),
            memory("anything", "Grace likes anything yellow", scope="grace"),
            *(memory(f"most{n}", f"most days {n}", scope="grace") for n in range(4)),
        ]
    )
    purple = extract_keywords("purple")

    found = index.match(purple, limit=10, secondary=["anything"])
    assert [c.memory_id for c in found] == ["purple", "anything"]
    assert found[1].keyword_score > 0  # its secondary term's score only
    assert index.match(purple, limit=10, secondary=["anything"], scopes=["x"]) == []
    # "most" is in four memories, over the budget: it brings none of them in.
    found = index.match(purple, limit=10, secondary=["most"])
    assert [c.memory_id for c in found] == ["purple"]
    index.close()
