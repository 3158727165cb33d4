"""Writer process for the crash test: store writes until it is killed.

Usage: python crash_writer.py DATA_DIR SEED

Prints one JSON line before each write ("intent") and one after the store call
returned ("ack"), flushing each, so the test knows which writes were acknowledged
and which single write may have been in flight when SIGKILL arrived. Contents are
named by a digest (see `digest`) to keep the lines short: the pipe never fills up.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
import random
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from assist_memory_engine import MemoryStore

MAX_RECORDS = 120


def digest(content: str) -> str:
    """Short stand-in for a content in the protocol lines."""
    return hashlib.sha256(content.encode()).hexdigest()[:20]


def emit(**fields: Any) -> None:
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()


def open_store(path: Path) -> MemoryStore:
    # The writer process runs the installed engine; the test imports only `digest`.
    from assist_memory_engine import MemoryStore, StoreSettings

    store = MemoryStore(path, StoreSettings(max_items=0, max_content_length=4000))
    store.init()
    return store


def main() -> None:
    path = Path(sys.argv[1]) / "memories.json"
    seed = int(sys.argv[2])
    rng = random.Random(seed)
    store = open_store(path)
    ids = [memory.id for memory in store.get_all()]
    emit(event="ready", count=len(ids))
    step = 0
    while True:
        step += 1
        # Long contents make the journal cross its fold threshold every few dozen
        # writes, so kills also land while the snapshot is being rewritten.
        content = f"{seed}:{step} " + rng.choice("abcdef") * rng.randint(1, 3000)
        roll = rng.random()
        if not ids or (roll < 0.40 and len(ids) < MAX_RECORDS):
            emit(event="intent", op="add", content=digest(content))
            memory = store.add(content)
            ids.append(memory.id)
            emit(event="ack", op="add", id=memory.id, content=digest(content))
        elif roll < 0.62:
            target = rng.choice(ids)
            emit(event="intent", op="update", id=target, content=digest(content))
            store.update(target, content)
            emit(event="ack", op="update", id=target, content=digest(content))
        elif roll < 0.78:
            target = rng.choice(ids)
            emit(event="intent", op="delete", id=target)
            store.delete(target)
            ids.remove(target)
            emit(event="ack", op="delete", id=target)
        elif roll < 0.84:
            chosen = rng.sample(ids, min(len(ids), 3))
            emit(event="intent", op="access", ids=chosen)
            store.record_access(chosen)
            emit(event="ack", op="access", ids=chosen)
        elif roll < 0.90:
            emit(event="intent", op="reopen")
            store.close()
            store = open_store(path)
            emit(event="ack", op="reopen")
        elif roll < 0.99:
            emit(event="intent", op="checkpoint")
            store.checkpoint()
            emit(event="ack", op="checkpoint")
        else:
            emit(event="intent", op="clear")
            store.clear()
            ids.clear()
            emit(event="ack", op="clear")


if __name__ == "__main__":
    main()
