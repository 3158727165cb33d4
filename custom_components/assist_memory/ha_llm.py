"""Home Assistant's LLMs for the engine: an AI Task entity or a conversation agent.

`async_ask` puts one question to the entity chosen in the options and gives back its
answer (structured data from an AI Task entity when a structure is given, else text),
or None when it failed (logged). `HassLlmCaller` is the engine's `LlmCaller` on top
of it, used for compaction.
"""

from __future__ import annotations

from homeassistant.components import ai_task, conversation
from homeassistant.core import Context, HomeAssistant
from homeassistant.exceptions import HomeAssistantError
import probatio

from .const import LOGGER
from .engine.language.facts import EXTRACTION_SOURCES, MAX_LLM_CONTENT_LENGTH, WHOSE
from .engine.storage.models import CATEGORIES

# FACTS_SCHEMA of the engine, as Home Assistant's AI Task takes a structure.
FACTS_STRUCTURE = probatio.Schema(
    {
        probatio.Required("facts"): [
            {
                probatio.Required("content"): probatio.All(
                    str, probatio.Length(min=1, max=MAX_LLM_CONTENT_LENGTH)
                ),
                probatio.Required("category"): probatio.In(list(CATEGORIES)),
                probatio.Optional("key"): probatio.Any(str, None),
                probatio.Optional("confidence"): probatio.All(
                    probatio.Coerce(float), probatio.Range(min=0, max=1)
                ),
                probatio.Optional("source"): probatio.In(list(EXTRACTION_SOURCES)),
                probatio.Optional("until"): probatio.Any(str, None),
                probatio.Optional("scope"): probatio.In(list(WHOSE)),
            }
        ]
    }
)


async def async_ask(
    hass: HomeAssistant,
    entity_id: str,
    task_name: str,
    instructions: str,
    structure: probatio.Schema | None = None,
) -> object | None:
    """The entity's answer to `instructions`, or None when it failed."""
    try:
        if entity_id.startswith("ai_task."):
            result = await ai_task.async_generate_data(
                hass,
                task_name=task_name,
                entity_id=entity_id,
                instructions=instructions,
                structure=structure,
            )
            data: object = result.data
            return data
        reply = await conversation.async_converse(
            hass, instructions, None, Context(), agent_id=entity_id
        )
    except HomeAssistantError as err:
        LOGGER.warning("%s: %s failed: %s", task_name, entity_id, err)
        return None
    speech: str = reply.response.speech.get("plain", {}).get("speech", "")
    return speech


class HassLlmCaller:
    """The engine's LlmCaller, answered by an AI Task entity or a conversation agent."""

    def __init__(self, hass: HomeAssistant, entity_id: str, task_name: str) -> None:
        self.hass = hass
        self.entity_id = entity_id
        self.task_name = task_name

    async def complete(self, instructions: str, text: str) -> str | None:
        """The answer as text, or None when the entity failed or said nothing."""
        answer = await async_ask(
            self.hass, self.entity_id, self.task_name, f"{instructions}\n\n{text}"
        )
        if not isinstance(answer, str) or not answer.strip():
            return None
        return answer
