"""Constants of the Assist Memory integration."""

from __future__ import annotations

import logging
from typing import Final

DOMAIN: Final = "assist_memory"
LOGGER: Final = logging.getLogger(__package__)

CONF_STORAGE: Final = "storage"
STORAGE_EMBEDDED: Final = "embedded"

CONF_MAX_ITEMS: Final = "max_items"
CONF_MAX_CONTENT_LENGTH: Final = "max_content_length"
# Seed 003's name for how many memories a retrieval returns (MEMORY_RETRIEVAL_LIMIT).
CONF_RAG_TOP_N: Final = "rag_top_n"
CONF_EVICTION_THRESHOLD: Final = "eviction_threshold"
# An OpenAI-compatible /v1/embeddings endpoint for hybrid search (optional).
CONF_EMBEDDING_URL: Final = "embedding_url"
CONF_EMBEDDING_MODEL: Final = "embedding_model"
CONF_EMBEDDING_API_KEY: Final = "embedding_api_key"

# Where the embedded store keeps its files, under Home Assistant's config folder.
DATA_FOLDER: Final = "data"
