"""Daily logs: append-only, time-stamped Markdown files, one per day, searchable."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest

from custom_components.assist_memory.engine import (
    InvalidMemoryError,
    LocalBackend,
    StorageError,
)
from custom_components.assist_memory.engine.documents.daily_log import (
    MAX_ENTRY_LENGTH,
    DailyLog,
    LogEntry,
    validate_date,
)
from custom_components.assist_memory.engine.memory.memory_engine import MemoryEngine

TAIPEI = timezone(timedelta(hours=8))


def at(day: int, hour: int, minute: int = 0, second: int = 0) -> datetime:
    return datetime(2025, 3, day, hour, minute, second, tzinfo=TAIPEI)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """The daily folder, not created yet."""
    return tmp_path / "prompts" / "memory" / "daily"


@pytest.fixture
def log(folder: Path) -> DailyLog:
    return DailyLog(folder)


def test_append_writes_a_titled_file_with_time_stamped_lines(
    log: DailyLog, folder: Path
) -> None:
    first = log.append("Started the robot vacuum", at(14, 8, 2, 11))
    second = log.append("Guests from Taipei arrive Saturday", at(14, 21, 40, 5))

    assert first == LogEntry("2025-03-14", "08:02:11", "Started the robot vacuum")
    assert second.time == "21:40:05"
    assert (folder / "2025-03-14.md").read_text(encoding="utf-8") == (
        "# 2025-03-14\n"
        "\n"
        "- 08:02:11 Started the robot vacuum\n"
        "- 21:40:05 Guests from Taipei arrive Saturday\n"
    )


def test_append_creates_missing_folders(log: DailyLog, folder: Path) -> None:
    assert not folder.parent.exists()
    log.append("note", at(1, 9))
    assert folder.is_dir()


def test_append_uses_the_wall_time_of_now(log: DailyLog) -> None:
    # 23:30 in Taipei is the 14th there (the 14th at 15:30 UTC; the 15th in Tokyo+3).
    entry = log.append("late", at(14, 23, 30))
    assert (entry.date, entry.time) == ("2025-03-14", "23:30:00")
    naive = log.append("naive", datetime(2025, 3, 15, 0, 5))  # noqa: DTZ001
    assert (naive.date, naive.time) == ("2025-03-15", "00:05:00")
    assert log.dates() == ["2025-03-15", "2025-03-14"]


def test_entries_are_kept_on_one_line(log: DailyLog) -> None:
    entry = log.append("  first line\n\nsecond\tline\r\n ", at(2, 7))
    assert entry.text == "first line second line"
    assert (
        log.read("2025-03-02").splitlines()[-1] == "- 07:00:00 first line second line"
    )


@pytest.mark.parametrize(
    ("entry", "code"),
    [
        ("", "empty_log_entry"),
        (" \n\t ", "empty_log_entry"),
        ("x" * (MAX_ENTRY_LENGTH + 1), "log_entry_too_long"),
        (None, "invalid_log_entry"),
        (42, "invalid_log_entry"),
    ],
)
def test_bad_entries_are_refused_and_nothing_is_written(
    log: DailyLog, folder: Path, entry: object, code: str
) -> None:
    with pytest.raises(InvalidMemoryError) as caught:
        log.append(entry, at(3, 9))  # type: ignore[arg-type]
    assert caught.value.code == code
    assert not folder.exists()


def test_longest_entry_and_nul_characters(log: DailyLog) -> None:
    assert len(log.append("y" * MAX_ENTRY_LENGTH, at(3, 9)).text) == MAX_ENTRY_LENGTH
    assert log.append("a\x00b", at(3, 10)).text == "a b"


def test_append_after_a_torn_last_line_starts_a_new_line(
    log: DailyLog, folder: Path
) -> None:
    log.append("complete", at(4, 9))
    path = folder / "2025-03-04.md"
    with path.open("a", encoding="utf-8") as handle:
        handle.write("- 09:00:01 half writ")  # a crash mid-line
    log.append("next", at(4, 10))
    assert path.read_text(encoding="utf-8").splitlines()[-2:] == [
        "- 09:00:01 half writ",
        "- 10:00:00 next",
    ]


def test_append_to_an_empty_file_writes_the_title(log: DailyLog, folder: Path) -> None:
    folder.mkdir(parents=True)
    (folder / "2025-03-05.md").write_bytes(b"")
    log.append("first", at(5, 6))
    assert log.read("2025-03-05") == "# 2025-03-05\n\n- 06:00:00 first\n"


def test_appends_are_visible_to_another_instance_at_once(
    log: DailyLog, folder: Path
) -> None:
    log.append("durable", at(6, 12))
    assert DailyLog(folder).read(date(2025, 3, 6)).endswith("- 12:00:00 durable\n")


def test_append_into_an_unusable_folder_is_a_storage_error(tmp_path: Path) -> None:
    blocker = tmp_path / "daily"
    blocker.write_text("not a folder", encoding="utf-8")
    with pytest.raises(StorageError):
        DailyLog(blocker).append("x", at(7, 8))
    with pytest.raises(StorageError):
        DailyLog(blocker).dates()


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_full_disk_is_a_storage_error(log: DailyLog, folder: Path) -> None:
    folder.mkdir(parents=True)
    (folder / "2025-03-07.md").symlink_to("/dev/full")
    with pytest.raises(StorageError, match="the disk is full"):
        log.append("x", at(7, 8))


def test_read_unreadable_log_is_a_storage_error(log: DailyLog, folder: Path) -> None:
    (folder / "2025-03-08.md").mkdir(parents=True)
    with pytest.raises(StorageError):
        log.read("2025-03-08")


def test_read_day_without_log_is_empty(log: DailyLog) -> None:
    assert log.read("2025-03-09") == ""
    assert log.dates() == []
    assert log.entries("2025-03-09") == []


@pytest.mark.parametrize(
    "day",
    [
        "2025-13-01",
        "2025-02-30",
        "yesterday",
        "../etc/passwd",
        "2025-3-1",
        20250301,
        None,
    ],
)
def test_bad_dates_are_refused(log: DailyLog, day: object) -> None:
    with pytest.raises(InvalidMemoryError) as caught:
        log.read(day)  # type: ignore[arg-type]
    assert caught.value.code == "invalid_date"
    with pytest.raises(ValueError, match="not a date"):
        validate_date(day)


def test_dates_accepts_date_objects_and_padding() -> None:
    assert validate_date(date(2025, 3, 1)) == "2025-03-01"
    assert validate_date(datetime(2025, 3, 1, 23, 59, tzinfo=TAIPEI)) == "2025-03-01"
    assert validate_date(" 2025-03-01 ") == "2025-03-01"


def test_dates_newest_first_ignoring_other_files(log: DailyLog, folder: Path) -> None:
    for day in (3, 12, 1):
        log.append("x", at(day, 9))
    log.append("x", datetime(2024, 12, 31, 9, tzinfo=TAIPEI))
    (folder / "notes.md").write_text("not a log", encoding="utf-8")
    (folder / ".2025-03-20.md.tmp").write_text("", encoding="utf-8")
    assert log.dates() == ["2025-03-12", "2025-03-03", "2025-03-01", "2024-12-31"]


# -- search ----------------------------------------------------------------------------


@pytest.fixture
def filled(log: DailyLog, folder: Path) -> DailyLog:
    log.append("Walked the dogs in the park", at(1, 8))
    log.append("Bought coffee beans and milk", at(1, 9))
    log.append("今天买了咖啡豆", at(2, 10))
    log.append("The dog walker comes on Fridays", at(3, 11))
    log.append("和朋友去公园散步", at(3, 12))
    with (folder / "2025-03-03.md").open("a", encoding="utf-8") as handle:
        handle.write("- hand written line about the park\n")
        handle.write("A paragraph is not an entry about the park\n")
    return log


def test_search_matches_english_stems(filled: DailyLog) -> None:
    found = filled.search("walking dog")
    # walk + dog (from "Walked the dogs") beats dog alone ("walker" is not "walk").
    assert [e.text for e in found] == [
        "Walked the dogs in the park",
        "The dog walker comes on Fridays",
    ]


def test_search_ties_newest_first(filled: DailyLog) -> None:
    assert [e.text for e in filled.search("parks")] == [
        "hand written line about the park",
        "Walked the dogs in the park",
    ]


def test_search_ranks_by_share_of_keywords_matched(filled: DailyLog) -> None:
    found = filled.search("coffee beans park")
    assert [e.text for e in found][:1] == ["Bought coffee beans and milk"]
    assert {e.text for e in found[1:]} == {
        "Walked the dogs in the park",
        "hand written line about the park",
    }
    hand_written = next(e for e in found if e.time == "")
    assert hand_written.date == "2025-03-03"


def test_search_in_chinese(filled: DailyLog) -> None:
    assert [e.text for e in filled.search("咖啡")] == ["今天买了咖啡豆"]
    assert [e.text for e in filled.search("公园")] == ["和朋友去公园散步"]
    assert filled.search("茶") == []


def test_search_prefix_limit_and_nothing_found(filled: DailyLog) -> None:
    assert [e.text for e in filled.search("coff*")] == ["Bought coffee beans and milk"]
    assert len(filled.search("park", limit=1)) == 1
    assert filled.search("pizza") == []
    assert filled.search("the and of") == []  # stop words only


@pytest.mark.parametrize("query", ["", "   ", None])
def test_search_needs_text(filled: DailyLog, query: object) -> None:
    with pytest.raises(InvalidMemoryError, match="must not be empty"):
        filled.search(query)  # type: ignore[arg-type]


@pytest.mark.parametrize("limit", [0, -1, True, 2.5])
def test_search_limit_must_be_positive(filled: DailyLog, limit: object) -> None:
    with pytest.raises(InvalidMemoryError, match="limit"):
        filled.search("park", limit)  # type: ignore[arg-type]


def test_search_without_logs(log: DailyLog) -> None:
    assert log.search("anything") == []


# -- engine and backend ------------------------------------------------------------------


def test_engine_daily_log_methods(store_path: Path) -> None:
    engine = MemoryEngine(store_path)
    engine.init()
    try:
        daily = store_path.parent / "prompts" / "memory" / "daily"
        assert daily.is_dir()  # created at start
        engine.append_daily_log("Fed the cat", at(10, 7))
        now = engine.append_daily_log("Now, in local time")
        assert now.date in engine.daily_log_dates()
        assert engine.read_daily_log("2025-03-10").endswith("- 07:00:00 Fed the cat\n")
        assert [e.text for e in engine.search_daily_logs("cat")] == ["Fed the cat"]
        assert engine.store.count() == 0  # a log entry is not a memory
    finally:
        engine.close()


async def test_backend_daily_log_methods_do_not_notify(store_path: Path) -> None:
    backend, _ = await LocalBackend.open(store_path, watch=False)
    try:
        calls: list[None] = []
        backend.add_listener(lambda: calls.append(None))
        entry = await backend.append_daily_log("Watered the plants", at(11, 18))
        assert entry == LogEntry("2025-03-11", "18:00:00", "Watered the plants")
        assert await backend.daily_log_dates() == ["2025-03-11"]
        assert "Watered the plants" in await backend.read_daily_log("2025-03-11")
        assert await backend.search_daily_logs("plant", limit=5) == [entry]
        with pytest.raises(InvalidMemoryError):
            await backend.append_daily_log("")
        assert calls == []
    finally:
        await backend.close()
