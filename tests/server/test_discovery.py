"""Supervisor discovery against a stand-in Supervisor on 127.0.0.1."""

from __future__ import annotations

import logging
import socket

import pytest

from custom_components.assist_memory.engine.host.discovery import Supervisor, announce
from tests.support.supervisor import SupervisorStandIn

CONFIG = {"host": "a0d7b954-assist-memory", "port": 8099, "token": "server-token"}


async def test_announces_service_and_config_with_the_supervisor_token() -> None:
    async with SupervisorStandIn() as supervisor:
        assert await announce(Supervisor(supervisor.url + "/", "sv-token"), CONFIG)

    assert supervisor.messages == [{"service": "assist_memory", "config": CONFIG}]
    assert supervisor.authorizations == ["Bearer sv-token"]


async def test_asks_again_while_the_supervisor_is_not_ready() -> None:
    async with SupervisorStandIn() as supervisor:
        supervisor.statuses = [502, 503]
        assert await announce(Supervisor(supervisor.url, "t"), CONFIG, first_delay=0)

    assert len(supervisor.messages) == 3


async def test_a_refusal_is_not_retried(caplog: pytest.LogCaptureFixture) -> None:
    async with SupervisorStandIn() as supervisor:
        supervisor.statuses = [403]
        with caplog.at_level(logging.ERROR):
            assert not await announce(
                Supervisor(supervisor.url, "t"), CONFIG, first_delay=0
            )

    assert len(supervisor.messages) == 1
    assert "HTTP 403" in caplog.text
    assert "server-token" not in caplog.text


async def test_gives_up_when_nobody_answers(caplog: pytest.LogCaptureFixture) -> None:
    with socket.socket() as unused:  # a port nothing listens on
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    with caplog.at_level(logging.ERROR):
        assert not await announce(
            Supervisor(f"http://127.0.0.1:{port}", "t"),
            CONFIG,
            attempts=2,
            first_delay=0,
        )

    assert "Could not announce the server" in caplog.text
