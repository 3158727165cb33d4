"""The OpenAPI 3.1 document of the REST API, made from the routes themselves.

`openapi_document(path_for, security)` writes every route of `rest.ROUTES` at the path
its host serves it (`path_for`), with its parameters, body and answers. Schemas are
strict about what we send (schemathesis checks answers against them) and name every
field a client may give.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from .api import ROUTES
from .config import CONFIG_FIELDS
from .models import CATEGORIES, SOURCES
from .rest_base import Param, Route

VERSION: Final = "1.0.0"

_NULLABLE_TEXT: Final = {"type": ["string", "null"]}
_TEXT: Final = {"type": "string"}
_INT: Final = {"type": "integer"}
_COUNT: Final = {"type": "integer", "minimum": 0}


def _object(
    properties: dict[str, Any], required: list[str] | None = None
) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties) if required is None else required,
    }


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _list(item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "items": item}


_MEMORY_INPUT: Final = {
    "category": {"type": "string", "enum": sorted(CATEGORIES)},
    "key": _NULLABLE_TEXT,
    "tags": {"oneOf": [_list(_TEXT), _TEXT]},
    "confidence": {"type": "number", "minimum": 0, "maximum": 1},
    "source": {"type": "string", "enum": sorted(SOURCES)},
    "scope": _TEXT,
    "session_id": _NULLABLE_TEXT,
    "metadata": {"type": "object"},
}

SCHEMAS: Final[dict[str, dict[str, Any]]] = {
    "Error": _object(
        {
            "error": _TEXT,
            "code": _TEXT,
            "placeholders": {"type": "object", "additionalProperties": _TEXT},
        },
        ["error", "code"],
    ),
    "Object": {"type": "object"},
    "Markdown": _object({"content": _TEXT}),
    "MarkdownResult": _object(
        {"added": _COUNT, "updated": _COUNT, "removed": _COUNT, "content": _TEXT}
    ),
    "Memory": _object(
        {
            "id": _TEXT,
            "content": _TEXT,
            "category": _TEXT,
            "key": _NULLABLE_TEXT,
            "tags": _list(_TEXT),
            "confidence": {"type": "number"},
            "source": _TEXT,
            "scope": _TEXT,
            "session_id": _NULLABLE_TEXT,
            "metadata": {"type": "object"},
            "created_at": _TEXT,
            "updated_at": _TEXT,
            "last_accessed": _NULLABLE_TEXT,
            "access_count": _COUNT,
        }
    ),
    "NewMemory": {
        **_object({"content": _TEXT, **_MEMORY_INPUT}, ["content"]),
        "additionalProperties": False,
    },
    "MemoryChanges": {
        **_object({"content": _TEXT, **_MEMORY_INPUT}, []),
        "additionalProperties": False,
    },
    "MemoryPage": _object(
        {
            "items": _list(_ref("Memory")),
            "total": _COUNT,
            "limit": _INT,
            "offset": _COUNT,
            "hasMore": {"type": "boolean"},
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
                }
            ),
        ]
    },
    "SearchResults": _object({"query": _TEXT, "results": _list(_ref("SearchResult"))}),
    "Config": {
        "type": "object",
        "properties": {field.name: field.json_schema() for field in CONFIG_FIELDS},
        "additionalProperties": False,
    },
    "CompactionAnswer": {
        "oneOf": [
            _object({"originalCount": _COUNT, "compactedCount": _COUNT}),
            _object({"message": _TEXT}),
        ]
    },
    "Compactions": _object(
        {
            "enabled": {"type": "boolean"},
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
        }
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
                    }
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
                        "title": _NULLABLE_TEXT,
                        "user_id": _NULLABLE_TEXT,
                    }
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
                    }
                )
            ),
        }
    ),
    "DeletedConversation": _object({"deleted": _TEXT, "messages": _COUNT}),
    "Profile": _object({"scope": _TEXT, "content": _TEXT}, ["content"]),
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
    "Import": _object(
        {
            "document": {"type": ["object", "array"]},
            "mode": {"type": "string", "enum": ["merge", "replace"]},
        },
        ["document"],
    ),
    "ImportResult": _object({"added": _COUNT, "updated": _COUNT, "total": _COUNT}),
    "Stats": {"type": "object"},
}


def _parameter(param: Param) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": param.kind}
    if param.minimum is not None:
        schema["minimum"] = param.minimum
    if param.maximum is not None:
        schema["maximum"] = param.maximum
    if param.choices:
        schema["enum"] = list(param.choices)
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
        {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
        for name in route.path_params
    ]
    parameters += [_parameter(param) for param in route.params]
    responses: dict[str, Any] = {
        str(int(route.status)): {
            "description": "Success",
            "content": _json(route.answer),
        },
        "400": _error("Bad parameters or body"),
        "401": {"description": "No or wrong credentials"},
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
        operation["requestBody"] = {"required": True, "content": _json(route.body)}
    return operation


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
        paths.setdefault(path_for(route.path), {})[route.method.lower()] = _operation(
            route
        )
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
            "schemas": SCHEMAS,
        },
        "paths": paths,
    }
