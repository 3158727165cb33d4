"""The server's settings file (config.json) and the settings given at start."""

from __future__ import annotations

from collections.abc import AsyncIterator
import json
import logging
from pathlib import Path

import pytest

from custom_components.assist_memory.engine.backend.local import LocalBackend
from custom_components.assist_memory.engine.config import DEFAULT_CONFIG
from custom_components.assist_memory.engine.host.server import (
    CONFIG_FILE,
    ServerApiHost,
)


@pytest.fixture
async def host(tmp_path: Path) -> AsyncIterator[ServerApiHost]:
    backend, _ = await LocalBackend.open(tmp_path / "memories.json", watch=False)
    yield ServerApiHost(backend, tmp_path, None)
    await backend.close()


def test_saved_settings_load_and_given_ones_win(
    host: ServerApiHost, tmp_path: Path
) -> None:
    saved = {"rag_top_n": 9, "max_items": 50, "auto_extract": False}
    (tmp_path / CONFIG_FILE).write_text(json.dumps(saved), encoding="utf-8")

    host.load({"max_items": 42})

    assert host.options == {**DEFAULT_CONFIG, **saved, "max_items": 42}


def test_bad_saved_settings_are_skipped_with_a_warning(
    host: ServerApiHost, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    saved = {"max_items": -5, "rag_top_n": 9, "not_a_setting": 1}
    (tmp_path / CONFIG_FILE).write_text(json.dumps(saved), encoding="utf-8")

    with caplog.at_level(logging.WARNING):
        host.load({})

    assert host.options == {**DEFAULT_CONFIG, "rag_top_n": 9}
    assert "Ignoring the setting max_items" in caplog.text


def test_a_settings_file_that_is_not_json_means_defaults(
    host: ServerApiHost, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / CONFIG_FILE).write_text("{half", encoding="utf-8")

    with caplog.at_level(logging.WARNING):
        host.load({})

    assert host.options == DEFAULT_CONFIG
    assert "is not JSON" in caplog.text
