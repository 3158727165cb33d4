"""The REST API's building blocks: routes, requests, answers, errors, parameters.

Handlers live in `memory_routes.py` (memories, settings), `compaction_routes.py` and
`turn_routes.py` (conversation turns, for a Home Assistant that keeps its memory in the
add-on); `api.py` gathers them. Each `Route` names its method, its path (the memory server's REST paths: `/api/memory/main`,
`/memory/long-term/{id}`, ...), its parameters and its handler. A handler gets the
`ApiHost` it runs in (its backend and its settings) and an `ApiRequest` (path
parameters, query and parsed JSON body) and answers an `ApiResponse`. The routes also
make the OpenAPI document (`openapi.py`), so the document cannot drift from the code.

Hosts mount the routes: the server at its REST paths with its token, Home Assistant
under `/api/assist_memory` with its own authentication, and Home Assistant's websocket
command reaches the same handlers through `dispatch`.

Errors: bad parameters or bodies are 400, unknown ids 404, a full store, a memory
longer than the current content limit, an import naming an id twice or a feature
switched off (compaction) 409, a body over the size
limit 413, a store that cannot be written 503, each with
`{"error": message, "code": code}`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
import re
from typing import Any, Final, Protocol, cast

from ..backend.protocol import MemoryBackend
from ..errors import (
    ContentOverLimitError,
    DuplicateIdError,
    MemoryEngineError,
    MemoryFullError,
    StorageError,
)
from ..storage.jsonfast import MAX_REQUEST_DEPTH, nesting_depth
from ..storage.models import MAX_WHOLE_NUMBER

# Patterns of the API document (`openapi.py`). Whitespace is spelt out: what Python's str.strip() removes, which regular
# expression engines (and schemathesis' generators) do not all read `\s` as.
SPACE: Final = (
    "\\t\\n\\x0b\\x0c\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a"
    "\\u2028\\u2029\\u202f\\u205f\\u3000"
)
NO_NUL: Final = r"^[^\x00]*$"
NOT_BLANK: Final = rf"^[^\x00]*[^{SPACE}\x00][^\x00]*$"  # and no NUL
ANY_NOT_BLANK: Final = rf"[^{SPACE}]"  # NUL allowed
ONE_WORD: Final = rf"^[^{SPACE}\x00]+$"  # a user id: no whitespace, no NUL
ONE_WORD_OR_NONE: Final = rf"^[^{SPACE}\x00]*$"
# An id that may hold spaces inside but none around it (a device's, a person's), or "".
TRIMMED_OR_NONE: Final = rf"^(?:[^{SPACE}\x00](?:[^\x00]*[^{SPACE}\x00])?)?$"
A_DAY: Final = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
# Times read by every parser of ours: years 1000 to 9998 keep any zone in range; no
# lower-case "z" and no leap second (RFC 3339 allows both, Python's parser does not).
A_TIME: Final = (
    r"^(?!9999)[1-9][0-9]{3}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-5][0-9][^z]*$"
)


class ApiHost(Protocol):
    """Where the handlers run: Home Assistant's entry, or the standalone server."""

    @property
    def backend(self) -> MemoryBackend:
        """The memory backend."""

    async def read_options(self) -> dict[str, Any]:
        """The stored settings, by storage key (`auto_extract`, ...)."""

    async def write_options(self, changes: dict[str, Any]) -> None:
        """Store validated changes (by storage key) and apply them."""


class ApiError(Exception):
    """An answer other than 200, raised by a handler."""

    def __init__(self, status: HTTPStatus, message: str, code: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code


def bad_request(message: str, code: str = "bad_request") -> ApiError:
    """A 400 answer."""
    return ApiError(HTTPStatus.BAD_REQUEST, message, code)


def conflict(message: str, code: str) -> ApiError:
    """A 409 answer: a well-formed request that the current settings refuse."""
    return ApiError(HTTPStatus.CONFLICT, message, code)


def not_found(message: str) -> ApiError:
    """A 404 answer."""
    return ApiError(HTTPStatus.NOT_FOUND, message, "not_found")


@dataclass(frozen=True, slots=True)
class ApiRequest:
    """What a handler reads: path parameters, query parameters and the JSON body.

    `viewer`: the person asking, when the host knows people (Home Assistant's user):
    another person's conversations are shown without what was said in them
    (`conversation/seen_by.py`). None: the memory server's token, everything.
    """

    path: Mapping[str, str] = field(default_factory=dict)
    query: Mapping[str, str] = field(default_factory=dict)
    body: object = None
    viewer: str | None = None


@dataclass(frozen=True, slots=True)
class ApiResponse:
    """The status and the JSON body."""

    status: int
    body: object


@dataclass(frozen=True, slots=True)
class Param:
    """A query parameter, for validation help and the OpenAPI document."""

    name: str
    kind: str = "string"  # "string" | "integer"
    required: bool = False
    description: str = ""
    minimum: int = 0  # integers only
    maximum: int = MAX_WHOLE_NUMBER
    choices: tuple[str, ...] = ()
    pattern: str | None = None  # text only, for the document: handlers check it
    max_length: int | None = None


type Handler = Callable[[ApiHost, ApiRequest], Awaitable[ApiResponse | object]]


@dataclass(frozen=True, slots=True)
class Route:
    """One operation of the API."""

    method: str
    path: str
    operation_id: str
    summary: str
    handler: Handler
    params: tuple[Param, ...] = ()
    body: str | None = None  # the name of the request body's schema
    answer: str = "Object"  # the name of the 200 answer's schema
    status: HTTPStatus = HTTPStatus.OK
    # The largest body it takes, in bytes (None: the host's own limit, 1 MiB on the
    # server): an import is a whole export.
    max_body: int | None = None
    # What makes it answer 409, for the document (routes with a body: a full store).
    conflict: str | None = None

    @property
    def path_params(self) -> list[str]:
        """The `{name}` parts of the path."""
        return re.findall(r"{(\w+)}", self.path)


# -- reading parameters -------------------------------------------------------------


def query_int(request: ApiRequest, param: Param, default: int) -> int:
    """A whole-number query parameter within the parameter's range.

    ASCII digits with an optional minus only: `int()` would also take "٥", "１",
    "5_0" and " 5", which no client means as a number.
    """
    raw = request.query.get(param.name)
    if raw is None:
        return default
    if not _WHOLE_NUMBER.fullmatch(raw):
        raise bad_request(f"{param.name} must be a whole number")
    # Beyond 20 digits it is out of every range, and int() need not read it.
    value = int(raw) if len(raw) <= 20 else param.maximum + 1
    if not param.minimum <= value <= param.maximum:
        raise bad_request(
            f"{param.name} must be from {param.minimum} to {param.maximum}"
        )
    return value


_WHOLE_NUMBER: Final = re.compile(r"-?[0-9]+")


def query_choice[T: str | None](
    request: ApiRequest, param: Param, default: T
) -> str | T:
    """A query parameter that must be one of the parameter's choices (when given)."""
    value = request.query.get(param.name)
    if value is None:
        return default
    if value not in param.choices:
        raise bad_request(f"{param.name} must be one of {', '.join(param.choices)}")
    return value


def query_text(request: ApiRequest, param: Param) -> str | None:
    """A text query parameter; an empty one counts as not given."""
    return request.query.get(param.name) or None


def body_object(request: ApiRequest) -> Mapping[str, Any]:
    """The JSON body, which must be an object."""
    if not isinstance(request.body, Mapping):
        raise bad_request("the body must be a JSON object")
    return cast(Mapping[str, Any], request.body)


def body_text(body: Mapping[str, Any], name: str, *, required: bool = True) -> str:
    """A text field of the body."""
    value = body.get(name)
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise bad_request(f"{name} must be text")
    return value


# -- running a route ------------------------------------------------------------------


def error_body(
    message: str, code: str, placeholders: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The JSON body of every error (`placeholders` fill a translated message)."""
    body: dict[str, Any] = {"error": message, "code": code}
    if placeholders:
        body["placeholders"] = dict(placeholders)
    return body


def body_too_deep() -> ApiError:
    """The answer to a body that nests objects and lists too deeply."""
    return bad_request(
        f"the body nests deeper than {MAX_REQUEST_DEPTH} levels", "body_too_deep"
    )


def error_answer(err: ApiError) -> ApiResponse:
    """The response of an error a handler (or the host) raised."""
    return ApiResponse(err.status, error_body(err.message, err.code))


async def run_route(host: ApiHost, route: Route, request: ApiRequest) -> ApiResponse:
    """Call the route's handler and turn its result or error into a response."""
    try:
        for param in route.params:
            if param.required and not request.query.get(param.name, "").strip():
                raise bad_request(f"the query parameter {param.name} is required")
        if nesting_depth(request.body, MAX_REQUEST_DEPTH) > MAX_REQUEST_DEPTH:
            raise body_too_deep()
        answer = await route.handler(host, request)
    except ApiError as err:
        return error_answer(err)
    except StorageError as err:
        return ApiResponse(
            HTTPStatus.SERVICE_UNAVAILABLE,
            error_body(err.message, err.code, err.placeholders),
        )
    except (MemoryFullError, DuplicateIdError, ContentOverLimitError) as err:
        # A well-formed request the store's state (its settings, its number of
        # memories) or the document itself refuses.
        return ApiResponse(
            HTTPStatus.CONFLICT, error_body(err.message, err.code, err.placeholders)
        )
    except MemoryEngineError as err:
        return ApiResponse(
            HTTPStatus.BAD_REQUEST, error_body(err.message, err.code, err.placeholders)
        )
    if isinstance(answer, ApiResponse):
        return answer
    return ApiResponse(HTTPStatus.OK, answer)
