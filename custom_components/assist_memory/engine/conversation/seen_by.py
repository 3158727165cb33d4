"""What someone sees of the conversations: their own in full, others' only that they exist.

A person's conversations are theirs. Whoever may manage everyone's (Home Assistant's
administrators) sees that another person's conversation exists (whose it is, when,
how many turns) and may delete it, never what was said in it: no title, snippet,
topic, context variables or messages. A conversation of nobody known (an unassigned
voice device) is the household's, as its memories are: anyone who manages them reads
it. The viewer None is the memory server's token holder (the household's own
program, such as Home Assistant asking for a person): everything.

Each listing is given as JSON here, with `"private": true` on what is withheld.
"""

from __future__ import annotations

from typing import Any

from .conversation_records import Conversation, SessionInfo, SessionSummary
from .working import WorkingMemory


def readable(owner: str | None, viewer: str | None) -> bool:
    """Whether `viewer` may read what `owner` said (None: nobody known)."""
    return viewer is None or owner is None or owner == viewer


def session_info_seen(info: SessionInfo, viewer: str | None) -> dict[str, Any]:
    """A conversation of a listing (whose: who started it)."""
    shown = info.to_dict()
    if not readable(info.user_id, viewer):
        shown.update(title=None, snippet=None, private=True)
    return shown


def summary_seen(summary: SessionSummary, viewer: str | None) -> dict[str, Any]:
    """A conversation's summary (its title and first answer)."""
    shown = summary.to_dict()
    if not readable(summary.user_id, viewer):
        shown.update(title="", snippet="", private=True)
    return shown


def working_seen(memory: WorkingMemory, viewer: str | None) -> dict[str, Any]:
    """A conversation in progress (its working memory)."""
    shown = memory.to_dict()
    if not readable(memory.user_id, viewer):
        shown.update(
            current_topic=None, context_variables={}, last_emotion=None, private=True
        )
    return shown


def conversation_seen(
    conversation: Conversation, viewer: str | None
) -> Conversation | None:
    """The messages of a conversation the viewer may read (None: none of them).

    The title is its first speaker's, shown when their messages are.
    """
    messages = [m for m in conversation.messages if readable(m.user_id, viewer)]
    if not messages:
        return None
    first = conversation.messages[0].user_id
    title = conversation.title if readable(first, viewer) else None
    return Conversation(conversation.session_id, title, messages)
