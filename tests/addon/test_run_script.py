"""The add-on's run script for real, on a temporary /data-like folder.

A stand-in Supervisor on 127.0.0.1 takes the discovery message, as `http://supervisor`
does in the add-on's container; the script is run with `sh`, as its with-contenv
shebang exists only in the image.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
import socket

import aiohttp

from tests.support.server_process import ServerProcess
from tests.support.supervisor import SupervisorStandIn

RUN_SCRIPT = Path(__file__).resolve().parents[2] / "addon" / "run.sh"


async def test_run_script_serves_the_options_and_announces_itself(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    options_file = data / "options.json"
    options_file.write_text(
        json.dumps(
            {"max_items": 42, "compaction_enabled": False, "log_level": "debug"}
        ),
        encoding="utf-8",
    )
    command = [
        "sh", str(RUN_SCRIPT),
        "--host", "127.0.0.1", "--port", "0",
        "--data-dir", str(data / "memories"), "--options-file", str(options_file),
    ]  # fmt: skip

    async with SupervisorStandIn() as supervisor:
        env = {"SUPERVISOR_TOKEN": "supervisor-token", "SUPERVISOR_URL": supervisor.url}
        async with ServerProcess(command, env=env) as server:
            async with asyncio.timeout(60):  # a hang guard, not a measurement
                await supervisor.received.wait()

            assert supervisor.authorizations == ["Bearer supervisor-token"]
            [message] = supervisor.messages
            port = int(server.base_url.rsplit(":", 1)[1])
            assert message == {
                "service": "assist_memory",
                "config": {
                    "host": socket.gethostname(),
                    "port": port,
                    "token": server.token,
                },
            }

            token = message["config"]["token"]
            async with aiohttp.ClientSession(server.base_url) as http:
                headers = {"Authorization": f"Bearer {token}"}
                async with http.get("/api/memory/config", headers=headers) as response:
                    assert response.status == 200
                    config = await response.json()
                async with http.get("/memory/stats", headers=headers) as response:
                    stats = await response.json()
                async with http.get("/memory/stats") as response:
                    assert response.status == 401  # not the ingress proxy
            assert await server.stop() == 0

    assert (config["maxItems"], config["compactionEnabled"]) == (42, False)
    assert stats["maxItems"] == 42
    assert (data / "memories" / "memories.json").exists()
    log = server.log_text()
    assert "Announced the server to Home Assistant" in log
    assert "GET /memory/stats" in log  # requests are logged at the debug level only
    assert "supervisor-token" not in log
