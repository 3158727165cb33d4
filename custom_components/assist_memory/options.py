"""The options of an entry, turned into engine settings."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any

from homeassistant.components.conversation import HOME_ASSISTANT_AGENT
from homeassistant.core import HomeAssistant

from .const import (
    CONF_AGENT_ID,
    CONF_ATOMIC_CONTENT_MAX_LENGTH,
    CONF_COMPACTION_ENABLED,
    CONF_COMPACTION_THRESHOLD,
    CONF_CONTEXT_LIMIT,
    CONF_CONTEXT_SIZE,
    CONF_EMBEDDING_API_KEY,
    CONF_EMBEDDING_MODEL,
    CONF_EMBEDDING_URL,
    CONF_ENABLE_USER_PROFILE,
    CONF_EXTRACT_MIN_INTERVAL,
    CONF_EXTRACT_MIN_MESSAGES,
    CONF_EXTRACTOR_ENTITY,
    CONF_FLUSH_THRESHOLD,
    CONF_MEMORY_BUDGET,
    CONF_RAG_TOP_N,
    CONF_SESSION_SUMMARY_LIMIT,
    DATA_FOLDER,
)
from .engine import LocalBackend, MemoryBackend
from .engine.config import DEFAULT_CONFIG, retention_settings, store_settings
from .engine.embeddings import EmbeddingConfig
from .engine.paths import STORE_FILE_NAME
from .engine.turns import LearnSettings, TurnSettings
from .ha_llm import HassLlmCaller

COMPACTION_TASK_NAME = "Assist Memory: compact the memories"

# The settings of the engine's table (the same as the REST API's).
DEFAULT_OPTIONS: dict[str, Any] = dict(DEFAULT_CONFIG)


def store_path(hass: HomeAssistant) -> Path:
    """The embedded store file: `<config>/data/memories.json` (seed 004's layout)."""
    return Path(hass.config.path(DATA_FOLDER, STORE_FILE_NAME))


def compaction_llm(
    hass: HomeAssistant, options: Mapping[str, Any]
) -> HassLlmCaller | None:
    """The LLM that compacts the memories: the extractor entity, when enabled."""
    entity_id = options.get(CONF_EXTRACTOR_ENTITY)
    if not options.get(CONF_COMPACTION_ENABLED) or not entity_id:
        return None
    return HassLlmCaller(hass, entity_id, COMPACTION_TASK_NAME)


async def async_apply_options(
    hass: HomeAssistant, backend: MemoryBackend, options: Mapping[str, Any]
) -> None:
    """Give the backend the limits, retention and compaction LLM of the options."""
    if not isinstance(backend, LocalBackend):
        # A memory server has its own limits and LLM (the add-on's options).
        return
    merged = {**DEFAULT_OPTIONS, **options}
    await backend.set_settings(store_settings(merged))
    await backend.set_retention(retention_settings(merged))
    backend.set_compaction(
        compaction_llm(hass, merged),
        threshold=int(merged[CONF_COMPACTION_THRESHOLD]),
    )


def embedding_config(options: Mapping[str, Any]) -> EmbeddingConfig | None:
    """The embedding endpoint, when one is set (search is BM25 only otherwise)."""
    url = str(options.get(CONF_EMBEDDING_URL) or "").strip()
    model = str(options.get(CONF_EMBEDDING_MODEL) or "").strip()
    if not url or not model:
        return None
    return EmbeddingConfig(
        url, model, str(options.get(CONF_EMBEDDING_API_KEY) or "") or None
    )


def wrapped_agent_id(options: Mapping[str, Any]) -> str:
    """The agent the memory agent passes turns to (Home Assistant's own by default)."""
    return str(options.get(CONF_AGENT_ID) or HOME_ASSISTANT_AGENT)


def turn_settings(options: Mapping[str, Any]) -> TurnSettings:
    """What the memory agent does each turn (seed 003's options)."""
    merged = {**DEFAULT_OPTIONS, **options}
    return TurnSettings(
        enable_user_profile=bool(merged[CONF_ENABLE_USER_PROFILE]),
        session_summary_limit=int(merged[CONF_SESSION_SUMMARY_LIMIT]),
        memory_budget=int(merged[CONF_MEMORY_BUDGET]),
        rag_top_n=int(merged[CONF_RAG_TOP_N]),
        context_limit=int(merged[CONF_CONTEXT_LIMIT]),
    )


def learn_settings(options: Mapping[str, Any]) -> LearnSettings:
    """When and how the memory agent learns from conversations."""
    merged = {**DEFAULT_OPTIONS, **options}
    return LearnSettings(
        min_interval=timedelta(seconds=int(merged[CONF_EXTRACT_MIN_INTERVAL])),
        min_messages=int(merged[CONF_EXTRACT_MIN_MESSAGES]),
        atomic_content_max_length=int(merged[CONF_ATOMIC_CONTENT_MAX_LENGTH]),
        context_size=int(merged[CONF_CONTEXT_SIZE]),
        flush_threshold=int(merged[CONF_FLUSH_THRESHOLD]) / 100,
    )
