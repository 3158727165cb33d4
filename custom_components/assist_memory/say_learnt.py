"""Say what was learnt (an option, off by default), after an LLM agent's answer.

When the turn taught Assist something the rules find ("My son Leo plays football on
Saturdays"), it is learnt now and one short sentence is added to the answer, in the
speaker's language: "I'll remember that: Your son Leo plays football on Saturdays."
With Home Assistant's own agent such a sentence is acknowledged anyway ("Got it: …").
"""

from __future__ import annotations

from homeassistant.components import conversation

from .const import CONF_AUTO_EXTRACT, CONF_SAY_LEARNT, LOGGER
from .engine import MemoryEngineError
from .engine.backend.statement_learning import learn_statement
from .engine.conversation.speaker import Speaker
from .engine.conversation.turn_settings import LearnSettings
from .engine.language.commands import reply_language
from .runtime_data import AssistMemoryConfigEntry


async def async_say_what_was_learnt(
    entry: AssistMemoryConfigEntry,
    user_input: conversation.ConversationInput,
    result: conversation.ConversationResult,
    *,
    session_id: str,
    speaker: Speaker,
) -> None:
    """Learn the turn's statement now and add so to the answer, when the option is on."""
    options = entry.options
    if not options.get(CONF_SAY_LEARNT) or not options.get(CONF_AUTO_EXTRACT, True):
        return
    try:
        learnt = await learn_statement(
            entry.runtime_data.backend,
            user_input.text,
            session_id=session_id,
            speaker=speaker,
            language=reply_language(user_input.language, user_input.text),
            settings=LearnSettings.from_options(options),
            saying="will_remember",
        )
    except MemoryEngineError as err:
        LOGGER.debug("Saying what was learnt: %s", err.message)
        return
    if learnt is None or not learnt.memory_ids:
        return
    said = result.response.speech.get("plain", {}).get("speech", "")
    result.response.async_set_speech(f"{said} {learnt.speech}".strip())
