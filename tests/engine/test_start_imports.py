"""Starting the engine loads no HTTP client: most setups never call an LLM endpoint.

A command-line search loads only what a search needs: a whole process is what a
person waits for, and imports were half of it. The command line searches by words: it
never loads numpy or the modules of search by meaning."""

from __future__ import annotations

import json
from pathlib import Path
import subprocess
import sys


def test_the_engine_starts_without_an_http_client() -> None:
    probe = (
        "import json, sys\n"
        "import assist_memory_engine, assist_memory_engine.memory.memory_engine\n"
        "print(json.dumps([m for m in ('aiohttp', 'urllib.request') if m in sys.modules]))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert json.loads(loaded.stdout) == []


def test_a_search_from_the_command_line_loads_only_what_it_needs(
    tmp_path: Path,
) -> None:
    probe = (
        "import json, sys\n"
        "from assist_memory_engine.host.cli import main\n"
        "data = sys.argv[1]\n"
        "assert main(['--data-dir', data, 'add', 'Likes green tea']) == 0\n"
        "assert main(['--data-dir', data, 'search', 'green tea']) == 0\n"
        "assert main(['--data-dir', data, 'prompt', 'Hi', '--query', 'tea']) == 0\n"
        "heavy = ('aiohttp', 'yarl', 'urllib.request', 'http.client', 'asyncio',\n"
        "  'assist_memory_engine.backend.local', 'assist_memory_engine.memory.compaction',\n"
        "  'assist_memory_engine.language.rule_extraction', 'difflib',\n"
        # Search by meaning is off here: no numpy, no vectors, no model.
        "  'numpy', 'assist_memory_engine.search.vectors',\n"
        "  'assist_memory_engine.search.neighbours', 'assist_memory_engine.model.heads',\n"
        "  'assist_memory_engine.model.local_model', 'importlib.metadata')\n"
        "print(json.dumps([m for m in heavy if m in sys.modules]), file=sys.stderr)"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe, str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(loaded.stderr) == []
    assert "Likes green tea" in loaded.stdout
