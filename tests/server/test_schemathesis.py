"""schemathesis against the real server process, with every check it has.

The server runs as its own process on 127.0.0.1 over a fresh data folder, with a chat
stand-in that compacts (tests/support/compaction_llm.py, its own process), compacting
and with no limit on the number of memories; a second server, with the settings as
installed (compaction off, at most 100 memories), answers the operations those
settings change. The schema is the one each serves at /openapi.json, so the test
checks what clients actually read. Every operation gets generated requests, valid
and invalid, with the server's token. Every check holds
(`--checks all`): no 5xx; status codes, content types, headers and schemas as
documented; nothing answered without the token; every request the document describes
is accepted (`positive_data_acceptance`: 2xx, 404 for an unknown id, or the 409 of a
state the document names, such as compaction switched off or a full store) and every
other one refused (4xx).

Settings are server state other operations depend on (compaction must be on for the
compaction routes to compact): after each generated change of the settings, the test
puts back the ones it started with. The document does not change with them: a client
that read it keeps a true document after a change (a checker that changes settings
and never puts them back found a memory the document allowed refused with 400 once
the content limit was lowered); a memory longer than the current limit is a 409, a
state the document names. SCHEMATHESIS_EXAMPLES sets the number of requests per
operation.
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


def new_server(
    tmp_path_factory: pytest.TempPathFactory, chat_url: str, config: dict[str, object]
) -> MemoryServer:
    pytest_socket.enable_socket()  # set up before the per-test `socket_enabled`
    return MemoryServer(
        tmp_path_factory.mktemp("server") / "data", llm_url=chat_url, config=config
    )


@pytest.fixture(scope="module")
def memory_server(
    tmp_path_factory: pytest.TempPathFactory, chat_url: str
) -> Iterator[MemoryServer]:
    """The server of the whole run: compaction on, any number of memories."""
    config = {"compaction_enabled": True, "max_items": 0}
    with new_server(tmp_path_factory, chat_url, config) as running:
        yield running


@pytest.fixture(scope="module")
def installed_server(
    tmp_path_factory: pytest.TempPathFactory, chat_url: str
) -> Iterator[MemoryServer]:
    """A server with the settings as installed: compaction off, 100 memories."""
    with new_server(tmp_path_factory, chat_url, {}) as running:
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


def served_schema(server: MemoryServer) -> schemathesis.BaseSchema:
    """The document the server serves, every check on."""
    loaded = schemathesis.openapi.from_url(
        f"{server.url}/openapi.json", headers=auth(server)
    )
    # The token as configuration: schemathesis then knows every request carries it.
    loaded.config.update(base_url=server.url, headers=auth(server))
    loaded.config.checks.update(included_check_names=["all"])
    return loaded


@pytest.fixture
def api_schema(memory_server: MemoryServer) -> schemathesis.BaseSchema:
    return served_schema(memory_server)


@pytest.fixture
def installed_schema(installed_server: MemoryServer) -> schemathesis.BaseSchema:
    return served_schema(installed_server)


schema = schemathesis.pytest.from_fixture("api_schema")
# The operations whose answers the installed settings change: compaction's (409
# while it is off) and those that add memories (409 once 100 are kept).
installed = schemathesis.pytest.from_fixture("installed_schema").include(
    path_regex="^/api/auto-memory/compact|^/memory/long-term$|^/memory/import$"
)
EXAMPLES = int(os.environ.get("SCHEMATHESIS_EXAMPLES", "20"))
GENERATION = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
# The operations that take a memory's text, with a document read before the settings
# changed: few operations, and where a document that drifts shows first.
GENERATION_READ_BEFORE = settings(GENERATION, max_examples=EXAMPLES * 3)


@schema.parametrize()
@GENERATION
def test_api_conforms_to_its_document(
    case: schemathesis.Case, memory_server: MemoryServer, baseline: object
) -> None:
    try:
        case.call_and_validate()
    finally:
        if case.operation.method.upper() == "PUT" and case.path == "/api/memory/config":
            call(memory_server, "PUT", "/api/memory/config", baseline)


@installed.parametrize()
@GENERATION
def test_the_installed_settings_conform(case: schemathesis.Case) -> None:
    case.call_and_validate()


@pytest.fixture
def schema_read_before(
    memory_server: MemoryServer, baseline: object
) -> Iterator[schemathesis.BaseSchema]:
    """The document as a client read it, before the content limit went down to 1."""
    loaded = served_schema(memory_server)
    call(memory_server, "PUT", "/api/memory/config", {"maxContentLength": 1})
    try:
        yield loaded
    finally:
        call(memory_server, "PUT", "/api/memory/config", baseline)


# The operations that take a memory's text.
read_before = schemathesis.pytest.from_fixture("schema_read_before").include(
    path_regex="^/memory/long-term|^/memory/import$|^/api/memory/main$",
    method=["POST", "PATCH", "PUT"],
)


@read_before.parametrize()
@GENERATION_READ_BEFORE
def test_the_document_stays_true_when_the_settings_change(
    case: schemathesis.Case,
) -> None:
    case.call_and_validate()


def test_every_route_is_tested(api_schema: schemathesis.BaseSchema) -> None:
    """A guard against an empty run: the document names every route."""
    assert len(list(api_schema.get_all_operations())) == len(ROUTES)


def test_every_check_runs(api_schema: schemathesis.BaseSchema) -> None:
    """A guard against a check left out, the acceptance of valid requests first."""
    checks = api_schema.config.checks_config_for()
    for name in ("positive_data_acceptance", "negative_data_rejection"):
        assert checks.get_by_name(name=name).enabled, name
