"""The options of an entry, turned into engine settings."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any

from homeassistant.core import HomeAssistant

from .const import (
    CONF_ATOMIC_CONTENT_MAX_LENGTH,
    CONF_AUTO_EXTRACT,
    CONF_CONTEXT_LIMIT,
    CONF_CONTEXT_SIZE,
    CONF_EMBEDDING_API_KEY,
    CONF_EMBEDDING_MODEL,
    CONF_EMBEDDING_URL,
    CONF_ENABLE_AGENTIC_SEARCH,
    CONF_ENABLE_USER_PROFILE,
    CONF_EVICTION_THRESHOLD,
    CONF_EXTRACT_MIN_INTERVAL,
    CONF_EXTRACT_MIN_MESSAGES,
    CONF_EXTRACTOR,
    CONF_FLUSH_THRESHOLD,
    CONF_LEARN_FROM_OTHER_AGENTS,
    CONF_MAX_CONTENT_LENGTH,
    CONF_MAX_ITEMS,
    CONF_MEMORY_BUDGET,
    CONF_PROMPT_MODE,
    CONF_RAG_TOP_N,
    CONF_SESSION_SUMMARY_LIMIT,
    DATA_FOLDER,
    EXTRACTOR_RULES,
    PROMPT_MODE_SYSTEM,
)
from .engine import StoreSettings
from .engine.compose import DEFAULT_BUDGET
from .engine.embeddings import EmbeddingConfig
from .engine.models import DEFAULT_MAX_CONTENT_LENGTH
from .engine.paths import STORE_FILE_NAME
from .engine.settings import DEFAULT_MAX_ITEMS, DEFAULT_RETRIEVAL_LIMIT
from .engine.turns import LearnSettings, TurnSettings

DEFAULT_OPTIONS: dict[str, Any] = {
    CONF_MAX_ITEMS: DEFAULT_MAX_ITEMS,
    CONF_MAX_CONTENT_LENGTH: DEFAULT_MAX_CONTENT_LENGTH,
    CONF_RAG_TOP_N: DEFAULT_RETRIEVAL_LIMIT,
    CONF_EVICTION_THRESHOLD: 0,
    CONF_PROMPT_MODE: PROMPT_MODE_SYSTEM,
    CONF_MEMORY_BUDGET: DEFAULT_BUDGET,
    CONF_ENABLE_USER_PROFILE: True,
    CONF_SESSION_SUMMARY_LIMIT: 3,
    CONF_ENABLE_AGENTIC_SEARCH: False,
    CONF_AUTO_EXTRACT: True,
    CONF_EXTRACTOR: EXTRACTOR_RULES,
    CONF_EXTRACT_MIN_INTERVAL: 60,
    CONF_EXTRACT_MIN_MESSAGES: 4,
    CONF_ATOMIC_CONTENT_MAX_LENGTH: 500,
    CONF_CONTEXT_SIZE: 8000,
    CONF_FLUSH_THRESHOLD: 75,
    CONF_CONTEXT_LIMIT: 20,
    CONF_LEARN_FROM_OTHER_AGENTS: False,
}


def store_path(hass: HomeAssistant) -> Path:
    """The embedded store file: `<config>/data/memories.json` (seed 004's layout)."""
    return Path(hass.config.path(DATA_FOLDER, STORE_FILE_NAME))


def store_settings(options: Mapping[str, Any]) -> StoreSettings:
    """Engine limits from the entry options (defaults for missing ones)."""
    merged = {**DEFAULT_OPTIONS, **options}
    return StoreSettings(
        max_items=int(merged[CONF_MAX_ITEMS]),
        max_content_length=int(merged[CONF_MAX_CONTENT_LENGTH]),
        retrieval_limit=int(merged[CONF_RAG_TOP_N]),
        eviction_threshold=int(merged[CONF_EVICTION_THRESHOLD]),
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


def turn_settings(options: Mapping[str, Any]) -> TurnSettings:
    """What the memory agent does each turn (seed 003's options)."""
    merged = {**DEFAULT_OPTIONS, **options}
    return TurnSettings(
        enable_user_profile=bool(merged[CONF_ENABLE_USER_PROFILE]),
        session_summary_limit=int(merged[CONF_SESSION_SUMMARY_LIMIT]),
        memory_budget=int(merged[CONF_MEMORY_BUDGET]),
        rag_top_n=int(merged[CONF_RAG_TOP_N]),
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
