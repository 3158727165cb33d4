"""JSON forms of what crosses the wire around a conversation turn.

The server's turn routes (`turn_routes.py`) and the remote backend (`remote_backend.py`) use the
same functions, so the two sides cannot disagree. Readers check every field: a missing
or mistyped one raises InvalidMemoryError with the code `bad_request` (a 400 answer on
the server, a clear error in the client).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime, timedelta
import sys
from typing import Any, Final, cast

from ..config import SETTINGS_BY_KEY
from ..conversation.conversation_records import (
    MAX_MESSAGE_LENGTH,
    Conversation,
    ConversationPage,
    Message,
    SessionInfo,
    validate_message,
)
from ..conversation.learning_queue import EndedConversation
from ..conversation.turn_settings import LearnSettings, TurnSettings
from ..conversation.turns import ExtractionBatch, LearnResult, TurnContext
from ..conversation.working import validate_session_id
from ..errors import InvalidMemoryError
from ..language.facts import STATED_CONFIDENCE, Fact
from ..search.scoring import ScoredMemory, ScoreParts
from ..storage.models import (
    HOUSEHOLD_SCOPE,
    MAX_WHOLE_NUMBER,
    Memory,
    memory_from_dict,
    parse_time,
    validate_scope,
    whole_number,
)

BAD_REQUEST: Final = "bad_request"


def bad_json(message: str) -> InvalidMemoryError:
    """The error of a field that is missing or of the wrong type."""
    return InvalidMemoryError(BAD_REQUEST, message)


class JsonObject:
    """Typed reads from a JSON object; `None` counts as missing."""

    def __init__(self, data: object, what: str = "the body") -> None:
        if not isinstance(data, Mapping):
            raise bad_json(f"{what} must be a JSON object")
        self.data = cast(Mapping[str, Any], data)

    def _get(self, name: str, kind: type | tuple[type, ...], what: str) -> Any:
        value = self.data.get(name)
        # bool is an int in Python, never in JSON.
        if value is None or (isinstance(value, kind) and not isinstance(value, bool)):
            return value
        raise bad_json(f"{name} must be {what}")

    def _required[T](self, name: str, value: T | None, default: T | None) -> T:
        if value is not None:
            return value
        if default is None:
            raise bad_json(f"{name} is required")
        return default

    def text(self, name: str, default: str | None = None) -> str:
        """A text field (required without a default)."""
        return self._required(name, self.optional_text(name), default)

    def optional_text(self, name: str) -> str | None:
        """A text field that may be missing."""
        value: str | None = self._get(name, str, "text")
        return value

    def integer(
        self,
        name: str,
        default: int | None = None,
        *,
        minimum: int = 0,
        maximum: int = MAX_WHOLE_NUMBER,
    ) -> int:
        """A whole number within a range (required without a default)."""
        value = self.optional_integer(name, minimum=minimum, maximum=maximum)
        return self._required(name, value, default)

    def optional_integer(
        self, name: str, *, minimum: int = 0, maximum: int = MAX_WHOLE_NUMBER
    ) -> int | None:
        """A whole number within a range, which may be missing."""
        value = whole_number(self.data.get(name))
        if value is None and self.data.get(name) is not None:
            raise bad_json(f"{name} must be a whole number")
        if value is not None and not minimum <= value <= maximum:
            raise bad_json(f"{name} must be from {minimum} to {maximum}")
        return value

    def setting(self, key: str, default: int) -> int:
        """A setting named by its option's key, within the range the option allows."""
        return self.integer(key, default, **option_range(key))

    def number(
        self,
        name: str,
        default: float | None = None,
        *,
        minimum: float = 0.0,
        maximum: float = MAX_WHOLE_NUMBER,
    ) -> float:
        """A number within a range (required without a default)."""
        value = self._get(name, (int, float), "a number")
        if value is not None and not minimum <= value <= maximum:  # NaN fails too
            raise bad_json(f"{name} must be from {minimum} to {maximum}")
        return float(self._required(name, value, default))

    def boolean(self, name: str, default: bool | None = None) -> bool:
        """True or false (required without a default)."""
        value = self.data.get(name)
        if value is None or isinstance(value, bool):
            return self._required(name, value, default)
        raise bad_json(f"{name} must be true or false")

    def items(self, name: str) -> list[Any]:
        """A list (empty when missing)."""
        return self._get(name, list, "a list") or []

    def texts(self, name: str) -> tuple[str, ...]:
        """A list of texts (empty when missing)."""
        values = self.items(name)
        if not all(isinstance(value, str) for value in values):
            raise bad_json(f"{name} must be a list of texts")
        return tuple(values)

    def integers(self, name: str) -> tuple[int, ...]:
        """A list of whole numbers from 0 (empty when missing)."""
        values = [whole_number(value) for value in self.items(name)]
        if not all(
            value is not None and 0 <= value <= MAX_WHOLE_NUMBER for value in values
        ):
            raise bad_json(
                f"{name} must be a list of whole numbers from 0 to {MAX_WHOLE_NUMBER}"
            )
        return tuple(cast(list[int], values))

    def session_id(self, name: str = "session_id") -> str:
        """A conversation id: non-blank text of at most 200 characters, no NUL."""
        return validate_session_id(self.text(name))

    def user_id(self) -> str | None:
        """Who speaks (None or "": nobody known); a user id is a scope."""
        value = self.optional_text("user_id")
        return validate_scope(value) if value else None

    def scope(self) -> str:
        """Whose memories (the household's when missing)."""
        return validate_scope(self.text("scope", HOUSEHOLD_SCOPE))

    def message(self, name: str) -> str:
        """A message of a conversation: non-blank, without NUL, of limited length."""
        text = self.text(name)
        validate_message(text)
        return text

    def plain_text(self, name: str) -> str:
        """Text without NUL, as long as a message may be (blank allowed)."""
        text = self.text(name)
        if "\x00" in text or len(text) > MAX_MESSAGE_LENGTH:
            raise bad_json(
                f"{name} must be text without NUL of at most "
                f"{MAX_MESSAGE_LENGTH} characters"
            )
        return text

    def time(self, name: str) -> datetime | None:
        """An ISO 8601 time that may be missing."""
        if (value := self.optional_text(name)) is None:
            return None
        try:
            return parse_time(value, name)
        except InvalidMemoryError:
            raise bad_json(f"{name} must be an ISO 8601 time") from None


def option_range(key: str) -> dict[str, int]:
    """The range the option `key` allows (the settings table), as keyword arguments."""
    field = SETTINGS_BY_KEY[key]
    return {
        "minimum": field.minimum or 0,
        "maximum": MAX_WHOLE_NUMBER if field.maximum is None else field.maximum,
    }


def memory_from_json(data: object) -> Memory:
    """A memory as the server sent it (its own length limit was checked there)."""
    return memory_from_dict(data, max_content_length=sys.maxsize)


# -- conversations ----------------------------------------------------------------------


def conversation_page_from_json(data: object) -> ConversationPage:
    """A page of conversations as the server sent it."""
    body = JsonObject(data, "the conversations")
    return ConversationPage(
        [SessionInfo(**JsonObject(item).data) for item in body.items("items")],
        body.integer("total"),
    )


def conversation_from_json(data: object) -> Conversation:
    """A conversation's messages as the server sent them."""
    body = JsonObject(data, "the conversation")
    return Conversation(
        body.text("session_id"),
        body.optional_text("title"),
        [_message_from_json(item) for item in body.items("messages")],
    )


def _message_from_json(data: object) -> Message:
    """A message as the server sent it (a server before turn memories sends none)."""
    fields = dict(JsonObject(data).data)
    fields["memory_ids"] = tuple(fields.get("memory_ids") or ())
    return Message(**fields)


# -- settings -------------------------------------------------------------------------


def turn_settings_json(settings: TurnSettings) -> dict[str, Any]:
    """TurnSettings as JSON."""
    return {
        "enable_user_profile": settings.enable_user_profile,
        "session_summary_limit": settings.session_summary_limit,
        "memory_budget": settings.memory_budget,
        "rag_top_n": settings.rag_top_n,
        "context_limit": settings.context_limit,
    }


def turn_settings_from_json(data: object) -> TurnSettings:
    """TurnSettings from JSON; missing fields (or no object at all) are the defaults."""
    default = TurnSettings()
    if data is None:
        return default
    body = JsonObject(data, "settings")
    return TurnSettings(
        enable_user_profile=body.boolean(
            "enable_user_profile", default.enable_user_profile
        ),
        session_summary_limit=body.setting(
            "session_summary_limit", default.session_summary_limit
        ),
        memory_budget=body.setting("memory_budget", default.memory_budget),
        rag_top_n=body.optional_integer("rag_top_n", **option_range("rag_top_n")),
        context_limit=body.setting("context_limit", default.context_limit),
    )


def learn_settings_json(settings: LearnSettings) -> dict[str, Any]:
    """LearnSettings as JSON (the interval in seconds)."""
    return {
        "min_interval": settings.min_interval.total_seconds(),
        "min_messages": settings.min_messages,
        "atomic_content_max_length": settings.atomic_content_max_length,
        "context_size": settings.context_size,
        "flush_threshold": settings.flush_threshold,
        "time_zone": settings.time_zone,
    }


def learn_settings_from_json(data: object) -> LearnSettings:
    """LearnSettings from JSON; missing fields are the defaults."""
    default = LearnSettings()
    if data is None:
        return default
    body = JsonObject(data, "settings")
    percent = option_range("flush_threshold")
    return LearnSettings(
        min_interval=timedelta(
            seconds=body.number(
                "min_interval",
                default.min_interval.total_seconds(),
                **option_range("extract_min_interval"),
            )
        ),
        min_messages=body.integer(
            "min_messages",
            default.min_messages,
            **option_range("extract_min_messages"),
        ),
        atomic_content_max_length=body.setting(
            "atomic_content_max_length", default.atomic_content_max_length
        ),
        context_size=body.setting("context_size", default.context_size),
        # The option is a percentage; the turn carries the fraction.
        flush_threshold=body.number(
            "flush_threshold",
            default.flush_threshold,
            minimum=percent["minimum"] / 100,
            maximum=percent["maximum"] / 100,
        ),
        time_zone=body.optional_text("time_zone"),
    )


# -- learning ---------------------------------------------------------------------------


def batch_json(batch: ExtractionBatch) -> dict[str, Any]:
    """An extraction batch as JSON."""
    return {
        "session_id": batch.session_id,
        "message_ids": list(batch.message_ids),
        "user_texts": list(batch.user_texts),
        "transcript": batch.transcript,
        "language": batch.language,
        "user_id": batch.user_id,
    }


def batch_from_json(data: object) -> ExtractionBatch:
    """An extraction batch from JSON."""
    body = JsonObject(data, "batch")
    return ExtractionBatch(
        session_id=body.session_id(),
        message_ids=body.integers("message_ids"),
        user_texts=body.texts("user_texts"),
        transcript=body.text("transcript", ""),
        language=body.optional_text("language"),
        user_id=body.user_id(),
    )


def ended_json(ended: EndedConversation) -> dict[str, Any]:
    """A conversation that ended, to learn from, as JSON."""
    return {"session_id": ended.session_id, "speaker_unknown": ended.speaker_unknown}


def ended_from_json(data: object) -> EndedConversation:
    """A conversation that ended, from JSON."""
    body = JsonObject(data, "an ended conversation")
    return EndedConversation(body.session_id(), body.boolean("speaker_unknown", False))


def fact_from_json(data: object) -> Fact:
    """A fact from JSON (its own rules checked: category, source, confidence)."""
    body = JsonObject(data, "a fact")
    try:
        return Fact(
            content=body.text("content"),
            category=body.text("category", "fact"),
            key=body.optional_text("key"),
            confidence=body.number("confidence", STATED_CONFIDENCE),
            source=body.text("source", "user_stated"),
            until=_optional_day(body.optional_text("until")),
            whose=body.optional_text("whose"),  # type: ignore[arg-type]  # Fact checks it
            from_llm=body.boolean("from_llm", False),
        )
    except ValueError as err:
        raise bad_json(f"a fact is invalid: {err}") from None


def _optional_day(text: str | None) -> date | None:
    """A day written YYYY-MM-DD (ValueError otherwise), or None."""
    return None if text is None else date.fromisoformat(text)


def learn_result_json(result: LearnResult) -> dict[str, int]:
    """What learning changed, as JSON."""
    return {
        "added": result.added,
        "refreshed": result.refreshed,
        "replaced": result.replaced,
        "skipped": result.skipped,
        "profile_updates": result.profile_updates,
        "not_stored": result.not_stored,
        "held": result.held,
        "not_said": result.not_said,
        "said_back": result.said_back,
    }


def learn_result_from_json(data: object) -> LearnResult:
    """What learning changed, from JSON."""
    body = JsonObject(data, "the learn result")
    return LearnResult(
        added=body.integer("added", 0),
        refreshed=body.integer("refreshed", 0),
        replaced=body.integer("replaced", 0),
        skipped=body.integer("skipped", 0),
        profile_updates=body.integer("profile_updates", 0),
        not_stored=body.integer("not_stored", 0),
        held=body.integer("held", 0),
        not_said=body.integer("not_said", 0),
        said_back=body.integer("said_back", 0),
    )


# -- retrieval and turns ----------------------------------------------------------------


def scored_memory_from_json(data: object) -> ScoredMemory:
    """The inverse of `ScoredMemory.to_dict`."""
    body = JsonObject(data, "a search result")
    parts = JsonObject(body.data.get("score_parts"), "score_parts")
    vector = parts.data.get("vector")
    confidence = body.data.get("answer_confidence")
    answers = body.data.get("answers")
    return ScoredMemory(
        memory=memory_from_json(data),
        score=body.number("score"),
        parts=ScoreParts(
            keyword=parts.number("keyword"),
            category=parts.number("category"),
            recency=parts.number("recency"),
            frequency=parts.number("frequency"),
            confidence=parts.number("confidence"),
            topic_boost=parts.number("topic_boost", 1.0),
            bm25=parts.number("bm25", 0.0),
            vector=None if vector is None else parts.number("vector"),
        ),
        matched=body.texts("matched"),
        answer_confidence=None
        if confidence is None
        else body.number("answer_confidence"),
        answers=answers if isinstance(answers, bool) else None,
    )


def turn_context_json(context: TurnContext) -> dict[str, Any]:
    """What the agent gets for a turn, as JSON."""
    return {
        "session_id": context.session_id,
        "scopes": list(context.scopes),
        "memories": [result.to_dict() for result in context.memories],
        "memory_block": context.memory_block,
        "prefixed_text": context.prefixed_text,
        "new_session": context.new_session,
        "topic": context.topic,
        "profile_used": context.profile_used,
        "summaries_used": context.summaries_used,
        "messages_used": context.messages_used,
        "others_in_history": context.others_in_history,
        "extra": dict(context.extra),
    }


def turn_context_from_json(data: object) -> TurnContext:
    """What the agent gets for a turn, from JSON."""
    body = JsonObject(data, "the turn context")
    extra = body.data.get("extra") or {}
    return TurnContext(
        session_id=body.text("session_id"),
        scopes=body.texts("scopes"),
        memories=tuple(
            scored_memory_from_json(item) for item in body.items("memories")
        ),
        memory_block=body.text("memory_block", ""),
        prefixed_text=body.text("prefixed_text", ""),
        new_session=body.boolean("new_session", False),
        topic=body.optional_text("topic"),
        profile_used=body.boolean("profile_used", False),
        summaries_used=body.integer("summaries_used", 0),
        messages_used=body.integer("messages_used", 0),
        others_in_history=body.boolean("others_in_history", False),
        extra=dict(JsonObject(extra, "extra").data),
    )
