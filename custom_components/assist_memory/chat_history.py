"""The chat log the memory agent shares with the agent it wraps, made fit to hand over.

Home Assistant gives both agents one chat log per conversation: the wrapped agent finds
there what the memory agent's turn added (the user's words) and what earlier turns
left (messages, the extra system prompt with the memory block of the last turn).

- The words the wrapped agent gets (in prefix mode, the `<long_term_memory>` block in
  front of them) replace the user's message for its turn: Home Assistant would add
  them as a second user message otherwise. Afterwards the message is put back as it
  was said, so no memory block stays in the history.
- Another speaker's history is dropped before it reaches this speaker's turn, with
  the extra system prompt of their turns.
- An earlier memory block never stays in the extra system prompt: the wrapped agent
  reuses that prompt when it is given none.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from homeassistant.components import conversation

from .engine.conversation.compose import strip_memory_block


def prepare_history(chat_log: conversation.ChatLog, *, others_spoke: bool) -> None:
    """Drop what must not reach this turn: another speaker's history, an old block."""
    if others_spoke:
        # The system prompt (made again by the wrapped agent) and this message stay.
        del chat_log.content[1:-1]
        chat_log.llm_input_provided_index = 0
        chat_log.extra_system_prompt = None
    chat_log.extra_system_prompt = strip_memory_block(chat_log.extra_system_prompt)


@contextmanager
def words_for_the_agent(chat_log: conversation.ChatLog, text: str) -> Iterator[None]:
    """The user's message reads `text` while the wrapped agent answers."""
    said = chat_log.content[-1]
    if not isinstance(said, conversation.UserContent) or said.content == text:
        yield
        return
    given = conversation.UserContent(content=text, attachments=said.attachments)
    chat_log.content[-1] = given
    try:
        yield
    finally:
        chat_log.content[:] = [
            said if content is given else content for content in chat_log.content
        ]
