"""The memory settings a person may change, each defined once in one table.

A setting has the key it is stored under (`auto_extract`: Home Assistant's entry
options, the server's `config.json`, the add-on's options), the name the REST API and
the web UI use (`autoExtract`), its type and default, its bounds or choices, its unit
and what it does. Everything else derives from this table: the engine's settings
objects (`configure.py`), the REST config and its OpenAPI schema, the server's flags
and `MEMORY_*` environment variables, Home Assistant's options flow and `CONF_*`
constants; a test checks the add-on's options against it.

Endpoints and keys (LLM, embeddings) are not here: they are set where the product is
installed (the options flow, the add-on's options), never through the REST API.
This module imports nothing of the engine but its errors: every other module may use
the defaults.
"""

from __future__ import annotations

from collections.abc import Mapping
import contextlib
from dataclasses import dataclass
from typing import Any, Final

from .errors import MemoryEngineError

PROMPT_MODE_SYSTEM: Final = "system"
PROMPT_MODE_PREFIX: Final = "prefix"
_TRUE: Final = frozenset({"1", "true", "yes", "on"})
_FALSE: Final = frozenset({"0", "false", "no", "off"})


class InvalidConfigError(MemoryEngineError, ValueError):
    """A setting that is unknown, of the wrong type or out of range."""

    code = "invalid_config"


@dataclass(frozen=True, slots=True)
class Setting[T: (bool, int, str)]:
    """One setting: storage key, API name, default, allowed values, unit, meaning."""

    key: str
    name: str
    default: T
    description: str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()
    # What a number counts ("seconds", "days", ...); None for a plain count.
    unit: str | None = None

    @property
    def env_name(self) -> str:
        """Its environment variable (`MEMORY_MAX_ITEMS`)."""
        return f"MEMORY_{self.key.upper()}"

    @property
    def flag(self) -> str:
        """Its command-line flag (`--max-items`)."""
        return "--" + self.key.replace("_", "-")

    def check(self, value: object, source: str | None = None) -> T:
        """The value, when it is allowed; InvalidConfigError otherwise.

        The error names `source` (a variable, a flag, a file's key) when given.
        """
        try:
            return self._checked(value)
        except InvalidConfigError as err:
            if source is None:
                raise
            raise InvalidConfigError(f"{source}: {err.message}", name=source) from None

    def parse(self, raw: str, source: str) -> T:
        """A text value (environment variable, flag), checked; the error names `source`."""
        text = raw.strip()
        value: object = text
        if isinstance(self.default, bool):
            if text.lower() in _TRUE:
                value = True
            elif text.lower() in _FALSE:
                value = False
        elif isinstance(self.default, int):
            with contextlib.suppress(ValueError):
                value = int(text)
        return self.check(value, source)

    def _checked(self, value: object) -> T:
        default: bool | int | str = self.default
        if isinstance(default, bool):
            if not isinstance(value, bool):
                raise InvalidConfigError(
                    f"{self.name} must be true or false", name=self.name
                )
        elif isinstance(default, int):
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
        elif not isinstance(value, str) or value not in self.choices:
            raise InvalidConfigError(
                f"{self.name} must be one of {', '.join(self.choices)}", name=self.name
            )
        return value  # type: ignore[return-value]  # checked against T above

    def json_schema(self) -> dict[str, Any]:
        """The setting in JSON Schema (for the OpenAPI document)."""
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
        schema["description"] = self.description
        if self.unit:
            schema["x-unit"] = self.unit
        return schema


MEMORY_ENABLED: Final = Setting(
    "memory_enabled",
    "enabled",
    True,
    "Memory reaches the conversation agent and is learned from it.",
)
AUTO_EXTRACT: Final = Setting(
    "auto_extract",
    "autoExtract",
    True,
    "Learn facts from each conversation automatically.",
)
FLUSH_THRESHOLD: Final = Setting(
    "flush_threshold",
    "flushThreshold",
    75,
    "How full the agent's context may get before a conversation is learned from, "
    "once, ahead of its compaction.",
    10,
    100,
    unit="percent",
)
CONTEXT_SIZE: Final = Setting(
    "context_size",
    "contextSize",
    8000,
    "The context size of the agent the memory agent wraps.",
    500,
    1_000_000,
    unit="tokens",
)
CONTEXT_LIMIT: Final = Setting(
    "context_limit",
    "contextLimit",
    20,
    "Messages of the rolling conversation window (0: none).",
    0,
    200,
    unit="messages",
)
EXTRACT_MIN_INTERVAL: Final = Setting(
    "extract_min_interval",
    "extractMinInterval",
    60,
    "The shortest time between two learning runs of one conversation.",
    0,
    3600,
    unit="seconds",
)
EXTRACT_MIN_MESSAGES: Final = Setting(
    "extract_min_messages",
    "extractMinMessages",
    4,
    "New messages a conversation needs before it is learned from again.",
    1,
    100,
    unit="messages",
)
ATOMIC_CONTENT_MAX_LENGTH: Final = Setting(
    "atomic_content_max_length",
    "atomicContentMaxLength",
    500,
    "The longest fact learned from a conversation; longer ones are skipped.",
    50,
    2000,
    unit="characters",
)
RAG_TOP_N: Final = Setting(
    "rag_top_n",
    "ragTopN",
    5,
    "How many memories a search returns (also read from MEMORY_RETRIEVAL_LIMIT).",
    1,
    50,
    unit="memories",
)
ENABLE_AGENTIC_SEARCH: Final = Setting(
    "enable_agentic_search",
    "enableAgenticSearch",
    False,
    "Give LLM agents a tool to search the memories themselves.",
)
ENABLE_USER_PROFILE: Final = Setting(
    "enable_user_profile",
    "enableUserProfile",
    True,
    "Keep a profile of each person and give it to the agent.",
)
SESSION_SUMMARY_LIMIT: Final = Setting(
    "session_summary_limit",
    "sessionSummaryLimit",
    3,
    "Summaries of earlier conversations given to the agent.",
    0,
    20,
)
MEMORY_BUDGET: Final = Setting(
    "memory_budget",
    "memoryBudget",
    2500,
    "The longest memory block the agent gets.",
    200,
    20_000,
    unit="characters",
)
PROMPT_MODE: Final = Setting(
    "prompt_mode",
    "promptMode",
    PROMPT_MODE_SYSTEM,
    "Where the memory goes: the system prompt, or in front of the user's words "
    "(for agents that ignore extra system prompts).",
    choices=(PROMPT_MODE_SYSTEM, PROMPT_MODE_PREFIX),
)
MAX_ITEMS: Final = Setting(
    "max_items",
    "maxItems",
    100,
    "The most memories kept (0: no limit).",
    0,
    1_000_000,
    unit="memories",
)
# The longest memory any setting allows: the REST API document's limit.
LONGEST_CONTENT: Final = 100_000
MAX_CONTENT_LENGTH: Final = Setting(
    "max_content_length",
    "maxContentLength",
    2000,
    "The longest memory.",
    1,
    LONGEST_CONTENT,
    unit="characters",
)
EVICTION_THRESHOLD: Final = Setting(
    "eviction_threshold",
    "evictionThreshold",
    0,
    "Instead of refusing new memories when full, keep at most this many by dropping "
    "the least confident, least recently used (0: off).",
    0,
    1_000_000,
    unit="memories",
)
COMPACTION_ENABLED: Final = Setting(
    "compaction_enabled",
    "compactionEnabled",
    False,
    "Let an LLM merge duplicate and drop outdated memories after learning.",
)
COMPACTION_THRESHOLD: Final = Setting(
    "compaction_threshold",
    "compactionThreshold",
    30,
    "Compact from this many memories.",
    2,
    100_000,
    unit="memories",
)
LEARN_FROM_OTHER_AGENTS: Final = Setting(
    "learn_from_other_agents",
    "learnFromOtherAgents",
    False,
    "Also learn from conversations with other agents.",
)
CONVERSATION_RETENTION_DAYS: Final = Setting(
    "conversation_retention_days",
    "conversationRetentionDays",
    30,
    "Days the conversation log (messages and summaries) is kept.",
    1,
    3650,
    unit="days",
)
DAILY_LOG_RETENTION_DAYS: Final = Setting(
    "daily_log_retention_days",
    "dailyLogRetentionDays",
    90,
    "Days the daily logs are kept.",
    1,
    3650,
    unit="days",
)

type AnySetting = Setting[bool] | Setting[int] | Setting[str]

SETTINGS: Final[tuple[AnySetting, ...]] = (
    MEMORY_ENABLED,
    AUTO_EXTRACT,
    FLUSH_THRESHOLD,
    CONTEXT_SIZE,
    CONTEXT_LIMIT,
    EXTRACT_MIN_INTERVAL,
    EXTRACT_MIN_MESSAGES,
    ATOMIC_CONTENT_MAX_LENGTH,
    RAG_TOP_N,
    ENABLE_AGENTIC_SEARCH,
    ENABLE_USER_PROFILE,
    SESSION_SUMMARY_LIMIT,
    MEMORY_BUDGET,
    PROMPT_MODE,
    MAX_ITEMS,
    MAX_CONTENT_LENGTH,
    EVICTION_THRESHOLD,
    COMPACTION_ENABLED,
    COMPACTION_THRESHOLD,
    LEARN_FROM_OTHER_AGENTS,
    CONVERSATION_RETENTION_DAYS,
    DAILY_LOG_RETENTION_DAYS,
)

SETTINGS_BY_NAME: Final[dict[str, AnySetting]] = {s.name: s for s in SETTINGS}
SETTINGS_BY_KEY: Final[dict[str, AnySetting]] = {s.key: s for s in SETTINGS}
DEFAULT_CONFIG: Final[dict[str, bool | int | str]] = {
    setting.key: setting.default for setting in SETTINGS
}
# Older environment variable names, read before the `MEMORY_<KEY>` ones.
ENV_ALIASES: Final = {RAG_TOP_N.key: "MEMORY_RETRIEVAL_LIMIT"}


def config_view(options: Mapping[str, Any]) -> dict[str, Any]:
    """The settings by API name, defaults for missing ones."""
    return {
        setting.name: options.get(setting.key, setting.default) for setting in SETTINGS
    }


def config_changes(changes: object) -> dict[str, bool | int | str]:
    """Validated changes by storage key, from a JSON object of API names.

    Unknown names and bad values raise InvalidConfigError; nothing is half applied.
    """
    if not isinstance(changes, Mapping):
        raise InvalidConfigError("the settings must be a JSON object")
    result: dict[str, bool | int | str] = {}
    for name, value in changes.items():
        setting = SETTINGS_BY_NAME.get(name) if isinstance(name, str) else None
        if setting is None:
            raise InvalidConfigError(f"unknown setting {name!r}", name=name)
        result[setting.key] = setting.check(value)
    return result


def config_from_env(env: Mapping[str, str]) -> dict[str, bool | int | str]:
    """The settings set in the environment (`MEMORY_<KEY>`), by storage key.

    Blank variables are not set; a bad value raises InvalidConfigError naming it.
    """
    values: dict[str, bool | int | str] = {}
    for setting in SETTINGS:
        names = [setting.env_name]
        if alias := ENV_ALIASES.get(setting.key):
            names.insert(0, alias)
        for name in names:
            if raw := env.get(name, "").strip():
                values[setting.key] = setting.parse(raw, name)
    return values
