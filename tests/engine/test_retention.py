"""Retention: old conversations and daily logs go, by a run both hosts get."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from custom_components.assist_memory.engine import InvalidMemoryError
from custom_components.assist_memory.engine.backend.local import LocalBackend
from custom_components.assist_memory.engine.config import (
    InvalidConfigError,
    config_changes,
)
from custom_components.assist_memory.engine.conversation.conversation_log import (
    ConversationLog,
)
from custom_components.assist_memory.engine.conversation.retention import (
    RetentionResult,
    RetentionSettings,
    enforce_retention,
)
from custom_components.assist_memory.engine.documents.daily_log import DailyLog

NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)


def write_daily_logs(folder: Path, days: list[date]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for day in days:
        (folder / f"{day.isoformat()}.md").write_text(f"# {day}\n\n- 08:00:00 x\n")


def test_enforce_retention_deletes_what_is_older(tmp_path: Path) -> None:
    daily = DailyLog(tmp_path / "daily")
    today = NOW.astimezone().date()
    write_daily_logs(daily.folder, [today - timedelta(days=n) for n in (0, 7, 8, 400)])
    with ConversationLog(tmp_path / "conversations.db") as log:
        for days in (1, 29, 31, 90):
            when = NOW - timedelta(days=days)
            log.append(f"s{days}", "user", f"{days} days ago", when=when)
            log.add_summary(f"s{days}", f"{days} days ago", "", when=when)

        result = enforce_retention(
            log, daily, RetentionSettings(conversation_days=30, daily_log_days=7), NOW
        )

        assert result == RetentionResult(messages=2, daily_logs=2)
        assert [s.session_id for s in log.sessions()] == ["s1", "s29"]
        assert [s.session_id for s in log.recent_summaries(10)] == ["s1", "s29"]
    assert daily.dates() == [(today - timedelta(days=n)).isoformat() for n in (0, 7)]


def test_pruning_daily_logs_without_any(tmp_path: Path) -> None:
    assert DailyLog(tmp_path / "none").prune(date(2026, 1, 1)) == 0


@pytest.mark.parametrize("days", [0, -1, 3651, True, 1.5])
def test_retention_settings_are_checked(days: object) -> None:
    with pytest.raises(InvalidMemoryError):
        RetentionSettings(conversation_days=days)  # type: ignore[arg-type]
    with pytest.raises(InvalidMemoryError):
        RetentionSettings(daily_log_days=days)  # type: ignore[arg-type]


def test_retention_settings_from_the_settings_table() -> None:
    assert RetentionSettings.from_options({}) == RetentionSettings(30, 90)
    changes = config_changes(
        {"conversationRetentionDays": 7, "dailyLogRetentionDays": 1}
    )
    assert RetentionSettings.from_options(changes) == RetentionSettings(7, 1)
    with pytest.raises(InvalidConfigError):
        config_changes({"conversationRetentionDays": 0})


async def test_the_backend_runs_retention_once_told_how_long(tmp_path: Path) -> None:
    store = tmp_path / "memories.json"
    old = datetime.now(UTC) - timedelta(days=20)
    with ConversationLog(tmp_path / "conversations.db") as log:
        log.append("old", "user", "twenty days ago", when=old)
        log.append("new", "user", "just now")

    backend, _ = await LocalBackend.open(store)
    try:
        # No run before the host gives its settings: a default never deletes.
        await backend.wait_for_background_jobs()
        assert (await backend.conversations()).total == 2

        kept = await backend.set_retention(RetentionSettings(conversation_days=30))
        assert kept == RetentionResult()
        assert (await backend.conversations()).total == 2

        pruned = await backend.set_retention(RetentionSettings(conversation_days=10))
        assert pruned == RetentionResult(messages=1)
        page = await backend.conversations()
        assert [c.session_id for c in page.items] == ["new"]
    finally:
        await backend.close()


async def test_a_backend_that_does_not_watch_runs_retention_when_told(
    tmp_path: Path,
) -> None:
    with ConversationLog(tmp_path / "conversations.db") as log:
        log.append("old", "user", "long ago", when=datetime(2020, 1, 1, tzinfo=UTC))
    backend, _ = await LocalBackend.open(tmp_path / "memories.json", watch=False)
    try:
        assert await backend.set_retention(RetentionSettings()) == RetentionResult(
            messages=1
        )
        assert (await backend.conversations()).total == 0
        assert await backend.enforce_retention() == RetentionResult()
    finally:
        await backend.close()
