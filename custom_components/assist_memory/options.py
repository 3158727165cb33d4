"""The options of an entry, applied to its running memory.

Saving the options flow or changing the REST config applies the options at once
(`async_apply_options`): conversations in progress keep their working memory and
the extraction throttle its state. Only the embedding choice (the local model or an
endpoint), which the store is opened with, reloads the entry.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from homeassistant.components.conversation import HOME_ASSISTANT_AGENT
from homeassistant.core import HomeAssistant

from .const import (
    CONF_AGENT_ID,
    CONF_COMPACTION_ENABLED,
    CONF_EMBEDDING_API_KEY,
    CONF_EMBEDDING_LOCAL,
    CONF_EMBEDDING_MODEL,
    CONF_EMBEDDING_URL,
    CONF_EXTRACTOR_ENTITY,
    CONF_SAY_LEARNT,
    CONF_VOICE_FORGET_HOUSEHOLD,
    DATA_FOLDER,
    VOICE_FORGET_ADMINS,
)
from .engine import LocalBackend
from .engine.backend.configure import apply_settings
from .engine.config import DEFAULT_CONFIG
from .engine.model.embeddings import EmbeddingConfig
from .engine.model.local_model import LocalModel, local_model_problem
from .engine.storage.paths import STORE_FILE_NAME
from .follow import async_follow_if_asked
from .ha_llm import HassLlmCaller
from .local_model_install import async_install_local_model, local_model_missing
from .repairs import async_report_local_model
from .runtime_data import AssistMemoryConfigEntry

COMPACTION_TASK_NAME = "Assist Memory: compact the memories"

# The settings of the engine's table (the same as the REST API's).
DEFAULT_OPTIONS: dict[str, Any] = dict(DEFAULT_CONFIG)
# Home Assistant's own options that have a default (the others may be empty). An
# entry saved before an option existed has the default; one that chose otherwise
# keeps its choice.
HA_DEFAULTS: dict[str, Any] = {
    CONF_EMBEDDING_LOCAL: True,
    CONF_VOICE_FORGET_HOUSEHOLD: VOICE_FORGET_ADMINS,
    CONF_SAY_LEARNT: False,
}
# Options the store is opened with: changing one reloads the entry.
RELOAD_OPTIONS = frozenset(
    {
        CONF_EMBEDDING_URL,
        CONF_EMBEDDING_MODEL,
        CONF_EMBEDDING_API_KEY,
        CONF_EMBEDDING_LOCAL,
    }
)


def store_path(hass: HomeAssistant) -> Path:
    """The embedded store file: `<config>/data/memories.json`."""
    return Path(hass.config.path(DATA_FOLDER, STORE_FILE_NAME))


def compaction_llm(
    hass: HomeAssistant, options: Mapping[str, Any]
) -> HassLlmCaller | None:
    """The LLM that compacts the memories: the extractor entity, when enabled."""
    entity_id = options.get(CONF_EXTRACTOR_ENTITY)
    if not options.get(CONF_COMPACTION_ENABLED) or not entity_id:
        return None
    return HassLlmCaller(hass, entity_id, COMPACTION_TASK_NAME)


async def async_apply_options(
    hass: HomeAssistant, entry: AssistMemoryConfigEntry
) -> None:
    """Apply the entry's options to its running memory, or reload when they need it.

    Applying options already applied does nothing (the options flow's update and the
    REST API's both end here). Changes are applied one at a time, each with the
    options current when it starts, so an older change never lands after a newer one.
    """
    data = entry.runtime_data
    async with data.applying:
        options = dict(entry.options)
        if options == data.applied_options:
            return
        # With the defaults: saving the default of an option left unset changes nothing.
        before, after = (
            {**HA_DEFAULTS, **data.applied_options},
            {**HA_DEFAULTS, **options},
        )
        if any(before.get(k) != after.get(k) for k in RELOAD_OPTIONS):
            hass.config_entries.async_schedule_reload(entry.entry_id)
            return
        async_follow_if_asked(hass, entry)
        if isinstance(data.backend, LocalBackend):
            # A memory server has its own limits and LLM (the add-on's options).
            await apply_settings(
                data.backend, options, compaction_llm=compaction_llm(hass, options)
            )
        data.applied_options = options


def embedding_config(options: Mapping[str, Any]) -> EmbeddingConfig | None:
    """The embedding endpoint, when one is set (search is BM25 only otherwise)."""
    url = str(options.get(CONF_EMBEDDING_URL) or "").strip()
    model = str(options.get(CONF_EMBEDDING_MODEL) or "").strip()
    if not url or not model:
        return None
    return EmbeddingConfig(
        url, model, str(options.get(CONF_EMBEDDING_API_KEY) or "") or None
    )


async def async_embedding_choice(
    hass: HomeAssistant, entry: AssistMemoryConfigEntry
) -> EmbeddingConfig | LocalModel | None:
    """The endpoint when one is set, else the local model (on by default) if it runs.

    Search keeps to keywords when the model cannot run here, and setup goes on: a
    missing package is installed in the background (the entry reloads when the model
    loads), and a repair issue says why the model cannot run.
    """
    options = entry.options
    if (endpoint := embedding_config(options)) is not None:
        async_report_local_model(hass, None)
        return endpoint
    if not options.get(CONF_EMBEDDING_LOCAL, HA_DEFAULTS[CONF_EMBEDDING_LOCAL]):
        async_report_local_model(hass, None)
        return None
    # Loading the model reads its 72 MB file: not in the event loop.
    problem = await hass.async_add_executor_job(local_model_problem)
    if problem is not None and await hass.async_add_executor_job(local_model_missing):
        async_install_local_model(hass, entry)  # it reports how that ends
        return None
    async_report_local_model(hass, problem)
    return None if problem is not None else LocalModel()


def wrapped_agent_id(options: Mapping[str, Any]) -> str:
    """The agent the memory agent passes turns to (Home Assistant's own by default)."""
    return str(options.get(CONF_AGENT_ID) or HOME_ASSISTANT_AGENT)
