"""Applies stored settings to a running memory backend, without reopening it.

Home Assistant (its options flow and its REST config) and the memory server (its
REST config and its start) change settings through this one function, so a change
applies the same way everywhere: the store's limits and the retention at once, the
compaction LLM for the next run. Conversations in progress keep their working memory
and the extraction throttle its state. What each turn does is read from the settings
at every turn (`TurnSettings.from_options`, `LearnSettings.from_options`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..config import COMPACTION_ENABLED, COMPACTION_THRESHOLD, DEFAULT_CONFIG
from ..conversation.retention import RetentionSettings
from ..language.llm import LlmCaller
from ..storage.settings import StoreSettings
from .local import LocalBackend


async def apply_settings(
    backend: LocalBackend,
    options: Mapping[str, Any],
    *,
    compaction_llm: LlmCaller | None,
) -> None:
    """Give the backend the limits, retention and compaction of the settings.

    `compaction_llm` compacts when the settings enable compaction (None: nobody can).
    """
    merged = {**DEFAULT_CONFIG, **options}
    await backend.set_settings(StoreSettings.from_options(merged))
    await backend.set_retention(RetentionSettings.from_options(merged))
    backend.set_compaction(
        compaction_llm if merged[COMPACTION_ENABLED.key] else None,
        threshold=int(merged[COMPACTION_THRESHOLD.key]),
    )
