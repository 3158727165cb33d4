"""The memory settings a person may change (seed 000's config API), in one table.

Each field has the name the REST API and the web UI use (`autoExtract`, seed 000's
spelling) and the key it is stored under (`auto_extract`: Home Assistant's entry
options, the server's `config.json`). Home Assistant's options flow, the REST API and
the server all validate with this table, so a value one accepts the others accept.

Endpoints and keys (LLM, embeddings) are not here: they are set where the product is
installed (the options flow, the add-on's options), never through the REST API.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from .compaction import DEFAULT_THRESHOLD
from .compose import DEFAULT_BUDGET
from .errors import MemoryEngineError
from .models import DEFAULT_MAX_CONTENT_LENGTH
from .retention import (
    DEFAULT_CONVERSATION_DAYS,
    DEFAULT_DAILY_LOG_DAYS,
    MAX_DAYS,
    RetentionSettings,
)
from .settings import DEFAULT_MAX_ITEMS, DEFAULT_RETRIEVAL_LIMIT, StoreSettings

PROMPT_MODE_SYSTEM: Final = "system"
PROMPT_MODE_PREFIX: Final = "prefix"


class InvalidConfigError(MemoryEngineError, ValueError):
    """A setting that is unknown, of the wrong type or out of range."""

    code = "invalid_config"


@dataclass(frozen=True, slots=True)
class ConfigField:
    """One setting: its API name, storage key, type, default and allowed values."""

    name: str
    key: str
    default: bool | int | str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()
    description: str = ""

    def check(self, value: object) -> bool | int | str:
        """The value, when it is allowed; InvalidConfigError otherwise."""
        if isinstance(self.default, bool):
            if not isinstance(value, bool):
                raise InvalidConfigError(
                    f"{self.name} must be true or false", name=self.name
                )
            return value
        if isinstance(self.default, int):
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            if not isinstance(value, int) or isinstance(value, bool):
                raise InvalidConfigError(
                    f"{self.name} must be a whole number", name=self.name
                )
            low = self.minimum if self.minimum is not None else value
            high = self.maximum if self.maximum is not None else value
            if not low <= value <= high:
                raise InvalidConfigError(
                    f"{self.name} must be from {low} to {high}", name=self.name
                )
            return value
        if not isinstance(value, str) or value not in self.choices:
            raise InvalidConfigError(
                f"{self.name} must be one of {', '.join(self.choices)}", name=self.name
            )
        return value

    def json_schema(self) -> dict[str, Any]:
        """The field in JSON Schema (for the OpenAPI document)."""
        schema: dict[str, Any]
        if isinstance(self.default, bool):
            schema = {"type": "boolean"}
        elif isinstance(self.default, int):
            schema = {"type": "integer"}
            if self.minimum is not None:
                schema["minimum"] = self.minimum
            if self.maximum is not None:
                schema["maximum"] = self.maximum
        else:
            schema = {"type": "string", "enum": list(self.choices)}
        schema["default"] = self.default
        if self.description:
            schema["description"] = self.description
        return schema


CONFIG_FIELDS: Final[tuple[ConfigField, ...]] = (
    ConfigField(
        "enabled",
        "memory_enabled",
        True,
        description="Memory reaches the conversation agent and is learned from it.",
    ),
    ConfigField(
        "autoExtract",
        "auto_extract",
        True,
        description="Learn facts from each conversation automatically.",
    ),
    ConfigField(
        "flushThreshold",
        "flush_threshold",
        75,
        10,
        100,
        description="Percent of the context size at which a conversation is "
        "learned from before it is compacted.",
    ),
    ConfigField("contextSize", "context_size", 8000, 500, 1_000_000),
    ConfigField(
        "contextLimit",
        "context_limit",
        20,
        0,
        200,
        description="Messages of the rolling conversation window (0: none).",
    ),
    ConfigField("extractMinInterval", "extract_min_interval", 60, 0, 3600),
    ConfigField("extractMinMessages", "extract_min_messages", 4, 1, 100),
    ConfigField("atomicContentMaxLength", "atomic_content_max_length", 500, 50, 2000),
    ConfigField("ragTopN", "rag_top_n", DEFAULT_RETRIEVAL_LIMIT, 1, 50),
    ConfigField("enableAgenticSearch", "enable_agentic_search", False),
    ConfigField("enableUserProfile", "enable_user_profile", True),
    ConfigField("sessionSummaryLimit", "session_summary_limit", 3, 0, 20),
    ConfigField("memoryBudget", "memory_budget", DEFAULT_BUDGET, 200, 20_000),
    ConfigField(
        "promptMode",
        "prompt_mode",
        PROMPT_MODE_SYSTEM,
        choices=(PROMPT_MODE_SYSTEM, PROMPT_MODE_PREFIX),
    ),
    ConfigField("maxItems", "max_items", DEFAULT_MAX_ITEMS, 0, 1_000_000),
    ConfigField(
        "maxContentLength", "max_content_length", DEFAULT_MAX_CONTENT_LENGTH, 1, 100_000
    ),
    ConfigField("evictionThreshold", "eviction_threshold", 0, 0, 1_000_000),
    ConfigField(
        "compactionEnabled",
        "compaction_enabled",
        False,
        description="Let an LLM compact the memories after extraction (seed 001).",
    ),
    ConfigField(
        "compactionThreshold", "compaction_threshold", DEFAULT_THRESHOLD, 2, 100_000
    ),
    ConfigField("learnFromOtherAgents", "learn_from_other_agents", False),
    ConfigField(
        "conversationRetentionDays",
        "conversation_retention_days",
        DEFAULT_CONVERSATION_DAYS,
        1,
        MAX_DAYS,
        description="Days the conversation log (messages and summaries) is kept.",
    ),
    ConfigField(
        "dailyLogRetentionDays",
        "daily_log_retention_days",
        DEFAULT_DAILY_LOG_DAYS,
        1,
        MAX_DAYS,
        description="Days the daily logs are kept.",
    ),
)

FIELDS_BY_NAME: Final = {field.name: field for field in CONFIG_FIELDS}
FIELDS_BY_KEY: Final = {field.key: field for field in CONFIG_FIELDS}
DEFAULT_CONFIG: Final[dict[str, bool | int | str]] = {
    field.key: field.default for field in CONFIG_FIELDS
}


def config_view(options: Mapping[str, Any]) -> dict[str, Any]:
    """The settings by API name, defaults for missing ones."""
    return {
        field.name: options.get(field.key, field.default) for field in CONFIG_FIELDS
    }


def config_changes(changes: object) -> dict[str, bool | int | str]:
    """Validated changes by storage key, from a JSON object of API names.

    Unknown names and bad values raise InvalidConfigError; nothing is half applied.
    """
    if not isinstance(changes, Mapping):
        raise InvalidConfigError("the settings must be a JSON object")
    result: dict[str, bool | int | str] = {}
    for name, value in changes.items():
        field = FIELDS_BY_NAME.get(name) if isinstance(name, str) else None
        if field is None:
            raise InvalidConfigError(f"unknown setting {name!r}", name=name)
        result[field.key] = field.check(value)
    return result


def store_settings(options: Mapping[str, Any]) -> StoreSettings:
    """The store's limits from stored settings (defaults for missing ones)."""
    merged = {**DEFAULT_CONFIG, **options}
    return StoreSettings(
        max_items=int(merged["max_items"]),
        max_content_length=int(merged["max_content_length"]),
        retrieval_limit=int(merged["rag_top_n"]),
        eviction_threshold=int(merged["eviction_threshold"]),
    )


def retention_settings(options: Mapping[str, Any]) -> RetentionSettings:
    """How long conversations and daily logs are kept, from stored settings."""
    merged = {**DEFAULT_CONFIG, **options}
    return RetentionSettings(
        conversation_days=int(merged["conversation_retention_days"]),
        daily_log_days=int(merged["daily_log_retention_days"]),
    )
