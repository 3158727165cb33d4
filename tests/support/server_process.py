"""`assist-memory serve` as a real process on 127.0.0.1, for tests.

    async with ServerProcess(serve_command(data_dir)) as server:
        ... server.base_url, server.token, server.headers ...

`start()` waits for the line the server prints once it listens (it is started on port
0, so it picks a free port and says which); `stop()` sends SIGTERM and returns the exit
code. The server's log (stderr) goes to a file, shown when it fails to start.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
import os
from pathlib import Path
import re
import signal
import sys
from typing import Self

# The venv's bin folder: the `assist-memory` command (and what the add-on's run script
# finds on PATH).
BIN = Path(sys.executable).parent
ASSIST_MEMORY = str(BIN / "assist-memory")
# Guards against a hang only; nothing is asserted about how long anything takes.
STARTUP_TIMEOUT = 60.0
STOP_TIMEOUT = 60.0
_SERVING = re.compile(r"serving on (http://\S+)")
_TOKEN = re.compile(r"API token \(keep it secret\): (\S+)")
# Variables of the developer's shell that would change what the server does.
_CLEARED = ("SUPERVISOR_TOKEN", "SUPERVISOR_URL", "MEMORY_FILE", "LOG_LEVEL")
_CLEARED_PREFIXES = ("MEMORY_", "LLM_", "EMBEDDING_")


def serve_command(data_dir: Path, *args: str) -> list[str]:
    """`assist-memory serve` on a free port of 127.0.0.1 with its data in data_dir."""
    return [ASSIST_MEMORY, "serve", "--port", "0", "--data-dir", str(data_dir), *args]


def clean_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """This process's environment without our settings, plus `extra`.

    The local embedding model is off unless `extra` turns it on: a few tests use it,
    the others would each load it and embed their memories for nothing.
    """
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in _CLEARED and not name.startswith(_CLEARED_PREFIXES)
    }
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["EMBEDDING_LOCAL"] = "off"
    env.update(extra or {})
    return env


class ServerProcess:
    """One run of the server; start it again with a new ServerProcess."""

    def __init__(
        self,
        command: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        log: Path | None = None,
    ) -> None:
        self.command = list(command)
        self.env = clean_env(env)
        data_dir = Path(self.command[self.command.index("--data-dir") + 1])
        self.data_dir = data_dir
        self.log = log or data_dir.parent / f"{data_dir.name}-server.log"
        self.base_url = ""
        self.printed_token: str | None = None
        self.process: asyncio.subprocess.Process | None = None

    @property
    def token(self) -> str:
        """The token the server keeps in its data folder."""
        return (self.data_dir / "token").read_text(encoding="utf-8").strip()

    @property
    def headers(self) -> dict[str, str]:
        """Headers that authenticate a request."""
        return {"Authorization": f"Bearer {self.token}"}

    def log_text(self) -> str:
        """What the server logged so far."""
        return self.log.read_text(encoding="utf-8") if self.log.exists() else ""

    async def start(self) -> Self:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with self.log.open("ab") as log:
            self.process = await asyncio.create_subprocess_exec(
                *self.command,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=log,
                env=self.env,
            )
        assert self.process.stdout is not None
        async with asyncio.timeout(STARTUP_TIMEOUT):
            while not self.base_url:
                line = (await self.process.stdout.readline()).decode()
                if not line:
                    code = await self.process.wait()
                    raise AssertionError(
                        f"the server exited with {code} before serving:\n"
                        + self.log_text()
                    )
                if match := _TOKEN.search(line):
                    self.printed_token = match.group(1)
                if match := _SERVING.search(line):
                    self.base_url = match.group(1)
        return self

    async def stop(self, signum: int = signal.SIGTERM) -> int:
        """Send the signal and wait for the exit code."""
        assert self.process is not None
        if self.process.returncode is None:
            self.process.send_signal(signum)
        async with asyncio.timeout(STOP_TIMEOUT):
            return await self.process.wait()

    async def __aenter__(self) -> Self:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        if self.process is not None and self.process.returncode is None:
            await self.stop(signal.SIGKILL)
