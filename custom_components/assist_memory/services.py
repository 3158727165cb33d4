"""Services: memories, prompts, compaction, conversations, and the memory agent in Assist.

Memories: add, get, list, update, delete, clear, search.

They read and change everyone's memories, so they are for administrators (and for
automations and scripts, whose calls carry no user); a person who is not one has the
websocket commands for their own. `delete_conversation` is open to everyone: it
deletes only the caller's messages.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from typing import Any

from homeassistant.const import ATTR_CONFIG_ENTRY_ID
from homeassistant.core import (
    HomeAssistant,
    ServiceCall,
    ServiceResponse,
    SupportsResponse,
    callback,
)
from homeassistant.exceptions import HomeAssistantError, ServiceValidationError
from homeassistant.helpers import config_validation as cv, service
import probatio

from .const import DOMAIN
from .conversation_access import async_conversation_owner
from .ends import expires_at_given
from .engine import (
    HOUSEHOLD_SCOPE,
    InvalidMemoryError,
    Memory,
    MemoryBackend,
    MemoryEngineError,
    MemoryFields,
    MemoryFullError,
)
from .engine.conversation.seen_by import working_seen
from .engine.memory.compaction import CompactionResult
from .engine.storage.list_filters import LIST_STATES
from .engine.storage.store import SORT_ORDERS
from .pipeline import async_set_pipeline_agent
from .runtime_data import AssistMemoryConfigEntry

ATTR_ID = "id"
ATTR_CONTENT = "content"
ATTR_CATEGORY = "category"
ATTR_KEY = "key"
ATTR_TAGS = "tags"
ATTR_CONFIDENCE = "confidence"
ATTR_SOURCE = "source"
ATTR_SCOPE = "scope"
ATTR_SESSION_ID = "session_id"
ATTR_METADATA = "metadata"
ATTR_EXPIRES_AT = "expires_at"
ATTR_STATE = "state"
ATTR_LIMIT = "limit"
ATTR_OFFSET = "offset"
ATTR_SORT = "sort"
ATTR_QUERY = "query"
ATTR_PROMPT = "prompt"
ATTR_CONFIRM = "confirm"
ATTR_CONVERSATION_ID = "conversation_id"

SERVICE_ADD = "add"
SERVICE_GET = "get"
SERVICE_LIST = "list"
SERVICE_UPDATE = "update"
SERVICE_DELETE = "delete"
SERVICE_CLEAR = "clear"
SERVICE_SEARCH = "search"
SERVICE_BUILD_PROMPT = "build_prompt"
SERVICE_REINDEX = "reindex"
SERVICE_GET_WORKING_MEMORY = "get_working_memory"
SERVICE_COMPACT = "compact"
SERVICE_UNDO_COMPACTION = "undo_compaction"
SERVICE_DELETE_CONVERSATION = "delete_conversation"
SERVICE_SET_PIPELINE_AGENT = "set_pipeline_agent"
ATTR_TOPIC = "topic"

MAX_PAGE = 1000
MAX_RESULTS = 100

_ENTRY = {probatio.Optional(ATTR_CONFIG_ENTRY_ID): cv.string}
# Types are checked here; meaning (known category, length, range) by the engine,
# whose errors name the rule that was broken.
_TAGS = probatio.All(cv.ensure_list_csv, [cv.string])
_FIELDS = {
    probatio.Optional(ATTR_CATEGORY): cv.string,
    probatio.Optional(ATTR_KEY): cv.string,
    probatio.Optional(ATTR_TAGS): _TAGS,
    probatio.Optional(ATTR_CONFIDENCE): probatio.Coerce(float),
    probatio.Optional(ATTR_SOURCE): cv.string,
    probatio.Optional(ATTR_SCOPE): cv.string,
    probatio.Optional(ATTR_METADATA): dict,
    probatio.Optional(ATTR_EXPIRES_AT): probatio.Any(cv.string, None),
}
_LIMIT = probatio.All(probatio.Coerce(int), probatio.Range(min=1, max=MAX_PAGE))

ADD_SCHEMA = probatio.Schema(
    {
        **_ENTRY,
        probatio.Required(ATTR_CONTENT): cv.string,
        **_FIELDS,
        probatio.Optional(ATTR_SESSION_ID): cv.string,
    }
)
ID_SCHEMA = probatio.Schema({**_ENTRY, probatio.Required(ATTR_ID): cv.string})
UPDATE_SCHEMA = probatio.Schema(
    {
        **_ENTRY,
        probatio.Required(ATTR_ID): cv.string,
        probatio.Optional(ATTR_CONTENT): cv.string,
        **_FIELDS,
    }
)
LIST_SCHEMA = probatio.Schema(
    {
        **_ENTRY,
        probatio.Optional(ATTR_LIMIT, default=50): _LIMIT,
        probatio.Optional(ATTR_OFFSET, default=0): probatio.All(
            probatio.Coerce(int), probatio.Range(min=0)
        ),
        probatio.Optional(ATTR_CATEGORY): cv.string,
        probatio.Optional(ATTR_SCOPE): cv.string,
        probatio.Optional(ATTR_TAGS): _TAGS,
        probatio.Optional(ATTR_SORT, default="newest"): probatio.In(SORT_ORDERS),
        probatio.Optional(ATTR_STATE, default="current"): probatio.In(LIST_STATES),
    }
)
CLEAR_SCHEMA = probatio.Schema(
    {**_ENTRY, probatio.Required(ATTR_CONFIRM): probatio.All(cv.boolean, True)}
)
SEARCH_SCHEMA = probatio.Schema(
    {
        **_ENTRY,
        probatio.Required(ATTR_QUERY): cv.string,
        probatio.Optional(ATTR_LIMIT): probatio.All(
            probatio.Coerce(int), probatio.Range(min=1, max=MAX_RESULTS)
        ),
        probatio.Optional(ATTR_SCOPE): cv.string,
        probatio.Optional(ATTR_TOPIC): cv.string,
    }
)
BUILD_PROMPT_SCHEMA = probatio.Schema(
    {
        **_ENTRY,
        probatio.Required(ATTR_PROMPT): cv.string,
        probatio.Optional(ATTR_QUERY): cv.string,
        probatio.Optional(ATTR_LIMIT): probatio.All(
            probatio.Coerce(int), probatio.Range(min=1, max=MAX_RESULTS)
        ),
        probatio.Optional(ATTR_SCOPE): cv.string,
    }
)
ENTRY_SCHEMA = probatio.Schema(_ENTRY)
SESSION_SCHEMA = probatio.Schema(
    {**_ENTRY, probatio.Required(ATTR_SESSION_ID): cv.string}
)
CONVERSATION_SCHEMA = probatio.Schema(
    {**_ENTRY, probatio.Required(ATTR_CONVERSATION_ID): cv.string}
)


def _entry(call: ServiceCall) -> AssistMemoryConfigEntry:
    entry: AssistMemoryConfigEntry = service.async_get_config_entry(
        call.hass, DOMAIN, call.data.get(ATTR_CONFIG_ENTRY_ID)
    )
    return entry


def _backend(call: ServiceCall) -> MemoryBackend:
    return _entry(call).runtime_data.backend


@contextmanager
def _engine_errors() -> Iterator[None]:
    """Turn engine errors into translated Home Assistant errors.

    A bad value, or an add to a full memory, is a mistake of the call (HTTP 400 to a
    REST caller), not a fault: ServiceValidationError, as Home Assistant's own.
    """
    try:
        yield
    except (InvalidMemoryError, MemoryFullError) as err:
        raise ServiceValidationError(
            translation_domain=DOMAIN,
            translation_key=err.code,
            translation_placeholders={"error": err.message, **err.placeholders},
        ) from err
    except MemoryEngineError as err:
        raise HomeAssistantError(
            translation_domain=DOMAIN,
            translation_key=err.code,
            translation_placeholders={"error": err.message, **err.placeholders},
        ) from err


def _not_found(memory_id: str) -> ServiceValidationError:
    return ServiceValidationError(
        translation_domain=DOMAIN,
        translation_key="not_found",
        translation_placeholders={"memory_id": memory_id},
    )


def _fields(data: dict[str, Any]) -> MemoryFields:
    fields: MemoryFields = {}
    for name in (
        ATTR_CATEGORY,
        ATTR_KEY,
        ATTR_TAGS,
        ATTR_CONFIDENCE,
        ATTR_SOURCE,
        ATTR_SCOPE,
        ATTR_SESSION_ID,
        ATTR_METADATA,
    ):
        if name in data:
            fields[name] = data[name]  # type: ignore[literal-required]
    if ATTR_EXPIRES_AT in data:
        fields["expires_at"] = expires_at_given(data[ATTR_EXPIRES_AT] or "")
    return fields


def _record(memory: Memory) -> dict[str, Any]:
    return memory.to_dict()


async def _add(call: ServiceCall) -> ServiceResponse:
    with _engine_errors():
        fields = _fields(call.data)
        memory = await _backend(call).add(call.data[ATTR_CONTENT], **fields)
    return {"memory": _record(memory)}


async def _get(call: ServiceCall) -> ServiceResponse:
    memory_id = call.data[ATTR_ID]
    with _engine_errors():
        memory = await _backend(call).get(memory_id)
    if memory is None:
        raise _not_found(memory_id)
    return {"memory": _record(memory)}


async def _list(call: ServiceCall) -> ServiceResponse:
    with _engine_errors():
        page = await _backend(call).list(
            offset=call.data[ATTR_OFFSET],
            limit=call.data[ATTR_LIMIT],
            category=call.data.get(ATTR_CATEGORY),
            scope=call.data.get(ATTR_SCOPE),
            tags=call.data.get(ATTR_TAGS),
            sort=call.data[ATTR_SORT],
            ended=LIST_STATES[call.data[ATTR_STATE]],
        )
    return {
        "items": [_record(m) for m in page.items],
        "total": page.total,
        "offset": page.offset,
        "limit": page.limit,
    }


async def _update(call: ServiceCall) -> ServiceResponse:
    memory_id = call.data[ATTR_ID]
    with _engine_errors():
        fields = _fields(call.data)
        memory = await _backend(call).update(
            memory_id, call.data.get(ATTR_CONTENT), **fields
        )
    if memory is None:
        raise _not_found(memory_id)
    return {"memory": _record(memory)}


async def _delete(call: ServiceCall) -> ServiceResponse:
    memory_id = call.data[ATTR_ID]
    with _engine_errors():
        deleted = await _backend(call).delete(memory_id)
    if not deleted:
        raise _not_found(memory_id)
    return {"deleted": memory_id}


async def _clear(call: ServiceCall) -> ServiceResponse:
    with _engine_errors():
        removed = await _backend(call).clear()
    return {"removed": removed}


def _scopes(call: ServiceCall) -> list[str] | None:
    """A scope means the household's memories plus that scope's."""
    if (scope := call.data.get(ATTR_SCOPE)) is None:
        return None
    return list(dict.fromkeys([HOUSEHOLD_SCOPE, scope]))


async def _search(call: ServiceCall) -> ServiceResponse:
    with _engine_errors():
        found = await _backend(call).search(
            call.data[ATTR_QUERY],
            limit=call.data.get(ATTR_LIMIT),
            scopes=_scopes(call),
            topic=call.data.get(ATTR_TOPIC),
        )
    return {"results": [result.to_dict() for result in found]}


async def _build_prompt(call: ServiceCall) -> ServiceResponse:
    with _engine_errors():
        prompt = await _backend(call).build_prompt(
            call.data[ATTR_PROMPT],
            query=call.data.get(ATTR_QUERY),
            limit=call.data.get(ATTR_LIMIT),
            scopes=_scopes(call),
        )
    return {"prompt": prompt}


async def _get_working_memory(call: ServiceCall) -> ServiceResponse:
    session_id = call.data[ATTR_SESSION_ID]
    with _engine_errors():
        working = await _backend(call).working_memory(session_id)
    if working is None:
        raise ServiceValidationError(
            translation_domain=DOMAIN,
            translation_key="unknown_session",
            translation_placeholders={"session_id": session_id},
        )
    # Another person's conversation: only that it is there (an automation: all).
    return {"working_memory": working_seen(working, call.context.user_id)}


async def _delete_conversation(call: ServiceCall) -> ServiceResponse:
    """Delete a conversation; a person who is not an administrator, only their part."""
    conversation_id = call.data[ATTR_CONVERSATION_ID]
    owner = await async_conversation_owner(call.hass, call.context.user_id)
    with _engine_errors():
        deleted = await _backend(call).delete_conversation(conversation_id, owner=owner)
    if not deleted:
        raise ServiceValidationError(
            translation_domain=DOMAIN,
            translation_key="unknown_conversation",
            translation_placeholders={"conversation_id": conversation_id},
        )
    return {"deleted": conversation_id, "messages": deleted}


def _compaction_response(result: CompactionResult | None, done: str) -> ServiceResponse:
    if result is None:
        return {done: False}
    return {
        done: True,
        "original_count": result.original_count,
        "compacted_count": result.compacted_count,
    }


async def _compact(call: ServiceCall) -> ServiceResponse:
    """Compact now; `compacted` is false when skipped or the LLM failed."""
    backend = _backend(call)
    if not backend.compaction_enabled:
        raise ServiceValidationError(
            translation_domain=DOMAIN, translation_key="compaction_not_enabled"
        )
    with _engine_errors():
        result = await backend.compact()
    return _compaction_response(result, "compacted")


async def _undo_compaction(call: ServiceCall) -> ServiceResponse:
    """Put back what the newest compaction changed; `undone` is false without one."""
    with _engine_errors():
        result = await _backend(call).undo_compaction()
    return _compaction_response(result, "undone")


async def _reindex(call: ServiceCall) -> ServiceResponse:
    with _engine_errors():
        indexed = await _backend(call).reindex()
    return {"indexed": indexed}


async def _set_pipeline_agent(call: ServiceCall) -> ServiceResponse:
    """The memory agent in the preferred Assist pipeline, wrapping the agent it had."""
    return (await async_set_pipeline_agent(call.hass, _entry(call))).as_dict()


_SERVICES: tuple[
    tuple[
        str,
        Callable[[ServiceCall], Coroutine[Any, Any, ServiceResponse]],
        probatio.Schema,
        SupportsResponse,
    ],
    ...,
] = (
    (SERVICE_ADD, _add, ADD_SCHEMA, SupportsResponse.OPTIONAL),
    (SERVICE_GET, _get, ID_SCHEMA, SupportsResponse.ONLY),
    (SERVICE_LIST, _list, LIST_SCHEMA, SupportsResponse.ONLY),
    (SERVICE_UPDATE, _update, UPDATE_SCHEMA, SupportsResponse.OPTIONAL),
    (SERVICE_DELETE, _delete, ID_SCHEMA, SupportsResponse.OPTIONAL),
    (SERVICE_CLEAR, _clear, CLEAR_SCHEMA, SupportsResponse.OPTIONAL),
    (SERVICE_SEARCH, _search, SEARCH_SCHEMA, SupportsResponse.ONLY),
    (SERVICE_BUILD_PROMPT, _build_prompt, BUILD_PROMPT_SCHEMA, SupportsResponse.ONLY),
    (SERVICE_REINDEX, _reindex, ENTRY_SCHEMA, SupportsResponse.OPTIONAL),
    (SERVICE_COMPACT, _compact, ENTRY_SCHEMA, SupportsResponse.OPTIONAL),
    (
        SERVICE_UNDO_COMPACTION,
        _undo_compaction,
        ENTRY_SCHEMA,
        SupportsResponse.OPTIONAL,
    ),
    (
        SERVICE_GET_WORKING_MEMORY,
        _get_working_memory,
        SESSION_SCHEMA,
        SupportsResponse.ONLY,
    ),
    (
        SERVICE_DELETE_CONVERSATION,
        _delete_conversation,
        CONVERSATION_SCHEMA,
        SupportsResponse.OPTIONAL,
    ),
    (
        SERVICE_SET_PIPELINE_AGENT,
        _set_pipeline_agent,
        ENTRY_SCHEMA,
        SupportsResponse.OPTIONAL,
    ),
)


# Scoped to the caller: the only service a person who is not an administrator may call.
_FOR_EVERYONE = frozenset({SERVICE_DELETE_CONVERSATION})


@callback
def async_setup_services(hass: HomeAssistant) -> None:
    """Register every Assist Memory service."""
    for name, handler, schema, supports_response in _SERVICES:
        if name in _FOR_EVERYONE:
            hass.services.async_register(
                DOMAIN,
                name,
                handler,
                schema=schema,
                supports_response=supports_response,
            )
        else:
            service.async_register_admin_service(
                hass, DOMAIN, name, handler, schema, supports_response
            )
