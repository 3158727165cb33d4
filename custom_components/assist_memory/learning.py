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
from .engine import MemoryEngineError
from .engine.conversation.speaker import Speaker
from .engine.conversation.turn_settings import LearnSettings
from .engine.conversation.turns import ExtractionBatch
from .engine.language.facts import Fact
from .engine.language.llm_facts import extraction_instructions, parse_llm_facts
from .engine.language.time_phrases import home_now
from .ha_llm import FACTS_STRUCTURE, async_ask
from .runtime_data import AssistMemoryConfigEntry
from .speaker import async_named_speaker

TASK_NAME = "Assist Memory: learn from a conversation"


@callback
def async_schedule_extraction(
    hass: HomeAssistant,
    entry: AssistMemoryConfigEntry,
    session_id: str,
    speaker: Speaker,
    used_tokens: int = 0,
    *,
    language: str | None = None,
) -> None:
    """Learn from the session in the background when the options allow it.

    `speaker` (see `speaker.py`): when nobody can tell who spoke, nothing about the
    speaker is stored (it is held for Review); at a guest device nothing is learned.
    `language`: the conversation's, when known (the rules then write Chinese in its
    script).
    """
    if not entry.options.get(CONF_AUTO_EXTRACT, True) or not speaker.learns:
        return
    # Short-lived and tracked: unloading the entry waits for or cancels it.
    entry.async_create_task(
        hass,
        async_extract(hass, entry, session_id, speaker, used_tokens, language=language),
        f"assist_memory_extract_{session_id}",
    )


async def async_extract(
    hass: HomeAssistant,
    entry: AssistMemoryConfigEntry,
    session_id: str,
    speaker: Speaker,
    used_tokens: int = 0,
    *,
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
            speaker,
        )


async def async_learn_batch(
    hass: HomeAssistant,
    entry: AssistMemoryConfigEntry,
    batch: ExtractionBatch,
    speaker: Speaker,
) -> None:
    """Find the batch's facts (the LLM chosen, else the rules) and write them back.

    At a guest device nothing is learned. What a person says of themselves names
    them ("Sam's favourite colour is green") when their name is known.
    """
    if not speaker.learns:
        return
    speaker = await async_named_speaker(hass, speaker)
    backend = entry.runtime_data.backend
    # Relative dates are read in the home's time zone.
    settings = replace(
        LearnSettings.from_options(entry.options), time_zone=hass.config.time_zone
    )
    try:
        facts = await _async_llm_facts(hass, entry, batch, settings.time_zone)
        if facts is None:
            facts = await backend.rule_facts(batch)
        result = await backend.learn(
            batch,
            facts,
            scope=speaker.scope,
            settings=settings,
            speaker_unknown=not speaker.known,
            device_id=speaker.device_id,
            name=speaker.name,
        )
    except MemoryEngineError as err:
        LOGGER.warning("Learning from a conversation failed: %s", err.message)
        return
    entry.runtime_data.learning.not_said += result.not_said
    entry.runtime_data.learning.said_back += result.said_back
    LOGGER.debug(
        "Learned from %s: %d added, %d refreshed, %d replaced, %d skipped, %d held,"
        " %d not said by anyone, %d said back",
        batch.session_id,
        result.added,
        result.refreshed,
        result.replaced,
        result.skipped,
        result.held,
        result.not_said,
        result.said_back,
    )
    if backend.compaction_enabled:
        # Compaction: fire and forget (the reply went out already); maybe_compact logs
        # its outcome and never raises. Tracked, so unloading waits for it.
        entry.async_create_task(hass, backend.maybe_compact(), "assist_memory_compact")


async def _async_llm_facts(
    hass: HomeAssistant,
    entry: AssistMemoryConfigEntry,
    batch: ExtractionBatch,
    time_zone: str | None,
) -> list[Fact] | None:
    """Facts from the configured LLM, or None to use the rules."""
    entity_id = entry.options.get(CONF_EXTRACTOR_ENTITY)
    if not entity_id:
        return None
    asked = extraction_instructions(home_now(time_zone))
    instructions = f"{asked}\nConversation:\n{batch.transcript}"
    answer = await async_ask(hass, entity_id, TASK_NAME, instructions, FACTS_STRUCTURE)
    if answer is None:
        LOGGER.warning("The extractor %s failed, using the rules", entity_id)
        return None
    # An answer with no usable fact (garbage, or nothing found): the rules still run.
    return parse_llm_facts(answer) or None
