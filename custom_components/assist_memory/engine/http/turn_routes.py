"""The REST API's routes for a Home Assistant that keeps its memory in the add-on.

The memory API (`memory_routes.py`, `compaction_routes.py`) covers memories, settings
and compaction; the memory agent also needs the conversation turns (begin, end, learn,
...) and a few operations with the full parameters of the `MemoryBackend` protocol
(search with scopes and topic, prompts, the daily log, reindex, compaction when due). `RemoteBackend` calls these;
bodies and answers are the JSON forms of `turn_wire.py`.
"""

from __future__ import annotations

from typing import Final

from ..conversation.held_facts import HeldFact
from ..conversation.speaker import Speaker
from ..documents.daily_log import DEFAULT_SEARCH_LIMIT, LogEntry
from ..memory.compaction import CompactionResult
from .memory_routes import MAX_SEARCH_LIMIT, SKIPPED, compaction_answer
from .routing import ApiHost, ApiRequest, Handler, Route, body_object, not_found
from .turn_wire import (
    JsonObject,
    batch_from_json,
    batch_json,
    ended_json,
    fact_from_json,
    learn_result_json,
    learn_settings_from_json,
    turn_context_json,
    turn_settings_from_json,
)

# The most memories compared at once (a read-back says a few).
MAX_SAME_FACTS: Final = 20


def _body(request: ApiRequest) -> JsonObject:
    return JsonObject(body_object(request))


def _scopes(body: JsonObject) -> list[str] | None:
    return list(body.texts("scopes")) if body.data.get("scopes") is not None else None


def log_entry_json(entry: LogEntry) -> dict[str, str]:
    """A daily log entry as JSON."""
    return {"date": entry.date, "time": entry.time, "text": entry.text}


async def begin(host: ApiHost, request: ApiRequest) -> object:
    """Record the user's message; the memory for the agent."""
    body = _body(request)
    speaker = _speaker(body)
    context = await host.backend.begin_turn(
        session_id=body.session_id(),
        text=body.message("text"),
        # Without a user id, the speaker's person (none when nobody is known).
        user_id=body.user_id() or (speaker.owner if speaker else None),
        settings=turn_settings_from_json(body.data.get("settings")),
        live_since=body.time("live_since"),
        speaker=speaker,
    )
    return turn_context_json(context)


def _speaker(body: JsonObject) -> Speaker | None:
    """Who spoke, when the caller says (the REST API's `speaker` object)."""
    value = body.data.get("speaker")
    return None if value is None else Speaker.from_dict(value)


async def end(host: ApiHost, request: ApiRequest) -> object:
    """Record the agent's reply."""
    body = _body(request)
    said = body.texts("memory_ids") if body.data.get("memory_ids") is not None else None
    await host.backend.end_turn(
        session_id=body.session_id(),
        user_text=body.plain_text("user_text"),
        reply=body.plain_text("reply"),
        user_id=body.user_id(),
        memory_ids=said,
    )
    return {}


async def note(host: ApiHost, request: ApiRequest) -> object:
    """Persist a message of another agent's conversation."""
    body = _body(request)
    await host.backend.note_message(
        body.session_id(), body.text("role"), body.message("text")
    )
    return {}


async def memory_sentence(host: ApiHost, request: ApiRequest) -> object:
    """Keep a memory sentence, carried out already, and its answer as a turn."""
    body = _body(request)
    await host.backend.record_memory_sentence(
        session_id=body.session_id(),
        said=body.message("said"),
        reply=body.plain_text("reply"),
        user_id=body.user_id(),
        memory_ids=body.texts("memory_ids"),
    )
    return {}


async def ended(host: ApiHost, request: ApiRequest) -> object:
    """Conversations that ended with messages left to learn from."""
    body = _body(request)
    found = await host.backend.ended_conversations(every=body.boolean("every", False))
    return {"conversations": [ended_json(item) for item in found]}


async def pause(host: ApiHost, request: ApiRequest) -> object:
    """Keep a conversation out of the log and of learning from now on.

    What the speaker (`user_id`) said in it before is erased.
    """
    body = _body(request)
    await host.backend.pause_session(body.session_id(), user_id=body.user_id())
    return {}


async def batch(host: ApiHost, request: ApiRequest) -> object:
    """The messages to learn from now (`batch` is null while throttled)."""
    body = _body(request)
    found = await host.backend.extraction_batch(
        body.session_id(),
        learn_settings_from_json(body.data.get("settings")),
        used_tokens=body.integer("used_tokens", 0),
        ended=body.boolean("ended", False),
    )
    return {"batch": None if found is None else batch_json(found)}


async def rule_facts(host: ApiHost, request: ApiRequest) -> object:
    """Facts the rule-based extractor finds in a batch."""
    body = _body(request)
    facts = await host.backend.rule_facts(batch_from_json(body.data.get("batch")))
    return {"facts": [fact.to_dict() for fact in facts]}


async def learn(host: ApiHost, request: ApiRequest) -> object:
    """Write learned facts back."""
    body = _body(request)
    result = await host.backend.learn(
        batch_from_json(body.data.get("batch")),
        [fact_from_json(item) for item in body.items("facts")],
        scope=body.scope(),
        settings=learn_settings_from_json(body.data.get("settings")),
        speaker_unknown=body.boolean("speaker_unknown", False),
        device_id=body.optional_text("device_id"),
        name=body.optional_text("name"),
    )
    return learn_result_json(result)


async def held(host: ApiHost, request: ApiRequest) -> object:
    """The facts held for Review, newest first."""
    return {"held": [fact.as_dict() for fact in await host.backend.held_facts()]}


async def hold(host: ApiHost, request: ApiRequest) -> object:
    """Hold a fact for Review (a new one, or one put back)."""
    fact = await host.backend.hold(HeldFact.from_dict(body_object(request)))
    return fact.as_dict()


async def take_held(host: ApiHost, request: ApiRequest) -> object:
    """Remove a held fact; 404 when it is not held."""
    fact = await host.backend.take_held(request.path["held_id"])
    if fact is None:
        raise not_found("no such held fact")
    return fact.as_dict()


async def overview(host: ApiHost, request: ApiRequest) -> object:
    """The memory block without a message."""
    body = _body(request)
    content = await host.backend.memory_overview(
        user_id=body.user_id(),
        settings=turn_settings_from_json(body.data.get("settings")),
    )
    return {"content": content}


async def search(host: ApiHost, request: ApiRequest) -> object:
    """Ranked memories, with the protocol's scopes, topic and access recording."""
    body = _body(request)
    found = await host.backend.search(
        body.text("query"),
        limit=body.optional_integer("limit", minimum=1, maximum=MAX_SEARCH_LIMIT),
        scopes=_scopes(body),
        topic=body.optional_text("topic"),
        record_access=body.boolean("record_access", False),
    )
    return {"results": [result.to_dict() for result in found]}


async def same_facts(host: ApiHost, request: ApiRequest) -> object:
    """The pairs of memories that say the same thing in two languages."""
    body = _body(request)
    pairs = await host.backend.same_facts(body.texts("memory_ids")[:MAX_SAME_FACTS])
    return {"pairs": [list(pair) for pair in pairs]}


async def prompt(host: ApiHost, request: ApiRequest) -> object:
    """The prompt with memories in front (the `<long_term_memory>` block)."""
    body = _body(request)
    query = body.optional_text("query")
    text = await host.backend.build_prompt(
        body.text("prompt"),
        # A blank query is none: the memories then go in without a search.
        query=query if query and query.strip() else None,
        limit=body.optional_integer("limit", minimum=1, maximum=MAX_SEARCH_LIMIT),
        scopes=_scopes(body),
    )
    return {"prompt": text}


async def append_log(host: ApiHost, request: ApiRequest) -> object:
    """Append a line to the daily log (`now`: the caller's local time)."""
    body = _body(request)
    entry = await host.backend.append_daily_log(body.text("entry"), body.time("now"))
    return log_entry_json(entry)


async def search_logs(host: ApiHost, request: ApiRequest) -> object:
    """Daily log entries matching a text, best first."""
    body = _body(request)
    found = await host.backend.search_daily_logs(
        body.text("query"),
        body.integer(
            "limit", DEFAULT_SEARCH_LIMIT, minimum=1, maximum=MAX_SEARCH_LIMIT
        ),
    )
    return {"entries": [log_entry_json(entry) for entry in found]}


async def reindex(host: ApiHost, request: ApiRequest) -> object:
    """Rebuild the search index."""
    return {"indexed": await host.backend.reindex()}


async def compact_if_due(host: ApiHost, request: ApiRequest) -> object:
    """Compact when the threshold and the cooldown say so (the compaction trigger)."""
    result: CompactionResult | None = await host.backend.maybe_compact()
    return compaction_answer(result, SKIPPED)


def _post(
    path: str, operation_id: str, summary: str, handler: Handler, body: str
) -> Route:
    return Route("POST", path, operation_id, summary, handler, body=body)


TURN_ROUTES: Final[tuple[Route, ...]] = (
    _post("/api/turns/begin", "beginTurn", "Begin a conversation turn", begin,
          "TurnBegin"),
    _post("/api/turns/end", "endTurn", "End a conversation turn", end, "TurnEnd"),
    _post("/api/turns/note", "noteMessage", "Record another agent's message", note,
          "TurnNote"),
    _post("/api/turns/memory-sentence", "recordMemorySentence",
          "Keep a memory sentence as a turn", memory_sentence, "MemorySentence"),
    _post("/api/turns/ended", "endedConversations",
          "Conversations that ended with messages to learn from", ended,
          "EndedConversationsRequest"),
    _post("/api/turns/pause", "pauseSession", "Keep a conversation out of memory",
          pause, "TurnPause"),
    _post("/api/turns/batch", "extractionBatch", "Messages to learn from", batch,
          "ExtractionBatchRequest"),
    _post("/api/turns/rule-facts", "ruleFacts", "Facts found by the rules",
          rule_facts, "RuleFacts"),
    _post("/api/turns/learn", "learn", "Write learned facts back", learn, "Learn"),
    Route("GET", "/api/held", "heldFacts", "Facts held for Review", held),
    _post("/api/held", "holdFact", "Hold a fact for Review", hold, "HeldFact"),
    Route("DELETE", "/api/held/{held_id}", "takeHeldFact", "Remove a held fact",
          take_held),
    _post("/api/turns/overview", "memoryOverview", "The memory block without a message",
          overview, "Overview"),
    _post("/api/turns/search", "turnSearch", "Search memories for a turn", search,
          "TurnSearch"),
    _post("/api/turns/same-facts", "sameFacts",
          "Memories that say the same thing in two languages", same_facts,
          "SameFacts"),
    _post("/api/turns/prompt", "buildPrompt", "A prompt with memories in front",
          prompt, "TurnPrompt"),
    _post("/api/turns/daily-log", "appendDailyLog", "Append to today's log",
          append_log, "DailyLogEntry"),
    _post("/api/turns/daily-log/search", "searchDailyLogs", "Search the daily logs",
          search_logs, "DailyLogSearch"),
    Route("POST", "/api/memory/reindex", "reindex", "Rebuild the search index",
          reindex),
    Route("POST", "/api/auto-memory/compact-if-due", "compactIfDue",
          "Compact the memories when due", compact_if_due, answer="CompactionAnswer"),
)  # fmt: skip
