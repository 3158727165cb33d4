"""Learning after a turn: Home Assistant's LLMs as extractors.

Runs in the background, never delaying the reply. The engine decides when (throttle,
pre-compaction flush) and what to keep (write-back rules); this module only asks the
extractor chosen in the options: an AI Task entity, a conversation agent, or, when
none is set or the LLM fails, the rule-based extractor.
"""

from __future__ import annotations

from dataclasses import replace

from homeassistant.core import HomeAssistant, callback

from .const import CONF_AUTO_EXTRACT, CONF_EXTRACTOR_ENTITY, LOGGER
from .engine import HOUSEHOLD_SCOPE, MemoryEngineError
from .engine.conversation.turns import ExtractionBatch, LearnSettings
from .engine.language.facts import Fact
from .engine.language.llm_facts import LLM_EXTRACTION_INSTRUCTIONS, parse_llm_facts
from .ha_llm import FACTS_STRUCTURE, async_ask
from .runtime_data import AssistMemoryConfigEntry

TASK_NAME = "Assist Memory: learn from a conversation"


@callback
def async_schedule_extraction(
    hass: HomeAssistant,
    entry: AssistMemoryConfigEntry,
    session_id: str,
    user_id: str | None,
    used_tokens: int = 0,
    *,
    speaker_unknown: bool = False,
    language: str | None = None,
) -> None:
    """Learn from the session in the background when the options allow it.

    `speaker_unknown`: nobody can tell who spoke (a followed conversation), so
    nothing about the speaker is learned. `language`: the conversation's, when known
    (the rules then write Chinese in its script).
    """
    if not entry.options.get(CONF_AUTO_EXTRACT, True):
        return
    # Short-lived and tracked: unloading the entry waits for or cancels it.
    entry.async_create_task(
        hass,
        async_extract(
            hass,
            entry,
            session_id,
            user_id,
            used_tokens,
            speaker_unknown=speaker_unknown,
            language=language,
        ),
        f"assist_memory_extract_{session_id}",
    )


async def async_extract(
    hass: HomeAssistant,
    entry: AssistMemoryConfigEntry,
    session_id: str,
    user_id: str | None,
    used_tokens: int = 0,
    *,
    speaker_unknown: bool = False,
    language: str | None = None,
) -> None:
    """Extract facts from the session's new messages when the throttle allows it."""
    settings = LearnSettings.from_options(entry.options)
    try:
        batch = await entry.runtime_data.backend.extraction_batch(
            session_id, settings, used_tokens=used_tokens
        )
    except MemoryEngineError as err:
        LOGGER.warning("Learning from a conversation failed: %s", err.message)
        return
    if batch is not None:
        await async_learn_batch(
            hass,
            entry,
            replace(batch, language=language),
            user_id,
            speaker_unknown=speaker_unknown,
        )


async def async_learn_batch(
    hass: HomeAssistant,
    entry: AssistMemoryConfigEntry,
    batch: ExtractionBatch,
    user_id: str | None,
    *,
    speaker_unknown: bool = False,
) -> None:
    """Find the batch's facts (the LLM chosen, else the rules) and write them back."""
    backend = entry.runtime_data.backend
    settings = LearnSettings.from_options(entry.options)
    try:
        facts = await _async_llm_facts(hass, entry, batch)
        if facts is None:
            facts = await backend.rule_facts(batch)
        result = await backend.learn(
            batch,
            facts,
            scope=user_id or HOUSEHOLD_SCOPE,
            settings=settings,
            speaker_unknown=speaker_unknown,
        )
    except MemoryEngineError as err:
        LOGGER.warning("Learning from a conversation failed: %s", err.message)
        return
    LOGGER.debug(
        "Learned from %s: %d added, %d refreshed, %d replaced, %d skipped",
        batch.session_id,
        result.added,
        result.refreshed,
        result.replaced,
        result.skipped,
    )
    if backend.compaction_enabled:
        # Compaction: fire and forget (the reply went out already); maybe_compact logs
        # its outcome and never raises. Tracked, so unloading waits for it.
        entry.async_create_task(hass, backend.maybe_compact(), "assist_memory_compact")


async def _async_llm_facts(
    hass: HomeAssistant, entry: AssistMemoryConfigEntry, batch: ExtractionBatch
) -> list[Fact] | None:
    """Facts from the configured LLM, or None to use the rules."""
    entity_id = entry.options.get(CONF_EXTRACTOR_ENTITY)
    if not entity_id:
        return None
    instructions = f"{LLM_EXTRACTION_INSTRUCTIONS}\n\nConversation:\n{batch.transcript}"
    answer = await async_ask(hass, entity_id, TASK_NAME, instructions, FACTS_STRUCTURE)
    if answer is None:
        LOGGER.warning("The extractor %s failed, using the rules", entity_id)
        return None
    # An answer with no usable fact (garbage, or nothing found): the rules still run.
    return parse_llm_facts(answer) or None
