"""Assist Memory's engine: pure Python, no Home Assistant imports.

Importable as `custom_components.assist_memory.engine` inside Home Assistant and as the
installed package `assist_memory_engine` (add-on, CLI, benchmarks). Relative imports only.
"""

import logging

from .backend.local import LocalBackend
from .backend.protocol import (
    CompactionOperations,
    DocumentOperations,
    MemoryBackend,
    MemoryFields,
    MemoryOperations,
    StoreStats,
    TurnOperations,
)
from .config import DEFAULT_CONFIG, SETTINGS, InvalidConfigError
from .conversation.prompt import build_prompt_with_memory
from .errors import (
    InvalidMemoryError,
    MemoryEngineError,
    MemoryFullError,
    MemoryNotFoundError,
    StorageError,
    StoreBusyError,
)
from .language.secrets_filter import REDACTED, contains_secret, mentions_secret, redact
from .memory.compaction import CompactionResult, MemoryCompactor
from .storage.models import CATEGORIES, HOUSEHOLD_SCOPE, SOURCES, Memory
from .storage.paths import resolve_store_path
from .storage.settings import StoreSettings
from .storage.store import ImportResult, MemoryPage, MemoryStore
from .storage.store_files import LoadReport

# A library logs; the application (Home Assistant, the server, the CLI) decides where to.
logging.getLogger(__name__).addHandler(logging.NullHandler())

__all__ = [
    "CATEGORIES",
    "DEFAULT_CONFIG",
    "HOUSEHOLD_SCOPE",
    "REDACTED",
    "SETTINGS",
    "SOURCES",
    "CompactionOperations",
    "CompactionResult",
    "DocumentOperations",
    "ImportResult",
    "InvalidConfigError",
    "InvalidMemoryError",
    "LoadReport",
    "LocalBackend",
    "Memory",
    "MemoryBackend",
    "MemoryCompactor",
    "MemoryEngineError",
    "MemoryFields",
    "MemoryFullError",
    "MemoryNotFoundError",
    "MemoryOperations",
    "MemoryPage",
    "MemoryStore",
    "StorageError",
    "StoreBusyError",
    "StoreSettings",
    "StoreStats",
    "TurnOperations",
    "build_prompt_with_memory",
    "contains_secret",
    "mentions_secret",
    "redact",
    "resolve_store_path",
]
