"""The settings of a turn and of learning, read from the stored options."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from ..config import (
    ATOMIC_CONTENT_MAX_LENGTH,
    CONTEXT_LIMIT,
    CONTEXT_SIZE,
    DEFAULT_CONFIG,
    ENABLE_USER_PROFILE,
    EXTRACT_MIN_INTERVAL,
    EXTRACT_MIN_MESSAGES,
    FLUSH_THRESHOLD,
    MEMORY_BUDGET,
    RAG_TOP_N,
    SESSION_SUMMARY_LIMIT,
)


@dataclass(frozen=True, slots=True)
class TurnSettings:
    """What the memory agent gives the agent each turn; changes apply on the next."""

    enable_user_profile: bool = ENABLE_USER_PROFILE.default
    session_summary_limit: int = SESSION_SUMMARY_LIMIT.default
    memory_budget: int = MEMORY_BUDGET.default
    # None: the store's retrieval limit.
    rag_top_n: int | None = None
    # The rolling window: how many of the conversation's last messages, the one being
    # answered included, the agent gets; 0 adds none.
    context_limit: int = CONTEXT_LIMIT.default

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> TurnSettings:
        """What each turn does by stored settings (the table's defaults for missing)."""
        merged = {**DEFAULT_CONFIG, **options}
        return cls(
            enable_user_profile=bool(merged[ENABLE_USER_PROFILE.key]),
            session_summary_limit=int(merged[SESSION_SUMMARY_LIMIT.key]),
            memory_budget=int(merged[MEMORY_BUDGET.key]),
            rag_top_n=int(merged[RAG_TOP_N.key]),
            context_limit=int(merged[CONTEXT_LIMIT.key]),
        )


@dataclass(frozen=True, slots=True)
class LearnSettings:
    """When and how facts are learned from conversations."""

    min_interval: timedelta = timedelta(seconds=EXTRACT_MIN_INTERVAL.default)
    min_messages: int = EXTRACT_MIN_MESSAGES.default
    atomic_content_max_length: int = ATOMIC_CONTENT_MAX_LENGTH.default
    context_size: int = CONTEXT_SIZE.default
    # A fraction of the context size (the setting is in percent).
    flush_threshold: float = FLUSH_THRESHOLD.default / 100
    # The home's time zone (an IANA name): relative dates are read in it. None: this
    # computer's.
    time_zone: str | None = None

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> LearnSettings:
        """When and how to learn by stored settings (the table's defaults for missing)."""
        merged = {**DEFAULT_CONFIG, **options}
        return cls(
            min_interval=timedelta(seconds=int(merged[EXTRACT_MIN_INTERVAL.key])),
            min_messages=int(merged[EXTRACT_MIN_MESSAGES.key]),
            atomic_content_max_length=int(merged[ATOMIC_CONTENT_MAX_LENGTH.key]),
            context_size=int(merged[CONTEXT_SIZE.key]),
            flush_threshold=int(merged[FLUSH_THRESHOLD.key]) / 100,
        )
