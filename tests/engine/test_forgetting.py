"""Forgetting in the engine: a deleted memory's text is in no file of the folder.

Real stores, real SQLite files (the index, the vector cache), a real embedding server
on 127.0.0.1; every file of the folder is read as bytes after the call.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing
from datetime import UTC, datetime
import json
import os
from pathlib import Path
import sqlite3
import struct
import zlib

import pytest

from custom_components.assist_memory.engine import MemoryStore
from custom_components.assist_memory.engine.memory.compaction import backup_folder
from custom_components.assist_memory.engine.memory.forgetting import forget, forget_all
from custom_components.assist_memory.engine.memory.memory_engine import (
    MemoryEngine,
    index_path_for,
)
from custom_components.assist_memory.engine.model.embeddings import EmbeddingConfig
from custom_components.assist_memory.engine.search.background import BACKGROUND
from custom_components.assist_memory.engine.search.index import SearchIndex
from custom_components.assist_memory.engine.search.vectors import content_hash
from custom_components.assist_memory.engine.storage.settings import StoreSettings
from tests.support.data_folder import files_containing
from tests.support.embedding_server import EmbeddingServer, embed

WORD = "Zyxwvortle"
SECRET = f"Anna's cat is called {WORD}"
OTHERS = [f"Memory {n} about the garden and the kitchen" for n in range(30)]


@pytest.fixture
def engine(store_path: Path) -> Iterator[MemoryEngine]:
    engine = MemoryEngine(store_path, StoreSettings(max_items=0))
    engine.init()
    try:
        yield engine
    finally:
        engine.close()


def test_a_new_memory_is_taken_out_of_the_journal(
    engine: MemoryEngine, store_path: Path
) -> None:
    kept = engine.store.add(OTHERS[0])
    doomed = engine.store.add(SECRET)
    engine.store.record_access([doomed.id, kept.id])  # its text written again
    engine.search(WORD)
    engine.append_daily_log(f"Noted: {SECRET}", datetime(2025, 3, 14, 8, 2, tzinfo=UTC))
    engine.append_daily_log(
        "Watered the plants", datetime(2025, 3, 14, 9, 0, tzinfo=UTC)
    )
    assert files_containing(store_path.parent, WORD)
    snapshot = store_path.read_bytes()

    assert forget(engine, [doomed.id, "no-such-id"]) == [doomed.id]
    assert files_containing(store_path.parent, WORD) == []
    # Only the journal was written again: the snapshot did not hold it.
    assert store_path.read_bytes() == snapshot
    assert engine.read_daily_log("2025-03-14") == (
        "# 2025-03-14\n\n- 09:00:00 Watered the plants\n"
    )
    # The rest, with its access count, is still there after a restart.
    engine.close()
    again = MemoryEngine(store_path, StoreSettings(max_items=0))
    again.init()
    try:
        (memory,) = again.store.get_all()
        assert (memory.id, memory.access_count) == (kept.id, 1)
    finally:
        again.close()


def checksum_is_right(store_path: Path) -> bool:
    """Whether the snapshot ends with the CRC-32 of everything before its marker."""
    body, _, tail = store_path.read_bytes().rpartition(b'\n], "checksum": "')
    return tail == f'{zlib.crc32(body):08x}"}}\n'.encode()


@pytest.mark.parametrize("position", [0, 5, len(OTHERS)])
def test_a_memory_of_the_snapshot_is_cut_out_of_it(
    engine: MemoryEngine, store_path: Path, position: int
) -> None:
    texts = [*OTHERS]
    texts.insert(position, SECRET)
    engine.store.import_(
        [{"id": f"m{n}", "content": text} for n, text in enumerate(texts)]
    )
    engine.store.add("Added after the snapshot")
    engine.flush()
    generation = json.loads(store_path.read_bytes())["generation"]
    forget(engine, [f"m{position}"])
    assert files_containing(store_path.parent, WORD) == []
    # A copy of the snapshot without its line: the same generation, a right checksum.
    document = json.loads(store_path.read_bytes())
    assert document["generation"] == generation
    assert [m["content"] for m in document["memories"]] == OTHERS
    assert checksum_is_right(store_path)
    engine.close()
    again = MemoryStore(store_path)
    assert again.init().set_aside == []
    assert [m.content for m in again.get_all()] == [*OTHERS, "Added after the snapshot"]


def test_a_snapshot_edited_by_hand_is_written_anew(
    engine: MemoryEngine, store_path: Path
) -> None:
    engine.store.close()
    records = [{"id": f"m{n}", "content": t} for n, t in enumerate([SECRET, "Tea"])]
    store_path.write_text(json.dumps(records, indent=2))
    forget(engine, ["m0"])
    assert files_containing(store_path.parent, WORD) == []
    assert [m.content for m in engine.store.get_all()] == ["Tea"]
    # The last memory of a snapshot: written anew too.
    forget(engine, ["m1"])
    assert json.loads(store_path.read_bytes())["memories"] == []


def test_a_memory_added_by_another_process_is_taken_out_of_the_journal(
    engine: MemoryEngine, store_path: Path
) -> None:
    other = MemoryEngine(store_path, StoreSettings(max_items=0))
    other.init()
    try:
        doomed = other.store.add(SECRET)
        other.store.delete(other.store.add("Deleted over there").id)
        snapshot = store_path.read_bytes()
        assert forget(engine, [doomed.id]) == [doomed.id]
        assert store_path.read_bytes() == snapshot
        assert files_containing(store_path.parent, WORD) == []
    finally:
        other.close()


def test_clearing_leaves_no_trace(engine: MemoryEngine, store_path: Path) -> None:
    for text in [SECRET, *OTHERS]:
        engine.store.add(text)
    engine.flush()
    assert forget_all(engine) == len(OTHERS) + 1
    assert files_containing(store_path.parent, WORD, "garden") == []
    assert forget_all(engine) == 0


def test_a_forgotten_memory_leaves_no_secondary_term(
    engine: MemoryEngine, store_path: Path
) -> None:
    # 了鼹 (a pair across 了) is kept in the index's table of secondary terms.
    doomed = engine.store.add("舅舅最受不了鼹鼠打洞")
    for text in OTHERS:
        engine.store.add(text)
    engine.flush_index()
    assert engine.index.db.execute(
        "SELECT 1 FROM secondary WHERE secondary MATCH '\"了鼹\"'"
    ).fetchone()
    forget(engine, [doomed.id])
    assert files_containing(store_path.parent, "鼹") == []


def test_daily_log_lines_that_repeat_a_forgotten_memory(engine: MemoryEngine) -> None:
    day = datetime(2025, 3, 14, 8, 0, tzinfo=UTC)
    for entry in ("Tea", "Tea with Anna", "Anna's cat is called Zyxwvortle today"):
        engine.append_daily_log(entry, day)
    engine.daily_log.path_for("2025-03-14").open("a").write("a line by hand\n")
    # A short text only takes away an entry that is exactly it.
    assert engine.daily_log.forget(["tea", "  "]) == 1
    assert engine.daily_log.forget([SECRET.upper()]) == 1
    assert engine.daily_log.forget([]) == 0
    assert engine.read_daily_log("2025-03-14").splitlines()[2:] == [
        "- 08:00:00 Tea with Anna",
        "a line by hand",
    ]


def test_an_index_written_before_secure_delete_is_erased_when_opened(
    store_path: Path,
) -> None:
    path = index_path_for(store_path)
    engine = MemoryEngine(store_path, StoreSettings(max_items=0))
    engine.init()
    engine.store.add(OTHERS[0])
    doomed = engine.store.add(SECRET)
    engine.flush()
    engine.close()
    # As an older version left it: deleted without erasing, the log not truncated.
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA secure_delete=OFF")
    db.execute("INSERT INTO fts(fts, rank) VALUES ('secure-delete', 0)")
    db.execute("DELETE FROM meta WHERE key='erases_deleted'")
    (rowid,) = db.execute("SELECT rowid FROM docs WHERE id=?", (doomed.id,)).fetchone()
    db.execute("DELETE FROM docs WHERE rowid=?", (rowid,))
    db.execute("DELETE FROM fts WHERE rowid=?", (rowid,))
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    assert WORD.lower().encode() in path.read_bytes()

    index = SearchIndex(path)
    index.open()
    index.close()
    assert WORD.lower().encode() not in path.read_bytes()


# -- the vector cache --------------------------------------------------------------


@pytest.fixture
def server() -> Iterator[EmbeddingServer]:
    with EmbeddingServer() as running:
        yield running


def cached(store_path: Path) -> set[str]:
    """The hashes of the vectors in the cache."""
    with closing(sqlite3.connect(index_path_for(store_path))) as db:
        return {digest for (digest,) in db.execute("SELECT hash FROM embedding_cache")}


@pytest.mark.usefixtures("socket_enabled")
def test_the_vector_of_a_forgotten_memory_is_removed(
    store_path: Path, server: EmbeddingServer
) -> None:
    engine = MemoryEngine(
        store_path,
        StoreSettings(max_items=0),
        embeddings=EmbeddingConfig(server.base_url, "test-model"),
    )
    engine.init()
    try:
        texts = [*OTHERS[:3], SECRET]
        for text in OTHERS[:3]:
            engine.store.add(text)
        doomed = engine.store.add(SECRET)
        twin = engine.store.add(OTHERS[0])  # the same text: one cached vector
        assert engine.vectors is not None
        assert engine.vectors.wait_until_idle(10)
        vector = struct.pack(f"{len(embed(SECRET))}f", *embed(SECRET))
        # The background sentences' vectors may be cached too (`background.py`).
        background = {content_hash("test-model", t) for t in BACKGROUND}
        assert cached(store_path) - background == {
            content_hash("test-model", t) for t in texts
        }

        forget(engine, [doomed.id, twin.id])
        # The text shared with a memory that stays keeps its vector.
        assert cached(store_path) - background == {
            content_hash("test-model", t) for t in texts if t != SECRET
        }
        found = [
            path
            for path in store_path.parent.iterdir()
            if path.is_file() and vector in path.read_bytes()
        ]
        assert found == []
    finally:
        engine.close()


def test_compaction_backups_lose_a_forgotten_memory(
    engine: MemoryEngine, store_path: Path
) -> None:
    doomed = engine.store.add(SECRET)
    kept = engine.store.add(OTHERS[0])
    folder = backup_folder(store_path)
    folder.mkdir()
    naming = folder / "20250102T000000000000Z.json"
    naming.write_text(
        json.dumps(
            {
                "memories": [doomed.to_dict(), kept.to_dict()],
                "compaction": {"created": [kept.id], "changed": [doomed.id]},
            }
        )
    )
    other = folder / "20250101T000000000000Z.json"
    other.write_text(json.dumps({"memories": [kept.to_dict()]}))
    before = other.read_bytes()

    forget(engine, [doomed.id])
    assert files_containing(store_path.parent, WORD) == []
    assert json.loads(naming.read_bytes()) == {
        "memories": [kept.to_dict()],
        "compaction": {"created": [kept.id], "changed": []},
    }
    assert other.read_bytes() == before
    # Clearing takes the backups away.
    forget_all(engine)
    assert list(folder.iterdir()) == []


def test_a_delete_the_files_cannot_take_yet_is_kept_and_erased_later(
    engine: MemoryEngine, store_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    doomed = engine.store.add(SECRET)
    # Something in the way of writing the journal anew (as a full disk would be).
    blocker = store_path.with_name(f".{store_path.stem}.journal.{os.getpid()}.tmp")
    blocker.mkdir()
    assert engine.store.delete(doomed.id)
    assert "Could not erase a deleted memory from the files" in caplog.text
    assert WORD not in caplog.text
    blocker.rmdir()
    engine.store.close()  # the next fold takes it away
    assert files_containing(store_path.parent, WORD) == []
    assert engine.store.get(doomed.id) is None


def test_copies_kept_aside_forget_it_too(
    engine: MemoryEngine, store_path: Path
) -> None:
    """A compaction backup set aside as interrupted, and a MEMORY.md edit kept aside,
    lose the forgotten memory's lines; everything else in them stays."""
    kept = engine.store.add(OTHERS[0])
    doomed = engine.store.add(SECRET)
    folder = backup_folder(store_path)
    folder.mkdir()
    aside = folder / "20250101T000000000000Z.interrupted.json"
    aside.write_text(json.dumps(engine.store.export()))
    rejected = engine.mirror.path.with_name("MEMORY.rejected-20250101T000000Z.md")
    rejected.write_text(f"Some prose\n- {SECRET}\n- {OTHERS[0]}\n")

    assert forget(engine, [doomed.id]) == [doomed.id]

    assert files_containing(store_path.parent, WORD) == []
    assert [m["id"] for m in json.loads(aside.read_text())["memories"]] == [kept.id]
    assert rejected.read_text() == f"Some prose\n- {OTHERS[0]}\n"


def test_clearing_removes_the_copies_kept_aside(
    engine: MemoryEngine, store_path: Path
) -> None:
    engine.store.add(SECRET)
    folder = backup_folder(store_path)
    folder.mkdir()
    aside = folder / "20250101T000000000000Z.interrupted.json"
    aside.write_text(json.dumps(engine.store.export()))
    rejected = engine.mirror.path.with_name("MEMORY.rejected-20250101T000000Z.md")
    rejected.write_text(f"- {SECRET}\n")

    assert forget_all(engine) == 1

    assert not aside.exists()
    assert not rejected.exists()
    assert files_containing(store_path.parent, WORD) == []
