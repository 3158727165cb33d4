"""The memory agent: a conversation entity that wraps the agent chosen in the options.

Each turn it asks the engine for the memory of this household and speaker, hands the
turn to the wrapped agent through Home Assistant's conversation API in the same chat
log (so streaming, tools and follow-ups keep working) and returns that agent's answer.
Memory reaches an LLM agent as extra system prompt text, or in front of the user's
text (the `<long_term_memory>` block) for agents that ignore system prompts. With Home Assistant's
own intent agent, which has no LLM, it answers memory sentences itself (`answers.py`;
`voice_memory.py`: forgetting asks first), questions a memory answers and statements
it learns from (`answers_without_llm.py`), and "stop remembering" whatever agent it
wraps.

The rolling window (`context_limit`): the wrapped agent already gets what Home
Assistant's chat log holds; earlier messages of the window, persisted before the
oldest message of the chat log (the log was forgotten after 5 minutes or a restart),
are added to the memory block, never a message the chat log still holds.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Literal

from homeassistant.components import conversation
from homeassistant.const import ATTR_SUPPORTED_FEATURES, MATCH_ALL
from homeassistant.core import CALLBACK_TYPE, HomeAssistant, callback
from homeassistant.helpers.dispatcher import async_dispatcher_send
from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback
from homeassistant.helpers.event import async_track_state_change_event

from .answers_without_llm import async_answer_without_llm, named_memories
from .chat_history import prepare_history, words_for_the_agent
from .const import (
    CONF_AUTO_EXTRACT,
    CONF_MEMORY_ENABLED,
    CONF_PROMPT_MODE,
    LOGGER,
    PROMPT_MODE_PREFIX,
    SIGNAL_TURN_RECORDED,
)
from .engine import MemoryEngineError
from .engine.conversation.compose import merge_prompts
from .engine.conversation.speaker import Speaker
from .engine.conversation.throttle import estimate_tokens
from .engine.conversation.turn_settings import LearnSettings, TurnSettings
from .engine.errors import BackendUnavailableError
from .entity import AssistMemoryEntity
from .follow import async_mark_own_conversation
from .learning import async_schedule_extraction
from .learning_at_the_end import async_learn_when_session_ends
from .options import wrapped_agent_id
from .runtime_data import AssistMemoryConfigEntry
from .say_learnt import async_say_what_was_learnt
from .speaker import async_resolve_speaker
from .voice_memory import VoiceMemory

PARALLEL_UPDATES = 0


async def async_setup_entry(
    hass: HomeAssistant,
    entry: AssistMemoryConfigEntry,
    async_add_entities: AddConfigEntryEntitiesCallback,
) -> None:
    """Add the memory agent."""
    async_add_entities([AssistMemoryAgent(entry)])


class AssistMemoryAgent(AssistMemoryEntity, conversation.ConversationEntity):
    """Remembers, then lets the wrapped agent answer."""

    # The device's main feature: named "Assist Memory", as its device.
    _attr_name = None

    def __init__(self, entry: AssistMemoryConfigEntry) -> None:
        self.entry = entry
        # Memory sentences, the questions they wait on, what answers just used.
        self._voice_memory = VoiceMemory(entry)
        # Following the wrapped agent's state (its supported features).
        self._unfollow: CALLBACK_TYPE | None = None
        super().__init__(entry, "agent")

    async def async_added_to_hass(self) -> None:
        """Follow the wrapped agent, and the options that choose it."""
        await super().async_added_to_hass()
        self._follow_wrapped_agent()
        self.async_on_remove(self.entry.add_update_listener(self._async_options))
        self.async_on_remove(self._stop_following)

    async def _async_options(self, hass: HomeAssistant, _: object) -> None:
        self._follow_wrapped_agent()
        self.async_write_ha_state()

    @callback
    def _follow_wrapped_agent(self) -> None:
        self._stop_following()
        self._unfollow = async_track_state_change_event(
            self.hass, [self.wrapped_agent_id], self._async_wrapped_changed
        )

    @callback
    def _stop_following(self) -> None:
        if self._unfollow is not None:
            self._unfollow()
            self._unfollow = None

    @callback
    def _async_wrapped_changed(self, _: object) -> None:
        self.async_write_ha_state()

    @property
    def supported_features(self) -> conversation.ConversationEntityFeature:
        """What the wrapped agent can do: the memory agent passes every command on.

        Home Assistant's own agent controls the home; another agent when its entity
        says so (an agent that is not an entity, or is gone, is taken to not).
        """
        agent_id = self.wrapped_agent_id
        if agent_id == conversation.HOME_ASSISTANT_AGENT:
            return conversation.ConversationEntityFeature.CONTROL
        state = self.hass.states.get(agent_id)
        features = state.attributes.get(ATTR_SUPPORTED_FEATURES) if state else None
        return (
            conversation.ConversationEntityFeature(
                features if isinstance(features, int) else 0
            )
            & conversation.ConversationEntityFeature.CONTROL
        )

    @property
    def supported_languages(self) -> list[str] | Literal["*"]:
        """Any language: the wrapped agent decides."""
        return MATCH_ALL

    @property
    def wrapped_agent_id(self) -> str:
        """The agent that answers (Home Assistant's intent agent unless configured)."""
        return wrapped_agent_id(self.entry.options)

    @property
    def supports_streaming(self) -> bool:
        """Stream when the wrapped agent streams."""
        info = conversation.async_get_agent_info(self.hass, self.wrapped_agent_id)
        return bool(info and info.supports_streaming)

    async def _async_handle_message(
        self,
        user_input: conversation.ConversationInput,
        chat_log: conversation.ChatLog,
    ) -> conversation.ConversationResult:
        """Gather memory, let the wrapped agent answer, then learn in the background."""
        backend = self.entry.runtime_data.backend
        async_mark_own_conversation(self.entry, chat_log.conversation_id)
        async_learn_when_session_ends(
            self.hass,
            self.entry,
            chat_log.conversation_id,
            language=user_input.language,
        )
        agent_id = self.wrapped_agent_id
        uses_llm = agent_id != conversation.HOME_ASSISTANT_AGENT
        # Memory off (the `enabled` option): every turn passes through untouched.
        memory_on = bool(self.entry.options.get(CONF_MEMORY_ENABLED, True))
        speaker = await async_resolve_speaker(
            self.hass,
            self.entry,
            user_id=user_input.context.user_id,
            device_id=user_input.device_id,
        )
        if memory_on and (
            answer := await self._voice_memory.async_answer(
                self.hass, user_input, chat_log, speaker=speaker, uses_llm=uses_llm
            )
        ):
            return answer
        # Whose memories the turn reads and whose conversation it is.
        user_id = speaker.owner
        settings = TurnSettings.from_options(self.entry.options)
        if user_id is None:
            # Conversations of nobody known were anyone's: none is recalled.
            settings = replace(settings, session_summary_limit=0)
        text, extra_prompt = user_input.text, user_input.extra_system_prompt
        context = None
        if memory_on:
            try:
                if speaker.guest:
                    # A guest device: household memories only, nothing of it kept
                    # (neither logged nor learnt from, now or when it ends).
                    await backend.pause_session(chat_log.conversation_id, user_id=None)
                context = await backend.begin_turn(
                    session_id=chat_log.conversation_id,
                    text=user_input.text,
                    user_id=user_id,
                    settings=settings,
                    live_since=_live_since(chat_log),
                    speaker=speaker,
                )
            except BackendUnavailableError as err:
                # Memory must never stop the household from talking to Assist. A
                # memory server away is logged once, by the coordinator.
                LOGGER.debug("Answering without memory: %s", err.message)
            except MemoryEngineError as err:
                LOGGER.warning("Assist Memory is unavailable: %s", err.message)
        prepare_history(
            chat_log, others_spoke=context is not None and context.others_in_history
        )
        if context is not None and uses_llm:
            if self.entry.options.get(CONF_PROMPT_MODE) == PROMPT_MODE_PREFIX:
                text = context.prefixed_text
            else:
                caller_prompt = extra_prompt or chat_log.extra_system_prompt
                extra_prompt = merge_prompts(caller_prompt, context.memory_block)

        async def converse() -> conversation.ConversationResult:
            with words_for_the_agent(chat_log, text):
                return await conversation.async_converse(
                    self.hass,
                    text,
                    chat_log.conversation_id,
                    user_input.context,
                    language=user_input.language,
                    agent_id=agent_id,
                    device_id=user_input.device_id,
                    satellite_id=user_input.satellite_id,
                    extra_system_prompt=extra_prompt,
                )

        if context is not None and not uses_llm:
            auto_learn = self.entry.options.get(CONF_AUTO_EXTRACT, True)
            result = await async_answer_without_llm(
                self.hass,
                backend,
                user_input,
                chat_log,
                speaker=speaker,
                learn_settings=(
                    LearnSettings.from_options(self.entry.options)
                    if auto_learn
                    else None
                ),
                converse=converse,
            )
            self._voice_memory.note(chat_log.conversation_id, result)
            # Home Assistant's own agent is given no memory: the turn's memories
            # are those its answer said (none for the intent agent's own answers).
            said: list[str] | None = named_memories(result)
        else:
            said = None
            result = await converse()
            if context is not None:
                await async_say_what_was_learnt(
                    self.entry,
                    user_input,
                    result,
                    session_id=chat_log.conversation_id,
                    speaker=speaker,
                )
        if context is not None:
            # The answer goes back at once; recording it and learning come after.
            self.entry.async_create_task(
                self.hass,
                self._async_after_turn(
                    chat_log.conversation_id,
                    user_input.text,
                    result.response.speech.get("plain", {}).get("speech", ""),
                    speaker,
                    _used_tokens(chat_log),
                    language=user_input.language,
                    memory_ids=said,
                ),
                f"assist_memory_turn_{chat_log.conversation_id}",
                # Not started here: the answer goes back first.
                eager_start=False,
            )
        return conversation.ConversationResult(
            response=result.response,
            conversation_id=chat_log.conversation_id,
            continue_conversation=result.continue_conversation,
        )

    async def _async_after_turn(
        self,
        session_id: str,
        user_text: str,
        answer: str,
        speaker: Speaker,
        used_tokens: int,
        *,
        language: str,
        memory_ids: list[str] | None,
    ) -> None:
        """Record the answer, then learn from the conversation in the background.

        `memory_ids`: the memories an answer from memory said (None: an LLM's answer,
        whose turn keeps the memories it was given).
        """
        try:
            await self.entry.runtime_data.backend.end_turn(
                session_id=session_id,
                user_text=user_text,
                reply=answer,
                user_id=speaker.owner,
                memory_ids=memory_ids,
            )
        except MemoryEngineError as err:
            LOGGER.warning("Assist Memory could not record an answer: %s", err.message)
            return
        async_dispatcher_send(self.hass, SIGNAL_TURN_RECORDED, speaker.owner)
        async_schedule_extraction(
            self.hass,
            self.entry,
            session_id,
            speaker,
            used_tokens=used_tokens,
            language=language,
        )


def _live_since(chat_log: conversation.ChatLog) -> datetime | None:
    """When the oldest user or assistant message the chat log holds was written."""
    return min(
        (c.created for c in chat_log.content if c.role in ("user", "assistant")),
        default=None,
    )


def _used_tokens(chat_log: conversation.ChatLog) -> int:
    """An estimate of how much of the agent's context the conversation fills."""
    texts = [getattr(content, "content", None) for content in chat_log.content]
    return sum(estimate_tokens(text) for text in texts if isinstance(text, str))
