"""MEMORY.md fuzzed while writes go on: no memory is lost that no edit removed.

A writer (an engine of its own, as the server would be) adds and updates memories,
writes MEMORY.md and applies edits it finds, without pause. Meanwhile the fuzzer puts
random contents in MEMORY.md: edits of the file as it is now or as it was a while ago
(lines removed, changed, added, moved, duplicated, the version line dropped, many lines
removed at once), prose, unrelated bullets, binary bytes, valid UTF-8 noise, huge
files, empty files, symbolic links (to `/etc/passwd`, `/dev/zero`, another list) and
FIFOs. Each is applied by the fuzzer's engine, by a fresh engine (as the CLI or a
restart would), or left for the writer to find.

The promise checked at the end: every memory the writer was told about is there with
the content it last gave it, unless an edit removed or changed that very content.

`ASSIST_MEMORY_FUZZ_EDITS` sets how many contents are tried (1 000 for the full run;
fewer in the default suite), `ASSIST_MEMORY_FUZZ_SEED` the seed.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
import itertools
import os
from pathlib import Path
import random
import stat
import threading

from custom_components.assist_memory.engine.documents.markdown import (
    CATEGORY_TITLES,
    one_line,
    parse_markdown,
)
from custom_components.assist_memory.engine.memory.memory_engine import MemoryEngine
from custom_components.assist_memory.engine.storage.settings import StoreSettings

FUZZ_EDITS = int(os.environ.get("ASSIST_MEMORY_FUZZ_EDITS", "120"))
FUZZ_SEED = int(os.environ.get("ASSIST_MEMORY_FUZZ_SEED", "1313"))
SETTINGS = StoreSettings(max_items=0)


# Above this many memories the writer deletes instead of adding (keeps runs short).
WRITER_TARGET = 200


@dataclass
class Ledger:
    """What the writer was told: id -> the content it last gave the memory, and the
    contents of the memories it deleted."""

    contents: dict[str, str] = field(default_factory=dict)
    deleted: set[str] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)
    writes: int = 0


def writer(path: Path, ledger: Ledger, stop: threading.Event, seed: int) -> None:
    """Adds, updates and deletes without pause; writes MEMORY.md, applies edits."""
    rng = random.Random(seed)
    engine = MemoryEngine(path, SETTINGS)
    engine.init()
    words = itertools.count()
    try:
        while not stop.is_set():
            roll = rng.random()
            content = f"Writer note wrt{next(words)}x"
            with ledger.lock:
                known = list(ledger.contents)
            if len(known) > WRITER_TARGET and roll < 0.6:
                memory_id = rng.choice(known)
                if engine.store.delete(memory_id):
                    with ledger.lock:
                        ledger.deleted.add(ledger.contents.pop(memory_id))
            elif roll < 0.6 or not known:
                memory = engine.store.add(
                    content, category=rng.choice(list(CATEGORY_TITLES))
                )
                with ledger.lock:
                    ledger.contents[memory.id] = content
            elif roll < 0.75:
                memory_id = rng.choice(known)
                if engine.store.update(memory_id, content) is not None:
                    with ledger.lock:
                        ledger.contents[memory_id] = content
            elif roll < 0.9:
                engine.flush()
            else:
                engine.reconcile_markdown()
            ledger.writes += 1
    finally:
        engine.close()


@dataclass
class Fuzzer:
    """Puts random contents in MEMORY.md; remembers which contents its edits touched."""

    folder: Path
    rng: random.Random
    touched: set[str] = field(default_factory=set)
    duplicated: set[str] = field(default_factory=set)
    seen: list[str] = field(default_factory=list)
    kinds: Counter[str] = field(default_factory=Counter)
    words: itertools.count[int] = field(default_factory=itertools.count)

    @property
    def path(self) -> Path:
        return self.folder / "MEMORY.md"

    def word(self) -> str:
        return f"fzz{next(self.words)}q"

    def current_text(self) -> str | None:
        """MEMORY.md's text when it is a regular file (never opens anything else)."""
        try:
            if not stat.S_ISREG(os.lstat(self.path).st_mode):
                return None
            return self.path.read_bytes().decode("utf-8", errors="replace")
        except FileNotFoundError:
            return None

    def put(self, data: bytes) -> None:
        """In place at once, as an editor saves (the writer may write any time)."""
        tmp = self.folder / "fuzz.tmp"
        tmp.write_bytes(data)
        os.replace(tmp, self.path)

    def put_special(self, make: str, target: str = "") -> None:
        tmp = self.folder / "fuzz.tmp"
        if make == "fifo":
            os.mkfifo(tmp)
        else:
            tmp.symlink_to(target)
        os.replace(tmp, self.path)

    def edit(self, text: str) -> bytes:
        """Random changes to a MEMORY.md text; the contents it removes or changes count."""
        lines = text.splitlines()
        bullets = [i for i, line in enumerate(lines) if line.startswith("- ")]
        rng = self.rng
        if bullets and rng.random() < 0.1:
            # Many lines at once: more than one edit may remove.
            for index in sorted(rng.sample(bullets, (len(bullets) + 1) // 2)):
                self.touched.add(one_line(lines[index][2:]))
                lines[index] = ""
        for _ in range(rng.randint(1, 4)):
            roll = rng.random()
            bullets = [i for i, line in enumerate(lines) if line.startswith("- ")]
            if bullets and roll < 0.25:
                index = rng.choice(bullets)
                self.touched.add(one_line(lines[index][2:]))
                del lines[index]
            elif bullets and roll < 0.5:
                index = rng.choice(bullets)
                self.touched.add(one_line(lines[index][2:]))
                lines[index] += f" changed {self.word()}"
            elif roll < 0.75:
                where = rng.randint(0, len(lines))
                lines.insert(where, f"- Hand note {self.word()}")
            elif bullets and roll < 0.85:
                line = lines.pop(rng.choice(bullets))
                header = rng.choice(
                    [i for i, x in enumerate(lines) if x.startswith("## ")] or [0]
                )
                lines.insert(header + 1, line)
            elif bullets and roll < 0.92:
                index = rng.choice(bullets)
                self.duplicated.add(one_line(lines[index][2:]))
                lines.insert(index, lines[index])
            else:
                lines = [x for x in lines if not x.startswith("<!-- assist-memory ")]
        return ("\n".join(lines) + "\n").encode()

    def one(self, other_list: Path) -> None:
        """Put one random content in MEMORY.md."""
        rng = self.rng
        kind = rng.choices(
            [
                "edit",
                "stale edit",
                "prose",
                "unrelated bullets",
                "binary",
                "utf8 noise",
                "huge",
                "empty",
                "symlink",
                "fifo",
            ],
            weights=[36, 12, 8, 6, 6, 6, 5, 5, 10, 6],
        )[0]
        self.kinds[kind] += 1
        text = self.current_text()
        if text is not None and "<!-- assist-memory " in text:
            self.seen = [*self.seen[-4:], text]
        if kind == "edit" and text is not None:
            self.put(self.edit(text))
        elif kind == "stale edit" and self.seen:
            self.put(self.edit(rng.choice(self.seen)))
        elif kind in {"edit", "stale edit", "prose"}:
            self.put(
                " ".join(
                    rng.choice(["the", "garden", "kettle", "- ", "#"])
                    for _ in range(300)
                ).encode()
            )
        elif kind == "unrelated bullets":
            self.put(
                "".join(
                    f"- Unrelated {self.word()}\n" for _ in range(rng.randint(1, 9))
                ).encode()
            )
        elif kind == "binary":
            self.put(rng.randbytes(rng.randint(1, 20_000)))
        elif kind == "utf8 noise":
            alphabet = "ab -#*\n\t\x1b\x07\x7f中文😀\u200b\u2028"
            self.put("".join(rng.choices(alphabet, k=rng.randint(1, 20_000))).encode())
        elif kind == "huge":
            if rng.random() < 0.5:
                self.put(b"no bullet here " * 150_000)  # about 2 MB, read and refused
            else:
                self.put(b"")
                with self.path.open("r+b") as handle:
                    handle.truncate(40 * 1024 * 1024)  # sparse, refused unread
        elif kind == "empty":
            self.put(b"")
        elif kind == "symlink":
            self.put_special(
                "symlink", rng.choice(["/etc/passwd", "/dev/zero", str(other_list)])
            )
        else:
            self.put_special("fifo")


def test_fuzzed_memory_md_never_loses_a_memory_no_edit_removed(
    store_path: Path,
) -> None:
    rng = random.Random(FUZZ_SEED)
    ledger = Ledger()
    stop = threading.Event()
    # The fuzzer's own engine starts first: the folders and MEMORY.md exist.
    engine = MemoryEngine(store_path, SETTINGS)
    engine.init()
    other_list = store_path.parent / "other.md"
    other_list.write_text("## Facts\n\n- From another list\n", encoding="utf-8")
    fuzzer = Fuzzer(engine.mirror.folder, rng)
    thread = threading.Thread(
        target=writer, args=(store_path, ledger, stop, FUZZ_SEED + 1)
    )
    thread.start()
    applied = {"this engine": 0, "a fresh engine": 0, "left to the writer": 0}
    try:
        for _ in range(FUZZ_EDITS):
            fuzzer.one(other_list)
            roll = rng.random()
            if roll < 0.65:
                engine.reconcile_markdown()
                applied["this engine"] += 1
            elif roll < 0.85:
                fresh = MemoryEngine(store_path, SETTINGS)
                fresh.init()
                fresh.close()
                applied["a fresh engine"] += 1
            else:
                applied["left to the writer"] += 1
    finally:
        stop.set()
        thread.join()
    engine.reconcile_markdown()
    engine.flush()

    stored = {m.id: m.content for m in engine.store.get_all()}
    lost = {
        memory_id: content
        for memory_id, content in ledger.contents.items()
        if stored.get(memory_id) != content and one_line(content) not in fuzzer.touched
    }
    # A memory the writer deleted stays deleted (a stale text showing it changes
    # nothing), unless an edit made a copy of it before.
    revived = {
        content
        for content in stored.values()
        if content in ledger.deleted and content not in fuzzer.duplicated
    }
    kept_aside = len(list(engine.mirror.folder.glob("MEMORY.rejected-*.md")))
    engine.close()
    print(
        f"fuzz: {FUZZ_EDITS} contents ({dict(fuzzer.kinds)}), applied by "
        f"{applied}; {kept_aside} kept aside; {ledger.writes} writes; "
        f"{len(ledger.contents)} memories checked, {len(lost)} lost; "
        f"{len(ledger.deleted)} deleted, {len(revived)} back"
    )
    assert lost == {}, {i: (c, stored.get(i)) for i, c in lost.items()}
    assert revived == set()
    assert kept_aside > 0
    # MEMORY.md shows the store again.
    assert sorted(parse_markdown(engine.mirror.path.read_text("utf-8"))) == sorted(
        (m.category, one_line(m.content))
        for m in MemoryEngine(store_path).store.get_all()
    )
