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

# Where the embedded store keeps its files, under Home Assistant's config folder.
DATA_FOLDER: Final = "data"
