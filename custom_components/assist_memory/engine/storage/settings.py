"""The store's limits, built from the settings table (options or the environment)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..config import (
    DEFAULT_CONFIG,
    EVICTION_THRESHOLD,
    MAX_CONTENT_LENGTH,
    MAX_ITEMS,
    RAG_TOP_N,
    config_from_env,
)
from ..errors import InvalidMemoryError


@dataclass(frozen=True, slots=True)
class StoreSettings:
    """Limits the store enforces, and how many memories a retrieval returns.

    `max_items` 0 means no cap. `eviction_threshold` (off by default): instead of
    refusing new memories, keep at most this many by evicting the least confident,
    least recently used.
    """

    max_items: int = MAX_ITEMS.default
    max_content_length: int = MAX_CONTENT_LENGTH.default
    eviction_threshold: int = EVICTION_THRESHOLD.default
    retrieval_limit: int = RAG_TOP_N.default

    def __post_init__(self) -> None:
        if self.max_items < 0:
            raise InvalidMemoryError(
                "invalid_setting", "max_items must be >= 0", setting="max_items"
            )
        if self.eviction_threshold < 0:
            raise InvalidMemoryError(
                "invalid_setting",
                "eviction_threshold must be >= 0",
                setting="eviction_threshold",
            )
        if self.retrieval_limit < 1:
            raise InvalidMemoryError(
                "invalid_setting",
                "retrieval_limit must be >= 1",
                setting="retrieval_limit",
            )
        if self.max_content_length < 1:
            raise InvalidMemoryError(
                "invalid_setting",
                "max_content_length must be >= 1",
                setting="max_content_length",
            )

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> StoreSettings:
        """The limits of stored settings (the table's defaults for missing ones)."""
        merged = {**DEFAULT_CONFIG, **options}
        return cls(
            max_items=int(merged[MAX_ITEMS.key]),
            max_content_length=int(merged[MAX_CONTENT_LENGTH.key]),
            eviction_threshold=int(merged[EVICTION_THRESHOLD.key]),
            retrieval_limit=int(merged[RAG_TOP_N.key]),
        )

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> StoreSettings:
        """The limits set in the environment (`MEMORY_MAX_ITEMS`, ...), defaults else."""
        return cls.from_options(config_from_env(env))
