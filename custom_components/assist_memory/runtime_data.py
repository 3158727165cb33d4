"""What a loaded Assist Memory entry holds (its `runtime_data`)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from homeassistant.config_entries import ConfigEntry

from .engine import LoadReport, MemoryBackend

if TYPE_CHECKING:
    from .coordinator import MemoryCoordinator


@dataclass(slots=True)
class LearningCounts:
    """What learning left out since the entry loaded (diagnostics show it)."""

    # Facts an LLM proposed that no person's words in the conversation support.
    not_said: int = 0
    # Facts an LLM proposed that only said back a memory the conversation was given.
    said_back: int = 0


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
    # Conversations the memory agent handles now (not learned twice from chat
    # logs); each let go when its chat session ends (`follow`).
    own_conversations: set[str] = field(default_factory=set)
    # Conversations learned from when their chat session ends (`learning_at_the_end`).
    learn_at_session_end: set[str] = field(default_factory=set)
    # The options the running memory has (`options.async_apply_options`).
    applied_options: dict[str, Any] = field(default_factory=dict)
    # One change applied at a time, each with the options current when it starts.
    applying: asyncio.Lock = field(default_factory=asyncio.Lock)
    # Stops following other agents' conversations; None while not following.
    stop_following: Callable[[], None] | None = None
    # What learning left out (no content, counts only).
    learning: LearningCounts = field(default_factory=LearningCounts)


type AssistMemoryConfigEntry = ConfigEntry[AssistMemoryData]
