"""MEMORY.md edits never cost a memory nobody clearly asked to delete.

Hostile or unrelated files (prose, huge text, noise, symlinks, FIFOs) change nothing
and are kept aside; a pending edit applied by a fresh engine, or a stale editor save,
keeps what was added or changed meanwhile.
"""

from __future__ import annotations

from collections.abc import Iterator
import contextlib
import logging
import os
from pathlib import Path
import random
import stat
import threading

import pytest

from custom_components.assist_memory.engine import Memory, StorageError
from custom_components.assist_memory.engine.documents.markdown import parse_markdown
from custom_components.assist_memory.engine.memory.memory_engine import MemoryEngine

CONTENTS = (
    ("preference", "Likes green tea"),
    ("fact", "The spare key is under the blue flowerpot"),
    ("routine", "Bins go out on Tuesday evening"),
    ("person", "Anna is the neighbour's daughter"),
    ("fact", "The wifi router is in the hallway cupboard"),
    ("preference", "Prefers the heating at 20 degrees"),
    ("event", "The boiler was serviced in March"),
    ("routine", "Plants are watered on Sunday morning"),
    ("fact", "The car is due for inspection in June"),
    ("person", "Ben is Anna's brother"),
)


@pytest.fixture
def engine(store_path: Path) -> Iterator[MemoryEngine]:
    engine = MemoryEngine(store_path)
    engine.init()
    for category, content in CONTENTS:
        engine.store.add(content, category=category)
    engine.flush()
    yield engine
    engine.close()


def memories(engine: MemoryEngine) -> dict[str, Memory]:
    return {m.id: m for m in engine.store.get_all()}


def by_content(engine: MemoryEngine, content: str) -> Memory:
    return next(m for m in engine.store.get_all() if m.content == content)


def save(path: Path, data: str | bytes) -> None:
    """Save MEMORY.md as an editor does: a new file renamed over the old one."""
    tmp = path.with_name("editor-save.tmp")
    if isinstance(data, str):
        data = data.encode()
    tmp.write_bytes(data)
    os.replace(tmp, path)


def rejected_files(engine: MemoryEngine) -> list[Path]:
    return sorted(engine.mirror.folder.glob("MEMORY.rejected-*.md"))


def canonical_bullets(engine: MemoryEngine) -> list[tuple[str, str]]:
    """The bullets MEMORY.md holds, which must be the store's."""
    return sorted(parse_markdown(engine.mirror.path.read_text(encoding="utf-8")))


def stored_bullets(engine: MemoryEngine) -> list[tuple[str, str]]:
    return sorted((m.category, m.content) for m in engine.store.get_all())


def noise(size: int) -> str:
    """Valid UTF-8 that is no memory list: letters, symbols, controls, CJK, emoji."""
    rng = random.Random(13)
    alphabet = (
        [chr(c) for c in range(0x20, 0x7F)]
        + [chr(c) for c in (0x1B, 0x07, 0x08, 0x7F, 0x0C, 0x85, 0x2028)]
        + [chr(c) for c in range(0x4E00, 0x4E80)]
        + ["😀", "\u200b", "\ufeff", "\n", "\n", "\t"]
    )
    return "".join(rng.choices(alphabet, k=size))


HOSTILE_TEXTS = {
    "prose": (
        "Moved house last week. The new kitchen is bigger than the old one.\n\n"
        "Remember to call the plumber about the dripping tap.\n"
    ),
    "five_megabytes_without_bullets": ("kitchen plumber tap boiler garden " * 30 + "\n")
    * 5_000,
    "utf8_noise": noise(200_000),
    "another_memory_list": "## Facts\n\n- Imported from somewhere else\n- And this\n",
}


@pytest.mark.parametrize("kind", list(HOSTILE_TEXTS))
def test_a_file_that_is_not_an_edit_of_the_list_changes_nothing(
    engine: MemoryEngine, kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    before = memories(engine)
    data = HOSTILE_TEXTS[kind].encode()
    save(engine.mirror.path, data)

    with caplog.at_level(logging.DEBUG):
        result = engine.reconcile_markdown()

    assert not result.changed
    assert memories(engine) == before
    [rejected] = rejected_files(engine)
    assert rejected.read_bytes() == data  # kept, byte for byte
    assert stat.S_IMODE(rejected.stat().st_mode) == 0o600
    assert engine.mirror.last_rejected == rejected
    assert canonical_bullets(engine) == stored_bullets(engine)
    [record] = [r for r in caplog.records if str(rejected) in r.getMessage()]
    assert record.levelno == logging.WARNING
    for word in ("kitchen", "plumber", "Imported", "green tea", "flowerpot"):
        assert word not in caplog.text


def test_an_emptied_file_is_written_again_and_nothing_is_removed(
    engine: MemoryEngine,
) -> None:
    before = memories(engine)
    save(engine.mirror.path, "\n \n")
    assert not engine.reconcile_markdown().changed
    assert memories(engine) == before
    assert canonical_bullets(engine) == stored_bullets(engine)


@pytest.mark.parametrize("target", ["/etc/passwd", "other.md"])
def test_a_symlink_is_never_followed(
    engine: MemoryEngine, target: str, caplog: pytest.LogCaptureFixture
) -> None:
    before = memories(engine)
    if target == "other.md":
        other = engine.mirror.folder.parent / "other.md"
        other.write_text("## Facts\n\n- Only in the other file\n", encoding="utf-8")
        target = str(other)
    original = Path(target).read_bytes()
    engine.mirror.path.unlink()
    engine.mirror.path.symlink_to(target)

    with caplog.at_level(logging.DEBUG):
        assert not engine.reconcile_markdown().changed

    assert memories(engine) == before
    [rejected] = rejected_files(engine)
    assert os.readlink(rejected) == target  # the link itself is kept aside
    assert Path(target).read_bytes() == original
    assert not engine.mirror.path.is_symlink()
    assert canonical_bullets(engine) == stored_bullets(engine)
    assert "root:" not in caplog.text
    assert "Only in the other file" not in caplog.text


class Unblocker:
    """Opens a FIFO for writing after a while, so a reader stuck on it gets free.

    Only a guard against hanging the test run: `needed` says whether it had to.
    """

    def __init__(self, fifo: Path, after: float = 10.0) -> None:
        self.needed = False
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(fifo, after))
        self._thread.start()

    def _run(self, fifo: Path, after: float) -> None:
        if self._done.wait(after):
            return
        self.needed = True
        while not self._done.wait(0.05):
            # A writer that comes and goes: a stuck reader reads the end. OSError:
            # no reader waits right now (or there is no FIFO any more).
            with contextlib.suppress(OSError):
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))

    def stop(self) -> None:
        self._done.set()
        self._thread.join()


def test_a_fifo_is_not_read(engine: MemoryEngine) -> None:
    before = memories(engine)
    engine.mirror.path.unlink()
    os.mkfifo(engine.mirror.path)
    guard = Unblocker(engine.mirror.path)
    try:
        engine.reconcile_markdown()
    finally:
        guard.stop()

    assert not guard.needed, "reading MEMORY.md waited for a writer"
    assert memories(engine) == before
    [rejected] = rejected_files(engine)
    assert stat.S_ISFIFO(os.lstat(rejected).st_mode)
    assert canonical_bullets(engine) == stored_bullets(engine)


def test_a_symlink_to_a_device_is_not_read(engine: MemoryEngine) -> None:
    before = memories(engine)
    engine.mirror.path.unlink()
    engine.mirror.path.symlink_to("/dev/zero")

    engine.reconcile_markdown()

    assert memories(engine) == before
    [rejected] = rejected_files(engine)
    assert os.readlink(rejected) == "/dev/zero"
    assert canonical_bullets(engine) == stored_bullets(engine)


def test_a_file_over_the_size_cap_is_kept_aside_unread(engine: MemoryEngine) -> None:
    before = memories(engine)
    text = engine.mirror.path.read_text(encoding="utf-8")
    save(engine.mirror.path, text + "- A new line\n")
    with engine.mirror.path.open("r+b") as handle:
        handle.truncate(64 * 1024 * 1024)  # sparse: costs no disk

    engine.reconcile_markdown()

    assert memories(engine) == before
    [rejected] = rejected_files(engine)
    assert rejected.stat().st_size == 64 * 1024 * 1024


# -- how much one edit may remove --------------------------------------------------


def remove_lines(text: str, contents: list[str]) -> str:
    for content in contents:
        assert f"- {content}\n" in text
        text = text.replace(f"- {content}\n", "")
    return text


def test_an_edit_removing_many_memories_is_kept_aside(
    engine: MemoryEngine, caplog: pytest.LogCaptureFixture
) -> None:
    before = memories(engine)
    text = engine.mirror.path.read_text(encoding="utf-8")
    edited = remove_lines(text, [content for _, content in CONTENTS[:6]])
    save(engine.mirror.path, edited)

    with caplog.at_level(logging.DEBUG):
        assert not engine.reconcile_markdown().changed

    assert memories(engine) == before
    [rejected] = rejected_files(engine)
    assert rejected.read_text(encoding="utf-8") == edited
    assert "6 of 10" in caplog.text


def test_an_edit_removing_a_few_memories_is_applied(engine: MemoryEngine) -> None:
    text = engine.mirror.path.read_text(encoding="utf-8")
    gone = [content for _, content in CONTENTS[:5]]
    save(engine.mirror.path, remove_lines(text, gone))

    assert engine.reconcile_markdown().removed == 5

    assert sorted(m.content for m in engine.store.get_all()) == sorted(
        content for _, content in CONTENTS[5:]
    )
    assert rejected_files(engine) == []


def test_a_rejected_edit_is_logged_without_its_content(
    engine: MemoryEngine, caplog: pytest.LogCaptureFixture
) -> None:
    text = engine.mirror.path.read_text(encoding="utf-8")
    save(engine.mirror.path, text + "- zqxsecret " + "word " * 500 + "\n")

    with caplog.at_level(logging.DEBUG):
        engine.reconcile_markdown()

    [rejected] = rejected_files(engine)
    assert str(rejected) in caplog.text
    assert "zqxsecret" not in caplog.text
    assert "green tea" not in caplog.text


# -- pending edits applied by a fresh engine ---------------------------------------------


def test_a_fresh_engine_keeps_what_was_written_while_an_edit_waited(
    engine: MemoryEngine, store_path: Path
) -> None:
    """The CLI (or a restart after a crash) applies an edit the server had not yet."""
    text = engine.mirror.path.read_text(encoding="utf-8")
    save(engine.mirror.path, text + "- Written by hand\n")
    # The server goes on while the edit waits for its quiet spell.
    added = engine.store.add("Added through the server")
    tea = by_content(engine, "Likes green tea")
    engine.store.update(tea.id, "Likes oolong tea")
    assert not engine.mirror.flush()  # never over a pending edit

    cli = MemoryEngine(store_path)
    cli.init()
    cli.close()

    after = memories(engine)
    assert after[added.id].content == "Added through the server"
    assert after[tea.id].content == "Likes oolong tea"
    assert "Written by hand" in [m.content for m in after.values()]
    assert len(after) == len(CONTENTS) + 2
    # The server finds the edit applied and the file written: nothing more to do.
    assert not engine.reconcile_markdown().changed
    assert len(memories(engine)) == len(CONTENTS) + 2
    assert canonical_bullets(engine) == stored_bullets(engine)


# -- stale editor saves ------------------------------------------------------------------


def test_a_stale_save_keeps_a_memory_learned_meanwhile(engine: MemoryEngine) -> None:
    opened = engine.mirror.path.read_text(encoding="utf-8")  # the editor opens it
    learned = engine.store.add("Learned while the file was open")
    assert engine.mirror.flush()  # MEMORY.md now shows it; the editor does not
    assert "Learned while the file was open" in engine.mirror.path.read_text("utf-8")

    edited = remove_lines(opened, ["Bins go out on Tuesday evening"])
    save(engine.mirror.path, edited.replace("blue flowerpot", "red flowerpot"))

    result = engine.reconcile_markdown()

    assert (result.updated, result.removed, result.added) == (1, 1, 0)
    assert engine.store.get(learned.id) == learned
    contents = [m.content for m in engine.store.get_all()]
    assert "The spare key is under the red flowerpot" in contents
    assert "Bins go out on Tuesday evening" not in contents
    assert canonical_bullets(engine) == stored_bullets(engine)


def test_a_stale_save_never_reverts_a_memory_changed_meanwhile(
    engine: MemoryEngine,
) -> None:
    opened = engine.mirror.path.read_text(encoding="utf-8")
    key = by_content(engine, "The spare key is under the blue flowerpot")
    changed = engine.store.update(key.id, "The spare key is with Anna")
    assert engine.mirror.flush()

    save(engine.mirror.path, opened.replace("green tea", "black tea"))
    engine.reconcile_markdown()

    assert engine.store.get(key.id) == changed
    # The edit cannot be told from the old text it was made on: kept aside whole.
    [rejected] = rejected_files(engine)
    assert "black tea" in rejected.read_text(encoding="utf-8")
    assert canonical_bullets(engine) == stored_bullets(engine)


def test_a_stale_save_does_not_bring_back_a_memory_deleted_meanwhile(
    engine: MemoryEngine,
) -> None:
    opened = engine.mirror.path.read_text(encoding="utf-8")
    bins = by_content(engine, "Bins go out on Tuesday evening")
    assert engine.store.delete(bins.id)
    assert engine.mirror.flush()

    save(engine.mirror.path, opened.replace("green tea", "black tea"))
    engine.reconcile_markdown()

    contents = [m.content for m in engine.store.get_all()]
    assert "Bins go out on Tuesday evening" not in contents
    assert len(contents) == len(CONTENTS) - 1


def test_a_stale_save_made_while_a_line_changed_is_kept_aside_whole(
    engine: MemoryEngine,
) -> None:
    """The old text cannot be rebuilt: its stale line may be a memory deleted since."""
    opened = engine.mirror.path.read_text(encoding="utf-8")
    key = by_content(engine, "The spare key is under the blue flowerpot")
    changed = engine.store.update(key.id, "The spare key is with Anna")
    assert engine.mirror.flush()
    before = memories(engine)

    edited = remove_lines(opened, ["Ben is Anna's brother"])
    save(engine.mirror.path, edited)
    assert engine.reconcile_markdown().rejected is not None

    assert engine.store.get(key.id) == changed
    assert memories(engine) == before
    [rejected] = rejected_files(engine)
    assert rejected.read_text(encoding="utf-8") == edited


def test_a_stale_save_removing_a_memory_changed_meanwhile_removes_nothing(
    engine: MemoryEngine,
) -> None:
    opened = engine.mirror.path.read_text(encoding="utf-8")
    key = by_content(engine, "The spare key is under the blue flowerpot")
    changed = engine.store.update(key.id, "The spare key is with Anna")
    assert engine.mirror.flush()
    before = memories(engine)

    gone = remove_lines(opened, ["The spare key is under the blue flowerpot"])
    save(engine.mirror.path, gone)
    assert not engine.reconcile_markdown().changed

    assert engine.store.get(key.id) == changed
    assert memories(engine) == before
    assert canonical_bullets(engine) == stored_bullets(engine)


@pytest.mark.parametrize("edit", ["remove", "rewrite"])
def test_an_edit_of_a_memory_changed_while_it_waited_is_kept_aside(
    engine: MemoryEngine, edit: str
) -> None:
    """The memory changed after the text was written, before the edit was applied."""
    text = engine.mirror.path.read_text(encoding="utf-8")
    line = "- The spare key is under the blue flowerpot\n"
    save(
        engine.mirror.path,
        text.replace(line, "" if edit == "remove" else line.replace("blue", "red")),
    )
    key = by_content(engine, "The spare key is under the blue flowerpot")
    changed = engine.store.update(key.id, "The spare key is with Anna")
    before = memories(engine)

    assert engine.reconcile_markdown().rejected is not None

    assert engine.store.get(key.id) == changed
    assert memories(engine) == before


def test_a_version_line_is_never_reused_after_a_failed_write(
    engine: MemoryEngine,
) -> None:
    """Recording what was written fails (a full disk; or a crash at that instant):
    no file shows a version nobody recorded, so a later text never reuses its line."""
    base_tmp = engine.mirror.base_path.with_name(
        f".{engine.mirror.base_path.name}.{os.getpid()}-{threading.get_ident()}.tmp"
    )
    base_tmp.mkdir()  # the base cannot be written (by this thread)
    engine.store.add("Learned first")
    with pytest.raises(StorageError):
        engine.mirror.flush()
    opened = engine.mirror.path.read_text(encoding="utf-8")  # an editor opens it
    base_tmp.rmdir()
    learned = engine.store.add("Learned next")
    engine.reconcile_markdown()  # the file watch, or the next program to start
    assert "Learned next" in engine.mirror.path.read_text(encoding="utf-8")

    save(engine.mirror.path, opened + "- Written by hand\n")
    engine.reconcile_markdown()

    contents = [m.content for m in engine.store.get_all()]
    assert engine.store.get(learned.id) == learned
    assert "Learned first" in contents
    assert len(contents) == len(CONTENTS) + 2 + ("Written by hand" in contents)
