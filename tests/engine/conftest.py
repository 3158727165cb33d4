"""Fixtures for the engine tests: real stores on real files in tmp_path."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
import json
from pathlib import Path
from typing import Any

import pytest

from custom_components.assist_memory.engine import MemoryStore, StoreSettings


@pytest.fixture(autouse=True)
def auto_enable_custom_integrations() -> None:
    """The engine never imports Home Assistant: no Home Assistant instance needed.

    Overrides the root conftest's fixture of the same name, which starts one per test.
    """


class SteppingClock:
    """A store clock that moves one second forward on every reading."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime(2025, 1, 1, tzinfo=UTC)

    def __call__(self) -> str:
        self.now += timedelta(seconds=1)
        return self.now.isoformat()


@pytest.fixture
def clock() -> SteppingClock:
    return SteppingClock()


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    """A store file in a data folder that does not exist yet."""
    return tmp_path / "data" / "memories.json"


@pytest.fixture
def open_store(store_path: Path) -> Callable[..., MemoryStore]:
    """Open (init) a new MemoryStore instance, as another process or a restart would."""

    def _open(
        path: Path | None = None,
        settings: StoreSettings | None = None,
        **kwargs: Any,
    ) -> MemoryStore:
        store = MemoryStore(path or store_path, settings, **kwargs)
        store.init()
        return store

    return _open


@pytest.fixture
def store(open_store: Callable[..., MemoryStore], clock: SteppingClock) -> MemoryStore:
    return open_store(clock=clock)


def read_snapshot(path: Path) -> dict[str, Any]:
    """The snapshot document as it is on disk."""
    document: dict[str, Any] = json.loads(path.read_bytes())
    return document


def journal_lines(path: Path) -> list[dict[str, Any]]:
    """Every line of the journal, parsed (fails on a damaged line)."""
    journal = path.with_suffix(".journal")
    return [json.loads(line) for line in journal.read_bytes().splitlines()]


def store_files(path: Path) -> dict[str, bytes]:
    """The bytes of every file in the store's folder (to prove nothing changed)."""
    return {
        child.name: child.read_bytes()
        for child in sorted(path.parent.iterdir())
        if child.is_file() and child.suffix != ".lock"
    }


def markdown_body(path: Path) -> str:
    """MEMORY.md as a person reads it: the text without its last line, the version."""
    text = path.read_text(encoding="utf-8")
    body, found, version = text.rpartition("\n<!-- assist-memory ")
    assert found, "MEMORY.md ends with its version line"
    assert version.endswith(" -->\n")
    return body
