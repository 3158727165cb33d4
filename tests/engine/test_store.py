"""MemoryStore behaviour: the core scenarios, listing, export/import, sharing."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
import json
import os
from pathlib import Path
import threading

import pytest

from custom_components.assist_memory.engine import (
    InvalidMemoryError,
    Memory,
    MemoryFullError,
    MemoryStore,
    StoreSettings,
)

from .conftest import SteppingClock, journal_lines, read_snapshot, store_files

OpenStore = Callable[..., MemoryStore]


# -- init ----------------------------------------------------------------------


def test_init_creates_data_folder_and_empty_json_file(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "memories.json"
    store = MemoryStore(path)

    report = store.init()

    assert path.parent.is_dir()
    document = read_snapshot(path)
    assert document["memories"] == []
    assert document["format"] == "assist_memory"
    assert report.count == 0
    assert report.set_aside == []
    assert store.get_all() == []


def test_init_loads_existing_memories(store_path: Path, open_store: OpenStore) -> None:
    first = open_store()
    tea = first.add("likes green tea")
    lamp = first.add("the desk lamp is on the left")
    first.close()

    second = MemoryStore(store_path)
    report = second.init()

    assert report.count == 2
    assert second.get_all() == [tea, lamp]


def test_init_reads_a_plain_list_file(store_path: Path) -> None:
    store_path.parent.mkdir(parents=True)
    records = [
        {"id": "m1", "content": "one", "created_at": "2024-01-01T00:00:00+00:00"},
        {"id": "m2", "content": "two", "created_at": "2024-01-02T00:00:00+00:00"},
    ]
    store_path.write_text(json.dumps(records))

    store = MemoryStore(store_path)
    report = store.init()

    assert report.count == 2
    assert [(m.id, m.content) for m in store.get_all()] == [
        ("m1", "one"),
        ("m2", "two"),
    ]


# -- CRUD ----------------------------------------------------------------------


def test_add_creates_memory_with_id_content_and_timestamps(
    store: MemoryStore, clock: SteppingClock
) -> None:
    before = clock.now
    memory = store.add("  likes green tea  ")

    assert memory.id
    assert memory.content == "likes green tea"
    assert before < datetime.fromisoformat(memory.created_at) <= clock.now
    assert memory.updated_at == memory.created_at
    assert memory.category == "fact"
    assert memory.source == "user_stated"
    assert memory.scope == "household"
    assert memory.access_count == 0
    assert memory.last_accessed is None


def test_add_saves_to_file(
    store: MemoryStore, store_path: Path, open_store: OpenStore
) -> None:
    memory = store.add("likes green tea")

    reopened = open_store()

    assert reopened.get(memory.id) == memory


def test_add_gives_every_memory_its_own_id(store: MemoryStore) -> None:
    ids = {store.add(f"memory {n}").id for n in range(20)}

    assert len(ids) == 20


def test_get_all_returns_every_memory_oldest_first(store: MemoryStore) -> None:
    added = [store.add(f"memory {n}") for n in range(5)]

    assert store.get_all() == added


def test_get_all_on_empty_store_returns_empty_list(store: MemoryStore) -> None:
    assert store.get_all() == []


def test_update_changes_content_and_updated_at(
    store: MemoryStore, open_store: OpenStore
) -> None:
    original = store.add("likes green tea")

    updated = store.update(original.id, "likes black tea")

    assert updated is not None
    assert updated.id == original.id
    assert updated.content == "likes black tea"
    assert updated.created_at == original.created_at
    assert updated.updated_at > original.updated_at
    assert store.get(original.id) == updated
    assert open_store().get(original.id) == updated


def test_update_other_fields_leaves_content(store: MemoryStore) -> None:
    original = store.add("likes green tea", key="drink", tags=["food"])

    updated = store.update(
        original.id,
        category="preference",
        key="",
        tags=[],
        confidence=0.5,
        source="inferred",
        scope="user_1",
        metadata={"room": "kitchen"},
    )

    assert updated is not None
    assert updated.content == "likes green tea"
    assert updated.category == "preference"
    assert updated.key is None
    assert updated.tags == ()
    assert updated.confidence == 0.5
    assert updated.source == "inferred"
    assert updated.scope == "user_1"
    assert updated.metadata == {"room": "kitchen"}


def test_update_unknown_id_returns_none(store: MemoryStore, store_path: Path) -> None:
    store.add("likes green tea")
    before = store_files(store_path)

    assert store.update("no-such-id", "anything") is None
    assert store_files(store_path) == before


def test_update_without_fields_is_rejected(store: MemoryStore) -> None:
    memory = store.add("likes green tea")

    with pytest.raises(InvalidMemoryError) as err:
        store.update(memory.id)

    assert err.value.code == "nothing_to_update"


def test_delete_existing_returns_true_and_saves(
    store: MemoryStore, open_store: OpenStore
) -> None:
    keep = store.add("keep me")
    drop = store.add("drop me")

    assert store.delete(drop.id) is True

    assert store.get(drop.id) is None
    assert store.get_all() == [keep]
    assert open_store().get_all() == [keep]


def test_delete_unknown_returns_false(store: MemoryStore, store_path: Path) -> None:
    store.add("keep me")
    before = store_files(store_path)

    assert store.delete("no-such-id") is False
    assert store.count() == 1
    assert store_files(store_path) == before


def test_get_unknown_returns_none(store: MemoryStore) -> None:
    assert store.get("no-such-id") is None


# -- search ----------------------------------------------------------------------


def test_search_is_case_insensitive_substring(store: MemoryStore) -> None:
    tea = store.add("Likes GREEN Tea in the morning")
    store.add("The garage door code is 1234")
    teapot = store.add("the teapot is blue")

    assert store.search("tea") == [tea, teapot]
    assert store.search("green TEA") == [tea]
    assert store.search("  GARAGE  ")[0].content == "The garage door code is 1234"


def test_search_without_match_returns_empty_list(store: MemoryStore) -> None:
    store.add("likes green tea")

    assert store.search("coffee") == []


def test_search_with_empty_text_is_rejected(store: MemoryStore) -> None:
    with pytest.raises(InvalidMemoryError) as err:
        store.search("   ")

    assert err.value.code == "empty_query"


# -- capacity ----------------------------------------------------------------------


def test_default_limit_is_100_items(store_path: Path) -> None:
    store = MemoryStore(store_path)
    store.init()
    for n in range(100):
        store.add(f"memory {n}")

    with pytest.raises(MemoryFullError) as err:
        store.add("one too many")

    assert str(err.value) == "memory is full (100 items)"
    assert err.value.code == "memory_full"
    assert err.value.max_items == 100
    assert store.count() == 100


def test_add_at_max_items_raises_and_stores_nothing(
    store_path: Path, open_store: OpenStore
) -> None:
    store = open_store(settings=StoreSettings(max_items=3))
    for n in range(3):
        store.add(f"memory {n}")
    before = store_files(store_path)

    with pytest.raises(MemoryFullError, match=r"^memory is full \(3 items\)$"):
        store.add("one too many")

    assert store.count() == 3
    assert store_files(store_path) == before
    assert open_store().count() == 3


def test_add_works_again_after_delete_at_max_items(open_store: OpenStore) -> None:
    store = open_store(settings=StoreSettings(max_items=2))
    first = store.add("one")
    store.add("two")

    store.delete(first.id)
    store.add("three")

    assert [m.content for m in store.get_all()] == ["two", "three"]


def test_max_items_zero_means_no_cap(open_store: OpenStore) -> None:
    store = open_store(settings=StoreSettings(max_items=0))
    for n in range(101):
        store.add(f"memory {n}")

    assert store.count() == 101


def test_max_items_from_environment_is_enforced(
    open_store: OpenStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMORY_MAX_ITEMS", "2")
    store = open_store(settings=StoreSettings.from_env(os.environ))
    store.add("one")
    store.add("two")

    with pytest.raises(MemoryFullError, match=r"\(2 items\)"):
        store.add("three")


def test_lowering_max_items_keeps_existing_records(open_store: OpenStore) -> None:
    store = open_store(settings=StoreSettings(max_items=5))
    for n in range(4):
        store.add(f"memory {n}")

    store.set_settings(StoreSettings(max_items=2))

    assert store.count() == 4
    with pytest.raises(MemoryFullError):
        store.add("five")


# -- listing ------------------------------------------------------------------------


@pytest.fixture
def listed(store: MemoryStore) -> dict[str, Memory]:
    """Four memories with distinct times, categories, scopes and tags."""
    return {
        "a": store.add("a", category="preference", tags=["food", "tea"]),
        "b": store.add("b", category="fact", scope="user_1", tags=["food"]),
        "c": store.add("c", category="preference", scope="user_1"),
        "d": store.add("d", category="event", tags=["tea"]),
    }


def _contents(items: list[Memory]) -> list[str]:
    return [m.content for m in items]


def test_list_returns_total_offset_limit(
    store: MemoryStore, listed: dict[str, Memory]
) -> None:
    page = store.list(offset=1, limit=2, sort="oldest")

    assert page.total == 4
    assert page.offset == 1
    assert page.limit == 2
    assert _contents(page.items) == ["b", "c"]


def test_list_offset_past_end_is_empty_page(
    store: MemoryStore, listed: dict[str, Memory]
) -> None:
    page = store.list(offset=10)

    assert page.items == []
    assert page.total == 4


def test_list_default_is_newest_first(
    store: MemoryStore, listed: dict[str, Memory]
) -> None:
    assert _contents(store.list().items) == ["d", "c", "b", "a"]


def test_list_sort_oldest(store: MemoryStore, listed: dict[str, Memory]) -> None:
    assert _contents(store.list(sort="oldest").items) == ["a", "b", "c", "d"]


def test_list_sort_updated(store: MemoryStore, listed: dict[str, Memory]) -> None:
    store.update(listed["b"].id, "b2")

    assert _contents(store.list(sort="updated").items) == ["b2", "d", "c", "a"]


def test_list_sort_most_used(store: MemoryStore, listed: dict[str, Memory]) -> None:
    store.record_access([listed["c"].id, listed["a"].id])
    store.record_access([listed["c"].id])
    store.record_access([listed["b"].id])

    # c twice; then a and b once each, b used more recently.
    assert _contents(store.list(sort="most_used").items) == ["c", "b", "a", "d"]


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ({"category": "preference"}, ["a", "c"]),
        ({"category": "PREFERENCE"}, ["a", "c"]),
        ({"scope": "user_1"}, ["b", "c"]),
        ({"scope": "household"}, ["a", "d"]),
        ({"tags": ["food"]}, ["a", "b"]),
        ({"tags": "food, tea"}, ["a"]),
        ({"category": "preference", "scope": "user_1"}, ["c"]),
        ({"category": "routine"}, []),
    ],
)
def test_list_filters(
    store: MemoryStore,
    listed: dict[str, Memory],
    filters: dict[str, object],
    expected: list[str],
) -> None:
    page = store.list(sort="oldest", **filters)  # type: ignore[arg-type]

    assert _contents(page.items) == expected
    assert page.total == len(expected)


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"offset": -1}, "invalid_paging"),
        ({"limit": 0}, "invalid_paging"),
        ({"sort": "random"}, "invalid_sort"),
        ({"category": "nonsense"}, "unknown_category"),
    ],
)
def test_list_rejects_bad_arguments(
    store: MemoryStore, kwargs: dict[str, object], code: str
) -> None:
    with pytest.raises(InvalidMemoryError) as err:
        store.list(**kwargs)  # type: ignore[arg-type]

    assert err.value.code == code


def test_list_orders_imported_times_across_time_zones(store: MemoryStore) -> None:
    store.import_(
        [
            # 08:00 UTC, written with a +02:00 offset.
            {
                "id": "early",
                "content": "early",
                "created_at": "2024-01-01T10:00:00+02:00",
            },
            {
                "id": "late",
                "content": "late",
                "created_at": "2024-01-01T09:00:00+00:00",
            },
        ]
    )

    assert _contents(store.list(sort="newest").items) == ["late", "early"]
    early = store.get("early")
    assert early is not None
    assert early.created_at == "2024-01-01T08:00:00+00:00"


# -- clear, record_access --------------------------------------------------------


def test_clear_returns_count_and_empties_file(
    store: MemoryStore, store_path: Path, open_store: OpenStore
) -> None:
    for n in range(3):
        store.add(f"memory {n}")

    assert store.clear() == 3

    assert store.count() == 0
    assert read_snapshot(store_path)["memories"] == []
    assert [line["op"] for line in journal_lines(store_path)] == ["begin"]
    assert open_store().get_all() == []


def test_clear_on_empty_store_returns_zero(store: MemoryStore) -> None:
    assert store.clear() == 0


def test_record_access_counts_and_sets_last_accessed(
    store: MemoryStore, clock: SteppingClock, open_store: OpenStore
) -> None:
    used = store.add("used")
    unused = store.add("unused")

    store.record_access([used.id, used.id, "no-such-id"])
    once = store.get(used.id)
    before = clock.now
    store.record_access([used.id])

    assert once is not None
    assert once.access_count == 1
    assert once.last_accessed is not None
    touched = store.get(used.id)
    assert touched is not None
    assert touched.access_count == 2
    assert touched.last_accessed is not None
    assert before < datetime.fromisoformat(touched.last_accessed) <= clock.now
    assert touched.content == "used"
    assert touched.updated_at == used.updated_at
    assert store.get(unused.id) == unused
    assert open_store().get(used.id) == touched


def test_record_access_is_journaled_compactly_and_forgotten_with_the_memory(
    store: MemoryStore, store_path: Path, open_store: OpenStore
) -> None:
    """Memories used in a prompt: one short line of ids and a time, not the records
    (a prompt every few seconds would fill the journal with copies of the texts)."""
    first = store.add("A long memory about the garden " * 20)
    second = store.add("Another memory about the kitchen " * 20)
    store.record_access([first.id, second.id])
    store.record_access([first.id])

    lines = store_path.with_suffix(".journal").read_bytes().splitlines()
    uses = lines[-2:]
    assert all(b"garden" not in line and b"kitchen" not in line for line in uses)
    assert all(len(line) < 200 for line in uses)
    reopened = open_store()
    assert reopened.get(first.id) == store.get(first.id)
    assert reopened.get(second.id) == store.get(second.id)
    again = reopened.get(first.id)
    assert again is not None
    assert again.access_count == 2

    # Forgetting a memory takes its id out of those lines too.
    assert store.delete(first.id)
    assert first.id.encode() not in store_path.with_suffix(".journal").read_bytes()
    used = open_store().get(second.id)
    assert used is not None
    assert used.access_count == 1


# -- export / import ---------------------------------------------------------------


def _varied_store(store: MemoryStore) -> list[Memory]:
    store.add("likes green tea", category="preference", key="drink", tags="food,tea")
    kid = store.add(
        "Anna is seven",
        category="person",
        confidence=0.8,
        source="inferred",
        scope="user_anna",
        session_id="conv-1",
        metadata={"age": 7, "nested": {"ok": True}},
    )
    store.add("garage code 1234")
    store.update(kid.id, "Anna is eight")
    store.record_access([kid.id])
    return store.get_all()


def test_export_clear_import_restores_exactly(
    store: MemoryStore, open_store: OpenStore
) -> None:
    original = _varied_store(store)
    document = json.loads(json.dumps(store.export()))

    store.clear()
    result = store.import_(document)

    assert (result.added, result.updated, result.total) == (3, 0, 3)
    assert store.get_all() == original
    assert open_store().get_all() == original


def test_export_document_shape(store: MemoryStore) -> None:
    original = _varied_store(store)

    document = store.export()

    assert document["format"] == "assist_memory_export"
    assert document["version"] == 2
    assert document["count"] == 3
    assert [m["id"] for m in document["memories"]] == [m.id for m in original]
    assert document["memories"][1]["access_count"] == 1


def test_import_merge_adds_new_and_overwrites_known(store: MemoryStore) -> None:
    kept = store.add("kept")
    changed = store.add("old text")
    incoming = [
        {**changed.to_dict(), "content": "new text"},
        {"id": "fresh", "content": "fresh"},
    ]

    result = store.import_(incoming, mode="merge")

    assert (result.added, result.updated, result.total) == (1, 1, 3)
    assert {m.id: m.content for m in store.get_all()} == {
        kept.id: "kept",
        changed.id: "new text",
        "fresh": "fresh",
    }


def test_importing_the_same_export_again_changes_nothing(
    store: MemoryStore, store_path: Path
) -> None:
    store.add("The spare key is under the blue flowerpot", tags=["keys"])
    store.add("Leo plays football on Saturdays", metadata={"learned_by": "command"})
    document = json.loads(json.dumps(store.export()))
    before = store_path.stat().st_mtime_ns

    result = store.import_(document)

    assert (result.added, result.updated, result.total) == (0, 0, 2)
    assert store_path.stat().st_mtime_ns == before  # nothing written
    edited = document["memories"][0] | {"content": "The spare key is in the shed"}
    result = store.import_([edited])
    assert (result.added, result.updated, result.total) == (0, 1, 2)


def test_import_replace_drops_everything_else(
    store: MemoryStore, open_store: OpenStore
) -> None:
    store.add("dropped")
    changed = store.add("old text")
    incoming = [
        {**changed.to_dict(), "content": "new text"},
        {"id": "fresh", "content": "x"},
    ]

    result = store.import_(incoming, mode="replace")

    assert (result.added, result.updated, result.total) == (1, 1, 2)
    assert sorted(m.id for m in open_store().get_all()) == sorted([changed.id, "fresh"])


def test_import_with_one_bad_record_changes_nothing(
    store: MemoryStore, store_path: Path
) -> None:
    store.add("existing")
    before = store_files(store_path)
    incoming = [
        {"id": "one", "content": "fine"},
        {"id": "two", "content": "bad", "confidence": 5},
        {"id": "three", "content": "fine"},
    ]

    with pytest.raises(InvalidMemoryError) as err:
        store.import_(incoming)

    assert err.value.code == "invalid_import_record"
    assert err.value.placeholders["index"] == "2"
    assert str(err.value).startswith("record 2: confidence")
    assert [m.content for m in store.get_all()] == ["existing"]
    assert store_files(store_path) == before


def test_import_rejects_duplicate_ids(store: MemoryStore, store_path: Path) -> None:
    before = store_files(store_path)
    incoming = [{"id": "same", "content": "one"}, {"id": "same", "content": "two"}]

    with pytest.raises(InvalidMemoryError) as err:
        store.import_(incoming)

    assert err.value.code == "invalid_import_record"
    assert err.value.placeholders["index"] == "2"
    assert "appears twice" in str(err.value)
    assert store.count() == 0
    assert store_files(store_path) == before


def test_import_over_max_items_changes_nothing(
    store_path: Path, open_store: OpenStore
) -> None:
    store = open_store(settings=StoreSettings(max_items=3))
    store.add("one")
    store.add("two")
    before = store_files(store_path)
    incoming = [{"id": "x", "content": "x"}, {"id": "y", "content": "y"}]

    with pytest.raises(MemoryFullError, match=r"\(3 items\)"):
        store.import_(incoming)

    assert [m.content for m in store.get_all()] == ["one", "two"]
    assert store_files(store_path) == before


def test_import_replace_may_fill_up_to_max_items(open_store: OpenStore) -> None:
    store = open_store(settings=StoreSettings(max_items=3))
    store.add("one")
    store.add("two")
    incoming = [{"id": n, "content": n} for n in ("x", "y", "z")]

    result = store.import_(incoming, mode="replace")

    assert result.total == 3


def test_import_accepts_camel_case_records_from_typescript(store: MemoryStore) -> None:
    incoming = [
        {
            "id": "550e8400-e29b-41d4-a716-446655440000",
            "content": "likes green tea",
            "createdAt": "2024-05-01T08:00:00.000Z",
            "updatedAt": "2024-05-02T09:30:00.000Z",
        }
    ]

    store.import_(incoming)

    memory = store.get("550e8400-e29b-41d4-a716-446655440000")
    assert memory is not None
    assert memory.content == "likes green tea"
    assert memory.created_at == "2024-05-01T08:00:00+00:00"
    assert memory.updated_at == "2024-05-02T09:30:00+00:00"


def test_import_accepts_export_document(store: MemoryStore) -> None:
    document = {
        "format": "assist_memory_export",
        "memories": [{"id": "a", "content": "a"}],
    }

    assert store.import_(document).total == 1


@pytest.mark.parametrize(
    ("document", "mode", "code"),
    [
        ("not a document", "merge", "invalid_import"),
        ({"memories": "nope"}, "merge", "invalid_import"),
        ({"no_memories": []}, "merge", "invalid_import"),
        ([], "overwrite", "invalid_import_mode"),
        (["just text"], "merge", "invalid_import_record"),
    ],
)
def test_import_rejects_bad_documents(
    store: MemoryStore, document: object, mode: str, code: str
) -> None:
    with pytest.raises(InvalidMemoryError) as err:
        store.import_(document, mode=mode)  # type: ignore[arg-type]

    assert err.value.code == code


# -- two stores on one file (Home Assistant and the CLI) ------------------------------


def test_write_by_one_instance_is_seen_by_the_other(open_store: OpenStore) -> None:
    ha = open_store()
    cli = open_store()

    added = cli.add("added by the CLI")
    assert ha.get(added.id) == added

    updated = ha.update(added.id, "changed in Home Assistant")
    assert cli.get(added.id) == updated

    assert cli.delete(added.id) is True
    assert ha.get_all() == []


def test_interleaved_writers_lose_nothing(open_store: OpenStore) -> None:
    settings = StoreSettings(max_items=0)
    ha = open_store(settings=settings)
    cli = open_store(settings=settings)
    expected: dict[str, str] = {}

    # Long contents make both instances fold the journal along the way.
    for n in range(80):
        writer = ha if n % 2 else cli
        content = f"memory {n} " + "x" * 1500
        expected[writer.add(content).id] = content
        if n % 10 == 9:
            victim = next(iter(expected))
            assert (ha if n % 20 else cli).delete(victim)
            del expected[victim]

    third = open_store(settings=settings)
    assert {m.id: m.content for m in third.get_all()} == expected
    assert {m.id: m.content for m in ha.get_all()} == expected
    assert {m.id: m.content for m in cli.get_all()} == expected


def test_capacity_is_shared_between_instances(open_store: OpenStore) -> None:
    settings = StoreSettings(max_items=2)
    ha = open_store(settings=settings)
    cli = open_store(settings=settings)
    ha.add("one")
    cli.add("two")

    with pytest.raises(MemoryFullError):
        ha.add("three")


# -- threads ------------------------------------------------------------------------


def test_adds_from_four_threads_all_land(
    store_path: Path, open_store: OpenStore
) -> None:
    settings = StoreSettings(max_items=1000)
    store = open_store(settings=settings)
    start = threading.Barrier(4)

    def worker(thread: int) -> list[str]:
        start.wait()
        return [store.add(f"thread {thread} memory {n}").id for n in range(50)]

    with ThreadPoolExecutor(max_workers=4) as pool:
        ids = [i for batch in pool.map(worker, range(4)) for i in batch]

    assert len(set(ids)) == 200
    assert store.count() == 200
    reopened = open_store(settings=settings)
    assert sorted(m.id for m in reopened.get_all()) == sorted(ids)
    # Opening folded the journal: the snapshot alone holds all of them.
    assert len(read_snapshot(store_path)["memories"]) == 200
