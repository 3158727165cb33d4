"""The async API every caller uses: `MemoryBackend`, and `LocalBackend` in this process.

The store is synchronous (files, fsync); `LocalBackend` runs every call on one worker
thread of its own, so calls never block the event loop and changes are serialised.
A remote implementation speaks to the add-on's server with the same protocol.
"""

from __future__ import annotations

import asyncio
import builtins
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
import functools
import logging
from pathlib import Path
from typing import Any, Protocol, TypedDict, Unpack

from .models import Memory
from .prompt import build_prompt_with_memory
from .settings import StoreSettings
from .store import (
    ImportMode,
    ImportResult,
    LoadReport,
    MemoryPage,
    MemoryStore,
    SortOrder,
)

_LOGGER = logging.getLogger(__name__)


class MemoryFields(TypedDict, total=False):
    """Optional fields of a memory given on add or update."""

    category: str
    key: str
    tags: Sequence[str] | str
    confidence: float
    source: str
    scope: str
    session_id: str
    metadata: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class StoreStats:
    """Counts and settings, without any memory content (safe for diagnostics)."""

    count: int
    max_items: int
    max_content_length: int
    last_changed: str | None
    by_category: dict[str, int] = field(default_factory=dict)
    by_source: dict[str, int] = field(default_factory=dict)
    scopes: int = 0


class MemoryBackend(Protocol):
    """What Home Assistant, the server and the CLI need from a memory store."""

    async def add(self, content: str, **fields: Unpack[MemoryFields]) -> Memory:
        """Store a new memory."""

    async def get(self, memory_id: str) -> Memory | None:
        """One memory, or None."""

    async def list(
        self,
        *,
        offset: int = 0,
        limit: int = 50,
        category: str | None = None,
        scope: str | None = None,
        tags: Sequence[str] | str | None = None,
        sort: SortOrder = "newest",
    ) -> MemoryPage:
        """A filtered page of memories."""

    async def update(
        self, memory_id: str, content: str | None = None, **fields: Unpack[MemoryFields]
    ) -> Memory | None:
        """Change fields of a memory; None for an unknown id."""

    async def delete(self, memory_id: str) -> bool:
        """Remove a memory; False for an unknown id."""

    async def clear(self) -> int:
        """Remove every memory; returns how many there were."""

    async def search(
        self, query: str, *, limit: int | None = None
    ) -> builtins.list[Memory]:
        """Memories matching the query."""

    async def build_prompt(
        self, prompt: str, *, query: str | None = None, limit: int | None = None
    ) -> str:
        """The prompt with memories in front (seed 004 format)."""

    async def export(self) -> dict[str, Any]:
        """Every memory as an export document."""

    async def import_(
        self, document: object, *, mode: ImportMode = "merge"
    ) -> ImportResult:
        """Restore an export document."""

    async def stats(self) -> StoreStats:
        """Counts and settings."""

    def add_listener(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call `listener` after every change; returns a function that unsubscribes."""

    async def close(self) -> None:
        """Flush and release everything."""


class LocalBackend:
    """A MemoryStore in this process, used from asyncio."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self._executor = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="assist_memory"
        )
        self._listeners: builtins.list[Callable[[], None]] = []
        self._closed = False

    @classmethod
    async def open(
        cls, path: Path, settings: StoreSettings | None = None
    ) -> tuple[LocalBackend, LoadReport]:
        """Create the backend and load the store off the event loop."""
        backend = cls(MemoryStore(path, settings))
        try:
            report = await backend._run(backend.store.init)
        except BaseException:
            backend._executor.shutdown(wait=True)
            raise
        return backend, report

    async def _run[T](self, func: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self._executor, functools.partial(func, *args, **kwargs)
        )

    async def _change[T](
        self, func: Callable[..., T], /, *args: Any, **kwargs: Any
    ) -> T:
        result = await self._run(func, *args, **kwargs)
        self._notify()
        return result

    def _notify(self) -> None:
        for listener in list(self._listeners):
            try:
                listener()
            except Exception:
                _LOGGER.exception("A memory change listener failed")

    def add_listener(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call `listener` (in the event loop) after every change."""
        self._listeners.append(listener)

        def remove() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return remove

    async def add(self, content: str, **fields: Unpack[MemoryFields]) -> Memory:
        """Store a new memory."""
        return await self._change(self.store.add, content, **fields)

    async def get(self, memory_id: str) -> Memory | None:
        """One memory, or None."""
        return await self._run(self.store.get, memory_id)

    async def list(
        self,
        *,
        offset: int = 0,
        limit: int = 50,
        category: str | None = None,
        scope: str | None = None,
        tags: Sequence[str] | str | None = None,
        sort: SortOrder = "newest",
    ) -> MemoryPage:
        """A filtered page of memories."""
        return await self._run(
            self.store.list,
            offset=offset,
            limit=limit,
            category=category,
            scope=scope,
            tags=tags,
            sort=sort,
        )

    async def update(
        self, memory_id: str, content: str | None = None, **fields: Unpack[MemoryFields]
    ) -> Memory | None:
        """Change fields of a memory; None for an unknown id."""
        return await self._change(self.store.update, memory_id, content, **fields)

    async def delete(self, memory_id: str) -> bool:
        """Remove a memory; False for an unknown id."""
        return await self._change(self.store.delete, memory_id)

    async def clear(self) -> int:
        """Remove every memory."""
        return await self._change(self.store.clear)

    async def search(
        self, query: str, *, limit: int | None = None
    ) -> builtins.list[Memory]:
        """Memories containing the query text."""
        found = await self._run(self.store.search, query)
        return found if limit is None else found[:limit]

    async def build_prompt(
        self, prompt: str, *, query: str | None = None, limit: int | None = None
    ) -> str:
        """The prompt with the matching (or all) memories in front."""

        def compose() -> str:
            memories = self.store.search(query) if query else self.store.get_all()
            if limit is not None:
                memories = memories[:limit]
            return build_prompt_with_memory(memories, prompt)

        return await self._run(compose)

    async def export(self) -> dict[str, Any]:
        """Every memory as an export document."""
        return await self._run(self.store.export)

    async def import_(
        self, document: object, *, mode: ImportMode = "merge"
    ) -> ImportResult:
        """Restore an export document."""
        return await self._change(self.store.import_, document, mode=mode)

    async def stats(self) -> StoreStats:
        """Counts and settings (no content)."""

        def collect() -> StoreStats:
            memories = self.store.get_all()
            return StoreStats(
                count=len(memories),
                max_items=self.store.settings.max_items,
                max_content_length=self.store.settings.max_content_length,
                last_changed=self.store.last_changed,
                by_category=dict(Counter(m.category for m in memories)),
                by_source=dict(Counter(m.source for m in memories)),
                scopes=len({m.scope for m in memories}),
            )

        return await self._run(collect)

    async def set_settings(self, settings: StoreSettings) -> None:
        """Apply new limits."""
        await self._run(self.store.set_settings, settings)

    async def close(self) -> None:
        """Fold the journal into the snapshot and stop the worker thread (once)."""
        if self._closed:
            return
        self._closed = True
        try:
            await self._run(self.store.close)
        finally:
            self._executor.shutdown(wait=True)
