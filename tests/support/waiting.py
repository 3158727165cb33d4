"""Waiting for something a background task does (a file watch, a flush)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

# Generous: the tests wait for something to happen, they never time it.
PATIENCE = 10.0


async def eventually(
    condition: Callable[[], bool], patience: float = PATIENCE, interval: float = 0.02
) -> None:
    """Wait until `condition` holds (fails after `patience` seconds)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + patience
    while not condition():
        assert loop.time() < deadline, "gave up waiting"
        await asyncio.sleep(interval)
