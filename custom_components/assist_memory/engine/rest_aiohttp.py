"""Runs a REST route for an aiohttp request (Home Assistant's views and the server)."""

from __future__ import annotations

from http import HTTPStatus
import json

from aiohttp import web

from .rest_base import ApiHost, ApiRequest, ApiResponse, Route, error_body, run_route


def json_response(response: ApiResponse) -> web.Response:
    """The response as JSON (non-ASCII text kept as it is)."""
    return web.Response(
        status=response.status,
        text=json.dumps(response.body, ensure_ascii=False),
        content_type="application/json",
    )


async def answer_route(
    host: ApiHost, route: Route, request: web.Request
) -> web.Response:
    """Read the request's path, query and JSON body, run the route, answer JSON."""
    body: object = None
    if route.body is not None:
        raw = await request.read()
        try:
            body = json.loads(raw) if raw.strip() else None
        except ValueError:  # also bytes that are not UTF-8
            return json_response(
                ApiResponse(
                    HTTPStatus.BAD_REQUEST,
                    error_body("the body must be JSON", "invalid_json"),
                )
            )
    api_request = ApiRequest(dict(request.match_info), dict(request.query), body)
    return json_response(await run_route(host, route, api_request))
