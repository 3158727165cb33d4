"""Constants of the Assist Memory integration."""

from __future__ import annotations

import logging
from typing import Final

from .engine import config

DOMAIN: Final = "assist_memory"
LOGGER: Final = logging.getLogger(__package__)
# Dispatched with the speaker's user id (None: a turn without a user) once a turn's
# answer is recorded: the memory manager's conversations follow.
SIGNAL_TURN_RECORDED: Final = f"{DOMAIN}_turn_recorded"

CONF_STORAGE: Final = "storage"
STORAGE_EMBEDDED: Final = "embedded"
# The memories live in the add-on's (or another) memory server: entry data has the
# server's URL (CONF_URL) and token (CONF_TOKEN).
STORAGE_REMOTE: Final = "remote"

# Options of Home Assistant only (not memory settings of the engine's table).
# An OpenAI-compatible /v1/embeddings endpoint for hybrid search (optional).
CONF_EMBEDDING_URL: Final = "embedding_url"
CONF_EMBEDDING_MODEL: Final = "embedding_model"
CONF_EMBEDDING_API_KEY: Final = "embedding_api_key"
# Search by meaning with the local model inside Home Assistant (when no endpoint is set;
# off by default: the add-on runs it, and Home Assistant may lack its package).
CONF_EMBEDDING_LOCAL: Final = "embedding_local"
# The agent the memory agent wraps, and the LLM entity that learns and compacts.
CONF_AGENT_ID: Final = "agent_id"
CONF_EXTRACTOR_ENTITY: Final = "extractor_entity"
# Who may forget the household's memories by voice ("forget the spare key").
CONF_VOICE_FORGET_HOUSEHOLD: Final = "voice_forget_household"
# With an LLM agent: after a turn that taught Assist something, say so in one sentence.
CONF_SAY_LEARNT: Final = "say_learnt"
VOICE_FORGET_ADMINS: Final = "admins"
VOICE_FORGET_ANYONE: Final = "anyone"

# Where the embedded store keeps its files, under Home Assistant's config folder.
DATA_FOLDER: Final = "data"

# The memory settings, by their key in the engine's settings table (`config.py`
# defines each one: type, default, bounds, unit, meaning).
CONF_MAX_ITEMS: Final = config.MAX_ITEMS.key
CONF_MAX_CONTENT_LENGTH: Final = config.MAX_CONTENT_LENGTH.key
CONF_RAG_TOP_N: Final = config.RAG_TOP_N.key
CONF_EVICTION_THRESHOLD: Final = config.EVICTION_THRESHOLD.key
CONF_PROMPT_MODE: Final = config.PROMPT_MODE.key
PROMPT_MODE_SYSTEM: Final = config.PROMPT_MODE_SYSTEM
PROMPT_MODE_PREFIX: Final = config.PROMPT_MODE_PREFIX
CONF_MEMORY_BUDGET: Final = config.MEMORY_BUDGET.key
CONF_ENABLE_USER_PROFILE: Final = config.ENABLE_USER_PROFILE.key
CONF_SESSION_SUMMARY_LIMIT: Final = config.SESSION_SUMMARY_LIMIT.key
CONF_ENABLE_AGENTIC_SEARCH: Final = config.ENABLE_AGENTIC_SEARCH.key
CONF_AUTO_EXTRACT: Final = config.AUTO_EXTRACT.key
CONF_EXTRACT_MIN_INTERVAL: Final = config.EXTRACT_MIN_INTERVAL.key
CONF_EXTRACT_MIN_MESSAGES: Final = config.EXTRACT_MIN_MESSAGES.key
CONF_ATOMIC_CONTENT_MAX_LENGTH: Final = config.ATOMIC_CONTENT_MAX_LENGTH.key
CONF_CONTEXT_SIZE: Final = config.CONTEXT_SIZE.key
CONF_FLUSH_THRESHOLD: Final = config.FLUSH_THRESHOLD.key
CONF_CONTEXT_LIMIT: Final = config.CONTEXT_LIMIT.key
CONF_LEARN_FROM_OTHER_AGENTS: Final = config.LEARN_FROM_OTHER_AGENTS.key
# Off, the memory agent passes turns through untouched.
CONF_MEMORY_ENABLED: Final = config.MEMORY_ENABLED.key
CONF_COMPACTION_ENABLED: Final = config.COMPACTION_ENABLED.key
CONF_COMPACTION_THRESHOLD: Final = config.COMPACTION_THRESHOLD.key
CONF_CONVERSATION_RETENTION_DAYS: Final = config.CONVERSATION_RETENTION_DAYS.key
CONF_DAILY_LOG_RETENTION_DAYS: Final = config.DAILY_LOG_RETENTION_DAYS.key

# The config flow's choice to make the memory agent the conversation agent of the
# preferred Assist pipeline; kept in the entry data until the first setup does it.
CONF_PIPELINE_AGENT: Final = "pipeline_agent"
