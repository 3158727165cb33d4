"""Constants of the Assist Memory integration."""

from __future__ import annotations

import logging
from typing import Final

DOMAIN: Final = "assist_memory"
LOGGER: Final = logging.getLogger(__package__)

CONF_STORAGE: Final = "storage"
STORAGE_EMBEDDED: Final = "embedded"
# The memories live in the add-on's (or another) memory server: entry data has the
# server's URL (CONF_URL) and token (CONF_TOKEN).
STORAGE_REMOTE: Final = "remote"

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

# The memory agent (conversation issue).
CONF_AGENT_ID: Final = "agent_id"
CONF_PROMPT_MODE: Final = "prompt_mode"
PROMPT_MODE_SYSTEM: Final = "system"
PROMPT_MODE_PREFIX: Final = "prefix"
CONF_MEMORY_BUDGET: Final = "memory_budget"
CONF_ENABLE_USER_PROFILE: Final = "enable_user_profile"
CONF_SESSION_SUMMARY_LIMIT: Final = "session_summary_limit"
CONF_ENABLE_AGENTIC_SEARCH: Final = "enable_agentic_search"
CONF_AUTO_EXTRACT: Final = "auto_extract"
CONF_EXTRACTOR_ENTITY: Final = "extractor_entity"
CONF_EXTRACT_MIN_INTERVAL: Final = "extract_min_interval"
CONF_EXTRACT_MIN_MESSAGES: Final = "extract_min_messages"
CONF_ATOMIC_CONTENT_MAX_LENGTH: Final = "atomic_content_max_length"
CONF_CONTEXT_SIZE: Final = "context_size"
CONF_FLUSH_THRESHOLD: Final = "flush_threshold"
CONF_CONTEXT_LIMIT: Final = "context_limit"
CONF_LEARN_FROM_OTHER_AGENTS: Final = "learn_from_other_agents"
# Seed 000's "enabled": off, the memory agent passes turns through untouched.
CONF_MEMORY_ENABLED: Final = "memory_enabled"
# Compaction (seed 001) by the LLM chosen as extractor.
CONF_COMPACTION_ENABLED: Final = "compaction_enabled"
CONF_COMPACTION_THRESHOLD: Final = "compaction_threshold"
# How long the conversation log and the daily logs are kept, in days.
CONF_CONVERSATION_RETENTION_DAYS: Final = "conversation_retention_days"
CONF_DAILY_LOG_RETENTION_DAYS: Final = "daily_log_retention_days"

# The config flow's choice to make the memory agent the conversation agent of the
# preferred Assist pipeline; kept in the entry data until the first setup does it.
CONF_PIPELINE_AGENT: Final = "pipeline_agent"
