"""Errors raised by the engine.

Every error carries a stable `code` (used for translations in Home Assistant, JSON
bodies in the REST API and exit messages in the CLI) and `placeholders` for the message.
"""

from __future__ import annotations

from typing import Any, Self


class MemoryEngineError(Exception):
    """Base class of every error the engine raises on purpose."""

    code = "engine_error"

    def __init__(self, message: str, **placeholders: Any) -> None:
        super().__init__(message)
        self.message = message
        self.placeholders: dict[str, str] = {k: str(v) for k, v in placeholders.items()}


class InvalidMemoryError(MemoryEngineError, ValueError):
    """Input that can never be stored: empty content, bad confidence, unknown category."""

    def __init__(self, code: str, message: str, **placeholders: Any) -> None:
        super().__init__(message, **placeholders)
        self.code = code

    @classmethod
    def too_long(cls, code: str, subject: str, length: int, limit: int) -> Self:
        """Text over its limit: "`subject` is N characters, the limit is M"."""
        return cls(
            code,
            f"{subject} is {length} characters, the limit is {limit}",
            length=length,
            max_length=limit,
        )


class DuplicateIdError(InvalidMemoryError):
    """Two records of one document (an import) have the same id."""


class ContentOverLimitError(InvalidMemoryError):
    """Content longer than the store's limit, a setting (`max_content_length`).

    The same content may be stored once the limit is raised: the REST API answers 409
    (a state refuses it), as for a full store; the longest any setting allows is the
    document's limit, and content beyond it is refused as any bad value is.
    """


class MemoryFullError(MemoryEngineError):
    """The store holds `MEMORY_MAX_ITEMS` records and eviction is off."""

    code = "memory_full"

    def __init__(self, max_items: int) -> None:
        super().__init__(f"memory is full ({max_items} items)", max_items=max_items)
        self.max_items = max_items


class MemoryNotFoundError(MemoryEngineError, KeyError):
    """No memory has the given id (raised by callers that need a record)."""

    code = "not_found"

    def __init__(self, memory_id: str) -> None:
        super().__init__(f"no memory with id {memory_id!r}", memory_id=memory_id)
        self.memory_id = memory_id

    def __str__(self) -> str:
        return self.message


class StorageError(MemoryEngineError, OSError):
    """The store could not be read or written (disk full, read-only folder, lock held)."""

    code = "storage_error"

    def __init__(self, message: str, path: object) -> None:
        super().__init__(message, path=path)


class StoreBusyError(StorageError):
    """Another process holds the store's lock for longer than we wait."""

    code = "store_busy"


class BackendUnavailableError(StorageError):
    """The memory server cannot be reached, timed out or failed (remote backend)."""

    code = "server_unavailable"

    def __init__(self, message: str, url: str) -> None:
        MemoryEngineError.__init__(self, message, url=url)


class AuthenticationError(MemoryEngineError):
    """The memory server refused the token (remote backend)."""

    code = "server_unauthorized"

    def __init__(self, url: str) -> None:
        super().__init__(f"the memory server at {url} refused the token", url=url)
