"""MEMORY.md written on its own thread, a moment after changes: one write for many.

A write renders only the lines that changed (`ShownDocument`), then writes the file
and its base (at 100 000 memories about 40 ms, mostly the disk's). It runs on a
thread of its own, never on the store's worker, started a moment after the first
change of a burst, so the changes of that moment share one write; the pause grows
with the time a write takes (writing takes at most about 3 % of the time). The first
write after a start or a reload builds the lines from every memory (about a second
and a half at 100 000), once. The mirror writes outside the store's locks (see
`MarkdownMirror.flush`).
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
import logging
import time
from typing import Final

from .mirror import MarkdownMirror

_LOGGER = logging.getLogger(__name__)

# The shortest pause between a change and the write; and how many times the last
# write's duration to wait at least (writing then takes at most ~3 % of the time).
MIN_DELAY_SECONDS: Final = 1.0
DELAY_PER_WRITE_SECOND: Final = 30.0


class MarkdownWriter:
    """Keeps MEMORY.md following the store from a thread of its own (used from asyncio)."""

    def __init__(self, mirror: MarkdownMirror) -> None:
        self._mirror = mirror
        self._executor = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="assist_memory_markdown"
        )
        self._timer: asyncio.TimerHandle | None = None
        self._latest: asyncio.Future[None] | None = None
        self._last_duration = 0.0
        self._closed = False

    def schedule(self) -> None:
        """Write MEMORY.md after a pause (call in the event loop after a change)."""
        if self._timer is not None or self._closed:
            return
        delay = max(MIN_DELAY_SECONDS, DELAY_PER_WRITE_SECOND * self._last_duration)
        self._timer = asyncio.get_running_loop().call_later(delay, self._start)

    async def wait(self) -> None:
        """Write now what is due, and return once every write started is done."""
        if self._timer is not None:
            self._timer.cancel()
            self._start()
        if self._latest is not None:
            await self._latest

    async def close(self) -> None:
        """Finish the writes due and stop the thread (the engine's close writes last)."""
        await self.wait()
        self._closed = True
        self._executor.shutdown(wait=True)

    def _start(self) -> None:
        self._timer = None
        # One thread: the writes run one after another, the latest last.
        self._latest = asyncio.get_running_loop().run_in_executor(
            self._executor, self._write
        )

    def _write(self) -> None:
        start = time.monotonic()
        try:
            self._mirror.flush()
        except Exception:
            # Left dirty: the next change (or the engine's close) writes it again.
            _LOGGER.exception("Writing MEMORY.md failed")
        self._last_duration = time.monotonic() - start
