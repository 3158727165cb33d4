"""How long conversations and daily logs are kept, and the run that enforces it.

Conversations (messages and summaries) older than `conversation_days` and the daily
logs of days more than `daily_log_days` ago are deleted, leaving no trace in the
files (see `ConversationLog.prune`); facts held for Review go with the conversations
they were said in. Memories that ended more than `daily_log_days`
ago are forgotten the same way (`forget_ended`). `LocalBackend` runs this at start, when the
settings change and every hour, in Home Assistant and in the memory server alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from ..config import (
    CONVERSATION_RETENTION_DAYS,
    DAILY_LOG_RETENTION_DAYS,
    DEFAULT_CONFIG,
)
from ..documents.daily_log import DailyLog
from ..errors import InvalidMemoryError
from .conversation_log import ConversationLog
from .held_facts import HeldFacts

RETENTION_INTERVAL: Final = timedelta(hours=1)


@dataclass(frozen=True, slots=True)
class RetentionSettings:
    """Days to keep conversations and daily logs (at least one, at most ten years)."""

    conversation_days: int = CONVERSATION_RETENTION_DAYS.default
    daily_log_days: int = DAILY_LOG_RETENTION_DAYS.default

    def __post_init__(self) -> None:
        for name, setting in (
            ("conversation_days", CONVERSATION_RETENTION_DAYS),
            ("daily_log_days", DAILY_LOG_RETENTION_DAYS),
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidMemoryError(
                    "invalid_setting", f"{name} must be a whole number", setting=name
                )
            low, high = setting.minimum, setting.maximum
            if low is not None and high is not None and not low <= value <= high:
                raise InvalidMemoryError(
                    "invalid_setting",
                    f"{name} must be from {low} to {high}",
                    setting=name,
                )

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> RetentionSettings:
        """The days of stored settings (the table's defaults for missing ones)."""
        merged = {**DEFAULT_CONFIG, **options}
        return cls(
            conversation_days=int(merged[CONVERSATION_RETENTION_DAYS.key]),
            daily_log_days=int(merged[DAILY_LOG_RETENTION_DAYS.key]),
        )


@dataclass(frozen=True, slots=True)
class RetentionResult:
    """What a run deleted: messages, daily logs (whole days) and ended memories."""

    messages: int = 0
    daily_logs: int = 0
    held: int = 0
    ended_memories: int = 0


def enforce_retention(
    log: ConversationLog,
    daily_log: DailyLog,
    settings: RetentionSettings,
    now: datetime | None = None,
    held: HeldFacts | None = None,
) -> RetentionResult:
    """Delete what is older than the settings allow (`now`: aware, default now)."""
    moment = now or datetime.now(UTC)
    messages = log.prune(timedelta(days=settings.conversation_days), now=moment)
    held_dropped = 0
    if held is not None:
        held.keep_for = timedelta(days=settings.conversation_days)
        held_dropped = held.prune(moment)
    # Daily logs are named by the local day they were written on.
    today = moment.astimezone().date()
    logs = daily_log.prune(today - timedelta(days=settings.daily_log_days))
    return RetentionResult(messages, logs, held_dropped)
