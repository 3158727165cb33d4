"""Plain file reads: no Home Assistant instance is needed here."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def auto_enable_custom_integrations() -> None:
    """Overrides the root conftest's fixture, which starts Home Assistant per test."""
