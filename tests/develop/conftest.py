"""No Home Assistant test instance here: a real `hass` process on 127.0.0.1."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def auto_enable_custom_integrations() -> None:
    """Overrides the root conftest's fixture, which starts Home Assistant per test."""


@pytest.fixture(autouse=True)
def _sockets(socket_enabled: None) -> None:
    """Real HTTP on 127.0.0.1 (Home Assistant's test plugin blocks sockets)."""
