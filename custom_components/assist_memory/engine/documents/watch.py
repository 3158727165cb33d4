"""Notice when the store's files are changed from outside, and settle after a quiet spell.

Polling a few `stat` calls twice a second costs next to nothing and needs no platform
API. A change is acted on once nothing has changed for `debounce` seconds (by
default 1.5 s), so an editor that saves in several steps causes one reload, not several.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
import contextlib
import logging
from typing import Any, Final

_LOGGER = logging.getLogger(__name__)

# Makes the watcher's task: a host such as Home Assistant tracks its background tasks.
TaskFactory = Callable[[Coroutine[Any, Any, None], str], "asyncio.Task[None]"]


def default_task_factory(
    coro: Coroutine[Any, Any, None], name: str
) -> asyncio.Task[None]:
    """A plain task in the running event loop."""
    return asyncio.get_running_loop().create_task(coro, name=name)


POLL_INTERVAL: Final = 0.5
DEBOUNCE: Final = 1.5


class ChangeWatcher:
    """Calls `on_settled` after outside changes stop for `debounce` seconds."""

    def __init__(
        self,
        changed: Callable[[], Awaitable[object | None]],
        on_settled: Callable[[], Awaitable[None]],
        *,
        interval: float = POLL_INTERVAL,
        debounce: float = DEBOUNCE,
    ) -> None:
        """`changed` returns a token that differs whenever the files differ."""
        self._changed = changed
        self._on_settled = on_settled
        self._interval = interval
        self._debounce = debounce
        self._task: asyncio.Task[None] | None = None

    def start(self, create_task: TaskFactory | None = None) -> None:
        """Start watching (in a task of `create_task`, else of the running loop)."""
        if self._task is None:
            factory = create_task or default_task_factory
            self._task = factory(self._run(), "assist_memory_watch")

    async def stop(self) -> None:
        """Stop watching."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        pending: object | None = None
        quiet_since = 0.0
        while True:
            await asyncio.sleep(self._interval)
            try:
                token = await self._changed()
                if token is None:
                    pending = None
                    continue
                if token != pending:
                    pending, quiet_since = token, loop.time()
                elif loop.time() - quiet_since >= self._debounce:
                    pending = None
                    await self._on_settled()
            except asyncio.CancelledError:
                raise
            except Exception:
                _LOGGER.exception("Reloading the changed memory files failed")
