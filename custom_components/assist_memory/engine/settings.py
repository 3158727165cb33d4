"""Store settings, read from options or the environment."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from .errors import InvalidMemoryError
from .models import DEFAULT_MAX_CONTENT_LENGTH

DEFAULT_MAX_ITEMS: Final = 100
ENV_MAX_ITEMS: Final = "MEMORY_MAX_ITEMS"
ENV_MAX_CONTENT_LENGTH: Final = "MEMORY_MAX_CONTENT_LENGTH"
ENV_EVICTION_THRESHOLD: Final = "MEMORY_EVICTION_THRESHOLD"
ENV_RETRIEVAL_LIMIT: Final = "MEMORY_RETRIEVAL_LIMIT"
DEFAULT_RETRIEVAL_LIMIT: Final = 5


@dataclass(frozen=True, slots=True)
class StoreSettings:
    """Limits the store enforces, and how many memories a retrieval returns.

    `max_items` 0 means no cap (seed 002's policy); the default 100 is seed 004's.
    `eviction_threshold` (seed 002, off by default): instead of refusing new memories,
    keep at most this many by evicting the least confident, least recently used.
    """

    max_items: int = DEFAULT_MAX_ITEMS
    max_content_length: int = DEFAULT_MAX_CONTENT_LENGTH
    eviction_threshold: int = 0
    retrieval_limit: int = DEFAULT_RETRIEVAL_LIMIT

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
    def from_env(cls, env: Mapping[str, str]) -> StoreSettings:
        """Read `MEMORY_MAX_ITEMS` and `MEMORY_MAX_CONTENT_LENGTH` (defaults otherwise)."""
        return cls(
            max_items=_int_from_env(env, ENV_MAX_ITEMS, DEFAULT_MAX_ITEMS),
            max_content_length=_int_from_env(
                env, ENV_MAX_CONTENT_LENGTH, DEFAULT_MAX_CONTENT_LENGTH
            ),
            eviction_threshold=_int_from_env(env, ENV_EVICTION_THRESHOLD, 0),
            retrieval_limit=_int_from_env(
                env, ENV_RETRIEVAL_LIMIT, DEFAULT_RETRIEVAL_LIMIT
            ),
        )


def _int_from_env(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError:
        raise InvalidMemoryError(
            "invalid_setting",
            f"{name} must be a whole number, not {raw!r}",
            setting=name,
        ) from None
