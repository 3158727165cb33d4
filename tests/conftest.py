"""Shared fixtures: Home Assistant tests run with our custom integration enabled."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def auto_enable_custom_integrations(enable_custom_integrations: None) -> None:
    """Let Home Assistant load custom_components/assist_memory."""


@pytest.fixture
def hass_config_dir(hass_tmp_config_dir: str) -> str:
    """A fresh config folder per test, so each test has its own memories.json."""
    return hass_tmp_config_dir
