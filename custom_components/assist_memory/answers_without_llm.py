"""Home Assistant's own agent behind the memory agent: memory answers what it knows.

With no LLM, the intent agent answers devices, timers, the time and every other
intent Home Assistant ships; memory answers the questions a memory answers and
acknowledges the facts it learns. Which one answers is decided with the intent
agent's own recognition, before anything runs:

- a sentence trigger (an automation's sentence) or an understood intent goes to
  Home Assistant, always; the one exception is "who/what is <something>" read as a
  state query with no device, area or floor named ("Who is our plumber?"): Home
  Assistant answers it first, and only when no entity matched, a memory that
  answers the question does (or "I don't know that yet", never "Not any");
- a sentence the intent agent does not understand (no intent, or a device or area
  it does not know: "Where is the spare key?"; but not one that names a device or
  area it knows) is answered by the memory that answers
  it, or, for a statement the rules learn a fact from ("My son Leo plays football on
  Saturdays"), acknowledged and learnt at once;
- anything else is Home Assistant's answer, except when it could not answer at all
  (no intent, or no device of that name: "What is my favourite colour?" read as a
  device's state): nothing ran, so memory answers a question, or says "I don't know
  that yet", and a statement is declined in words, never with a device error ("I
  don't keep passwords or codes.", "I haven't kept that …": `statement_answers.py`
  decides).

A memory answer names the memories it comes from in the response's results (type
`custom`, the memory's id), so a caller can tell it from the intent agent's.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
import re
from typing import Final

from hassil.models import UnmatchedTextEntity
from homeassistant.components import conversation
from homeassistant.components.conversation.agent_manager import get_agent_manager
from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar, intent

from .const import LOGGER
from .engine import MemoryEngineError
from .engine.backend.protocol import MemoryBackend
from .engine.backend.question_answers import MemoryAnswer, answer_question
from .engine.backend.statement_answers import answer_statement
from .engine.conversation.speaker import Speaker
from .engine.conversation.turn_settings import LearnSettings
from .engine.language.commands import reply, reply_language
from .engine.language.questions import read_question
from .engine.language.time_phrases import home_now

# Slots that name what a state query is about; without one, "who is X" is a guess.
_TARGET_SLOTS = frozenset({"name", "area", "floor", "device_class"})
_NOT_UNDERSTOOD = frozenset(
    {
        intent.IntentResponseErrorCode.NO_INTENT_MATCH,
        intent.IntentResponseErrorCode.NO_VALID_TARGETS,
    }
)

_HAN: Final = re.compile(r"[\u4e00-\u9fff]")

type Converse = Callable[[], Awaitable[conversation.ConversationResult]]


@dataclass(frozen=True, slots=True)
class Recognition:
    """What the intent agent makes of a sentence, without acting on it."""

    understood: bool
    # A state query with nothing named ("Who is our plumber?").
    open_query: bool = False
    # A state query about a name nothing has ("What is my favourite colour?" read
    # as the state of a device called "favourite colour"): when it fails, nothing
    # ran, and the question is memory's.
    state_query: bool = False
    # It names a kind of device ("are all the locks locked?"): its answer stands.
    kind_named: bool = False


async def async_answer_without_llm(
    hass: HomeAssistant,
    backend: MemoryBackend,
    user_input: conversation.ConversationInput,
    chat_log: conversation.ChatLog,
    *,
    speaker: Speaker,
    learn_settings: LearnSettings | None,
    converse: Converse,
) -> conversation.ConversationResult:
    """The turn's answer: Home Assistant's (`converse`), or memory's.

    `learn_settings`: None when learning is off (a statement is declined then).
    """
    recognition = await _async_recognize(hass, user_input)
    language = reply_language(user_input.language, user_input.text)
    if recognition.understood and not recognition.open_query:
        return await converse()
    answer = await _answer(hass, backend, user_input, speaker)
    if recognition.open_query:
        result = await converse()
        response = result.response
        if response.matched_states or not _query_failed(response):
            return result
        if answer is None:
            if recognition.kind_named:
                return result
            # "Who is the dog's vet?" is not "Not any".
            return spoken_result(user_input, chat_log, reply(language, "dont_know"))
        return memory_result(user_input, chat_log, answer)
    if answer is not None:
        return memory_result(user_input, chat_log, answer)
    statement = await _quietly(
        answer_statement(
            backend,
            user_input.text,
            session_id=chat_log.conversation_id,
            speaker=speaker,
            language=language,
            settings=learn_settings,
        ),
        "learn a sentence",
    )
    if statement is not None and statement.learnt:
        return spoken_result(
            user_input, chat_log, statement.speech, memory_ids=statement.memory_ids
        )
    result = await converse()
    error = result.response.error_code
    if _failed_question(result, user_input.text, recognition):
        return spoken_result(user_input, chat_log, reply(language, "dont_know"))
    if error in _NOT_UNDERSTOOD and statement is not None:
        # Declined in words: never "no device called the garage code is 4512".
        return spoken_result(user_input, chat_log, statement.speech)
    return result


async def _answer(
    hass: HomeAssistant,
    backend: MemoryBackend,
    user_input: conversation.ConversationInput,
    speaker: Speaker,
) -> MemoryAnswer | None:
    return await _quietly(
        answer_question(
            backend,
            user_input.text,
            user_id=speaker.owner,
            now=home_now(hass.config.time_zone),
        ),
        "answer",
    )


def _failed_question(
    result: conversation.ConversationResult, text: str, recognition: Recognition
) -> bool:
    """A question the intent agent could not answer.

    No intent, or a state query about a device that does not exist; other intents'
    errors stay theirs.
    """
    error = result.response.error_code
    return (
        result.response.response_type is intent.IntentResponseType.ERROR
        and (
            error is intent.IntentResponseErrorCode.NO_INTENT_MATCH
            or (
                error is intent.IntentResponseErrorCode.NO_VALID_TARGETS
                and recognition.state_query
            )
        )
        and read_question(text) is not None
    )


async def _async_recognize(
    hass: HomeAssistant, user_input: conversation.ConversationInput
) -> Recognition:
    agent = get_agent_manager(hass).default_agent
    if agent is None:  # pragma: no cover - conversation always sets it up
        return Recognition(understood=True)
    if await agent.async_recognize_sentence_trigger(user_input):
        return Recognition(understood=True)
    result = await agent.async_recognize_intent(user_input)
    if result is None:
        return Recognition(understood=False)
    names_a_target = bool(_TARGET_SLOTS & set(result.entities))
    if result.unmatched_entities:
        # A sentence about a device or area of the house is Home Assistant's even
        # when something else in it did not match ("the temperature of the kitchen
        # light": a light has none).
        unmatched = [
            e.text
            for e in result.unmatched_entities_list
            if isinstance(e, UnmatchedTextEntity)
        ]
        state_query = result.intent.name == intent.INTENT_GET_STATE and any(
            e.name == "name"
            for e in result.unmatched_entities_list
            if isinstance(e, UnmatchedTextEntity)
        )
        # A question for another intent ("what's the temperature in here") is Home
        # Assistant's whatever did not match; so is one naming a kind of device
        # ("are all the fans on …").
        asked_of_home = read_question(user_input.text) is not None and (
            result.intent.name != intent.INTENT_GET_STATE or "domain" in result.entities
        )
        names_home = asked_of_home or names_a_target or _names_a_device(hass, unmatched)
        return Recognition(understood=names_home, state_query=state_query)
    open_query = result.intent.name == intent.INTENT_GET_STATE and not names_a_target
    return Recognition(
        understood=True,
        open_query=open_query,
        kind_named="domain" in result.entities,
    )


def _names_a_device(hass: HomeAssistant, texts: list[str]) -> bool:
    """Whether what the intent agent did not match holds a device's or area's name."""
    if not texts:
        return False
    names = {state.name for state in hass.states.async_all()}
    for area in ar.async_get(hass).async_list_areas():
        names.update({area.name, *area.aliases})
    said = " ".join(texts).casefold()
    return any(_contains(said, name.casefold()) for name in names if name.strip())


def _contains(text: str, name: str) -> bool:
    """A name in a text: as whole words, or anywhere for Chinese."""
    if _HAN.search(name):
        return name in text
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text) is not None


def _query_failed(response: intent.IntentResponse) -> bool:
    """A query that found nothing ("Not any") or an error it did not understand."""
    if response.response_type is intent.IntentResponseType.QUERY_ANSWER:
        return True
    return response.error_code in _NOT_UNDERSTOOD


async def _quietly[T](work: Awaitable[T], what: str) -> T | None:
    """The work's result, or None when the memory fails (the intent agent answers)."""
    try:
        return await work
    except MemoryEngineError as err:
        LOGGER.warning("Assist Memory could not %s: %s", what, err.message)
        return None


def memory_result(
    user_input: conversation.ConversationInput,
    chat_log: conversation.ChatLog,
    answer: MemoryAnswer,
) -> conversation.ConversationResult:
    """A memory's answer, naming the memories it comes from."""
    result = spoken_result(
        user_input, chat_log, answer.speech, memory_ids=[m.id for m in answer.memories]
    )
    result.response.response_type = intent.IntentResponseType.QUERY_ANSWER
    return result


def named_memories(result: conversation.ConversationResult) -> list[str]:
    """The memories an answer names (none for the intent agent's answers)."""
    return [
        str(target.id)
        for target in result.response.success_results
        if target.type is intent.IntentResponseTargetType.CUSTOM and target.id
    ]


def spoken_result(
    user_input: conversation.ConversationInput,
    chat_log: conversation.ChatLog,
    speech: str,
    *,
    continue_conversation: bool = False,
    memory_ids: Sequence[str] = (),
) -> conversation.ConversationResult:
    """The memory agent's own answer, kept in the chat log like any other.

    It names the memories it says (`memory_ids`), as results of type `custom`.
    """
    chat_log.async_add_assistant_content_without_tools(
        conversation.AssistantContent(agent_id=user_input.agent_id, content=speech)
    )
    response = intent.IntentResponse(language=user_input.language)
    response.async_set_speech(speech)
    response.async_set_results(
        [
            intent.IntentResponseTarget(
                name="memory", type=intent.IntentResponseTargetType.CUSTOM, id=memory_id
            )
            for memory_id in memory_ids
        ]
    )
    return conversation.ConversationResult(
        response=response,
        conversation_id=chat_log.conversation_id,
        continue_conversation=continue_conversation,
    )
