"""MEMORY.md mirrors the store; hand edits and API writes are reconciled into it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC
import logging
import os
from pathlib import Path
import threading

import pytest

from custom_components.assist_memory.engine import (
    InvalidMemoryError,
    LocalBackend,
    Memory,
    MemoryFullError,
    MemoryStore,
    StorageError,
    StoreSettings,
)
from custom_components.assist_memory.engine.documents.markdown import (
    ReconcilePlan,
    render_markdown,
)
from custom_components.assist_memory.engine.documents.mirror import (
    MISSING,
    MarkdownMirror,
    markdown_folder,
)
from custom_components.assist_memory.engine.memory.memory_engine import MemoryEngine
from custom_components.assist_memory.engine.storage.store import ReconcileResult
from custom_components.assist_memory.engine.storage.store_files import StoreChange
from tests.support.waiting import eventually

from .conftest import (
    SteppingClock,
    journal_lines,
    markdown_body,
    read_snapshot,
    store_files,
)


def memory_md(store_path: Path) -> Path:
    return store_path.parent / "prompts" / "memory" / "MEMORY.md"


@pytest.fixture
def mirror(store: MemoryStore) -> MarkdownMirror:
    mirror = MarkdownMirror(store, store.path.parent, UTC)
    mirror.start()
    return mirror


@pytest.fixture
def engine(store_path: Path) -> Iterator[MemoryEngine]:
    engine = MemoryEngine(store_path)
    engine.init()
    yield engine
    engine.close()


def fill(store: MemoryStore) -> dict[str, Memory]:
    return {
        "tea": store.add("Likes green tea", category="preference"),
        "key": store.add("The spare key is under the blue flowerpot", tags="home"),
        "bins": store.add("Bins go out on Tuesday evening", category="routine"),
        "anna": store.add("Anna is the neighbour's daughter", category="person"),
    }


def shown(store: MemoryStore) -> str:
    """What MEMORY.md must hold for the store as it is."""
    return render_markdown(store.get_all(), UTC)


def edit(path: Path, old: str, new: str) -> None:
    """Change MEMORY.md as a person would (a new inode, like most editors save)."""
    text = path.read_text(encoding="utf-8")
    assert old in text
    tmp = path.with_name("editor-swap.tmp")
    tmp.write_text(text.replace(old, new, 1), encoding="utf-8")
    os.replace(tmp, path)


def all_files(folder: Path) -> dict[str, bytes]:
    """Every file below `folder` (store and Markdown), to prove nothing changed."""
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.suffix != ".lock"
    }


# -- start and the store -> file direction ------------------------------------------


def test_start_creates_the_folders_and_the_file(tmp_path: Path) -> None:
    store_path = tmp_path / "data" / "memories.json"
    engine = MemoryEngine(store_path)
    assert engine.mirror.path == memory_md(store_path)
    assert engine.mirror.folder == markdown_folder(store_path.parent)
    engine.init()
    try:
        assert engine.mirror.daily_folder.is_dir()
        assert markdown_body(engine.mirror.path) == render_markdown([], UTC)
        assert engine.mirror.outside_change() is None
    finally:
        engine.close()


def test_file_follows_every_change_on_flush(
    store: MemoryStore, mirror: MarkdownMirror
) -> None:
    path = mirror.path
    empty = markdown_body(path)
    memories = fill(store)
    # Written on flush, not on every add.
    assert markdown_body(path) == empty
    assert mirror.flush()
    assert markdown_body(path) == shown(store)
    assert "- Likes green tea" in shown(store)

    steps: list[Callable[[], object]] = [
        lambda: store.update(memories["key"].id, "The key is with Anna"),
        lambda: store.update(memories["tea"].id, category="note"),
        lambda: store.delete(memories["bins"].id),
        lambda: store.import_([memories["bins"].to_dict()]),
        store.clear,
        lambda: store.import_({"memories": [m.to_dict() for m in memories.values()]}),
    ]
    for step in steps:
        step()
        assert mirror.flush()
        assert markdown_body(path) == shown(store)
        assert mirror.outside_change() is None
    assert len(store.get_all()) == 4


def test_flush_without_changes_writes_nothing(
    store: MemoryStore, mirror: MarkdownMirror
) -> None:
    fill(store)
    mirror.flush()
    before = os.stat(mirror.path)
    assert not mirror.flush()
    store.record_access([m.id for m in store.get_all()])  # not shown in the file
    assert not mirror.flush()
    after = os.stat(mirror.path)
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_a_change_that_renders_the_same_is_not_rewritten(
    store: MemoryStore, mirror: MarkdownMirror
) -> None:
    memory = store.add("Likes tea")
    mirror.flush()
    inode = os.stat(mirror.path).st_ino
    store.update(memory.id, tags="drinks")
    assert not mirror.flush()
    assert os.stat(mirror.path).st_ino == inode


def test_flush_before_start_does_nothing(store: MemoryStore) -> None:
    mirror = MarkdownMirror(store, store.path.parent, UTC)
    store.add("x")
    assert not mirror.flush()
    assert mirror.outside_change() is None
    assert mirror.reconcile_file() == ReconcileResult()
    assert not mirror.path.exists()


def test_engine_flush_covers_index_and_file(engine: MemoryEngine) -> None:
    engine.store.add("Black coffee in the morning")
    assert engine.flush() == 1
    assert "- Black coffee in the morning" in engine.mirror.path.read_text("utf-8")
    assert engine.index.count() == 1


def test_read_markdown_shows_the_store_as_it_is(engine: MemoryEngine) -> None:
    engine.store.add("Black coffee in the morning")
    text = engine.read_markdown()
    assert text == shown(engine.store)
    assert engine.read_markdown() is text  # unchanged: the same rendering
    engine.flush()
    assert markdown_body(engine.mirror.path) == text
    assert engine.read_markdown() is text
    engine.store.add("Tea after lunch")
    assert engine.read_markdown() == shown(engine.store)


# -- hand edits ------------------------------------------------------------------------


def test_hand_edit_adds_deletes_and_updates(
    store: MemoryStore, mirror: MarkdownMirror
) -> None:
    memories = fill(store)
    key = memories["key"]
    store.record_access([key.id])
    store.record_access([key.id])
    key = store.get(key.id)
    assert key is not None
    assert key.access_count == 2
    mirror.flush()
    path = mirror.path

    edit(path, "blue flowerpot", "red flowerpot")
    edit(path, "- Anna is the neighbour's daughter\n", "")
    edit(path, "- Likes green tea\n", "- Likes green tea\n- Oat milk in coffee\n")
    assert mirror.outside_change() is not None

    result = mirror.reconcile_file()

    assert result == ReconcileResult(added=1, updated=1, removed=1)
    assert result.changed
    edited = store.get(key.id)
    assert edited is not None
    assert edited.content == "The spare key is under the red flowerpot"
    assert edited.access_count == 2
    assert edited.last_accessed == key.last_accessed
    assert edited.created_at == key.created_at
    assert edited.tags == ("home",)
    assert edited.updated_at > key.updated_at
    assert store.get(memories["anna"].id) is None
    added = next(m for m in store.get_all() if m.content == "Oat milk in coffee")
    assert (added.category, added.source, added.confidence, added.scope) == (
        "preference",
        "user_stated",
        1.0,
        "household",
    )
    assert markdown_body(path) == shown(store)
    assert mirror.outside_change() is None
    assert mirror.reconcile_file() == ReconcileResult()  # nothing new


def test_moving_a_line_to_another_header_keeps_the_memory(
    store: MemoryStore, mirror: MarkdownMirror
) -> None:
    memories = fill(store)
    mirror.flush()
    edit(mirror.path, "- Likes green tea\n", "")
    edit(mirror.path, "## People\n", "## People\n\n- Likes green tea\n")

    assert mirror.reconcile_file() == ReconcileResult(updated=1)

    moved = store.get(memories["tea"].id)
    assert moved is not None
    assert (moved.category, moved.content) == ("person", "Likes green tea")


def test_hand_written_file_in_any_layout(
    store: MemoryStore, mirror: MarkdownMirror
) -> None:
    mirror.path.write_text(
        "Things to remember\n\n"
        "* loose note\n"
        "## 偏好\n"
        "+ 喜欢喝乌龙茶\n"
        "## 人物\n"
        "- Anna lives\n"
        "  next door\n",
        encoding="utf-8",
    )
    assert mirror.reconcile_file() == ReconcileResult(added=3)
    assert sorted((m.category, m.content) for m in store.get_all()) == [
        ("note", "loose note"),
        ("person", "Anna lives next door"),
        ("preference", "喜欢喝乌龙茶"),
    ]
    assert markdown_body(mirror.path) == shown(store)


def version_line(path: Path) -> str:
    return path.read_text(encoding="utf-8").splitlines()[-1]


def test_an_applied_edit_is_written_again_with_the_next_version(
    store: MemoryStore, mirror: MarkdownMirror
) -> None:
    fill(store)
    mirror.flush()
    before = version_line(mirror.path)
    edit(mirror.path, "- Likes green tea\n", "- Likes green tea\n- Oat milk\n")

    assert mirror.reconcile_file() == ReconcileResult(added=1)

    assert markdown_body(mirror.path) == shown(store)
    lineage, version = before.removeprefix("<!-- assist-memory ").split()[0].split("/")
    assert (
        version_line(mirror.path)
        == f"<!-- assist-memory {lineage}/{int(version) + 1} -->"
    )
    assert mirror.outside_change() is None
    # Applied once: the same file again is no new edit.
    assert mirror.reconcile_file() == ReconcileResult()


def test_whitespace_only_edit_changes_nothing_but_the_layout(
    store: MemoryStore, mirror: MarkdownMirror
) -> None:
    fill(store)
    mirror.flush()
    before = store_files(store.path)
    edit(mirror.path, "- Likes green tea", "*   Likes   green tea")
    assert mirror.reconcile_file() == ReconcileResult()
    assert store_files(store.path) == before
    assert markdown_body(mirror.path) == shown(store)


def test_a_memory_added_while_the_file_was_edited_survives(
    store: MemoryStore, mirror: MarkdownMirror
) -> None:
    memories = fill(store)
    mirror.flush()
    edit(mirror.path, "blue flowerpot", "red flowerpot")  # saved by the editor
    meanwhile = store.add("Added by the assistant meanwhile")

    # The pending edit is never overwritten by a flush...
    assert not mirror.flush()
    assert "red flowerpot" in mirror.path.read_text(encoding="utf-8")
    # ...and applying it keeps what the file never showed.
    assert mirror.reconcile_file() == ReconcileResult(updated=1)
    assert store.get(meanwhile.id) == meanwhile
    key = store.get(memories["key"].id)
    assert key is not None
    assert key.content == "The spare key is under the red flowerpot"
    assert markdown_body(mirror.path) == shown(store)


def test_file_written_by_another_engine_is_not_an_edit(store_path: Path) -> None:
    first = MemoryEngine(store_path)
    first.init()
    second = MemoryEngine(store_path)
    second.init()
    try:
        first.store.add("Likes tea")
        first.flush()
        # Another program (the CLI) changes memories and writes MEMORY.md itself,
        # over the file the first one wrote.
        second.store.add("Added by the CLI")
        tea = next(m for m in second.store.get_all() if m.content == "Likes tea")
        second.store.update(tea.id, "Likes green tea")
        assert second.flush()
        assert first.mirror.outside_change() is not None

        assert first.reconcile_markdown() == ReconcileResult()

        assert sorted(m.content for m in first.store.get_all()) == [
            "Added by the CLI",
            "Likes green tea",
        ]
        assert markdown_body(first.mirror.path) == shown(first.store)
        assert first.mirror.outside_change() is None
        # A change made here is written over the other program's file.
        first.store.add("Back in the first")
        assert first.flush() == 1
        assert second.mirror.outside_change() is not None
        assert second.reconcile_markdown() == ReconcileResult()
        assert second.store.count() == 3
    finally:
        second.close()
        first.close()
    assert MemoryStore(store_path).count() == 3


def test_file_saved_again_while_an_edit_is_applied(
    store: MemoryStore, mirror: MarkdownMirror
) -> None:
    store.add("Likes tea")
    mirror.flush()
    path = mirror.path
    saved_again: list[str] = []

    def editor_saves_again(change: StoreChange, records: object) -> None:
        if not saved_again:
            saved_again.append("yes")
            edit(path, "- Likes coffee\n", "- Likes coffee\n- Likes cake\n")

    edit(path, "Likes tea", "Likes coffee")
    store.add_change_hook(editor_saves_again)

    assert mirror.reconcile_file() == ReconcileResult(updated=1)

    # The newer save is left alone, and applied next.
    assert "- Likes cake" in path.read_text(encoding="utf-8")
    assert mirror.outside_change() is not None
    assert not mirror.flush()
    assert mirror.reconcile_file() == ReconcileResult(added=1)
    assert [m.content for m in store.get_all()] == ["Likes coffee", "Likes cake"]
    assert markdown_body(path) == shown(store)


# -- edits that cannot be applied --------------------------------------------------------


def rejected_files(mirror: MarkdownMirror) -> list[Path]:
    return sorted(mirror.folder.glob("MEMORY.rejected-*.md"))


@pytest.mark.parametrize("problem", ["too_long", "full", "not_utf8"])
def test_an_edit_that_cannot_be_applied_is_set_aside(
    store_path: Path,
    clock: SteppingClock,
    problem: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = MemoryStore(store_path, StoreSettings(max_items=4), clock=clock)
    store.init()
    mirror = MarkdownMirror(store, store.path.parent, UTC)
    mirror.start()
    fill(store)
    mirror.flush()
    before = store_files(store.path)
    edited = mirror.path.read_text(encoding="utf-8").replace(
        "- Likes green tea\n",
        {
            "too_long": "- Likes green tea\n- " + "very long " * 250 + "\n",
            "full": "- Likes green tea\n- One more\n",
            "not_utf8": "- Likes green tea\n",
        }[problem],
    )
    data = edited.encode()
    if problem == "not_utf8":
        data += b"- caf\xe9\n"
    mirror.path.write_bytes(data)

    with caplog.at_level(logging.WARNING):
        result = mirror.reconcile_file()

    assert store_files(store.path) == before  # the store is unchanged
    [rejected] = rejected_files(mirror)
    assert result == ReconcileResult(rejected=rejected)
    assert rejected.read_bytes() == data  # the edit is kept, byte for byte
    assert mirror.last_rejected == rejected
    assert markdown_body(mirror.path) == shown(store)
    assert mirror.outside_change() is None
    [record] = caplog.records
    assert str(rejected) in record.getMessage()
    reason = {
        "too_long": "content is 2499 characters",
        "full": "memory is full (4 items)",
        "not_utf8": "not UTF-8",
    }[problem]
    assert reason in record.getMessage()


def test_an_emptied_file_is_written_again(
    store: MemoryStore, mirror: MarkdownMirror, caplog: pytest.LogCaptureFixture
) -> None:
    fill(store)
    mirror.flush()
    before = store_files(store.path)
    mirror.path.write_text("\n  \n", encoding="utf-8")

    with caplog.at_level(logging.WARNING):
        assert mirror.reconcile_file() == ReconcileResult()

    assert store_files(store.path) == before
    assert markdown_body(mirror.path) == shown(store)
    assert "was emptied" in caplog.text
    assert rejected_files(mirror) == []


def test_a_removed_file_is_written_again(
    store: MemoryStore, mirror: MarkdownMirror
) -> None:
    fill(store)
    mirror.flush()
    mirror.path.unlink()
    assert mirror.outside_change() == MISSING
    assert not mirror.flush()  # nothing changed in the store
    assert mirror.reconcile_file() == ReconcileResult()
    assert markdown_body(mirror.path) == shown(store)
    assert len(store.get_all()) == 4


def test_a_title_without_bullets_is_kept_aside(
    store: MemoryStore, mirror: MarkdownMirror
) -> None:
    fill(store)
    mirror.flush()
    mirror.path.write_text("# Memory\n", encoding="utf-8")
    [rejected] = [mirror.reconcile_file().rejected]
    assert rejected is not None
    assert rejected.read_text(encoding="utf-8") == "# Memory\n"
    assert len(store.get_all()) == 4  # clear the memory to forget everything
    assert markdown_body(mirror.path) == shown(store)


# -- write_markdown (the API) ---------------------------------------------------------------


def test_write_markdown_applies_the_text(engine: MemoryEngine) -> None:
    memories = fill(engine.store)
    text = engine.read_markdown()
    result = engine.write_markdown(
        text.replace("blue flowerpot", "red flowerpot") + "- A new note\n"
    )
    assert result == ReconcileResult(added=1, updated=1)
    key = engine.store.get(memories["key"].id)
    assert key is not None
    assert key.content.endswith("red flowerpot")
    assert markdown_body(engine.mirror.path) == shown(engine.store)
    assert engine.read_markdown() == shown(engine.store)


@pytest.mark.parametrize(
    ("text", "error", "message"),
    [
        ("## Facts\n- " + "x" * 2001 + "\n", InvalidMemoryError, "bullet 'xxx"),
        (None, InvalidMemoryError, "must be text"),
        ("".join(f"- note {i}\n" for i in range(101)), MemoryFullError, "full"),
    ],
)
def test_write_markdown_errors_change_nothing(
    engine: MemoryEngine, text: object, error: type[Exception], message: str
) -> None:
    fill(engine.store)
    engine.flush()
    before = all_files(engine.store.path.parent)

    with pytest.raises(error, match=message):
        engine.write_markdown(text)  # type: ignore[arg-type]

    assert all_files(engine.store.path.parent) == before


def test_write_markdown_applies_a_pending_hand_edit_first(engine: MemoryEngine) -> None:
    fill(engine.store)
    engine.flush()
    text = engine.read_markdown()
    edit(engine.mirror.path, "- Likes green tea\n", "- Likes green tea\n- By hand\n")

    result = engine.write_markdown(
        text.replace("- Likes green tea\n", "- Likes green tea\n- By hand\n- By API\n")
    )

    assert result == ReconcileResult(added=1)  # "By hand" came from the file
    contents = [m.content for m in engine.store.get_all()]
    assert contents.count("By hand") == 1
    assert "By API" in contents


def test_read_markdown_with_a_pending_edit_shows_the_store(
    engine: MemoryEngine,
) -> None:
    engine.store.add("Likes tea")
    engine.flush()
    edit(engine.mirror.path, "Likes tea", "Likes coffee")
    engine.store.add("Added meanwhile")
    assert engine.read_markdown() == shown(engine.store)
    assert "Likes coffee" in engine.mirror.path.read_text(encoding="utf-8")


# -- start and close --------------------------------------------------------------------


def newest_store_change(store_path: Path) -> int:
    return max(
        os.stat(p).st_mtime_ns
        for p in (store_path, store_path.with_suffix(".journal"))
        if p.exists()
    )


def set_mtime(path: Path, ns: int) -> None:
    os.utime(path, ns=(ns, ns))


def test_edit_made_while_stopped_is_applied_at_start(store_path: Path) -> None:
    engine = MemoryEngine(store_path)
    engine.init()
    engine.store.add("Likes tea")
    engine.close()
    path = memory_md(store_path)
    edit(path, "Likes tea", "Likes coffee")
    set_mtime(path, newest_store_change(store_path) + 1_000_000_000)

    engine = MemoryEngine(store_path)
    engine.init()
    try:
        assert [m.content for m in engine.store.get_all()] == ["Likes coffee"]
    finally:
        engine.close()


def test_edit_made_while_stopped_is_applied_whatever_its_time(
    store_path: Path,
) -> None:
    engine = MemoryEngine(store_path)
    engine.init()
    engine.store.add("Likes tea")
    engine.close()
    path = memory_md(store_path)
    edit(path, "Likes tea", "Likes coffee")
    set_mtime(path, newest_store_change(store_path) - 1_000_000_000)

    engine = MemoryEngine(store_path)
    engine.init()
    try:
        assert [m.content for m in engine.store.get_all()] == ["Likes coffee"]
    finally:
        engine.close()


def test_without_its_base_an_edit_only_adds(store_path: Path) -> None:
    """With no record of what was written (lost, or from an earlier version)."""
    engine = MemoryEngine(store_path)
    engine.init()
    engine.store.add("Likes tea")
    engine.store.add("Plays chess")
    engine.close()
    path = memory_md(store_path)
    (path.parent / ".MEMORY.md.base").unlink()
    edit(path, "- Likes tea\n", "- Likes coffee\n")

    engine = MemoryEngine(store_path)
    engine.init()
    try:
        assert sorted(m.content for m in engine.store.get_all()) == [
            "Likes coffee",
            "Likes tea",
            "Plays chess",
        ]
        assert markdown_body(path) == shown(engine.store)
    finally:
        engine.close()


def test_restart_without_edit_leaves_the_file_alone(store_path: Path) -> None:
    engine = MemoryEngine(store_path)
    engine.init()
    engine.store.add("Likes tea")
    engine.close()
    path = memory_md(store_path)
    before = os.stat(path)

    engine = MemoryEngine(store_path)
    engine.init()
    engine.close()

    after = os.stat(path)
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_a_file_found_at_the_first_start_that_is_not_text_is_kept_aside(
    store_path: Path,
) -> None:
    path = memory_md(store_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"- caf\xe9\n")
    MemoryStore(store_path).add("Likes tea")

    engine = MemoryEngine(store_path)
    report = engine.init()
    try:
        [rejected] = report.rejected_edits
        assert rejected.read_bytes() == b"- caf\xe9\n"
        assert markdown_body(path) == shown(engine.store)
        assert [m.content for m in engine.store.get_all()] == ["Likes tea"]
    finally:
        engine.close()


def test_memory_md_written_before_the_first_start_is_imported(
    store_path: Path,
) -> None:
    path = memory_md(store_path)
    path.parent.mkdir(parents=True)
    path.write_text("## Facts\n- Written before the first start\n", encoding="utf-8")

    engine = MemoryEngine(store_path)
    engine.init()
    try:
        assert [m.content for m in engine.store.get_all()] == [
            "Written before the first start"
        ]
        assert markdown_body(path) == shown(engine.store)
    finally:
        engine.close()


def test_close_applies_an_edit_waiting_for_its_quiet_spell(store_path: Path) -> None:
    engine = MemoryEngine(store_path)
    engine.init()
    engine.store.add("Likes tea")
    engine.flush()
    edit(engine.mirror.path, "Likes tea", "Likes coffee")
    engine.close()

    assert [m.content for m in MemoryStore(store_path).get_all()] == ["Likes coffee"]


# -- storage errors -------------------------------------------------------------------


def test_unusable_markdown_folder_fails_the_start(store_path: Path) -> None:
    store_path.parent.mkdir(parents=True)
    (store_path.parent / "prompts").write_text("not a folder", encoding="utf-8")
    engine = MemoryEngine(store_path)
    with pytest.raises(StorageError, match="prompts"):
        engine.init()
    engine.close_quietly()


def test_unwritable_base_is_a_storage_error(
    store: MemoryStore, mirror: MarkdownMirror
) -> None:
    # The temporary file the base is written through (by this thread) cannot be made.
    name = f".{mirror.base_path.name}.{os.getpid()}-{threading.get_ident()}.tmp"
    mirror.base_path.with_name(name).mkdir()
    store.add("Likes tea")
    with pytest.raises(StorageError, match=r"\.MEMORY\.md\.base"):
        mirror.flush()


def test_a_folder_named_memory_md_is_kept_aside(
    store: MemoryStore, mirror: MarkdownMirror
) -> None:
    store.add("Likes tea")
    mirror.flush()
    mirror.path.unlink()
    mirror.path.mkdir()
    (mirror.path / "inside.txt").write_text("kept", encoding="utf-8")

    rejected = mirror.reconcile_file().rejected

    assert rejected is not None
    assert (rejected / "inside.txt").read_text(encoding="utf-8") == "kept"
    assert markdown_body(mirror.path) == shown(store)
    assert [m.content for m in store.get_all()] == ["Likes tea"]


def test_a_corrupt_base_is_ignored(store: MemoryStore, mirror: MarkdownMirror) -> None:
    """Edits are then merged as made on nothing: bullets added, none removed."""
    store.add("Likes tea")
    mirror.flush()
    mirror.base_path.write_text("{not json", encoding="utf-8")
    edit(mirror.path, "- Likes tea\n", "- Likes coffee\n")

    assert mirror.reconcile_file() == ReconcileResult(added=1)

    assert sorted(m.content for m in store.get_all()) == ["Likes coffee", "Likes tea"]
    assert markdown_body(mirror.path) == shown(store)


# -- apply_plan ----------------------------------------------------------------------------


class Hook:
    def __init__(self, store: MemoryStore) -> None:
        self.changes: list[StoreChange] = []
        store.add_change_hook(lambda change, records: self.changes.append(change))


def test_apply_plan_is_one_snapshot_write(store: MemoryStore) -> None:
    memories = fill(store)
    generation = read_snapshot(store.path)["generation"]
    hook = Hook(store)
    plan = ReconcilePlan(
        adds=[("fact", "  New fact  "), ("event", "Party on Friday")],
        updates=[
            (memories["key"].id, "The key is with Anna", None),
            (memories["tea"].id, None, "note"),
        ],
        deletes=[memories["bins"].id, memories["bins"].id],
    )

    result = store.apply_plan(plan)

    assert result == ReconcileResult(added=2, updated=2, removed=1)
    assert read_snapshot(store.path)["generation"] == generation + 1
    assert [line["op"] for line in journal_lines(store.path)] == ["begin"]
    assert hook.changes == [StoreChange(reloaded=True)]
    assert store.last_changed is not None
    contents = {m.content: m for m in MemoryStore(store.path).get_all()}
    assert set(contents) == {
        "Likes green tea",
        "The key is with Anna",
        "Anna is the neighbour's daughter",
        "New fact",
        "Party on Friday",
    }
    assert contents["Likes green tea"].category == "note"
    assert contents["Party on Friday"].category == "event"
    assert contents["New fact"].created_at == contents["New fact"].updated_at


def test_apply_plan_with_one_bad_bullet_changes_nothing(store: MemoryStore) -> None:
    memories = fill(store)
    before = store_files(store.path)
    hook = Hook(store)
    plan = ReconcilePlan(
        adds=[("fact", "fine"), ("fact", "y" * 3000)],
        updates=[(memories["key"].id, "fine too", None)],
        deletes=[memories["bins"].id],
    )

    with pytest.raises(InvalidMemoryError) as caught:
        store.apply_plan(plan)

    assert caught.value.code == "content_too_long"
    assert "bullet 'yyyyy" in caught.value.message
    assert caught.value.placeholders["bullet"].endswith("...")
    assert caught.value.placeholders["max_length"] == "2000"
    assert store_files(store.path) == before
    assert hook.changes == []


@pytest.mark.parametrize(
    "plan",
    [
        ReconcilePlan(adds=[("shopping", "eggs")]),
        ReconcilePlan(updates=[("any", None, "shopping")]),
        ReconcilePlan(updates=[("any", "   ", None)]),
        ReconcilePlan(adds=[("fact", "nul \x00 inside")]),
    ],
)
def test_apply_plan_checks_every_field(store: MemoryStore, plan: ReconcilePlan) -> None:
    fill(store)
    before = store_files(store.path)
    with pytest.raises(InvalidMemoryError):
        store.apply_plan(plan)
    assert store_files(store.path) == before


def test_apply_plan_respects_max_items(store_path: Path, clock: SteppingClock) -> None:
    store = MemoryStore(store_path, StoreSettings(max_items=4), clock=clock)
    memories = fill(store)
    before = store_files(store_path)

    with pytest.raises(MemoryFullError):
        store.apply_plan(
            ReconcilePlan(adds=[("fact", "fifth")], deletes=["unknown-id"])
        )
    assert store_files(store_path) == before

    # One out, one in: still at the limit.
    result = store.apply_plan(
        ReconcilePlan(adds=[("fact", "fifth")], deletes=[memories["bins"].id])
    )
    assert result == ReconcileResult(added=1, removed=1)
    assert store.count() == 4


def test_apply_plan_over_a_lowered_limit_may_edit_but_not_grow(
    store: MemoryStore,
) -> None:
    memories = fill(store)
    store.set_settings(StoreSettings(max_items=2))
    assert store.apply_plan(
        ReconcilePlan(updates=[(memories["key"].id, "edited", None)])
    ) == ReconcileResult(updated=1)
    assert store.apply_plan(
        ReconcilePlan(adds=[("fact", "swap")], deletes=[memories["bins"].id])
    ) == ReconcileResult(added=1, removed=1)
    with pytest.raises(MemoryFullError):
        store.apply_plan(ReconcilePlan(adds=[("fact", "grow")]))
    assert store.count() == 4


def test_apply_plan_with_eviction_has_no_cap(
    store_path: Path, clock: SteppingClock
) -> None:
    settings = StoreSettings(max_items=2, eviction_threshold=2)
    store = MemoryStore(store_path, settings, clock=clock)
    store.add("one")
    plan = ReconcilePlan(adds=[("fact", "two"), ("fact", "three")])
    assert store.apply_plan(plan) == ReconcileResult(added=2)
    assert store.count() == 3


def test_apply_plan_without_effect_writes_nothing(store: MemoryStore) -> None:
    memories = fill(store)
    before = store_files(store.path)
    hook = Hook(store)
    tea = memories["tea"]
    plan = ReconcilePlan(
        updates=[
            (tea.id, tea.content, tea.category),  # already so
            ("gone", "text", "fact"),
        ],
        deletes=["gone-too"],
    )

    result = store.apply_plan(plan)

    assert result == ReconcileResult()
    assert not result.changed
    assert store.apply_plan(ReconcilePlan()) == ReconcileResult()
    assert store_files(store.path) == before
    assert hook.changes == []


# -- LocalBackend ---------------------------------------------------------------------------


async def test_backend_keeps_the_file_current_and_picks_up_hand_edits(
    store_path: Path,
) -> None:
    backend, _ = await LocalBackend.open(store_path, watch=True)
    path = memory_md(store_path)
    try:
        calls: list[int] = []
        backend.add_listener(lambda: calls.append(len(backend.store.get_all())))
        tea = await backend.add("Likes green tea", category="preference")
        await eventually(lambda: "- Likes green tea" in path.read_text("utf-8"))
        assert calls == [1]

        edit(path, "- Likes green tea\n", "- Likes jasmine tea\n- Oat milk\n")

        await eventually(lambda: len(calls) == 2)
        assert calls[1] == 2  # the store already holds the edit when listeners run
        edited = await backend.get(tea.id)
        assert edited is not None
        assert edited.content == "Likes jasmine tea"
        assert [r.memory.content for r in await backend.search("oat milk")] == [
            "Oat milk"
        ]
        assert markdown_body(path) == shown(backend.store)
    finally:
        await backend.close()


async def test_backend_markdown_api(store_path: Path) -> None:
    backend, _ = await LocalBackend.open(store_path, watch=False)
    try:
        calls: list[None] = []
        backend.add_listener(lambda: calls.append(None))
        await backend.add("Likes tea")
        text = await backend.read_markdown()
        assert "- Likes tea" in text

        result = await backend.write_markdown(text + "- Likes cake\n")
        assert result == ReconcileResult(added=1)
        assert len(calls) == 2
        assert await backend.write_markdown(text + "- Likes cake\n") == (
            ReconcileResult()
        )
        assert len(calls) == 2  # nothing changed: nobody told
        with pytest.raises(InvalidMemoryError):
            await backend.write_markdown("- " + "x" * 2001)
        assert len(calls) == 2
        assert [m.content for m in backend.store.get_all()] == [
            "Likes tea",
            "Likes cake",
        ]
    finally:
        await backend.close()


async def test_backend_rejected_hand_edit_tells_only_its_own_listeners(
    store_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    backend, _ = await LocalBackend.open(store_path, watch=False)
    try:
        calls: list[None] = []
        kept: list[Path] = []
        backend.add_listener(lambda: calls.append(None))
        backend.add_rejected_edit_listener(kept.append)
        backend.add_rejected_edit_listener(lambda path: 1 / 0)  # a broken one
        removed = backend.add_rejected_edit_listener(print)  # then removed again
        removed()
        removed()  # twice is fine
        await backend.add("Likes tea")
        await backend.wait_for_background_jobs()
        edit(memory_md(store_path), "Likes tea", "x" * 2001)
        await backend._reconcile_markdown()  # what the watcher runs when settled
        assert len(calls) == 1
        assert kept == [backend.engine.mirror.last_rejected]
        assert "A rejected edit listener failed" in caplog.text
        assert [m.content for m in backend.store.get_all()] == ["Likes tea"]
    finally:
        await backend.close()


async def test_backend_tells_listeners_about_outside_changes_a_read_loaded(
    store_path: Path,
) -> None:
    backend, _ = await LocalBackend.open(store_path, watch=True)
    try:
        await backend.add("Likes tea")
        calls: list[None] = []
        backend.add_listener(lambda: calls.append(None))
        MemoryStore(store_path).add("Added by the CLI")
        # A read (here: MEMORY.md, which takes the store's process lock) loads the
        # other program's change before the watcher looks.
        assert "- Added by the CLI" in await backend.read_markdown()

        await eventually(lambda: bool(calls))
        assert markdown_body(memory_md(store_path)) == shown(backend.store)
    finally:
        await backend.close()
