"""The REST API inside Home Assistant: every route under /api/assist_memory.

The handlers are the engine's (`engine/http/memory_routes.py`), shared with the standalone server;
(the server's conversation-turn routes, for a Home Assistant using the add-on, are not
needed here). They are mounted at `/api/assist_memory` + the server's path without its `/api`
(`/api/memory/main` -> `/api/assist_memory/memory/main`, `/memory/long-term` ->
`/api/assist_memory/memory/long-term`), behind Home Assistant's authentication and for
administrators only (memories are the whole household's); another person's
conversations are shown without what was said in them. The OpenAPI document is at
`/api/assist_memory/openapi.json`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from typing import Final

from aiohttp import web
from homeassistant.core import HomeAssistant, callback
from homeassistant.exceptions import Unauthorized
from homeassistant.helpers.http import HomeAssistantView

from .engine.http.aiohttp_requests import answer_route, json_response
from .engine.http.memory_routes import ROUTES
from .engine.http.openapi import openapi_document
from .engine.http.routing import ApiResponse, Route, error_body
from .entry_api_host import EntryApiHost, loaded_entry

URL_PREFIX: Final = "/api/assist_memory"

type ViewHandler = Callable[..., Awaitable[web.Response]]


def ha_path(server_path: str) -> str:
    """Where Home Assistant serves a route of the memory server's REST API."""
    return URL_PREFIX + server_path.removeprefix("/api")


def _require_admin(request: web.Request) -> None:
    if not request["hass_user"].is_admin:
        raise Unauthorized


class ApiView(HomeAssistantView):
    """The routes of one path, one handler per method."""

    def __init__(self, path: str, routes: list[Route]) -> None:
        self.url = ha_path(path)
        self.name = "api:assist_memory" + path.replace("/", ":")
        for route in routes:
            setattr(self, route.method.lower(), self._handler(route))

    @staticmethod
    def _handler(route: Route) -> ViewHandler:
        async def handle(request: web.Request, **_path: str) -> web.Response:
            _require_admin(request)
            hass: HomeAssistant = request.app["hass"]
            if (entry := loaded_entry(hass)) is None:
                return json_response(
                    ApiResponse(
                        HTTPStatus.SERVICE_UNAVAILABLE,
                        error_body("Assist Memory is not loaded", "not_loaded"),
                    )
                )
            return await answer_route(
                EntryApiHost(hass, entry),
                route,
                request,
                viewer=request["hass_user"].id,
            )

        return handle


class OpenApiView(HomeAssistantView):
    """GET /api/assist_memory/openapi.json."""

    url = f"{URL_PREFIX}/openapi.json"
    name = "api:assist_memory:openapi"

    async def get(self, request: web.Request) -> web.Response:
        """The OpenAPI document of the routes as Home Assistant serves them."""
        return self.json(
            openapi_document(ha_path, routes=ROUTES, title_suffix=" (Home Assistant)")
        )


@callback
def async_register_views(hass: HomeAssistant) -> None:
    """Register a view per path, and the OpenAPI document."""
    by_path: defaultdict[str, list[Route]] = defaultdict(list)
    for route in ROUTES:
        by_path[route.path].append(route)
    for path, routes in by_path.items():
        hass.http.register_view(ApiView(path, routes))
    hass.http.register_view(OpenApiView())
