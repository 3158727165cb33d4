"""The options of an entry, turned into engine settings."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from homeassistant.core import HomeAssistant

from .const import (
    CONF_EMBEDDING_API_KEY,
    CONF_EMBEDDING_MODEL,
    CONF_EMBEDDING_URL,
    CONF_EVICTION_THRESHOLD,
    CONF_MAX_CONTENT_LENGTH,
    CONF_MAX_ITEMS,
    CONF_RAG_TOP_N,
    DATA_FOLDER,
)
from .engine import StoreSettings
from .engine.embeddings import EmbeddingConfig
from .engine.models import DEFAULT_MAX_CONTENT_LENGTH
from .engine.paths import STORE_FILE_NAME
from .engine.settings import DEFAULT_MAX_ITEMS, DEFAULT_RETRIEVAL_LIMIT

DEFAULT_OPTIONS: dict[str, Any] = {
    CONF_MAX_ITEMS: DEFAULT_MAX_ITEMS,
    CONF_MAX_CONTENT_LENGTH: DEFAULT_MAX_CONTENT_LENGTH,
    CONF_RAG_TOP_N: DEFAULT_RETRIEVAL_LIMIT,
    CONF_EVICTION_THRESHOLD: 0,
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
