"""What a loaded Assist Memory entry holds (its `runtime_data`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from homeassistant.config_entries import ConfigEntry

from .engine import LoadReport, MemoryBackend

if TYPE_CHECKING:
    from .coordinator import MemoryCoordinator


@dataclass(slots=True)
class AssistMemoryData:
    """The memory backend of a loaded entry, and the coordinator of its counts.

    An embedded store has its file and what loading it found; a memory server
    (`RemoteBackend`) has neither here (`store_path` None, an empty report).
    """

    backend: MemoryBackend
    store_path: Path | None
    load_report: LoadReport
    coordinator: MemoryCoordinator
    # Conversations the memory agent handles (not learned twice from chat logs).
    own_conversations: set[str] = field(default_factory=set)


type AssistMemoryConfigEntry = ConfigEntry[AssistMemoryData]
