"""Every route of the REST API, and answering a request given as plain values."""

from __future__ import annotations

from collections.abc import Mapping
from http import HTTPStatus
import re
from typing import Final

from .compaction_routes import COMPACTION_ROUTES
from .memory_routes import ROUTES as MEMORY_ROUTES
from .routing import ApiHost, ApiRequest, ApiResponse, Route, error_body, run_route
from .turn_routes import TURN_ROUTES

ROUTES: Final[tuple[Route, ...]] = MEMORY_ROUTES + COMPACTION_ROUTES + TURN_ROUTES


def _pattern(path: str) -> re.Pattern[str]:
    return re.compile(
        "^" + re.sub(r"\\{(\w+)\\}", r"(?P<\1>[^/]+)", re.escape(path)) + "$"
    )


_PATTERNS: Final = [(route, _pattern(route.path)) for route in ROUTES]


def find_route(method: str, path: str) -> tuple[Route, dict[str, str]] | None:
    """The route and path parameters for a method and a path (the memory server's REST paths)."""
    for route, pattern in _PATTERNS:
        if route.method == method.upper() and (match := pattern.match(path)):
            return route, match.groupdict()
    return None


async def dispatch(
    host: ApiHost,
    method: str,
    path: str,
    query: Mapping[str, str] | None = None,
    body: object = None,
    *,
    viewer: str | None = None,
) -> ApiResponse:
    """Answer a request given as plain values (Home Assistant's websocket command).

    `viewer`: the person asking (see `ApiRequest`).
    """
    found = find_route(method, path)
    if found is None:
        return ApiResponse(
            HTTPStatus.NOT_FOUND,
            error_body(f"no operation {method} {path}", "no_route"),
        )
    route, params = found
    request = ApiRequest(params, query or {}, body, viewer)
    return await run_route(host, route, request)
