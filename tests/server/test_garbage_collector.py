"""The server keeps the memories it loaded out of the garbage collector's full passes.

A full pass walks every object the process holds; at 100 000 memories that is 60 to
70 ms in which no request is answered. The memories loaded at start live as long as
the process, so the server freezes them (`gc.freeze`) once they are loaded.
"""

from __future__ import annotations

from pathlib import Path
import subprocess
import sys

_PROBE = """
import asyncio, gc, os, signal, sys
from pathlib import Path
from assist_memory_engine.host.server import ServerOptions, serve
from assist_memory_engine.storage.store import MemoryStore

folder = Path(sys.argv[1])
store = MemoryStore(folder / "memories.json")
store.init()
for n in range(50):
    store.add(f"Memory number {n} of the household")
store.close()
before = gc.get_freeze_count()

async def ready(token, port):
    print(before, gc.get_freeze_count(), flush=True)
    os.kill(os.getpid(), signal.SIGTERM)

asyncio.run(serve(ServerOptions(folder, port=0), on_ready=ready))
"""


def test_the_loaded_memories_are_frozen_once_the_server_is_ready(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "data"
    folder.mkdir(mode=0o700)
    ran = subprocess.run(
        [sys.executable, "-c", _PROBE, str(folder)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    before, after = (int(n) for n in ran.stdout.split()[-2:])
    assert before == 0
    # At least the 50 memories (and what loading them made) are frozen.
    assert after >= 50
