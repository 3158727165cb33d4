"""Memory by voice in the memory agent: the sentences it answers itself.

"remember ...", "what do you remember about ...", "stop remembering" (`answers.py`);
"forget ..." asks first and waits for the answer in the same conversation
(`forget_by_voice.py`); "forget that" / "that's wrong" offer to forget the memories
the conversation's last answer used or just learnt, and "what did you just learn?"
says what it learnt. The memories an answer used are noted from its response (the
memory answers name them, `answers_without_llm.named_memories`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
import time
from typing import Final

from homeassistant.components import conversation
from homeassistant.core import HomeAssistant
from homeassistant.helpers import intent

from .answers_without_llm import named_memories, spoken_result
from .engine.backend.answers import answer_command
from .engine.backend.forget_by_voice import (
    ForgetProposal,
    ForgetQuestion,
    propose_forget,
    propose_forget_memories,
    settle_forget,
)
from .engine.conversation.speaker import Speaker
from .engine.errors import MemoryEngineError
from .engine.language.commands import (
    MemoryCommand,
    join_items,
    parse_command,
    reply,
    reply_language,
)
from .engine.language.follow_ups import follow_up
from .engine.language.listener import said_to
from .memory_sentence_turns import async_keep_memory_sentence
from .runtime_data import AssistMemoryConfigEntry
from .voice_forget import async_may_forget_household

# What a conversation waits on or refers back to is dropped after this long (Home
# Assistant ends a chat session after 5 minutes of silence).
KEPT_SECONDS: Final = 300.0


@dataclass
class _Kept[T]:
    """One value per conversation, for `KEPT_SECONDS`."""

    _values: dict[str, tuple[T, float]] = field(default_factory=dict)

    def put(self, conversation_id: str, value: T) -> None:
        self._values[conversation_id] = (value, time.monotonic())

    def get(self, conversation_id: str, *, take: bool = False) -> T | None:
        kept = (self._values.pop if take else self._values.get)(conversation_id, None)
        if kept is None or time.monotonic() - kept[1] > KEPT_SECONDS:
            return None
        return kept[0]


@dataclass(frozen=True, slots=True)
class _Recent:
    """The memories the conversation's last memory answer used, and what it learnt."""

    used: tuple[str, ...] = ()
    learnt: tuple[str, ...] = ()


class VoiceMemory:
    """The memory sentences of Home Assistant's own agent, per conversation."""

    def __init__(self, entry: AssistMemoryConfigEntry) -> None:
        self.entry = entry
        self._waiting = _Kept[ForgetProposal]()
        self._recent = _Kept[_Recent]()

    async def async_answer(
        self,
        hass: HomeAssistant,
        user_input: conversation.ConversationInput,
        chat_log: conversation.ChatLog,
        *,
        speaker: Speaker,
        uses_llm: bool,
    ) -> conversation.ConversationResult | None:
        """The answer to a memory sentence, or None for any other sentence.

        With an LLM agent only "stop remembering" is answered here (the LLM has
        tools for the rest). A memory sentence and its answer are turns of the
        conversation like any other (kept in its log, never learnt from again);
        "stop remembering" is not kept.
        """
        result = await self._async_answer(
            hass, user_input, chat_log, speaker=speaker, uses_llm=uses_llm
        )
        command = parse_command(user_input.text)
        if result is not None and (command is None or command.action != "pause"):
            async_keep_memory_sentence(
                hass,
                self.entry,
                chat_log.conversation_id,
                said=user_input.text,
                reply=result.response.speech.get("plain", {}).get("speech", ""),
                user_id=speaker.owner,
                memory_ids=named_memories(result),
            )
        return result

    async def _async_answer(
        self,
        hass: HomeAssistant,
        user_input: conversation.ConversationInput,
        chat_log: conversation.ChatLog,
        *,
        speaker: Speaker,
        uses_llm: bool,
    ) -> conversation.ConversationResult | None:
        conversation_id = chat_log.conversation_id
        backend = self.entry.runtime_data.backend
        user_id = speaker.owner
        # The household's memories: forgotten by voice as the option allows the
        # person speaking (nobody known is not an administrator).
        admin_id = speaker.user_id if speaker.known else None
        waiting = self._waiting.get(conversation_id, take=True)
        # Anything but an answer keeps the memories and is a turn like any other.
        if waiting is not None and (
            speech := await settle_forget(backend, waiting, user_input.text)
        ):
            return spoken_result(user_input, chat_log, speech)
        command = parse_command(user_input.text)
        if command is not None and command.action == "pause":
            return await self._async_say(user_input, chat_log, command, speaker)
        if uses_llm:
            return None
        language = reply_language(user_input.language, user_input.text)
        match follow_up(user_input.text):
            case "forget_last":
                recent = self._recent.get(conversation_id) or _Recent()
                question = await propose_forget_memories(
                    backend,
                    recent.learnt or recent.used,
                    user_id=user_id,
                    language=language,
                    may_forget_household=await async_may_forget_household(
                        hass, self.entry, admin_id
                    ),
                )
                return self._ask(user_input, chat_log, question)
            case "what_learnt":
                speech, learnt = await self._learnt(conversation_id, user_id, language)
                return spoken_result(user_input, chat_log, speech, memory_ids=learnt)
        if command is None:
            return None
        if command.action == "forget":
            question = await propose_forget(
                backend,
                command,
                user_id=user_id,
                language=language,
                may_forget_household=await async_may_forget_household(
                    hass, self.entry, admin_id
                ),
            )
            return self._ask(user_input, chat_log, question)
        return await self._async_say(user_input, chat_log, command, speaker)

    def note(
        self, conversation_id: str, result: conversation.ConversationResult
    ) -> None:
        """Keep the memories an answer used or learnt, for "forget that"."""
        if not (ids := tuple(named_memories(result))):
            return
        before = self._recent.get(conversation_id) or _Recent()
        if result.response.response_type is intent.IntentResponseType.QUERY_ANSWER:
            self._recent.put(conversation_id, _Recent(used=ids, learnt=before.learnt))
        else:
            learnt = (*before.learnt, *ids)
            self._recent.put(conversation_id, _Recent(used=ids, learnt=learnt))

    async def _learnt(
        self, conversation_id: str, user_id: str | None, language: str
    ) -> tuple[str, list[str]]:
        """What the conversation taught, and the memories that hold it."""
        recent = self._recent.get(conversation_id) or _Recent()
        backend = self.entry.runtime_data.backend
        try:
            found = [await backend.get(memory_id) for memory_id in recent.learnt]
        except MemoryEngineError as err:
            return reply(language, "failed", reason=err.message), []
        memories = [m for m in found if m is not None]
        if not memories:
            return reply(language, "learnt_nothing"), []
        items = join_items(language, said_to(memories, user_id))
        return reply(language, "learnt_last", items=items), [m.id for m in memories]

    def _ask(
        self,
        user_input: conversation.ConversationInput,
        chat_log: conversation.ChatLog,
        question: ForgetQuestion,
    ) -> conversation.ConversationResult:
        proposal = question.proposal
        if proposal is not None:
            self._waiting.put(chat_log.conversation_id, proposal)
        return spoken_result(
            user_input,
            chat_log,
            question.speech,
            continue_conversation=proposal is not None,
            # The memories the question names (what "yes" would forget).
            memory_ids=proposal.memory_ids if proposal is not None else (),
        )

    async def _async_say(
        self,
        user_input: conversation.ConversationInput,
        chat_log: conversation.ChatLog,
        command: MemoryCommand,
        speaker: Speaker,
    ) -> conversation.ConversationResult:
        """Remember, recall or pause, and say so in the user's language."""
        answer = await answer_command(
            self.entry.runtime_data.backend,
            command,
            session_id=chat_log.conversation_id,
            speaker=speaker,
            language=reply_language(user_input.language, user_input.text),
            said=user_input.text,
        )
        return spoken_result(
            user_input, chat_log, answer.speech, memory_ids=answer.memory_ids
        )
