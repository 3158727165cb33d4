"""The memory agent as the conversation agent of the preferred Assist pipeline.

Assist (the dialog, voice satellites) talks to the preferred pipeline's agent. Making the
memory agent that agent puts memory in every Assist conversation; the agent the pipeline
used before answers behind it (the options' wrapped agent). Done once when the config
flow asked for it, and by the `set_pipeline_agent` service at any time.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from homeassistant.const import Platform
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import entity_registry as er

from .const import CONF_AGENT_ID, CONF_PIPELINE_AGENT, DOMAIN, LOGGER
from .options import wrapped_agent_id
from .runtime_data import AssistMemoryConfigEntry

PIPELINES_DOMAIN = "assist_pipeline"


@dataclass(frozen=True, slots=True)
class PipelineAgent:
    """The preferred pipeline once the memory agent is its agent."""

    pipeline_id: str
    pipeline_name: str
    agent_id: str
    wrapped_agent_id: str
    # False when the memory agent already was the pipeline's agent.
    changed: bool

    def as_dict(self) -> dict[str, Any]:
        """The service's response."""
        return asdict(self)


def pipelines_loaded(hass: HomeAssistant) -> bool:
    """True when Home Assistant has Assist pipelines (`default_config` sets them up)."""
    return PIPELINES_DOMAIN in hass.config.components


def is_memory_agent(hass: HomeAssistant, agent_id: str) -> bool:
    """True for a memory agent, which must never be the agent a memory agent wraps."""
    entry = er.async_get(hass).async_get(agent_id)
    return entry is not None and entry.platform == DOMAIN


def memory_agent_id(hass: HomeAssistant, entry: AssistMemoryConfigEntry) -> str | None:
    """The entity ID of the entry's memory agent, None while it has none."""
    return er.async_get(hass).async_get_entity_id(
        Platform.CONVERSATION, DOMAIN, f"{entry.entry_id}_agent"
    )


async def async_set_pipeline_agent(
    hass: HomeAssistant, entry: AssistMemoryConfigEntry
) -> PipelineAgent:
    """Make the memory agent the preferred pipeline's agent, wrapping the one it had.

    Idempotent: when the memory agent already is the pipeline's agent, nothing changes.
    Raises HomeAssistantError (translated) without Assist pipelines or memory agent.
    """
    if not pipelines_loaded(hass):
        raise HomeAssistantError(
            translation_domain=DOMAIN, translation_key="pipelines_unavailable"
        )
    agent_id = memory_agent_id(hass, entry)
    if agent_id is None or hass.states.get(agent_id) is None:
        raise HomeAssistantError(
            translation_domain=DOMAIN, translation_key="memory_agent_unavailable"
        )
    # Imported once the component is loaded (checked above), so no import I/O here, and
    # an installation without its packages still loads Assist Memory.
    from homeassistant.components.assist_pipeline.pipeline import (
        async_get_pipeline,
        async_update_pipeline,
    )

    pipeline = async_get_pipeline(hass)
    previous = pipeline.conversation_engine
    changed = previous != agent_id
    if changed:
        if not is_memory_agent(hass, previous):
            hass.config_entries.async_update_entry(
                entry, options={**entry.options, CONF_AGENT_ID: previous}
            )
        await async_update_pipeline(hass, pipeline, conversation_engine=agent_id)
        LOGGER.info(
            "The Assist pipeline %s now talks to the memory agent, which passes "
            "turns to %s",
            pipeline.name,
            wrapped_agent_id(entry.options),
        )
    return PipelineAgent(
        pipeline_id=pipeline.id,
        pipeline_name=pipeline.name,
        agent_id=agent_id,
        wrapped_agent_id=wrapped_agent_id(entry.options),
        changed=changed,
    )


async def async_set_pipeline_agent_if_asked(
    hass: HomeAssistant, entry: AssistMemoryConfigEntry
) -> None:
    """Once, at the first setup: what the config flow's last step asked for.

    The choice is then removed from the entry, so a later reload never takes the
    pipeline back from an agent the person chose since.
    """
    if not entry.data.get(CONF_PIPELINE_AGENT):
        return
    try:
        await async_set_pipeline_agent(hass, entry)
    except HomeAssistantError as err:
        LOGGER.warning(
            "The memory agent was not made the Assist pipeline's agent (%s); choose "
            "it in Settings > Voice assistants",
            err,
        )
    hass.config_entries.async_update_entry(
        entry,
        data={
            key: value
            for key, value in entry.data.items()
            if key != CONF_PIPELINE_AGENT
        },
    )
