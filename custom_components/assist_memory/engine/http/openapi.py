"""The OpenAPI 3.1 document of the REST API, made from the routes themselves.

`openapi_document(path_for, ...)` writes every route of `rest.ROUTES` at the path its
host serves it (`path_for`), with its parameters, body and answers. Request schemas
state exactly what the handlers accept (a request they describe is answered 2xx, 404
for an unknown id, or 409 when a state it names refuses it; any other is refused with
400); answer schemas are strict about what we send. The document does not change with
the settings, so a client that read it once can trust it after they change: a memory
may be as long as any setting allows (`LONGEST_CONTENT`), and one longer than the
current setting is a 409, like an add to a full store. schemathesis checks both
(tests/server/test_schemathesis.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from http import HTTPStatus
from typing import Any, Final

from ..config import LONGEST_CONTENT, SETTINGS
from ..conversation.conversation_records import MAX_MESSAGE_LENGTH, ROLES
from ..conversation.held_facts import HOLD_REASONS, MAX_HELD_LENGTH
from ..conversation.profile import MAX_PROFILE_LENGTH
from ..conversation.speaker import SPEAKER_SOURCES
from ..conversation.working import MAX_SESSION_ID_LENGTH
from ..documents.daily_log import MAX_ENTRY_LENGTH
from ..language.facts import WHOSE
from ..storage.models import (
    CATEGORIES,
    FIELD_ALIASES,
    MAX_KEY_LENGTH,
    MAX_METADATA_CHARS,
    MAX_METADATA_DEPTH,
    MAX_SCOPE_LENGTH,
    MAX_TAG_LENGTH,
    MAX_TAGS,
    MAX_WHOLE_NUMBER,
    SOURCES,
)
from .api import ROUTES
from .routing import (
    A_DAY,
    A_TIME,
    ANY_NOT_BLANK,
    NO_NUL,
    NOT_BLANK,
    ONE_WORD,
    ONE_WORD_OR_NONE,
    SPACE,
    TRIMMED_OR_NONE,
    Param,
    Route,
)
from .turn_wire import option_range

VERSION: Final = "1.0.0"

_TEXT: Final = {"type": "string"}
_NULLABLE_TEXT: Final = {"type": ["string", "null"]}
_INT: Final = {"type": "integer"}
_COUNT: Final = {"type": "integer", "minimum": 0}
_BOOLEAN: Final = {"type": "boolean"}


def _text(
    pattern: str | None = NO_NUL, *, max_length: int | None = None, null: bool = False
) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": ["string", "null"] if null else "string"}
    if pattern:
        schema["pattern"] = pattern
    if max_length is not None:
        schema["maxLength"] = max_length
    return schema


def _integer(minimum: int = 0, maximum: int = MAX_WHOLE_NUMBER) -> dict[str, Any]:
    return {"type": "integer", "minimum": minimum, "maximum": maximum}


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


def _object(
    properties: dict[str, Any], required: list[str] | None = None
) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties) if required is None else required,
    }


def _open(properties: dict[str, Any], required: Sequence[str] = ()) -> dict[str, Any]:
    """A request object with these fields (others are ignored), `required` given."""
    return _object(properties, list(required))


def _closed(properties: dict[str, Any], required: Sequence[str] = ()) -> dict[str, Any]:
    """A request object that takes no other field."""
    return {**_open(properties, required), "additionalProperties": False}


# Set (true) on another person's conversation, shown without what was said in it to
# someone who may manage it (Home Assistant's administrators).
_PRIVATE: Final = {"type": "boolean"}
_WORKING_FIELDS: Final = [
    "session_id",
    "current_topic",
    "context_variables",
    "turn_count",
    "last_emotion",
    "created_at",
    "updated_at",
]
_CONVERSATION_FIELDS: Final = [
    "session_id",
    "first_message_at",
    "last_message_at",
    "message_count",
    "turn_count",
    "title",
    "snippet",
    "user_id",
]


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _list(item: dict[str, Any], **limits: int) -> dict[str, Any]:
    return {"type": "array", "items": item, **limits}


def _setting(key: str) -> dict[str, Any]:
    """A setting of the settings table, within the range its option allows."""
    return _nullable(_integer(**option_range(key)))


_SESSION_ID: Final = _text(NOT_BLANK, max_length=MAX_SESSION_ID_LENGTH)
_USER_ID: Final = _text(ONE_WORD_OR_NONE, max_length=MAX_SCOPE_LENGTH, null=True)
_SCOPE: Final = _text(ONE_WORD, max_length=MAX_SCOPE_LENGTH)
# A speaker's ids, as the server reads them (`speaker.py`).
_SPEAKER_ID: Final = _text(TRIMMED_OR_NONE, max_length=MAX_SCOPE_LENGTH, null=True)
_TIME: Final = {"type": "string", "format": "date-time", "pattern": A_TIME}
_CATEGORY: Final = {"type": "string", "enum": list(CATEGORIES)}
_SOURCE: Final = {"type": "string", "enum": list(SOURCES)}
_CONFIDENCE: Final = {"type": "number", "minimum": 0, "maximum": 1}
_KEY: Final = _text(max_length=MAX_KEY_LENGTH, null=True)
_TAGS: Final = _list(
    _text(r"^[^,\x00]*$", max_length=MAX_TAG_LENGTH), maxItems=MAX_TAGS
)
_MESSAGE: Final = _text(NOT_BLANK, max_length=MAX_MESSAGE_LENGTH)
_LIMIT: Final = _integer(1, 100)
# What JSON Schema cannot state; the server refuses more with a 400 naming the field.
_METADATA_LIMITS: Final = (
    f"Any JSON object of at most {MAX_METADATA_CHARS} characters"
    f" nested at most {MAX_METADATA_DEPTH} levels deep"
)


def request_schemas() -> dict[str, dict[str, Any]]:
    """What the handlers accept, whatever the settings.

    Other fields are ignored, except in a memory's and the settings' bodies, which
    take no other field. A memory's content may be as long as any setting allows.
    """
    content = _text(NOT_BLANK, max_length=LONGEST_CONTENT)
    # The fields of a new memory; `null` stands for "not given" where it may.
    fields: dict[str, Any] = {
        "category": _CATEGORY,
        "key": _KEY,
        "tags": _nullable(_TAGS),
        "confidence": _CONFIDENCE,
        "source": _SOURCE,
        "scope": _SCOPE,
        "session_id": _KEY,
        "metadata": {"type": ["object", "null"], "description": _METADATA_LIMITS},
        # When the fact stops being true; "" or null: it never ends.
        "expires_at": {"anyOf": [_TIME, {"const": ""}, {"type": "null"}]},
    }
    given_or_now = {"anyOf": [_TIME, {"const": ""}, {"type": "null"}]}
    record_fields = {
        "content": content,
        **fields,
        "metadata": {"type": "object", "description": _METADATA_LIMITS},
        "created_at": given_or_now,
        "updated_at": given_or_now,
        "last_accessed": _nullable(_TIME),
        "access_count": _integer(),
    }
    # Other fields are ignored, except other implementations' names for these.
    record = _open(
        {
            "id": _text(r"^[A-Za-z0-9_-]{1,64}$"),
            **record_fields,
            **{alias: record_fields[name] for alias, name in FIELD_ALIASES.items()},
        },
        ["id"],
    )
    record["anyOf"] = [{"required": ["content"]}, {"required": ["value"]}]
    fact = _open(
        {
            "content": _text(NOT_BLANK),
            "category": _nullable(_CATEGORY),
            "key": _KEY,
            "confidence": _nullable(_CONFIDENCE),
            "source": _nullable(_SOURCE),
            "until": _nullable(
                {"type": "string", "format": "date", "pattern": r"^\d{4}-\d{2}-\d{2}$"}
            ),
            "whose": _nullable({"type": "string", "enum": list(WHOSE)}),
            # Proposed by an LLM: kept only when the batch's user words support it.
            "from_llm": {"type": ["boolean", "null"]},
        },
        ["content"],
    )
    batch = _open(
        {
            "session_id": _SESSION_ID,
            "message_ids": _nullable(_list(_integer())),
            "user_texts": _nullable(_list(_TEXT)),
            "transcript": _NULLABLE_TEXT,
            "language": _NULLABLE_TEXT,
            "user_id": _USER_ID,
        },
        ["session_id"],
    )
    turn_settings = _nullable(
        _open(
            {
                "enable_user_profile": {"type": ["boolean", "null"]},
                "session_summary_limit": _setting("session_summary_limit"),
                "memory_budget": _setting("memory_budget"),
                "rag_top_n": _setting("rag_top_n"),
                "context_limit": _setting("context_limit"),
            }
        )
    )
    interval = option_range("extract_min_interval")
    percent = option_range("flush_threshold")
    learn_settings = _nullable(
        _open(
            {
                "min_interval": _nullable({"type": "number", **interval}),
                "min_messages": _setting("extract_min_messages"),
                "atomic_content_max_length": _setting("atomic_content_max_length"),
                "context_size": _setting("context_size"),
                "time_zone": _NULLABLE_TEXT,
                "flush_threshold": _nullable(
                    {
                        "type": "number",
                        "minimum": percent["minimum"] / 100,
                        "maximum": percent["maximum"] / 100,
                    }
                ),
            }
        )
    )
    scopes = _nullable(_list(_TEXT))
    limit = _nullable(_LIMIT)
    return {
        "Markdown": _open({"content": _TEXT}, ["content"]),
        "CompactionApply": _open({"revision": _TEXT}, ["revision"]),
        "Config": _closed({field.name: field.json_schema() for field in SETTINGS}),
        "NewMemory": _closed({"content": content, **fields}, ["content"]),
        "MemoryChanges": _closed(
            {
                "content": {"anyOf": [{"const": ""}, content, {"type": "null"}]},
                **{name: _nullable(schema) for name, schema in fields.items()},
            }
        ),
        "ProfileInput": _open(
            {
                "scope": _text(
                    ONE_WORD_OR_NONE, max_length=MAX_SCOPE_LENGTH, null=True
                ),
                "content": _text(max_length=MAX_PROFILE_LENGTH),
            },
            ["content"],
        ),
        "Import": _open(
            {
                "document": {
                    "anyOf": [
                        _list(record),
                        _open({"memories": _list(record)}, ["memories"]),
                    ]
                },
                "mode": {"type": "string", "enum": ["merge", "replace"]},
            },
            ["document"],
        ),
        "TurnBegin": _open(
            {
                "session_id": _SESSION_ID,
                "text": _MESSAGE,
                "user_id": _USER_ID,
                "settings": turn_settings,
                "live_since": _nullable(_TIME),
                "speaker": _nullable(
                    _open(
                        {
                            "user_id": _SPEAKER_ID,
                            "source": {"enum": list(SPEAKER_SOURCES)},
                            "device_id": _SPEAKER_ID,
                            "guest": {"type": ["boolean", "null"]},
                            "person_entity_id": _SPEAKER_ID,
                        }
                    )
                ),
            },
            ["session_id", "text"],
        ),
        "TurnEnd": _open(
            {
                "session_id": _SESSION_ID,
                "user_text": _text(max_length=MAX_MESSAGE_LENGTH),
                "reply": _text(max_length=MAX_MESSAGE_LENGTH),
                "user_id": _USER_ID,
                # The memories an answer from memory said (null: those it was given).
                "memory_ids": _nullable(_list(_TEXT)),
            },
            ["session_id", "user_text", "reply"],
        ),
        "TurnNote": _open(
            {
                "session_id": _SESSION_ID,
                "role": {"type": "string", "enum": list(ROLES)},
                "text": _MESSAGE,
            },
            ["session_id", "role", "text"],
        ),
        "MemorySentence": _open(
            {
                "session_id": _SESSION_ID,
                "said": _MESSAGE,
                "reply": _text(max_length=MAX_MESSAGE_LENGTH),
                "user_id": _USER_ID,
                "memory_ids": _nullable(_list(_TEXT)),
            },
            ["session_id", "said", "reply"],
        ),
        "EndedConversationsRequest": _open({"every": {"type": ["boolean", "null"]}}),
        "TurnPause": _open(
            {"session_id": _SESSION_ID, "user_id": _USER_ID}, ["session_id"]
        ),
        "ExtractionBatchRequest": _open(
            {
                "session_id": _SESSION_ID,
                "settings": learn_settings,
                "used_tokens": _nullable(_integer()),
                "ended": {"type": ["boolean", "null"]},
            },
            ["session_id"],
        ),
        "RuleFacts": _open({"batch": batch}, ["batch"]),
        "Learn": _open(
            {
                "batch": batch,
                "facts": _nullable(_list(fact)),
                "scope": _nullable(_SCOPE),
                "settings": learn_settings,
                "speaker_unknown": {"type": ["boolean", "null"]},
                "device_id": _NULLABLE_TEXT,
                "name": _NULLABLE_TEXT,
            },
            ["batch"],
        ),
        "HeldFact": _open(
            {
                "id": _text(ONE_WORD, max_length=64),
                "content": _text(NOT_BLANK, max_length=MAX_HELD_LENGTH),
                "reason": {"type": "string", "enum": list(HOLD_REASONS)},
                "said_at": _TIME,
                "device_id": _NULLABLE_TEXT,
                "category": {"type": "string", "enum": list(CATEGORIES)},
                "key": _NULLABLE_TEXT,
                "session_id": _NULLABLE_TEXT,
                "scope": _NULLABLE_TEXT,
            },
            ["id", "content", "reason", "said_at"],
        ),
        "Overview": _open({"user_id": _USER_ID, "settings": turn_settings}),
        "TurnSearch": _open(
            {
                "query": _text(ANY_NOT_BLANK),
                "limit": limit,
                "scopes": scopes,
                "topic": _NULLABLE_TEXT,
                "record_access": {"type": ["boolean", "null"]},
            },
            ["query"],
        ),
        "SameFacts": _open({"memory_ids": _nullable(_list(_TEXT))}),
        "TurnPrompt": _open(
            {
                "prompt": _TEXT,
                "query": _NULLABLE_TEXT,
                "limit": limit,
                "scopes": scopes,
            },
            ["prompt"],
        ),
        "DailyLogEntry": _open(
            {
                "entry": _text(rf"[^{SPACE}\x00]", max_length=MAX_ENTRY_LENGTH),
                "now": _nullable(_TIME),
            },
            ["entry"],
        ),
        "DailyLogSearch": _open(
            {"query": _text(ANY_NOT_BLANK), "limit": limit}, ["query"]
        ),
    }


RESPONSE_SCHEMAS: Final[dict[str, dict[str, Any]]] = {
    "Error": _object(
        {
            "error": _TEXT,
            "code": _TEXT,
            "placeholders": {"type": "object", "additionalProperties": _TEXT},
        },
        ["error", "code"],
    ),
    "Object": {"type": "object"},
    "MarkdownResult": _object(
        {"added": _COUNT, "updated": _COUNT, "removed": _COUNT, "content": _TEXT}
    ),
    "Memory": _object(
        {
            "id": _TEXT,
            "content": _TEXT,
            "category": _CATEGORY,
            "key": _NULLABLE_TEXT,
            "tags": _list(_TEXT),
            "confidence": {"type": "number"},
            "source": _SOURCE,
            "scope": _TEXT,
            "session_id": _NULLABLE_TEXT,
            "metadata": {"type": "object"},
            "created_at": _TEXT,
            "updated_at": _TEXT,
            "last_accessed": _NULLABLE_TEXT,
            "access_count": _COUNT,
            "expires_at": _NULLABLE_TEXT,
        }
    ),
    "MemoryPage": _object(
        {
            "items": _list(_ref("Memory")),
            "total": _COUNT,
            "limit": _INT,
            "offset": _COUNT,
            "hasMore": _BOOLEAN,
        }
    ),
    "SearchResult": {
        "allOf": [
            _ref("Memory"),
            _object(
                {
                    "score": {"type": "number"},
                    "score_parts": {"type": "object"},
                    "matched": _list(_TEXT),
                    # How sure the engine is that the memory answers (0-1), and
                    # whether it is said as an answer; null without the local model.
                    "answer_confidence": {"type": ["number", "null"]},
                    "answers": {"type": ["boolean", "null"]},
                }
            ),
        ]
    },
    "SearchResults": _object({"query": _TEXT, "results": _list(_ref("SearchResult"))}),
    "CompactionAnswer": {
        "oneOf": [
            _object({"originalCount": _COUNT, "compactedCount": _COUNT}),
            _object({"message": _TEXT}),
        ]
    },
    "CompactionPreview": _object(
        {
            "revision": _TEXT,
            "originalCount": _COUNT,
            "compactedCount": _COUNT,
            "removed": _list(_ref("CompactedFact")),
            "rewritten": _list(
                _object(
                    {
                        "id": _TEXT,
                        "content": _TEXT,
                        "category": _TEXT,
                        "newContent": _TEXT,
                        "newCategory": _TEXT,
                    }
                )
            ),
            "added": _list(_object({"category": _TEXT, "content": _TEXT})),
        }
    ),
    "CompactedFact": _object({"id": _TEXT, "content": _TEXT, "category": _TEXT}),
    "CompactionPreviewAnswer": {
        "oneOf": [_ref("CompactionPreview"), _object({"message": _TEXT})]
    },
    "CompactionApplyAnswer": {
        "oneOf": [
            _object(
                {
                    "applied": {"const": True},
                    "originalCount": _COUNT,
                    "compactedCount": _COUNT,
                }
            ),
            _object(
                {"applied": {"const": False}, "preview": _ref("CompactionPreview")}
            ),
            _object({"message": _TEXT}),
        ]
    },
    "Compactions": _object(
        {
            "enabled": _BOOLEAN,
            "items": _list(
                _object(
                    {
                        "id": _TEXT,
                        "createdAt": _TEXT,
                        "count": {"type": ["integer", "null"]},
                    }
                )
            ),
        }
    ),
    "Deleted": _object({"deleted": {"oneOf": [_TEXT, _COUNT]}}),
    "WorkingMemory": _object(
        {
            "session_id": _TEXT,
            "current_topic": _NULLABLE_TEXT,
            "context_variables": {"type": "object"},
            "turn_count": _COUNT,
            "last_emotion": _NULLABLE_TEXT,
            "created_at": _TEXT,
            "updated_at": _TEXT,
            "private": _PRIVATE,
        },
        _WORKING_FIELDS,
    ),
    "WorkingMemories": _object({"items": _list(_ref("WorkingMemory"))}),
    "Sessions": _object(
        {
            "items": _list(
                _object(
                    {
                        "session_id": _TEXT,
                        "title": _TEXT,
                        "snippet": _TEXT,
                        "created_at": _TEXT,
                        "private": _PRIVATE,
                    },
                    ["session_id", "title", "snippet", "created_at"],
                )
            )
        }
    ),
    "Conversations": _object(
        {
            "items": _list(
                _object(
                    {
                        "session_id": _TEXT,
                        "first_message_at": _TEXT,
                        "last_message_at": _TEXT,
                        "message_count": _COUNT,
                        "turn_count": _COUNT,
                        "title": _NULLABLE_TEXT,
                        "snippet": _NULLABLE_TEXT,
                        "user_id": _NULLABLE_TEXT,
                        "private": _PRIVATE,
                    },
                    _CONVERSATION_FIELDS,
                )
            ),
            "total": _COUNT,
        }
    ),
    "Conversation": _object(
        {
            "session_id": _TEXT,
            "title": _NULLABLE_TEXT,
            "messages": _list(
                _object(
                    {
                        "id": _INT,
                        "session_id": _TEXT,
                        "role": {"type": "string", "enum": ["user", "assistant"]},
                        "content": _TEXT,
                        "created_at": _TEXT,
                        "collected": {"type": "boolean"},
                        "user_id": _NULLABLE_TEXT,
                        # The memories the turn's memory block (<assist_memory>) held.
                        "memory_ids": _list(_TEXT),
                    }
                )
            ),
        }
    ),
    "DeletedConversation": _object({"deleted": _TEXT, "messages": _COUNT}),
    "Profile": _object({"scope": _TEXT, "content": _TEXT}),
    "DailyLogs": {
        "type": "object",
        "properties": {
            "dates": _list(_TEXT),
            "entries": _list(_object({"date": _TEXT, "time": _TEXT, "text": _TEXT})),
        },
    },
    "DailyLog": _object({"date": _TEXT, "content": _TEXT}),
    "ExportDocument": _object(
        {
            "format": _TEXT,
            "version": _INT,
            "exported_at": _TEXT,
            "count": _COUNT,
            "memories": _list(_ref("Memory")),
        }
    ),
    "ImportResult": _object({"added": _COUNT, "updated": _COUNT, "total": _COUNT}),
    "Stats": {"type": "object"},
}

# Path parameters that are more than any text.
_PATH_SCHEMAS: Final[dict[str, dict[str, Any]]] = {
    "day": {"type": "string", "format": "date", "pattern": A_DAY},
}


def _parameter(param: Param) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": param.kind}
    if param.kind == "integer":
        schema["minimum"] = param.minimum
        schema["maximum"] = param.maximum
    if param.choices:
        schema["enum"] = list(param.choices)
    if param.pattern:
        schema["pattern"] = param.pattern
    if param.max_length is not None:
        schema["maxLength"] = param.max_length
    return {
        "name": param.name,
        "in": "query",
        "required": param.required,
        "description": param.description,
        "schema": schema,
    }


def _json(schema_name: str) -> dict[str, Any]:
    return {"application/json": {"schema": _ref(schema_name)}}


def _error(description: str) -> dict[str, Any]:
    return {"description": description, "content": _json("Error")}


def _operation(route: Route) -> dict[str, Any]:
    parameters = [
        {
            "name": name,
            "in": "path",
            "required": True,
            "schema": _PATH_SCHEMAS.get(name, {"type": "string"}),
        }
        for name in route.path_params
    ]
    parameters += [_parameter(param) for param in route.params]
    responses: dict[str, Any] = {
        str(int(route.status)): {
            "description": "Success",
            "content": _json(route.answer),
        },
        "400": _error("Bad parameters or body"),
        "401": _error("No or wrong credentials"),
        "503": _error("The store cannot be read or written"),
    }
    if route.path_params:
        responses["404"] = _error("Unknown id")
    operation: dict[str, Any] = {
        "operationId": route.operation_id,
        "summary": route.summary,
        "parameters": parameters,
        "responses": responses,
    }
    if route.body:
        responses["409"] = _error(
            "The store is full, a memory is longer than the current limit"
            " (maxContentLength), or an import names an id twice"
        )
        responses["413"] = _error("The body is larger than the server takes")
        operation["requestBody"] = {"required": True, "content": _json(route.body)}
    if route.conflict:
        responses["409"] = _error(route.conflict)
    return operation


def _links(created: Route, routes: Sequence[Route]) -> dict[str, Any]:
    """The routes of what `created` made, reached by the id it answers."""
    return {
        route.operation_id: {
            "operationId": route.operation_id,
            "parameters": {"id": "$response.body#/id"},
        }
        for route in routes
        if route.path == f"{created.path}/{{id}}"
    }


def openapi_document(
    path_for: Callable[[str], str],
    *,
    routes: Sequence[Route] = ROUTES,
    server_url: str = "/",
    title_suffix: str = "",
) -> dict[str, Any]:
    """The document, with each route at `path_for(route.path)`; bearer authentication."""
    paths: dict[str, dict[str, Any]] = {}
    for route in routes:
        operation = _operation(route)
        if route.status == HTTPStatus.CREATED and (links := _links(route, routes)):
            operation["responses"]["201"]["links"] = links
        paths.setdefault(path_for(route.path), {})[route.method.lower()] = operation
    return {
        "openapi": "3.1.0",
        "info": {
            "title": f"Assist Memory{title_suffix}",
            "version": VERSION,
            "description": "Long-term memory for Home Assistant voice assistants.",
        },
        "servers": [{"url": server_url}],
        "security": [{"bearer": []}],
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": {**RESPONSE_SCHEMAS, **request_schemas()},
        },
        "paths": paths,
    }
