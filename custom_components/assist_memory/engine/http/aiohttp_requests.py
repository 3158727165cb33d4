"""Runs a REST route for an aiohttp request (Home Assistant's views and the server)."""

from __future__ import annotations

from http import HTTPStatus
import json

from aiohttp import web

from ..storage.jsonfast import JsonTooDeepError, parse_request_json
from .routing import (
    ApiError,
    ApiHost,
    ApiRequest,
    ApiResponse,
    Route,
    bad_request,
    body_too_deep,
    error_answer,
    run_route,
)


def json_response(response: ApiResponse) -> web.Response:
    """The response as JSON (non-ASCII text kept as it is)."""
    return web.Response(
        status=response.status,
        text=json.dumps(response.body, ensure_ascii=False),
        content_type="application/json",
    )


async def read_json_body(request: web.Request) -> object:
    """The request's JSON body (None when empty); ApiError when it is not usable."""
    try:
        raw = await request.read()
    except web.HTTPRequestEntityTooLarge:
        raise ApiError(
            HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
            f"the body is larger than the limit of {request.client_max_size} bytes",
            "body_too_large",
        ) from None
    return json_body(raw)


def json_body(raw: bytes) -> object:
    """A request body's JSON (None when empty); ApiError when it is not usable."""
    if not raw.strip():
        return None
    try:
        return parse_request_json(raw)
    except JsonTooDeepError:
        raise body_too_deep() from None
    except ValueError:  # also bytes that are not UTF-8
        raise bad_request("the body must be JSON", "invalid_json") from None


async def answer_route(
    host: ApiHost, route: Route, request: web.Request, *, viewer: str | None = None
) -> web.Response:
    """Read the request's path, query and JSON body, run the route, answer JSON.

    `viewer`: the person asking (see `ApiRequest`).
    """
    body: object = None
    if route.max_body is not None:
        request = request.clone(client_max_size=route.max_body)
    if route.body is not None:
        try:
            body = await read_json_body(request)
        except ApiError as err:
            return json_response(error_answer(err))
    api_request = ApiRequest(
        dict(request.match_info), dict(request.query), body, viewer
    )
    return json_response(await run_route(host, route, api_request))
