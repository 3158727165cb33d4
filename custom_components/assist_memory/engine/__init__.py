"""Assist Memory's engine: pure Python, no Home Assistant imports.

Importable as `custom_components.assist_memory.engine` inside Home Assistant and as the
installed package `assist_memory_engine` (add-on, CLI, benchmarks). Relative imports only.
The names below are loaded when first used: a command that needs only the store does
not pay for the rest (the hosts, asyncio, the language rules).
"""

from __future__ import annotations

from importlib import import_module
import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
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
    from .language.secrets_filter import (
        REDACTED,
        contains_secret,
        mentions_secret,
        redact,
    )
    from .memory.compaction import CompactionResult, MemoryCompactor
    from .storage.models import CATEGORIES, HOUSEHOLD_SCOPE, SOURCES, Memory
    from .storage.paths import resolve_store_path
    from .storage.settings import StoreSettings
    from .storage.store import ImportResult, MemoryPage, MemoryStore
    from .storage.store_files import LoadReport

# The module of each name (relative to this package).
_MODULES = {
    "CATEGORIES": ".storage.models",
    "CompactionOperations": ".backend.protocol",
    "CompactionResult": ".memory.compaction",
    "DEFAULT_CONFIG": ".config",
    "DocumentOperations": ".backend.protocol",
    "HOUSEHOLD_SCOPE": ".storage.models",
    "ImportResult": ".storage.store",
    "InvalidConfigError": ".config",
    "InvalidMemoryError": ".errors",
    "LoadReport": ".storage.store_files",
    "LocalBackend": ".backend.local",
    "Memory": ".storage.models",
    "MemoryBackend": ".backend.protocol",
    "MemoryCompactor": ".memory.compaction",
    "MemoryEngineError": ".errors",
    "MemoryFields": ".backend.protocol",
    "MemoryFullError": ".errors",
    "MemoryNotFoundError": ".errors",
    "MemoryOperations": ".backend.protocol",
    "MemoryPage": ".storage.store",
    "MemoryStore": ".storage.store",
    "REDACTED": ".language.secrets_filter",
    "SETTINGS": ".config",
    "SOURCES": ".storage.models",
    "StorageError": ".errors",
    "StoreBusyError": ".errors",
    "StoreSettings": ".storage.settings",
    "StoreStats": ".backend.protocol",
    "TurnOperations": ".backend.protocol",
    "build_prompt_with_memory": ".conversation.prompt",
    "contains_secret": ".language.secrets_filter",
    "mentions_secret": ".language.secrets_filter",
    "redact": ".language.secrets_filter",
    "resolve_store_path": ".storage.paths",
}

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


def __getattr__(name: str) -> object:
    """A public name, imported on first use."""
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value
