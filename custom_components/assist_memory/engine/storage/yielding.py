"""Long loops that let other threads run: whole-store work beside live requests.

A thread busy in Python keeps the interpreter's lock until another thread has waited
a switch interval (5 ms) for it, and a search takes and gives it back dozens of times
(at every SQLite call). Building MEMORY.md's lines or writing a snapshot of 100 000
memories on a thread of its own would so stall a search for the whole work; giving
the lock away every millisecond lets it through at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
import time
from typing import Final

# The lock is given away once this long has passed, or after this many items.
SECONDS_PER_TURN: Final = 0.001
ITEMS_PER_TURN: Final = 500


def yielding[T](items: Iterable[T]) -> Iterator[T]:
    """The items, giving the interpreter's lock to other threads every millisecond.

    `time.sleep(0)` is what gives it: it lets go long enough (tens of microseconds)
    for a waiting thread to take it, where `os.sched_yield` takes it straight back.
    """
    clock = time.perf_counter
    turn_ends = clock() + SECONDS_PER_TURN
    for number, item in enumerate(items, 1):
        if number % ITEMS_PER_TURN == 0 or clock() >= turn_ends:
            time.sleep(0)
            turn_ends = clock() + SECONDS_PER_TURN
        yield item
