"""The memory server as a real process on 127.0.0.1, for tests.

`MemoryServer(data_dir)` runs `assist_memory_engine.host.server.serve` in a subprocess of
this interpreter; `start` returns once `/health` answers, `stop` sends SIGTERM (the
server flushes and exits) and waits. The port stays the same across restarts, so a
client configured once finds the server again. Blocking: from async code, call
`start`/`stop` in a thread (`asyncio.to_thread`, `hass.async_add_executor_job`).
"""

from __future__ import annotations

import json
from pathlib import Path
import signal
import socket
import subprocess
import sys
import time
from typing import Self
import urllib.request

from custom_components.assist_memory.engine.host.server import TOKEN_FILE

_RUN = """
import asyncio, json, sys
from pathlib import Path
from assist_memory_engine.host.server import LlmEndpoint, ServerOptions, serve
from assist_memory_engine.model.local_model import LocalModel
llm_url, config, local_model = json.loads(sys.argv[3])
llm = LlmEndpoint(llm_url, "stand-in") if llm_url else None
options = ServerOptions(
    Path(sys.argv[1]), "127.0.0.1", int(sys.argv[2]), llm=llm, initial_config=config,
    embeddings=LocalModel() if local_model else None,
)
asyncio.run(serve(options))
"""
# How long a start may take before the test fails (a slow machine, not a measurement).
START_DEADLINE = 60.0


def free_port() -> int:
    """A TCP port nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class MemoryServer:
    """One server process over one data folder."""

    def __init__(
        self,
        data_dir: Path,
        port: int | None = None,
        *,
        llm_url: str | None = None,
        config: dict[str, object] | None = None,
        local_model: bool = False,
    ) -> None:
        """`llm_url`: a chat endpoint for compaction; `config`: settings by key;
        `local_model`: search by meaning with the local embedding model.
        """
        self.data_dir = data_dir
        self.port = port or free_port()
        self._settings = json.dumps([llm_url, config or {}, local_model])
        self.url = f"http://127.0.0.1:{self.port}"
        self._process: subprocess.Popen[bytes] | None = None
        self._log = data_dir.parent / f"{data_dir.name}-server.log"

    @property
    def token(self) -> str:
        """The token the server made at its first start."""
        return (self.data_dir / TOKEN_FILE).read_text(encoding="utf-8").strip()

    def start(self) -> None:
        """Start the process and wait until /health answers."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        with self._log.open("ab") as log:
            self._process = subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    _RUN,
                    str(self.data_dir),
                    str(self.port),
                    self._settings,
                ],
                stdout=log,
                stderr=log,
            )
        deadline = time.monotonic() + START_DEADLINE
        while not self._healthy():
            if self._process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                log_text = self._log.read_text(encoding="utf-8", errors="replace")
                raise RuntimeError(f"the memory server did not start:\n{log_text}")
            time.sleep(0.05)

    def _healthy(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.url}/health", timeout=5) as answer:  # noqa: S310
                return bool(answer.status == 200)
        except OSError:
            return False

    def stop(self) -> None:
        """SIGTERM, then wait for the process to flush and exit."""
        if self._process is None:
            return
        if self._process.poll() is None:
            self._process.send_signal(signal.SIGTERM)
            try:
                self._process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._process = None

    def new_token(self) -> None:
        """Restart with a new token (the old one stops working)."""
        self.stop()
        (self.data_dir / TOKEN_FILE).unlink()
        self.start()

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()
