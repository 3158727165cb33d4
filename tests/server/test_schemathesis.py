"""schemathesis against the real server process, with every check it has.

The server runs as its own process on 127.0.0.1 over a fresh data folder, with a chat
stand-in that compacts (tests/support/compaction_llm.py, its own process), twice:
compacting with no limit on the number of memories, and with the settings as
installed (compaction off, at most 100 memories). The schema is the one it serves at
/openapi.json, so the test checks what clients actually read. Every operation gets
generated requests, valid and invalid, with the server's token. Every check holds
(`--checks all`): no 5xx; status codes, content types, headers and schemas as
documented; nothing answered without the token; every request the document describes
is accepted (`positive_data_acceptance`: 2xx, 404 for an unknown id, or the 409 of a
state the document names, such as compaction switched off or a full store) and every
other one refused (4xx).

Settings are server state other operations depend on (the content limit is in the
document; compaction must be on for the compaction routes to compact): after each
generated change of the settings, the test puts back the ones it started with.
SCHEMATHESIS_EXAMPLES raises the number of requests per operation.
"""

from __future__ import annotations

from collections.abc import Iterator
import json
import os
from pathlib import Path
import subprocess
import sys
import urllib.request

from hypothesis import HealthCheck, settings
import pytest
import pytest_socket
import schemathesis

from custom_components.assist_memory.engine.http.api import ROUTES
from tests.support.memory_server import MemoryServer, free_port

ROOT = Path(__file__).parents[2]
START_DEADLINE = 60.0


def auth(server: MemoryServer) -> dict[str, str]:
    return {"Authorization": f"Bearer {server.token}"}


@pytest.fixture(scope="module")
def chat_url() -> Iterator[str]:
    """The chat stand-in that compacts, as its own process."""
    # Set up before the per-test `socket_enabled`: allow 127.0.0.1 here too.
    pytest_socket.enable_socket()
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.support.compaction_llm", str(port)], cwd=ROOT
    )
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        process.terminate()
        process.wait(timeout=30)


SETTINGS: dict[str, dict[str, object]] = {
    "compacting": {"compaction_enabled": True, "max_items": 0},
    "as installed": {},
}


@pytest.fixture(scope="module", params=list(SETTINGS))
def memory_server(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    chat_url: str,
) -> Iterator[MemoryServer]:
    """This module's servers: compacting and unlimited, then as installed."""
    pytest_socket.enable_socket()  # set up before the per-test `socket_enabled`
    with MemoryServer(
        tmp_path_factory.mktemp("server") / "data",
        llm_url=chat_url,
        config=SETTINGS[request.param],
    ) as running:
        yield running


def call(server: MemoryServer, method: str, path: str, body: object = None) -> object:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(  # noqa: S310 (a URL of 127.0.0.1)
        server.url + path,
        data=data,
        method=method,
        headers={**auth(server), "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as answer:  # noqa: S310
        return json.loads(answer.read())


@pytest.fixture(scope="module")
def baseline(memory_server: MemoryServer) -> object:
    """The settings the server started with."""
    return call(memory_server, "GET", "/api/memory/config")


@pytest.fixture
def api_schema(memory_server: MemoryServer) -> schemathesis.BaseSchema:
    loaded = schemathesis.openapi.from_url(
        f"{memory_server.url}/openapi.json", headers=auth(memory_server)
    )
    # The token as configuration: schemathesis then knows every request carries it.
    loaded.config.update(base_url=memory_server.url, headers=auth(memory_server))
    loaded.config.checks.update(included_check_names=["all"])
    return loaded


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(
    max_examples=int(os.environ.get("SCHEMATHESIS_EXAMPLES", "12")),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_api_conforms_to_its_document(
    case: schemathesis.Case, memory_server: MemoryServer, baseline: object
) -> None:
    try:
        case.call_and_validate()
    finally:
        if case.operation.method.upper() == "PUT" and case.path == "/api/memory/config":
            call(memory_server, "PUT", "/api/memory/config", baseline)


def test_every_route_is_tested(api_schema: schemathesis.BaseSchema) -> None:
    """A guard against an empty run: the document names every route."""
    assert len(list(api_schema.get_all_operations())) == len(ROUTES)


def test_every_check_runs(api_schema: schemathesis.BaseSchema) -> None:
    """A guard against a check left out, the acceptance of valid requests first."""
    checks = api_schema.config.checks_config_for()
    for name in ("positive_data_acceptance", "negative_data_rejection"):
        assert checks.get_by_name(name=name).enabled, name
