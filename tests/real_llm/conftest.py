"""The real-LLM tier: Home Assistant's own `ollama` integration on a real small model.

A Qwen2.5 instruct model (GGUF, Q4_K_M) runs in llama.cpp behind the Ollama API
(`tests/support/ollama_llama.py`, a process of its own for the whole run). The tier
runs when `ASSIST_MEMORY_LLM_MODEL` names the model file and `llama_cpp` and `ollama`
import; `script/test-real-llm` installs them and sets it. Otherwise every test here is
skipped, saying why (the default `script/test` does not build llama.cpp).
"""

from __future__ import annotations

from collections.abc import Iterator
import importlib.util
import json
import os
from pathlib import Path
import re
import subprocess
import sys
from typing import Any

import pytest

MODEL_VARIABLE = "ASSIST_MEMORY_LLM_MODEL"
# Where to keep every request and answer of the run (to read after it), if set.
RECORD_VARIABLE = "ASSIST_MEMORY_LLM_RECORD"
MODEL_NAME = "qwen2.5:0.5b"
ROOT = Path(__file__).resolve().parents[2]
_LISTENING = re.compile(r"ollama api on (http://\S+)")


def why_not_here() -> str | None:
    """Why the tier cannot run here, or None."""
    model = os.environ.get(MODEL_VARIABLE)
    if not model or not Path(model).is_file():
        return (
            f"no model: {MODEL_VARIABLE} is unset or not a file (script/test-real-llm)"
        )
    for module in ("llama_cpp", "ollama"):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed (script/test-real-llm installs it)"
    return None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test of this folder real_llm, and skip them when they cannot run."""
    reason = why_not_here()
    for item in items:
        if Path(str(item.fspath)).parent == Path(__file__).parent:
            item.add_marker(pytest.mark.real_llm)
            if reason:
                item.add_marker(pytest.mark.skip(reason=reason))


class OllamaProcess:
    """The Ollama API over the model, as a process; what it was asked is recorded."""

    def __init__(self, record: Path) -> None:
        self.record = record
        self.url = ""
        self._process: subprocess.Popen[str] | None = None

    def start(self) -> None:
        """Start it and wait for the line saying where it listens."""
        self._process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.support.ollama_llama",
                "--model",
                os.environ[MODEL_VARIABLE],
                "--name",
                MODEL_NAME,
                "--record",
                str(self.record),
            ],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        found = _LISTENING.search(line)
        assert found, f"the Ollama API did not start: {line!r}"
        self.url = found.group(1)

    def stop(self) -> None:
        """Stop it."""
        if self._process is not None:
            self._process.terminate()
            self._process.wait(timeout=60)

    def requests(self) -> list[dict[str, Any]]:
        """Every chat request so far with the model's answer, oldest first."""
        if not self.record.exists():
            return []
        return [
            json.loads(line)
            for line in self.record.read_text(encoding="utf-8").splitlines()
        ]


@pytest.fixture(scope="session")
def ollama_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OllamaProcess]:
    """The model behind the Ollama API, for the whole run (it loads once)."""
    kept = os.environ.get(RECORD_VARIABLE)
    record = (
        Path(kept) if kept else tmp_path_factory.mktemp("ollama") / "requests.jsonl"
    )
    record.unlink(missing_ok=True)
    api = OllamaProcess(record)
    api.start()
    try:
        yield api
    finally:
        api.stop()
