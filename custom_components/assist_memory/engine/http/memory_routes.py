"""The REST API's handlers for memories, settings, compaction, sessions and logs.

Paths are the memory server's REST paths (`/api/memory/main`, `/memory/long-term/{id}`,
...); the other routes (add, change, profile, daily logs, export) follow their style.
"""

from __future__ import annotations

from collections.abc import Mapping
from http import HTTPStatus
from typing import Any, Final, cast, get_args

from ..backend.protocol import StoreStats
from ..config import config_changes, config_view
from ..conversation.seen_by import (
    conversation_seen,
    session_info_seen,
    summary_seen,
    working_seen,
)
from ..documents.daily_log import validate_date
from ..errors import InvalidMemoryError
from ..memory.compaction import CompactionResult
from ..storage.fullness import Fullness
from ..storage.list_filters import LAST_USED, LIST_STATES, ORIGINS, LastUsed, Origin
from ..storage.models import CATEGORIES, HOUSEHOLD_SCOPE, MAX_SCOPE_LENGTH, Memory
from ..storage.store import ImportMode, SortOrder
from .routing import (
    ANY_NOT_BLANK,
    ONE_WORD_OR_NONE,
    ApiHost,
    ApiRequest,
    ApiResponse,
    Param,
    Route,
    bad_request,
    body_object,
    body_text,
    conflict,
    not_found,
    query_choice,
    query_int,
    query_text,
)

MAX_SEARCH_LIMIT: Final = 100
MAX_PAGE_SIZE: Final = 500
# An import is a whole export: 32 MiB holds some 80 000 memories.
MAX_IMPORT_BYTES: Final = 32 * 1024 * 1024
DEFAULT_PAGE_SIZE: Final = 50
NOT_ENABLED: Final = "LLM compaction not enabled"
# The document's words for the 409 of compaction's routes.
COMPACTION_OFF: Final = "LLM compaction is not enabled (code compaction_not_enabled)"
SKIPPED: Final = "Compaction skipped or failed"
NOTHING_TO_UNDO: Final = "Nothing to undo"
# Fields a memory may be given on add and update (the rest is the store's business).
MEMORY_FIELDS: Final = (
    "category",
    "key",
    "tags",
    "confidence",
    "source",
    "scope",
    "session_id",
    "metadata",
    "expires_at",
)


def memory_fields(body: Mapping[str, Any]) -> dict[str, Any]:
    """The memory fields present in a body (unknown ones are an error).

    Tags are a list here (the API document says so; a service may give one text).
    """
    unknown = set(body) - {"content", *MEMORY_FIELDS}
    if unknown:
        raise bad_request(f"unknown field {min(unknown)!r}")
    if body.get("tags") is not None and not isinstance(body["tags"], list):
        raise bad_request("tags must be a list of text")
    return {name: body[name] for name in MEMORY_FIELDS if name in body}


def memory_json(memory: Memory) -> dict[str, Any]:
    """A memory's JSON form."""
    return memory.to_dict()


def stats_json(stats: StoreStats) -> dict[str, Any]:
    """Counts and settings, without content."""
    return {
        "count": stats.count,
        "maxItems": stats.max_items,
        "maxContentLength": stats.max_content_length,
        "lastChanged": stats.last_changed,
        "byCategory": stats.by_category,
        "bySource": stats.by_source,
        "scopes": stats.scopes,
        "retrievalLimit": stats.retrieval_limit,
        "evictionThreshold": stats.eviction_threshold,
        "indexed": stats.indexed,
        "fullTextSearch": stats.full_text_search,
        "vectorSearch": stats.vector_search,
        "embedded": stats.embedded,
        "fullness": fullness_json(stats.fullness),
    }


def fullness_json(fullness: Fullness) -> dict[str, Any]:
    """Whether the memory is full and has stopped learning (no content)."""
    return {
        "full": fullness.full,
        "nearlyFull": fullness.nearly_full,
        "learningStopped": fullness.learning_stopped,
        "stoppedSince": fullness.stopped_since,
        "refused": fullness.refused,
    }


def compaction_answer(result: CompactionResult | None, none_message: str) -> object:
    """The compaction answer: the counts, or a message when nothing was done."""
    return {"message": none_message} if result is None else result.to_dict()


# -- handlers -------------------------------------------------------------------------

P_QUERY = Param(
    "q", required=True, description="The search text.", pattern=ANY_NOT_BLANK
)
P_LIMIT_SEARCH = Param(
    "limit",
    "integer",
    description="How many results.",
    minimum=1,
    maximum=MAX_SEARCH_LIMIT,
)
P_SCOPE = Param("scope", description="A user id: the household's plus theirs.")
P_LIMIT = Param(
    "limit", "integer", description="Page size.", minimum=1, maximum=MAX_PAGE_SIZE
)
P_OFFSET = Param("offset", "integer", description="Items to skip.")
P_CATEGORY = Param("category", description="Only this category.", choices=CATEGORIES)
P_TAG = Param("tag", description="Only memories with this tag.")
P_SORT = Param("sort", description="Order.", choices=get_args(SortOrder))
P_ORIGIN = Param(
    "origin",
    description="stated: said or added by a person; learned: inferred by extraction.",
    choices=ORIGINS,
)
P_LAST_USED = Param(
    "last_used",
    description="recent: used in an answer in the last 7 days; dormant: not for 90 "
    "days; never: never used.",
    choices=LAST_USED,
)
P_STATE = Param(
    "state",
    description="current: memories whose end has not come (default); ended: those "
    "whose end has come (kept for the daily-log retention, then erased); all.",
    choices=tuple(LIST_STATES),
)
P_SESSIONS = Param("limit", "integer", description="How many.", minimum=1, maximum=100)
P_PROFILE_SCOPE = Param(
    "scope",
    description="Whose profile (default: household).",
    pattern=ONE_WORD_OR_NONE,
    max_length=MAX_SCOPE_LENGTH,
)
P_OWNER = Param("user", description="Only this user's messages (default: everyone's).")
P_DAILY_QUERY = Param("q", description="Only entries matching this text.")


async def get_main(host: ApiHost, request: ApiRequest) -> object:
    """MEMORY.md."""
    return {"content": await host.backend.read_markdown()}


async def put_main(host: ApiHost, request: ApiRequest) -> object:
    """Replace MEMORY.md; the store follows."""
    content = body_text(body_object(request), "content")
    result = await host.backend.write_markdown(content)
    return {
        "added": result.added,
        "updated": result.updated,
        "removed": result.removed,
        "content": await host.backend.read_markdown(),
    }


async def search(host: ApiHost, request: ApiRequest) -> object:
    """Ranked memories with their scores and why they matched."""
    query = request.query.get("q", "").strip()
    if not query:
        raise bad_request("the query parameter q is required")
    limit = query_int(request, P_LIMIT_SEARCH, 0) or None
    scopes = None
    if scope := request.query.get("scope"):
        scopes = list(dict.fromkeys([HOUSEHOLD_SCOPE, scope]))
    found = await host.backend.search(query, limit=limit, scopes=scopes)
    return {"query": query, "results": [result.to_dict() for result in found]}


async def get_config(host: ApiHost, request: ApiRequest) -> object:
    """The settings by API name."""
    return config_view(await host.read_options())


async def put_config(host: ApiHost, request: ApiRequest) -> object:
    """Change some settings; the answer is all of them."""
    changes = config_changes(request.body)
    if changes:
        await host.write_options(changes)
    return config_view(await host.read_options())


async def check_compaction_enabled(host: ApiHost) -> None:
    """Compaction's routes answer 409 while it is switched off (or has no LLM)."""
    options = await host.read_options()
    if not options.get("compaction_enabled") or not host.backend.compaction_enabled:
        raise conflict(NOT_ENABLED, "compaction_not_enabled")


async def compact(host: ApiHost, request: ApiRequest) -> object:
    """Compact now."""
    await check_compaction_enabled(host)
    return compaction_answer(await host.backend.compact(), SKIPPED)


async def undo_compaction(host: ApiHost, request: ApiRequest) -> object:
    """Undo the newest compaction."""
    return compaction_answer(await host.backend.undo_compaction(), NOTHING_TO_UNDO)


async def compactions(host: ApiHost, request: ApiRequest) -> object:
    """The saved states before the last compactions, newest first."""
    backups = await host.backend.compaction_backups()
    return {
        "enabled": host.backend.compaction_enabled,
        "items": [
            {"id": b.id, "createdAt": b.created_at.isoformat(), "count": b.count}
            for b in backups
        ],
    }


async def list_memories(host: ApiHost, request: ApiRequest) -> object:
    """A page of memories with the total."""
    limit = query_int(request, P_LIMIT, DEFAULT_PAGE_SIZE)
    offset = query_int(request, P_OFFSET, 0)
    sort = cast(SortOrder, query_choice(request, P_SORT, "newest"))
    page = await host.backend.list(
        offset=offset,
        limit=limit,
        category=query_choice(request, P_CATEGORY, None),
        scope=query_text(request, P_SCOPE),
        tags=query_text(request, P_TAG),
        sort=sort,
        origin=cast(Origin | None, query_choice(request, P_ORIGIN, None)),
        last_used=cast(LastUsed | None, query_choice(request, P_LAST_USED, None)),
        ended=LIST_STATES[query_choice(request, P_STATE, "current")],
    )
    return {
        "items": [memory_json(m) for m in page.items],
        "total": page.total,
        "limit": page.limit,
        "offset": page.offset,
        "hasMore": page.offset + len(page.items) < page.total,
    }


async def add_memory(host: ApiHost, request: ApiRequest) -> object:
    """Store a new memory."""
    body = body_object(request)
    fields = memory_fields(body)
    memory = await host.backend.add(body_text(body, "content"), **fields)
    return ApiResponse(HTTPStatus.CREATED, memory_json(memory))


async def get_memory(host: ApiHost, request: ApiRequest) -> object:
    """One memory."""
    memory = await host.backend.get(request.path["id"])
    if memory is None:
        raise not_found(f"no memory with id {request.path['id']!r}")
    return memory_json(memory)


async def update_memory(host: ApiHost, request: ApiRequest) -> object:
    """Change fields of a memory (a field that is null or missing stays as it is)."""
    body = body_object(request)
    fields = {k: v for k, v in memory_fields(body).items() if v is not None}
    content = body_text(body, "content", required=False) or None
    memory_id = request.path["id"]
    if content is None and not fields:  # nothing to change: the memory as it is
        memory = await host.backend.get(memory_id)
    else:
        memory = await host.backend.update(memory_id, content, **fields)
    if memory is None:
        raise not_found(f"no memory with id {memory_id!r}")
    return memory_json(memory)


async def delete_memory(host: ApiHost, request: ApiRequest) -> object:
    """Remove a memory."""
    if not await host.backend.delete(request.path["id"]):
        raise not_found(f"no memory with id {request.path['id']!r}")
    return {"deleted": request.path["id"]}


async def clear_memories(host: ApiHost, request: ApiRequest) -> object:
    """Remove every long-term memory (working memory stays until its session ends)."""
    return {"deleted": await host.backend.clear()}


async def working_memory(host: ApiHost, request: ApiRequest) -> object:
    """A conversation's working memory (another person's: only that it is there)."""
    memory = await host.backend.working_memory(request.path["session_id"])
    if memory is None:
        raise not_found(f"no active session {request.path['session_id']!r}")
    return working_seen(memory, request.viewer)


async def working_memories(host: ApiHost, request: ApiRequest) -> object:
    """Every active conversation's working memory."""
    sessions = await host.backend.working_sessions()
    return {"items": [working_seen(memory, request.viewer) for memory in sessions]}


async def sessions(host: ApiHost, request: ApiRequest) -> object:
    """Summaries of the latest conversations, newest first."""
    limit = query_int(request, P_SESSIONS, 20)
    found = await host.backend.recent_sessions(limit)
    return {"items": [summary_seen(summary, request.viewer) for summary in found]}


async def conversations(host: ApiHost, request: ApiRequest) -> object:
    """Conversations, the most recently active first, with how many there are."""
    page = await host.backend.conversations(
        limit=query_int(request, P_SESSIONS, 20),
        offset=query_int(request, P_OFFSET, 0),
        owner=request.query.get("user") or None,
    )
    return {
        "items": [session_info_seen(info, request.viewer) for info in page.items],
        "total": page.total,
    }


async def conversation(host: ApiHost, request: ApiRequest) -> object:
    """One conversation's messages (those the asking person may read)."""
    session_id = request.path["session_id"]
    found = await host.backend.conversation(
        session_id, owner=request.query.get("user") or None
    )
    shown = None if found is None else conversation_seen(found, request.viewer)
    if shown is None:
        raise not_found(f"no conversation {session_id!r}")
    return shown.to_dict()


async def delete_conversation(host: ApiHost, request: ApiRequest) -> object:
    """Delete a conversation: messages, summary and working memory, in every file."""
    session_id = request.path["session_id"]
    deleted = await host.backend.delete_conversation(
        session_id, owner=request.query.get("user") or None
    )
    if not deleted:
        raise not_found(f"no conversation {session_id!r}")
    return {"deleted": session_id, "messages": deleted}


async def get_profile(host: ApiHost, request: ApiRequest) -> object:
    """The user profile document."""
    scope = request.query.get("scope") or HOUSEHOLD_SCOPE
    return {"scope": scope, "content": await host.backend.read_profile(scope)}


async def put_profile(host: ApiHost, request: ApiRequest) -> object:
    """Replace the user profile document."""
    body = body_object(request)
    scope = body_text(body, "scope", required=False) or HOUSEHOLD_SCOPE
    await host.backend.write_profile(scope, body_text(body, "content"))
    return {"scope": scope, "content": await host.backend.read_profile(scope)}


async def daily_logs(host: ApiHost, request: ApiRequest) -> object:
    """The days that have a log (newest first), or the entries matching `q`."""
    if query := request.query.get("q", "").strip():
        found = await host.backend.search_daily_logs(query)
        return {
            "entries": [{"date": e.date, "time": e.time, "text": e.text} for e in found]
        }
    return {"dates": await host.backend.daily_log_dates()}


async def daily_log(host: ApiHost, request: ApiRequest) -> object:
    """One day's log."""
    day = request.path["day"]
    try:
        validate_date(day)
    except InvalidMemoryError:
        raise bad_request("day must be a date like 2026-01-31") from None
    return {"date": day, "content": await host.backend.read_daily_log(day)}


async def export_memories(host: ApiHost, request: ApiRequest) -> object:
    """Every memory, ids and times kept."""
    return await host.backend.export()


async def import_memories(host: ApiHost, request: ApiRequest) -> object:
    """Restore an export document (`mode`: merge or replace)."""
    body = body_object(request)
    mode = body.get("mode", "merge")
    if mode not in get_args(ImportMode):
        raise bad_request("mode must be merge or replace")
    if "document" not in body:
        raise bad_request("document is required")
    result = await host.backend.import_(body["document"], mode=mode)
    return {"added": result.added, "updated": result.updated, "total": result.total}


async def stats(host: ApiHost, request: ApiRequest) -> object:
    """Counts and settings."""
    return stats_json(await host.backend.stats())


ROUTES: Final[tuple[Route, ...]] = (
    Route("GET", "/api/memory/main", "getMain", "Read MEMORY.md", get_main,
          answer="Markdown"),
    Route("PUT", "/api/memory/main", "putMain", "Replace MEMORY.md", put_main,
          body="Markdown", answer="MarkdownResult"),
    Route("GET", "/api/memory/search", "search", "Search memories", search,
          (P_QUERY, P_LIMIT_SEARCH, P_SCOPE), answer="SearchResults"),
    Route("GET", "/api/memory/config", "getConfig", "Read the settings", get_config,
          answer="Config"),
    Route("PUT", "/api/memory/config", "putConfig", "Change settings", put_config,
          body="Config", answer="Config"),
    Route("POST", "/api/auto-memory/compact", "compact", "Compact the memories now",
          compact, answer="CompactionAnswer", conflict=COMPACTION_OFF),
    Route("POST", "/api/auto-memory/undo", "undoCompaction",
          "Undo the newest compaction", undo_compaction, answer="CompactionAnswer"),
    Route("GET", "/api/auto-memory/compactions", "compactions",
          "Compactions that can be undone", compactions, answer="Compactions"),
    Route("GET", "/memory/long-term", "listMemories", "List long-term memories",
          list_memories, (P_LIMIT, P_OFFSET, P_CATEGORY, P_SCOPE, P_TAG, P_SORT,
                         P_ORIGIN, P_LAST_USED, P_STATE),
          answer="MemoryPage"),
    Route("POST", "/memory/long-term", "addMemory", "Add a memory", add_memory,
          body="NewMemory", answer="Memory", status=HTTPStatus.CREATED),
    Route("DELETE", "/memory/long-term", "clearMemories",
          "Delete every long-term memory", clear_memories, answer="Deleted"),
    Route("GET", "/memory/long-term/{id}", "getMemory", "Read a memory", get_memory,
          answer="Memory"),
    Route("PATCH", "/memory/long-term/{id}", "updateMemory", "Change a memory",
          update_memory, body="MemoryChanges", answer="Memory"),
    Route("DELETE", "/memory/long-term/{id}", "deleteMemory", "Delete a memory",
          delete_memory, answer="Deleted"),
    Route("GET", "/memory/working", "workingMemories",
          "Working memory of every active conversation", working_memories,
          answer="WorkingMemories"),
    Route("GET", "/memory/working/{session_id}", "workingMemory",
          "Working memory of a conversation", working_memory, answer="WorkingMemory"),
    Route("GET", "/memory/sessions", "sessions", "Recent conversations", sessions,
          (P_SESSIONS,), answer="Sessions"),
    Route("GET", "/memory/conversations", "conversations",
          "Conversations with their message counts", conversations,
          (P_SESSIONS, P_OFFSET, P_OWNER), answer="Conversations"),
    Route("GET", "/memory/sessions/{session_id}", "conversation",
          "A conversation's messages", conversation, (P_OWNER,),
          answer="Conversation"),
    Route("DELETE", "/memory/sessions/{session_id}", "deleteConversation",
          "Delete a conversation", delete_conversation, (P_OWNER,),
          answer="DeletedConversation"),
    Route("GET", "/memory/profile", "getProfile", "Read the user profile",
          get_profile, (P_PROFILE_SCOPE,), answer="Profile"),
    Route("PUT", "/memory/profile", "putProfile", "Replace the user profile",
          put_profile, body="ProfileInput", answer="Profile"),
    Route("GET", "/memory/daily", "dailyLogs", "Days with a log, or search them",
          daily_logs, (P_DAILY_QUERY,), answer="DailyLogs"),
    Route("GET", "/memory/daily/{day}", "dailyLog", "Read one day's log", daily_log,
          answer="DailyLog"),
    Route("GET", "/memory/export", "exportMemories", "Export every memory",
          export_memories, answer="ExportDocument"),
    Route("POST", "/memory/import", "importMemories", "Import an export document",
          import_memories, body="Import", answer="ImportResult",
          max_body=MAX_IMPORT_BYTES),
    Route("GET", "/memory/stats", "stats", "Counts and settings", stats,
          answer="Stats"),
)  # fmt: skip
