"""Test doubles for what cannot run here (a cloud LLM), speaking Home Assistant's real APIs.

`RecordingAgent` is a conversation entity like an LLM integration's: it takes the LLM
data from the chat log (system prompt with the extra prompt), records what it received,
and streams its reply into the chat log. `FactsTask` is an AI Task entity that answers
a set structure. Both live in a small test integration set up from a config entry.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from typing import Any, Literal

from homeassistant.components import ai_task, conversation
from homeassistant.config_entries import ConfigEntry, ConfigFlow
from homeassistant.const import MATCH_ALL, Platform
from homeassistant.core import HomeAssistant
from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback
from pytest_homeassistant_custom_component.common import (
    MockConfigEntry,
    MockModule,
    MockPlatform,
    mock_integration,
    mock_platform,
)

TEST_DOMAIN = "test_llm"
AGENT_ENTITY_ID = "conversation.test_llm_agent"
TASK_ENTITY_ID = "ai_task.test_llm_task"


class _TestLlmFlow(ConfigFlow, domain=TEST_DOMAIN):
    """The test integration has entries; they are made in code, not in the UI."""

    VERSION = 1


@dataclass
class RecordedTurn:
    """What the agent received in one turn."""

    text: str
    system_prompt: str
    extra_system_prompt: str | None
    conversation_id: str
    roles: list[str]
    # The chat log's user and assistant messages, as (role, text).
    messages: list[tuple[str, str]]


class RecordingAgent(conversation.ConversationEntity):
    """An LLM-like agent: uses the chat log, records, streams an echo."""

    _attr_has_entity_name = True
    _attr_name = "Agent"
    _attr_unique_id = "test_llm_agent"
    _attr_supports_streaming = True

    def __init__(self) -> None:
        self.entity_id = AGENT_ENTITY_ID
        self.turns: list[RecordedTurn] = []
        self.reply = "echo: {text}"

    @property
    def supported_languages(self) -> list[str] | Literal["*"]:
        """Any language."""
        return MATCH_ALL

    async def _async_handle_message(
        self,
        user_input: conversation.ConversationInput,
        chat_log: conversation.ChatLog,
    ) -> conversation.ConversationResult:
        await chat_log.async_provide_llm_data(
            user_input.as_llm_context(TEST_DOMAIN),
            None,
            "You are a test agent.",
            user_input.extra_system_prompt,
        )
        self.turns.append(
            RecordedTurn(
                text=user_input.text,
                system_prompt=str(chat_log.content[0].content),
                extra_system_prompt=chat_log.extra_system_prompt,
                conversation_id=chat_log.conversation_id,
                roles=[content.role for content in chat_log.content],
                messages=[
                    (content.role, str(content.content))
                    for content in chat_log.content
                    if content.role in ("user", "assistant")
                ],
            )
        )
        answer = self.reply.format(text=user_input.text)
        async for _content in chat_log.async_add_delta_content_stream(
            self.entity_id, _stream(answer)
        ):
            pass
        return conversation.async_get_result_from_chat_log(user_input, chat_log)


async def _stream(text: str) -> AsyncGenerator[conversation.AssistantContentDeltaDict]:
    yield {"role": "assistant"}
    for word in text.split(" "):
        yield {"content": word + " "}


class FactsTask(ai_task.AITaskEntity):
    """An AI Task entity answering a set value."""

    _attr_has_entity_name = True
    _attr_name = "Task"
    _attr_unique_id = "test_llm_task"
    _attr_supported_features = ai_task.AITaskEntityFeature.GENERATE_DATA

    def __init__(self) -> None:
        self.entity_id = TASK_ENTITY_ID
        # The data to answer, or a function of the task giving it.
        self.answer: Any = {"facts": []}
        self.instructions: list[str] = []
        self.structures: list[Any] = []

    async def _async_generate_data(
        self, task: ai_task.GenDataTask, chat_log: conversation.ChatLog
    ) -> ai_task.GenDataTaskResult:
        self.instructions.append(task.instructions)
        self.structures.append(task.structure)
        data = self.answer(task) if callable(self.answer) else self.answer
        return ai_task.GenDataTaskResult(
            conversation_id=chat_log.conversation_id, data=data
        )


@dataclass
class LlmEntities:
    """The test integration's entities."""

    agent: RecordingAgent = field(default_factory=RecordingAgent)
    task: FactsTask = field(default_factory=FactsTask)


async def async_setup_test_llm(hass: HomeAssistant) -> LlmEntities:
    """Set up the test integration with its agent and AI Task entity."""
    entities = LlmEntities()

    async def setup_entry(hass: HomeAssistant, entry: ConfigEntry) -> bool:
        await hass.config_entries.async_forward_entry_setups(
            entry, [Platform.CONVERSATION, Platform.AI_TASK]
        )
        return True

    async def setup_conversation(
        hass: HomeAssistant, entry: ConfigEntry, add: AddConfigEntryEntitiesCallback
    ) -> None:
        add([entities.agent])

    async def setup_task(
        hass: HomeAssistant, entry: ConfigEntry, add: AddConfigEntryEntitiesCallback
    ) -> None:
        add([entities.task])

    mock_integration(hass, MockModule(TEST_DOMAIN, async_setup_entry=setup_entry))
    mock_platform(hass, f"{TEST_DOMAIN}.config_flow")
    mock_platform(
        hass,
        f"{TEST_DOMAIN}.conversation",
        MockPlatform(async_setup_entry=setup_conversation),
    )
    mock_platform(
        hass, f"{TEST_DOMAIN}.ai_task", MockPlatform(async_setup_entry=setup_task)
    )
    entry = MockConfigEntry(domain=TEST_DOMAIN)
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    return entities
