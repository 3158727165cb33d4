"""The labelled sets need no Home Assistant instance."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def auto_enable_custom_integrations() -> None:
    """Overrides the root conftest's fixture of the same name, which starts one per test."""
