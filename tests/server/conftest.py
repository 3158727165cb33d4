"""No Home Assistant instance here; real processes and sockets on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import pytest_socket

from tests.support.memory_server import MemoryServer


@pytest.fixture(autouse=True)
def auto_enable_custom_integrations() -> None:
    """Overrides the root conftest's fixture, which starts Home Assistant per test."""


@pytest.fixture(autouse=True)
def _sockets(socket_enabled: None) -> None:
    """Real HTTP on 127.0.0.1 (Home Assistant's test plugin blocks sockets)."""


@pytest.fixture(scope="module")
def memory_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MemoryServer]:
    """One real server process for a test module, on a fresh data folder."""
    # Set up before the per-test `socket_enabled`: allow 127.0.0.1 here too.
    pytest_socket.enable_socket()
    with MemoryServer(tmp_path_factory.mktemp("server") / "data") as running:
        yield running
