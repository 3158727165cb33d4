"""Where a learned memory came from, kept in its metadata so it can explain itself.

A memory learned from a conversation keeps (besides its `source`, stated or inferred,
its `confidence` and its conversation's `session_id`) the sentence it was learned
from, that message's id and who said it:

    metadata = {"said": "...", "message_id": 12, "speaker": "<user id>",
                "learned_by": "conversation"}

Memories stored before this was kept have none of it, and still load.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from .keywords import extract_keywords, index_terms
from .secrets_filter import redact

# A sentence is quoted up to this length: enough to recognise it, and the metadata
# stays well within its size limit.
SAID_MAX_CHARS: Final = 500

# Learned from what was said in a conversation (by the rules or an LLM), asked for
# ("remember that ..."), or stored by the assistant's memory tool.
LearnedBy = Literal["conversation", "command", "tool"]


@dataclass(frozen=True, slots=True)
class Provenance:
    """The sentence, message and speaker a memory was learned from, and how."""

    learned_by: LearnedBy
    said: str | None = None
    message_id: int | None = None
    speaker: str | None = None

    def metadata(self) -> dict[str, Any]:
        """The memory's metadata fields (what is unknown is left out)."""
        fields: dict[str, Any] = {"learned_by": self.learned_by}
        if self.said:
            # A secret said in the same breath is never kept with the memory.
            fields["said"] = redact(self.said)[:SAID_MAX_CHARS]
        if self.message_id is not None:
            fields["message_id"] = self.message_id
        if self.speaker:
            fields["speaker"] = self.speaker
        return fields


@dataclass(frozen=True, slots=True)
class SaidMessage:
    """A user's message a fact may come from."""

    id: int
    text: str
    user_id: str | None


def origin_of(fact: str, messages: Iterable[SaidMessage]) -> SaidMessage | None:
    """The message that says most of what `fact` says (the first on a tie).

    None when no message shares a word with it.
    """
    wanted = set(index_terms(extract_keywords(fact)))
    best: SaidMessage | None = None
    best_shared = 0
    for message in messages:
        shared = len(wanted & set(index_terms(extract_keywords(message.text))))
        if shared > best_shared:
            best, best_shared = message, shared
    return best


def learned_from(
    fact: str, messages: Iterable[SaidMessage], learned_by: LearnedBy
) -> Mapping[str, Any]:
    """The metadata of a fact learned from these messages."""
    found = origin_of(fact, messages)
    if found is None:
        return Provenance(learned_by).metadata()
    return Provenance(learned_by, found.text, found.id, found.user_id).metadata()
