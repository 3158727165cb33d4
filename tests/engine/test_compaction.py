"""MemoryCompactor, one test per scenario, on a real engine in tmp_path.

The LLM is the one part that cannot run here: `FakeLlm` implements the `LlmCaller`
protocol with a prepared answer, records what it was asked, and can wait on an event
to hold a compaction "running".
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
import json
import logging
from pathlib import Path
from typing import Any

import pytest

from custom_components.assist_memory.engine.documents.markdown import (
    parse_markdown,
    render_markdown,
)
from custom_components.assist_memory.engine.errors import (
    InvalidMemoryError,
    StorageError,
)
from custom_components.assist_memory.engine.language.llm import LlmCaller
from custom_components.assist_memory.engine.memory.compaction import (
    COMPACTION_INSTRUCTIONS,
    BackupInfo,
    CompactionResult,
    MemoryCompactor,
    clean_answer,
)
from custom_components.assist_memory.engine.memory.compaction_preview import (
    CompactionPreview,
    CompactionPreviews,
)
from custom_components.assist_memory.engine.memory.memory_engine import MemoryEngine
from custom_components.assist_memory.engine.storage.models import Memory
from custom_components.assist_memory.engine.storage.settings import StoreSettings
from custom_components.assist_memory.engine.storage.store import MemoryStore

from .conftest import markdown_body, read_snapshot, store_files

# (id, category, content, date last stated)
FACTS = [
    ("m001", "preference", "Anna likes coffee", "2024-01-10"),
    ("m002", "preference", "Anna likes her coffee black", "2024-03-02"),
    ("m003", "fact", "The car is blue", "2023-06-01"),
    ("m004", "fact", "The car is red since it was repainted", "2025-02-01"),
    ("m005", "routine", "Tom walks the dog at seven", "2024-05-05"),
    ("m006", "person", "Tom is Anna's brother", "2024-04-04"),
]
# Merges m001 into m002, drops the outdated m003, keeps the rest word for word.
COMPACTED = """\
## Preferences

- Anna likes her coffee black, every morning

## Facts

- The car is red since it was repainted

## People

- Tom is Anna's brother

## Routines

- Tom walks the dog at seven
"""
T0 = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)


class FakeLlm:
    """Stands in for a cloud LLM: answers a prepared text, records the prompts."""

    def __init__(self, answer: str | Callable[[str], str] | None = COMPACTED) -> None:
        self.answer = answer
        self.calls: list[tuple[str, str]] = []
        self.started = asyncio.Event()
        self.gate: asyncio.Event | None = None
        self.during: Callable[[], object] | None = None
        self.error: Exception | None = None

    async def complete(self, instructions: str, text: str) -> str | None:
        self.calls.append((instructions, text))
        self.started.set()
        if self.gate is not None:
            await self.gate.wait()
        if self.during is not None:
            await asyncio.to_thread(self.during)
        if self.error is not None:
            raise self.error
        if callable(self.answer):
            return self.answer(text)
        return self.answer


class FakeClock:
    """A clock that moves only when told."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now

    def advance(self, delta: timedelta) -> None:
        self.now += delta


@pytest.fixture
def engine(store_path: Path) -> Iterator[MemoryEngine]:
    engine = MemoryEngine(store_path, StoreSettings(max_items=0))
    engine.init()
    try:
        yield engine
    finally:
        engine.close()


@pytest.fixture
def fake_clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def make(engine: MemoryEngine, fake_clock: FakeClock) -> Callable[..., MemoryCompactor]:
    def _make(llm: LlmCaller | None, **kwargs: Any) -> MemoryCompactor:
        return MemoryCompactor(engine, llm, clock=fake_clock, **kwargs)

    return _make


def seed(
    engine: MemoryEngine,
    facts: list[tuple[str, str, str, str]] = FACTS,
    *,
    scope: str = "household",
) -> None:
    """Store facts with chosen ids and dates (an import keeps both)."""
    records = [
        Memory(
            id=memory_id,
            content=content,
            category=category,
            scope=scope,
            created_at=f"{day}T09:00:00+00:00",
            updated_at=f"{day}T09:00:00+00:00",
        ).to_dict()
        for memory_id, category, content, day in facts
    ]
    engine.store.import_({"memories": records}, mode="merge")
    engine.flush()


def add_facts(engine: MemoryEngine, count: int, *, scope: str = "household") -> None:
    for n in range(count):
        engine.store.add(f"household fact number {n}", scope=scope)


def contents(engine: MemoryEngine) -> dict[str, str]:
    return {m.id: m.content for m in engine.store.get_all()}


def memory_md(engine: MemoryEngine) -> bytes:
    path: Path = engine.mirror.path
    return path.read_bytes()


def backup_files(engine: MemoryEngine) -> list[str]:
    folder = engine.store.path.parent / "compactions"
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def without_temp(answer: str) -> Callable[[str], str]:
    """An answer: the facts as shown, minus the lines holding `temp`."""

    def _answer(text: str) -> str:
        return "\n".join(
            line for line in clean_answer(text).splitlines() if "temp" not in line
        )

    return _answer


# -- Compacting memories (the LLM merges facts; guards against losing them) -----------


async def test_successful_compaction(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor], store_path: Path
) -> None:
    """Reads all facts, calls the LLM, writes atomically, rebuilds the index."""
    seed(engine)
    assert [r.memory.id for r in engine.search("blue")] == ["m003"]
    llm = FakeLlm()

    result = await make(llm).compact()

    assert result == CompactionResult(original_count=6, compacted_count=4)
    # Every fact went to the LLM.
    assert len(llm.calls) == 1
    assert all(content in llm.calls[0][1] for _, _, content, _ in FACTS)
    # The store holds the answer's bullets, on disk, in a snapshot written whole.
    assert contents(engine) == {
        "m002": "Anna likes her coffee black, every morning",
        "m004": "The car is red since it was repainted",
        "m005": "Tom walks the dog at seven",
        "m006": "Tom is Anna's brother",
    }
    on_disk = {m["id"]: m["content"] for m in read_snapshot(store_path)["memories"]}
    assert on_disk == contents(engine)
    reopened = MemoryStore(store_path)
    assert {m.id: m.content for m in reopened.get_all()} == contents(engine)
    assert not list(store_path.parent.rglob("*.tmp"))
    # MEMORY.md was written again from the store.
    assert markdown_body(engine.mirror.path) == render_markdown(
        engine.store.get_all(), UTC
    )
    assert "- Anna likes her coffee black, every morning" in memory_md(engine).decode()
    # The index follows: the merged fact is found, the dropped one is not.
    assert [r.memory.id for r in engine.search("morning coffee")] == ["m002"]
    assert engine.search("blue") == []


async def test_compaction_operations_are_asked_for(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor]
) -> None:
    """The LLM is told to merge, drop outdated facts (newer wins) and organise them."""
    seed(engine)
    llm = FakeLlm()

    await make(llm).compact()

    instructions, text = llm.calls[0]
    assert instructions == COMPACTION_INSTRUCTIONS
    assert "Merge duplicate and similar facts" in instructions
    assert "when a newer fact contradicts an older one, keep the newer" in instructions
    assert "Organise the facts by category" in instructions
    for title in ("Preferences", "Facts", "People", "Routines", "Notes"):
        assert f"`## {title}`" in instructions
    # Each fact carries the date it was last stated, so the newer one can win.
    assert "- [2023-06-01] The car is blue" in text
    assert "- [2025-02-01] The car is red since it was repainted" in text
    assert "## Preferences\n\n- [2024-01-10] Anna likes coffee\n" in text


async def test_compaction_result_format(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor]
) -> None:
    """The answer is Markdown: `##` headers give categories, `-` bullets the facts."""
    seed(engine)
    answer = (
        "<think>The car facts conflict; the newer one wins.</think>\n"
        "Here is the compacted memory:\n\n"
        "```markdown\n"
        "# Memory\n\n"
        "## Preferences\n\n"
        "- [2024-03-02] Anna likes her coffee black\n\n"
        "## Facts\n\n"
        "- The car is red since it was repainted\n"
        "- Tom is Anna's brother\n\n"
        "## 日常\n\n"
        "- Tom walks the dog at seven\n"
        "```\n"
    )

    result = await make(FakeLlm(answer)).compact()

    assert result == CompactionResult(6, 4)
    by_id = {m.id: m for m in engine.store.get_all()}
    assert {i: (m.category, m.content) for i, m in by_id.items()} == {
        "m002": ("preference", "Anna likes her coffee black"),
        "m004": ("fact", "The car is red since it was repainted"),
        "m005": ("routine", "Tom walks the dog at seven"),
        "m006": ("fact", "Tom is Anna's brother"),  # moved under another header
    }
    assert "Here is" not in memory_md(engine).decode()


@pytest.mark.parametrize(
    "answer",
    [
        "I could not compact these memories, sorry.",
        "## Facts\n\nThe car is red.\n",
        "- The car is red\n- Anna likes coffee\n",
        "### Facts\n\n- The car is red\n",
        "## Shopping\n\n- The car is red\n",
        "## Facts\n\n* The car is red\n",
        "",
    ],
    ids=["prose", "no-bullet", "no-header", "h3", "unknown-header", "star", "empty"],
)
async def test_compaction_result_validation(
    engine: MemoryEngine,
    make: Callable[..., MemoryCompactor],
    store_path: Path,
    caplog: pytest.LogCaptureFixture,
    answer: str,
) -> None:
    """An answer without a `- ` bullet under a `## Category` is rejected: no change."""
    seed(engine)
    files, markdown = store_files(store_path), memory_md(engine)

    with caplog.at_level(logging.WARNING):
        assert await make(FakeLlm(answer)).compact() is None

    assert "Rejected the LLM's memory compaction" in caplog.text
    assert store_files(store_path) == files
    assert memory_md(engine) == markdown
    assert backup_files(engine) == []


async def test_runaway_guard_rejects_dropping_over_90_percent(
    engine: MemoryEngine,
    make: Callable[..., MemoryCompactor],
    store_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    add_facts(engine, 21)
    files = store_files(store_path)

    with caplog.at_level(logging.WARNING):
        two = "## Facts\n\n- household fact number 1\n- household fact number 2\n"
        assert await make(FakeLlm(two)).compact() is None

    assert "keeps only 2 of 21 facts (the limit is 10%)" in caplog.text
    assert store_files(store_path) == files
    three = two + "- household fact number 3\n"
    assert await make(FakeLlm(three)).compact() == CompactionResult(21, 3)


async def test_runaway_guard_allows_one_fact_from_ten(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor]
) -> None:
    add_facts(engine, 10)

    result = await make(FakeLlm("## Facts\n\n- household facts 0 to 9")).compact()

    assert result == CompactionResult(10, 1)


async def test_answer_with_more_facts_than_given_is_rejected(
    engine: MemoryEngine,
    make: Callable[..., MemoryCompactor],
    store_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    seed(engine)
    files = store_files(store_path)
    invented = COMPACTED + "".join(f"- invented fact {n}\n" for n in range(3))

    with caplog.at_level(logging.WARNING):
        assert await make(FakeLlm(invented)).compact() is None

    assert "it holds 7 facts, more than the 6 given" in caplog.text
    assert store_files(store_path) == files


@pytest.mark.parametrize("problem", ["too-long", "memory-full"])
async def test_answer_the_store_refuses_changes_nothing(
    engine: MemoryEngine,
    make: Callable[..., MemoryCompactor],
    caplog: pytest.LogCaptureFixture,
    problem: str,
) -> None:
    seed(engine)
    llm = FakeLlm()
    if problem == "too-long":
        llm.answer = COMPACTED.replace("every morning", "every morning " + "x" * 2000)
    else:
        # The model rewrites four facts; during the call the cap drops to 2 and those
        # four are deleted: their rewrites must be added back, which does not fit.
        llm.answer = (
            COMPACTED.replace("repainted", "repainted in 2025")
            .replace("at seven", "at seven sharp")
            .replace("Anna's brother", "Anna's big brother")
        )
        rewritten = ("m002", "m004", "m005", "m006")

        def during() -> None:
            for memory_id in rewritten:
                engine.store.delete(memory_id)
            engine.store.set_settings(StoreSettings(max_items=2))

        llm.during = during

    with caplog.at_level(logging.WARNING):
        assert await make(llm).compact() is None

    assert "Rejected the LLM's memory compaction" in caplog.text
    if problem == "memory-full":
        assert "memory is full" in caplog.text
        assert contents(engine) == {
            "m001": "Anna likes coffee",
            "m003": "The car is blue",
        }
    else:
        assert "bullet 'Anna likes her coffee black" in caplog.text
        assert len(contents(engine)) == 6
    assert backup_files(engine) == []


async def test_compaction_statistics(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor]
) -> None:
    """A successful compaction answers CompactionResult(originalCount, compactedCount)."""
    seed(engine)

    result = await make(FakeLlm()).compact()

    assert result is not None
    assert (result.original_count, result.compacted_count) == (6, 4)
    assert result.to_dict() == {"originalCount": 6, "compactedCount": 4}
    assert json.dumps(result.to_dict()) == '{"originalCount": 6, "compactedCount": 4}'


async def test_answer_that_changes_nothing(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor], store_path: Path
) -> None:
    seed(engine)
    files = store_files(store_path)

    result = await make(FakeLlm(clean_answer)).compact()

    assert result == CompactionResult(6, 6)
    assert store_files(store_path) == files
    assert backup_files(engine) == []


async def test_only_household_memories_are_compacted(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor]
) -> None:
    seed(engine)
    seed(engine, [("p001", "fact", "Anna's locker code hint is a bird", "2024-01-01")])
    seed(
        engine,
        [("p002", "preference", "Anna likes coffee", "2024-01-01")],
        scope="user_anna",
    )
    llm = FakeLlm(COMPACTED)

    result = await make(llm).compact()

    assert result == CompactionResult(7, 4)
    assert "user_anna" not in llm.calls[0][1]
    kept = engine.store.get("p002")
    assert kept is not None
    assert (kept.content, kept.scope) == ("Anna likes coffee", "user_anna")


async def test_no_facts_no_call(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor]
) -> None:
    llm = FakeLlm()
    compactor = make(llm)

    assert await compactor.compact() is None

    assert llm.calls == []
    assert await compactor.backups() == []
    assert await compactor.undo() is None


async def test_defaults_use_the_real_clock(engine: MemoryEngine) -> None:
    seed(engine)
    compactor = MemoryCompactor(engine, FakeLlm(), threshold=1)

    assert compactor.should_compact() is True
    assert await compactor.compact() == CompactionResult(6, 4)
    assert compactor.should_compact() is False  # the 5 minute cooldown
    assert compactor.keep == 5


# -- When compaction is due (threshold, cooldown, one at a time, an LLM) ---------------


async def test_should_compact_false_below_threshold(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor]
) -> None:
    add_facts(engine, 29)
    add_facts(engine, 5, scope="user_anna")  # a person's memories are not compacted

    compactor = make(FakeLlm())

    assert compactor.threshold == 30
    assert compactor.fact_count() == 29
    assert compactor.should_compact() is False
    assert make(FakeLlm(), threshold=29).should_compact() is True


async def test_should_compact_true_at_threshold(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor]
) -> None:
    add_facts(engine, 30)

    assert make(FakeLlm()).should_compact() is True
    add_facts(engine, 1)
    assert make(FakeLlm()).should_compact() is True


async def test_should_compact_false_within_cooldown(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor], fake_clock: FakeClock
) -> None:
    add_facts(engine, 31)
    compactor = make(FakeLlm(without_temp("")))
    engine.store.add("temp note")
    assert compactor.should_compact() is True

    assert await compactor.compact() == CompactionResult(32, 31)

    assert compactor.cooldown == timedelta(minutes=5)
    assert compactor.should_compact() is False
    fake_clock.advance(timedelta(minutes=4, seconds=59))
    assert compactor.should_compact() is False
    fake_clock.advance(timedelta(seconds=1))
    assert compactor.should_compact() is True


async def test_cooldown_also_follows_a_failed_attempt(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor], fake_clock: FakeClock
) -> None:
    add_facts(engine, 30)
    compactor = make(FakeLlm(None))

    assert await compactor.compact() is None

    assert compactor.should_compact() is False
    fake_clock.advance(timedelta(minutes=5))
    assert compactor.should_compact() is True


async def test_should_compact_false_while_running(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor]
) -> None:
    add_facts(engine, 30)
    llm = FakeLlm(without_temp(""))
    llm.gate = asyncio.Event()
    compactor = make(llm)

    task = asyncio.create_task(compactor.compact())
    await llm.started.wait()
    assert compactor.is_running is True
    assert compactor.should_compact() is False

    llm.gate.set()
    assert await task == CompactionResult(30, 30)
    assert compactor.is_running is False


async def test_should_compact_false_without_llm(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor]
) -> None:
    add_facts(engine, 30)

    assert make(None).should_compact() is False


# -- Compaction that fails (no LLM, a failed call, a store error): nothing lost ---------


async def test_llm_call_failure(
    engine: MemoryEngine,
    make: Callable[..., MemoryCompactor],
    store_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The LLM answers None: compact() answers None and MEMORY.md stays as it was."""
    seed(engine)
    files, markdown = store_files(store_path), memory_md(engine)
    llm = FakeLlm(None)

    with caplog.at_level(logging.WARNING):
        assert await make(llm).compact() is None

    assert len(llm.calls) == 1
    assert "the LLM gave no answer" in caplog.text
    assert store_files(store_path) == files
    assert memory_md(engine) == markdown
    assert backup_files(engine) == []


async def test_no_llm_configured(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor], store_path: Path
) -> None:
    seed(engine)
    files = store_files(store_path)

    assert await make(None).compact() is None

    assert store_files(store_path) == files


async def test_is_running_mutex(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor]
) -> None:
    """A second compact() while one runs answers None at once (so does undo)."""
    seed(engine)
    llm = FakeLlm()
    llm.gate = asyncio.Event()
    compactor = make(llm)
    first = asyncio.create_task(compactor.compact())
    await llm.started.wait()

    assert await compactor.compact() is None
    assert await compactor.undo() is None
    assert len(llm.calls) == 1

    llm.gate.set()
    assert await first == CompactionResult(6, 4)


async def test_unlock_after_error(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor]
) -> None:
    """An error during a compaction releases the running flag (finally)."""
    seed(engine)
    llm = FakeLlm()
    llm.error = RuntimeError("connection reset")
    compactor = make(llm)

    with pytest.raises(RuntimeError, match="connection reset"):
        await compactor.compact()

    assert compactor.is_running is False
    assert len(contents(engine)) == 6
    llm.error = None
    assert await compactor.compact() == CompactionResult(6, 4)


async def test_unlock_after_storage_error(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor], store_path: Path
) -> None:
    seed(engine)
    (store_path.parent / "compactions").write_text("in the way")
    files = store_files(store_path)
    compactor = make(FakeLlm())

    with pytest.raises(StorageError):
        await compactor.compact()
    with pytest.raises(StorageError):
        await compactor.backups()

    assert compactor.is_running is False
    assert store_files(store_path) == files


# -- Compaction started in the background, and what it logs --------------------------


async def test_fire_and_forget_trigger(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor]
) -> None:
    """The trigger runs as its own task: the idle handler does not wait for it."""
    add_facts(engine, 30)
    engine.store.add("temp reminder")
    llm = FakeLlm(without_temp(""))
    llm.gate = asyncio.Event()
    compactor = make(llm)

    task = asyncio.create_task(compactor.maybe_compact())
    await llm.started.wait()
    assert not task.done()  # the handler went on while the compaction runs

    llm.gate.set()
    assert await task == CompactionResult(31, 30)
    assert await compactor.maybe_compact() is None  # cooldown
    assert len(llm.calls) == 1


async def test_fire_and_forget_skips_when_not_due(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor]
) -> None:
    add_facts(engine, 29)
    llm = FakeLlm()

    assert await make(llm).maybe_compact() is None

    assert llm.calls == []


async def test_compaction_completion_log(
    engine: MemoryEngine,
    make: Callable[..., MemoryCompactor],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A successful compaction logs originalCount and compactedCount."""
    seed(engine)

    with caplog.at_level(logging.INFO):
        assert await make(FakeLlm(), threshold=6).maybe_compact() is not None

    messages = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert "Compacted the memories: 6 facts before, 4 after" in messages


@pytest.mark.parametrize("failure", ["llm-raises", "storage"])
async def test_compaction_failure_log(
    engine: MemoryEngine,
    make: Callable[..., MemoryCompactor],
    store_path: Path,
    caplog: pytest.LogCaptureFixture,
    failure: str,
) -> None:
    """A failed compaction logs an error and never raises to the conversation."""
    seed(engine)
    llm = FakeLlm()
    if failure == "llm-raises":
        llm.error = RuntimeError("boom")
    else:
        (store_path.parent / "compactions").write_text("in the way")
    compactor = make(llm, threshold=6)

    with caplog.at_level(logging.INFO):
        assert await compactor.maybe_compact() is None

    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert [r.getMessage() for r in errors] == ["Memory compaction failed"]
    assert errors[0].exc_info is not None
    assert compactor.is_running is False
    assert len(contents(engine)) == 6


# -- Keeping ids, concurrent changes -------------------------------------------------


async def test_unchanged_bullets_keep_id_and_statistics(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor]
) -> None:
    seed(engine)
    engine.store.record_access(["m004", "m005", "m005", "m006"])
    engine.store.record_access(["m005"])
    before = {m.id: m for m in engine.store.get_all()}

    await make(FakeLlm()).compact()

    after = {m.id: m for m in engine.store.get_all()}
    for memory_id in ("m004", "m005", "m006"):
        assert after[memory_id] == before[memory_id]
    assert after["m005"].access_count == 2
    merged = after["m002"]
    assert merged.created_at == before["m002"].created_at
    assert merged.updated_at != before["m002"].updated_at


async def test_memory_added_during_llm_call_survives(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor]
) -> None:
    seed(engine)
    llm = FakeLlm()
    added: list[Memory] = []
    llm.during = lambda: added.append(
        engine.store.add("Anna's birthday is on 3 May", category="event")
    )

    result = await make(llm).compact()

    assert result == CompactionResult(6, 5)
    assert contents(engine)[added[0].id] == "Anna's birthday is on 3 May"
    assert [r.memory.id for r in engine.search("birthday")] == [added[0].id]
    assert "- Anna's birthday is on 3 May" in memory_md(engine).decode()


async def test_memory_changed_during_llm_call_keeps_its_change(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor]
) -> None:
    seed(engine)
    # The model rewrites m005, deletes m004 and moves m006; all three change meanwhile.
    answer = (
        COMPACTED.replace("at seven", "at seven with Rex")
        .replace("- The car is red since it was repainted\n", "")
        .replace("## People\n\n- Tom is Anna's brother\n", "")
        .replace("## Facts\n", "## Facts\n\n- Tom is Anna's brother\n")
    )
    llm = FakeLlm(answer)

    def during() -> None:
        engine.store.update("m004", "The car is green now")
        engine.store.update("m005", "Tom walks the dog at eight")
        engine.store.update("m006", "Tom is Anna's younger brother")

    llm.during = during

    result = await make(llm).compact()

    assert result == CompactionResult(6, 5)
    now = {m.content: m for m in engine.store.get_all()}
    assert now["The car is green now"].id == "m004"
    assert now["Tom walks the dog at eight"].id == "m005"
    assert now["Tom is Anna's younger brother"].category == "person"
    assert "Tom walks the dog at seven with Rex" in now  # the rewrite, added beside


async def test_memory_deleted_during_llm_call_stays_deleted(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor]
) -> None:
    seed(engine)
    llm = FakeLlm()
    llm.during = lambda: engine.store.delete("m005")

    result = await make(llm).compact()

    assert result == CompactionResult(6, 3)
    assert "m005" not in contents(engine)
    assert "Tom walks the dog" not in memory_md(engine).decode()


async def test_memory_md_edit_pending_is_applied_first(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor]
) -> None:
    seed(engine)
    text = memory_md(engine).decode() + "\n## Events\n\n- Tom's party is on Friday\n"
    engine.mirror.path.write_text(text)
    llm = FakeLlm(COMPACTED + "\n## Events\n\n- Tom's party is on Friday\n")

    result = await make(llm).compact()

    assert "Tom's party is on Friday" in llm.calls[0][1]
    assert result == CompactionResult(7, 5)


# -- Backups and undo --------------------------------------------------------------


async def test_undo_restores_exactly(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor], fake_clock: FakeClock
) -> None:
    seed(engine)
    engine.store.record_access(["m001", "m003", "m005"])
    before = engine.store.export()["memories"]
    compactor = make(FakeLlm())
    await compactor.compact()

    assert await compactor.backups() == [
        BackupInfo(id="20250601T120000000000Z", created_at=T0, count=6)
    ]
    result = await compactor.undo()

    assert result == CompactionResult(original_count=4, compacted_count=6)
    assert engine.store.export()["memories"] == before  # ids, times, access stats
    assert [r.memory.id for r in engine.search("blue")] == ["m003"]
    assert markdown_body(engine.mirror.path) == render_markdown(
        engine.store.get_all(), UTC
    )
    assert await compactor.backups() == []
    assert await compactor.undo() is None


async def test_undo_keeps_what_changed_after_the_compaction(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor]
) -> None:
    seed(engine)
    compactor = make(FakeLlm())
    await compactor.compact()
    later = engine.store.add("The plumber comes on Tuesday", category="event")
    engine.store.record_access(["m005"])
    engine.store.update("m006", "Tom is Anna's older brother")
    engine.store.delete("m004")

    assert await compactor.undo() == CompactionResult(4, 6)

    assert contents(engine) == {
        "m001": "Anna likes coffee",
        "m002": "Anna likes her coffee black",
        "m003": "The car is blue",
        "m005": "Tom walks the dog at seven",
        "m006": "Tom is Anna's older brother",
        later.id: "The plumber comes on Tuesday",
    }
    m005 = engine.store.get("m005")
    assert m005 is not None
    assert m005.access_count == 1


async def test_undo_never_reverts_a_later_change_to_a_fact_it_changed(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor]
) -> None:
    """The compaction rewrote m002; a person changed it again since: that change stays."""
    seed(engine)
    compactor = make(FakeLlm())
    await compactor.compact()
    assert contents(engine)["m002"] == "Anna likes her coffee black, every morning"
    changed = engine.store.update("m002", "Anna drinks tea now")

    assert await compactor.undo() == CompactionResult(4, 6)

    assert engine.store.get("m002") == changed
    assert contents(engine) == {
        "m001": "Anna likes coffee",
        "m002": "Anna drinks tea now",
        "m003": "The car is blue",
        "m004": "The car is red since it was repainted",
        "m005": "Tom walks the dog at seven",
        "m006": "Tom is Anna's brother",
    }


async def test_undo_keeps_a_removed_fact_that_came_back_since(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor]
) -> None:
    seed(engine)
    compactor = make(FakeLlm())
    await compactor.compact()
    assert "m003" not in contents(engine)
    engine.store.import_([{"id": "m003", "content": "The car is green"}])

    await compactor.undo()

    assert contents(engine)["m003"] == "The car is green"
    assert contents(engine)["m001"] == "Anna likes coffee"


async def test_undo_removes_facts_the_compaction_added(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor]
) -> None:
    seed(engine)
    before = engine.store.export()["memories"]
    moved = COMPACTED + "\n## Notes\n\n- Coffee: black, every morning\n"
    compactor = make(
        FakeLlm(moved.replace("- Anna likes her coffee black, every morning\n", ""))
    )
    assert await compactor.compact() == CompactionResult(6, 4)
    assert "Coffee: black, every morning" in contents(engine).values()

    assert await compactor.undo() == CompactionResult(4, 6)

    assert engine.store.export()["memories"] == before


async def test_an_interrupted_compaction_is_not_undone(
    engine: MemoryEngine,
    make: Callable[..., MemoryCompactor],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A crash between the backup and its record: restoring that backup would revert
    (and lose) everything done since, so it is set aside instead."""
    seed(engine)
    document = engine.store.export()
    folder = engine.store.path.parent / "compactions"
    folder.mkdir()
    backup = folder / "20250101T000000000000Z.json"
    backup.write_text(json.dumps(document))
    engine.store.add("added after the backup")
    engine.store.delete("m001")
    before = engine.store.export()["memories"]
    compactor = make(FakeLlm())

    assert await compactor.undo() is None

    assert engine.store.export()["memories"] == before
    assert not backup.exists()
    kept = folder / "20250101T000000000000Z.interrupted.json"
    assert json.loads(kept.read_text()) == document
    assert await compactor.backups() == []
    assert "interrupted" in caplog.text


async def test_only_the_last_five_backups_are_kept(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor], fake_clock: FakeClock
) -> None:
    seed(engine)
    compactor = make(FakeLlm(without_temp("")))
    for round_ in range(7):
        engine.store.add(f"temp {round_}")
        fake_clock.advance(timedelta(minutes=6))
        assert await compactor.compact() == CompactionResult(7, 6)

    backups = await compactor.backups()
    assert [b.created_at for b in backups] == [
        T0 + timedelta(minutes=6 * n) for n in range(7, 2, -1)
    ]
    assert [b.count for b in backups] == [7] * 5
    assert backup_files(engine) == sorted(f"{b.id}.json" for b in backups)


async def test_keep_is_configurable(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor]
) -> None:
    seed(engine)
    compactor = make(FakeLlm(without_temp("")), keep=2)
    for round_ in range(3):
        engine.store.add(f"temp {round_}")
        await compactor.compact()

    assert len(await compactor.backups()) == 2
    with pytest.raises(ValueError, match="keep"):
        make(FakeLlm(), keep=0)


async def test_backups_at_the_same_instant_stay_apart(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor]
) -> None:
    seed(engine)
    compactor = make(FakeLlm(without_temp("")))
    for round_ in range(2):
        engine.store.add(f"temp {round_}")
        await compactor.compact()

    backups = await compactor.backups()
    assert [b.created_at for b in backups] == [T0 + timedelta(microseconds=1), T0]
    # Undo goes newest first.
    await compactor.undo()
    assert "temp 1" in contents(engine).values()
    await compactor.undo()
    # temp 1 came after the first compaction: undoing that one keeps it.
    assert sorted(contents(engine).values())[-2:] == ["temp 0", "temp 1"]
    assert len(contents(engine)) == 8


@pytest.mark.parametrize("content", ["{not json", "[1, 2]"])
async def test_unreadable_backup(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor], content: str
) -> None:
    seed(engine)
    compactor = make(FakeLlm())
    await compactor.compact()
    folder = engine.store.path.parent / "compactions"
    (folder / "20990101T000000000000Z.json").write_text(content)
    (folder / "notes.txt").write_text("not a backup")

    backups = await compactor.backups()

    assert [(b.id, b.count) for b in backups] == [
        ("20990101T000000000000Z", None),
        ("20250601T120000000000Z", 6),
    ]
    with pytest.raises(InvalidMemoryError, match="not a valid backup"):
        await compactor.undo()
    assert len(contents(engine)) == 4


async def test_backup_that_cannot_be_read(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor]
) -> None:
    seed(engine)
    folder = engine.store.path.parent / "compactions"
    (folder / "20990101T000000000000Z.json").mkdir(parents=True)

    with pytest.raises(StorageError, match="cannot read"):
        await make(FakeLlm()).undo()


# -- Running store work off the event loop -------------------------------------------


async def test_store_work_goes_through_the_given_runner(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor]
) -> None:
    """LocalBackend can pass its single worker thread."""
    seed(engine)
    calls: list[str] = []
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="memory") as worker:

        def run[T](func: Callable[[], T]) -> Awaitable[T]:
            calls.append(getattr(func, "__name__", "partial"))
            return asyncio.get_running_loop().run_in_executor(worker, func)

        compactor = make(FakeLlm(), run=run, threshold=6)
        assert await compactor.maybe_compact() == CompactionResult(6, 4)
        assert len(await compactor.backups()) == 1
        assert await compactor.undo() == CompactionResult(4, 6)

    assert calls == [
        "should_compact",
        "_snapshot",
        "partial",
        "_list_backups",
        "_undo",
    ]


def test_clean_answer() -> None:
    answer = "<think>\nhmm\n</think>```md\n## Facts\n- [2025-01-02] A fact\n```\nDone."

    assert clean_answer(answer) == "## Facts\n- A fact"
    assert parse_markdown(clean_answer("## Facts\n  * [2025-01-02] x")) == [
        ("fact", "x")
    ]


# -- Compaction shown before it is applied ------------------------------------------

COMPACTED_CONTENTS = {
    "m002": "Anna likes her coffee black, every morning",
    "m004": "The car is red since it was repainted",
    "m005": "Tom walks the dog at seven",
    "m006": "Tom is Anna's brother",
}


def every_file(folder: Path) -> dict[str, tuple[bytes, int]]:
    """The bytes and modification time of every file below a folder."""
    return {
        str(path.relative_to(folder)): (path.read_bytes(), path.stat().st_mtime_ns)
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.suffix != ".lock"
    }


async def test_a_preview_shows_the_plan_and_writes_nothing(
    engine: MemoryEngine,
    make: Callable[..., MemoryCompactor],
    tmp_path: Path,
) -> None:
    seed(engine)
    # A hand edit of MEMORY.md waiting: a compaction would take it in first.
    text = engine.mirror.path.read_text(encoding="utf-8")
    body, version, end = text.rpartition("\n<!-- assist-memory ")
    engine.mirror.path.write_text(
        f"{body}\n- The garden gate squeaks\n{version}{end}", encoding="utf-8"
    )
    before = every_file(tmp_path)
    llm = FakeLlm()

    preview = await CompactionPreviews(make(llm)).preview()

    assert isinstance(preview, CompactionPreview)
    assert every_file(tmp_path) == before
    assert backup_files(engine) == []
    assert len(llm.calls) == 1
    assert (preview.original_count, preview.compacted_count) == (6, 4)
    answer = preview.to_dict()
    assert {m["content"] for m in answer["removed"]} == {
        "Anna likes coffee",
        "The car is blue",
    }
    assert [
        (m["content"], m["newContent"], m["newCategory"]) for m in answer["rewritten"]
    ] == [
        (
            "Anna likes her coffee black",
            "Anna likes her coffee black, every morning",
            "preference",
        )
    ]
    assert answer["added"] == []
    assert answer["revision"] == preview.revision


async def test_applying_the_preview_reuses_its_plan(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor]
) -> None:
    seed(engine)
    llm = FakeLlm()
    compactor = make(llm)
    previews = CompactionPreviews(compactor)
    preview = await previews.preview()
    assert preview is not None

    result = await previews.apply(preview.revision)

    assert result == CompactionResult(original_count=6, compacted_count=4)
    assert len(llm.calls) == 1  # the LLM was not asked again
    assert contents(engine) == COMPACTED_CONTENTS
    # A compaction like any other: backed up, and undone.
    assert len(backup_files(engine)) == 1
    assert await compactor.undo() is not None
    assert len(contents(engine)) == 6
    # The plan is used once: applying it again makes a fresh preview.
    again = await previews.apply(preview.revision)
    assert isinstance(again, CompactionPreview)
    assert len(contents(engine)) == 6


async def test_memories_changed_since_the_preview_get_a_fresh_one(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor]
) -> None:
    seed(engine)
    llm = FakeLlm()
    previews = CompactionPreviews(make(llm))
    stale = await previews.preview()
    assert stale is not None
    engine.store.update("m005", "Tom walks the dog at eight")
    before = contents(engine)

    fresh = await previews.apply(stale.revision)

    assert isinstance(fresh, CompactionPreview)
    assert fresh.revision != stale.revision
    assert contents(engine) == before  # nothing applied
    assert backup_files(engine) == []
    assert len(llm.calls) == 2  # the fresh plan was asked for once
    applied = await previews.apply(fresh.revision)
    assert isinstance(applied, CompactionResult)
    assert len(llm.calls) == 2


async def test_an_unknown_revision_is_never_applied(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor]
) -> None:
    seed(engine)
    previews = CompactionPreviews(make(FakeLlm()))

    fresh = await previews.apply("not-a-revision")

    assert isinstance(fresh, CompactionPreview)
    assert len(contents(engine)) == 6


async def test_no_preview_without_an_llm_facts_or_answer(
    engine: MemoryEngine, make: Callable[..., MemoryCompactor]
) -> None:
    assert await CompactionPreviews(make(None)).preview() is None
    assert await CompactionPreviews(make(FakeLlm())).preview() is None  # no facts
    seed(engine)
    assert await CompactionPreviews(make(FakeLlm(None))).preview() is None
    assert await CompactionPreviews(make(FakeLlm(None))).apply("x") is None
