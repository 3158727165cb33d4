"""Long loops that let other threads run: whole-store work beside live requests.

A thread busy in Python keeps the interpreter's lock until another thread has waited
a switch interval (5 ms) for it, and a search takes and gives it back dozens of times
(at every SQLite call). Building MEMORY.md's lines or writing a snapshot of 100 000
memories on a thread of its own would so stall a search for the whole work; giving
the lock away every few hundred items lets it through at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
import time
from typing import Final

ITEMS_PER_TURN: Final = 500


def yielding[T](items: Iterable[T]) -> Iterator[T]:
    """The items, giving the interpreter's lock to other threads every few hundred."""
    for number, item in enumerate(items):
        if number % ITEMS_PER_TURN == ITEMS_PER_TURN - 1:
            time.sleep(0)  # releases the lock; a waiting thread takes it
        yield item
