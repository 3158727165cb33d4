"""Starting the engine loads no HTTP client: most setups never call an LLM endpoint."""

from __future__ import annotations

import json
import subprocess
import sys


def test_the_engine_starts_without_an_http_client() -> None:
    probe = (
        "import json, sys\n"
        "import assist_memory_engine, assist_memory_engine.memory\n"
        "print(json.dumps([m for m in ('aiohttp', 'urllib.request') if m in sys.modules]))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert json.loads(loaded.stdout) == []
