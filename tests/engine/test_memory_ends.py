"""Memories that end: learnt with their end, left out of search and prompts once it has
come, shown as ended, then erased like a forgotten memory; files of the first format."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
import json
from pathlib import Path
from typing import Any

from freezegun.api import FrozenDateTimeFactory
import pytest

from custom_components.assist_memory.engine import InvalidMemoryError
from custom_components.assist_memory.engine.backend.local import LocalBackend
from custom_components.assist_memory.engine.conversation.retention import (
    RetentionSettings,
)
from custom_components.assist_memory.engine.conversation.turn_settings import (
    LearnSettings,
)
from custom_components.assist_memory.engine.conversation.turns import ExtractionBatch
from custom_components.assist_memory.engine.documents.markdown import (
    bullet_content,
    memory_line,
)
from custom_components.assist_memory.engine.language.facts import Fact
from custom_components.assist_memory.engine.memory.compaction import (
    _compacted as compacted_memories,
)
from custom_components.assist_memory.engine.storage.models import Memory

from .conftest import store_files

# Saturday 28 November 2026, 19:30 in Shanghai.
SATURDAY = datetime(2026, 11, 28, 11, 30, tzinfo=UTC)
HOME = "Asia/Shanghai"
SETTINGS = LearnSettings(time_zone=HOME)


def batch(text: str, language: str = "en") -> ExtractionBatch:
    return ExtractionBatch("s1", (), (text,), f"user: {text}", language)


async def learn(backend: LocalBackend, *facts: Fact) -> None:
    await backend.learn(
        batch(facts[0].content), list(facts), scope="household", settings=SETTINGS
    )


@pytest.fixture
async def backend(
    tmp_path: Path, freezer: FrozenDateTimeFactory
) -> AsyncIterator[LocalBackend]:
    freezer.move_to(SATURDAY)
    opened, _ = await LocalBackend.open(tmp_path / "memories.json", watch=False)
    yield opened
    await opened.close()


async def test_learning_writes_dates_and_the_end(backend: LocalBackend) -> None:
    await learn(
        backend,
        Fact("The plumber is coming tomorrow at ten", "event"),
        Fact("水管工下周五上午十点来", "event"),
        Fact("The user was born in May", "fact"),
    )

    memories = {m.content: m for m in (await backend.list()).items}
    assert set(memories) == {
        "The plumber is coming on Sunday 29 November at 10:00",
        "水管工12月4日（周五）上午10点来",
        "The user was born in May",
    }
    # The day after the visit ends at midnight in Shanghai (16:00 UTC the day before).
    plumber = memories["The plumber is coming on Sunday 29 November at 10:00"]
    assert plumber.expires_at == "2026-11-30T16:00:00+00:00"
    assert memories["水管工12月4日（周五）上午10点来"].expires_at == (
        "2026-12-05T16:00:00+00:00"
    )
    assert memories["The user was born in May"].expires_at is None


async def test_an_ended_memory_leaves_search_and_prompt_and_shows_as_ended(
    backend: LocalBackend, freezer: FrozenDateTimeFactory
) -> None:
    await learn(backend, Fact("We have guests staying until Sunday", "event"))
    assert [r.memory.content for r in await backend.search("guests")] == [
        "We have guests staying until Sunday 29 November"
    ]

    freezer.move_to(datetime(2026, 11, 29, 16, 0, tzinfo=UTC))  # Monday, 00:00 at home

    assert await backend.search("guests") == []
    assert "guests" not in await backend.build_prompt("hi")
    assert (await backend.list()).total == 0
    ended = await backend.list(ended=True)
    assert [m.content for m in ended.items] == [
        "We have guests staying until Sunday 29 November"
    ]
    assert (await backend.list(ended=None)).total == 1


async def what_a_prompt_gets(backend: LocalBackend, question: str) -> list[str]:
    """Everything built for a model or a person asking: each path that reads memories."""
    return [
        *(r.memory.content for r in await backend.search(question)),
        await backend.build_prompt(question),
        await backend.build_prompt(question, query=question),
        (await backend.begin_turn(session_id="s1", text=question)).memory_block,
        await backend.memory_overview(user_id=None),
        *(m.content for m in (await backend.list()).items),
    ]


# One moment, Saturday 28 November at 12:00 UTC, as other programs write it.
@pytest.mark.parametrize(
    "end",
    [
        "2026-11-28T12:00:00+00:00",
        "20261128T120000+00:00",
        "2026-11-28 12:00:00+00:00",
        "2026-W48-6T12:00:00+00:00",
        "2026-11-28T12:00+00:00",
        "2026-11-28T20:00:00+08:00",
        "2026-11-28T12:00:00.000+00:00",
    ],
)
async def test_an_end_in_any_iso_form_ends_then_and_leaves_every_prompt(
    backend: LocalBackend, freezer: FrozenDateTimeFactory, end: str
) -> None:
    """Ends are kept in one form, whose text is in time order, whatever form came."""
    memory = await backend.add("Aunt May is staying in the attic room", expires_at=end)
    assert memory.expires_at == "2026-11-28T12:00:00+00:00"
    question = "Who is staying in the attic room?"
    assert any(
        "Aunt May" in text for text in await what_a_prompt_gets(backend, question)
    )

    freezer.move_to(datetime(2026, 11, 28, 12, 0, 1, tzinfo=UTC))

    assert not any(
        "Aunt May" in text for text in await what_a_prompt_gets(backend, question)
    )
    assert [m.id for m in (await backend.list(ended=True)).items] == [memory.id]


async def test_saying_a_new_end_moves_it(
    backend: LocalBackend, freezer: FrozenDateTimeFactory
) -> None:
    await learn(backend, Fact("The guests are staying until Sunday", key="guests"))
    await learn(backend, Fact("The guests are staying until Tuesday now", key="guests"))

    (memory,) = (await backend.list()).items
    assert memory.content == "The guests are staying until Tuesday 1 December now"
    assert memory.expires_at == "2026-12-01T16:00:00+00:00"
    freezer.move_to(datetime(2026, 11, 30, 12, 0, tzinfo=UTC))  # Monday
    assert [r.memory.id for r in await backend.search("guests")] == [memory.id]


async def test_the_same_fact_with_another_end_moves_it(
    backend: LocalBackend,
) -> None:
    await learn(backend, Fact("The guests are staying until Sunday", "event"))
    await learn(backend, Fact("The plumber is coming on Friday", "event"))
    await learn(backend, Fact("The guests are staying until Tuesday now", "event"))
    await learn(backend, Fact("客人住到周日", "event"))
    await learn(backend, Fact("客人现在住到周二", "event"))

    memories = {m.content: m.expires_at for m in (await backend.list()).items}
    assert memories == {
        "The guests are staying until Tuesday 1 December now": (
            "2026-12-01T16:00:00+00:00"
        ),
        "The plumber is coming on Friday 4 December": "2026-12-05T16:00:00+00:00",
        "客人现在住到12月1日（周二）": "2026-12-01T16:00:00+00:00",
    }


async def test_an_end_an_llm_gives_wins(backend: LocalBackend) -> None:
    await learn(
        backend,
        Fact("Grandma stays with the user in December", until=SATURDAY.date()),
    )

    (memory,) = (await backend.list()).items
    assert memory.expires_at == "2026-11-28T16:00:00+00:00"


async def test_an_ended_memory_is_erased_after_the_daily_log_retention(
    backend: LocalBackend, freezer: FrozenDateTimeFactory, tmp_path: Path
) -> None:
    await learn(backend, Fact("Tom secretword is off school for a week", "event"))
    kept = await backend.add("The spare key is under the flowerpot")
    await backend.set_retention(RetentionSettings(daily_log_days=7))

    # Ended on Saturday 5 December at home: shown as ended for seven more days.
    freezer.move_to(datetime(2026, 12, 12, 15, 0, tzinfo=UTC))
    assert (await backend.enforce_retention()).ended_memories == 0
    assert (await backend.list(ended=True)).total == 1

    freezer.move_to(datetime(2026, 12, 12, 17, 0, tzinfo=UTC))
    assert (await backend.enforce_retention()).ended_memories == 1

    assert [m.id for m in (await backend.list(ended=None)).items] == [kept.id]
    await backend.close()
    for name, data in store_files(tmp_path / "memories.json").items():
        assert b"secretword" not in data, name


async def test_an_end_is_set_by_hand_and_cleared(backend: LocalBackend) -> None:
    memory = await backend.add("Guests in the spare room", expires_at="2026-12-06")

    assert memory.expires_at == "2026-12-06T00:00:00+00:00"
    cleared = await backend.update(memory.id, expires_at="")
    assert cleared is not None
    assert cleared.expires_at is None
    with pytest.raises(InvalidMemoryError) as raised:
        await backend.add("Bad end", expires_at="next week")
    assert raised.value.code == "invalid_timestamp"


async def test_ends_survive_export_import_and_a_restart(
    backend: LocalBackend, tmp_path: Path
) -> None:
    await backend.add("Guests until Sunday", expires_at="2026-11-29T16:00:00+00:00")
    document = await backend.export()
    await backend.clear()
    await backend.import_(document)
    await backend.close()

    reopened, _ = await LocalBackend.open(tmp_path / "memories.json", watch=False)
    try:
        (memory,) = (await reopened.list()).items
        assert memory.expires_at == "2026-11-29T16:00:00+00:00"
    finally:
        await reopened.close()


async def test_a_file_of_the_first_format_loads_with_no_ends(tmp_path: Path) -> None:
    record: dict[str, Any] = {
        "id": "a1",
        "content": "Likes tea",
        "category": "preference",
        "key": None,
        "tags": [],
        "confidence": 1.0,
        "source": "user_stated",
        "scope": "household",
        "session_id": None,
        "metadata": {},
        "created_at": "2026-01-01T00:00:00+00:00",
        "updated_at": "2026-01-01T00:00:00+00:00",
        "last_accessed": None,
        "access_count": 0,
    }
    path = tmp_path / "memories.json"
    path.write_text(
        json.dumps({"format": "assist_memory", "version": 1, "memories": [record]})
    )

    backend, _ = await LocalBackend.open(path, watch=False)
    try:
        (memory,) = (await backend.list()).items
        assert memory.expires_at is None
        assert (await backend.export())["version"] == 2
    finally:
        await backend.close()


def test_a_memory_line_shows_its_end_and_reads_back_without_it() -> None:
    made = "2026-11-28T11:30:00+00:00"
    memory = Memory(
        "a1", "Guests stay", created_at=made, expires_at="2026-12-07T00:00:00+00:00"
    )
    chinese = Memory(
        "a2", "客人住这里", created_at=made, expires_at="2027-01-03T00:00:00+00:00"
    )

    line = memory_line(memory, UTC)
    assert line.startswith("Guests stay (until ")
    assert bullet_content(line) == "Guests stay"
    assert "2027年" in memory_line(chinese, UTC)
    assert bullet_content(memory_line(chinese, UTC)) == "客人住这里"
    assert memory_line(Memory("a3", "Likes tea"), UTC) == "Likes tea"


def test_an_end_is_read_and_written_once_a_day_has_passed() -> None:
    memory = Memory("a1", "x", expires_at="2026-12-01T00:00:00+00:00")

    assert memory.has_ended("2026-12-01T00:00:00+00:00")
    assert not memory.has_ended("2026-11-30T23:59:59.999999+00:00")
    assert memory.to_dict()["expires_at"] == "2026-12-01T00:00:00+00:00"
    assert not Memory("a2", "y").has_ended(
        (datetime.now(UTC) + timedelta(days=1)).isoformat()
    )


async def test_memory_md_shows_the_end_and_an_edit_elsewhere_keeps_it(
    backend: LocalBackend,
) -> None:
    ending = await backend.add("Guests stay", expires_at="2026-12-06T16:00:00+00:00")
    await backend.add("Likes tea", category="preference")
    await backend.wait_for_background_jobs()

    markdown = await backend.read_markdown()
    assert "- Guests stay (until " in markdown
    await backend.write_markdown(markdown.replace("Likes tea", "Likes green tea"))

    kept = await backend.get(ending.id)
    assert kept is not None
    assert (kept.content, kept.expires_at) == ("Guests stay", ending.expires_at)
    assert {m.content for m in (await backend.list()).items} == {
        "Guests stay",
        "Likes green tea",
    }


@pytest.mark.parametrize(
    ("home", "expires_at", "shown"),
    [
        # 12:30 on the 7th in Auckland (23:30 on the 6th in UTC).
        ("Pacific/Auckland", "2026-12-06T23:30:00+00:00", "until 7 Dec"),
        # The midnight after the 6th in Los Angeles (08:00 on the 7th in UTC).
        ("America/Los_Angeles", "2026-12-07T08:00:00+00:00", "until 6 Dec"),
    ],
)
async def test_memory_md_shows_the_end_in_the_homes_time_zone(
    tmp_path: Path,
    freezer: FrozenDateTimeFactory,
    home: str,
    expires_at: str,
    shown: str,
) -> None:
    """Whatever this computer's zone, the day is the home's; read back, an unchanged
    file changes nothing and an edit elsewhere keeps the end."""
    freezer.move_to(SATURDAY)
    backend, _ = await LocalBackend.open(
        tmp_path / "memories.json", watch=False, time_zone=home
    )
    try:
        ending = await backend.add("Guests stay", expires_at=expires_at)
        await backend.add("Likes tea", category="preference")
        await backend.set_time_zone(home)  # told again: nothing to write again
        await backend.wait_for_background_jobs()

        markdown = await backend.read_markdown()
        assert f"- Guests stay ({shown})\n" in markdown
        assert not (await backend.write_markdown(markdown)).changed
        edited = await backend.write_markdown(
            markdown.replace("Likes tea", "Likes green tea")
        )
        assert (edited.added, edited.updated, edited.removed) == (0, 1, 0)
        kept = await backend.get(ending.id)
        assert kept is not None
        assert (kept.content, kept.expires_at) == ("Guests stay", expires_at)
        assert f"- Guests stay ({shown})\n" in await backend.read_markdown()
    finally:
        await backend.close()


async def test_compaction_leaves_a_memory_that_ends_alone(
    backend: LocalBackend,
) -> None:
    ending = await backend.add("Guests stay", expires_at="2026-12-06T16:00:00+00:00")
    lasting = await backend.add("Likes tea")

    counted = backend.compactor.fact_count()

    assert counted == 2  # counted, as every household memory is
    plan_input = compacted_memories({ending.id: ending, lasting.id: lasting})
    assert list(plan_input) == [lasting.id]
