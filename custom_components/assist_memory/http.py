"""REST views under /api/assist_memory, with Home Assistant's authentication.

For now the ranked search (seed 000's `GET /api/memory/search?q=`); the full REST API
of the memory manager follows.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

from aiohttp import web
from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers.http import HomeAssistantView

from .const import DOMAIN
from .data import AssistMemoryConfigEntry
from .engine import HOUSEHOLD_SCOPE, MemoryEngineError

MAX_LIMIT = 100


@callback
def async_register_views(hass: HomeAssistant) -> None:
    """Register the REST views."""
    hass.http.register_view(SearchView())


def _loaded_entry(hass: HomeAssistant) -> AssistMemoryConfigEntry | None:
    entries: list[AssistMemoryConfigEntry] = hass.config_entries.async_loaded_entries(
        DOMAIN
    )
    return entries[0] if entries else None


class SearchView(HomeAssistantView):
    """GET /api/assist_memory/memory/search?q=...&limit=...&scope=..."""

    url = "/api/assist_memory/memory/search"
    name = "api:assist_memory:memory:search"

    async def get(self, request: web.Request) -> web.Response:
        """Ranked memories for the query, each with its score and why it matched."""
        hass: HomeAssistant = request.app["hass"]
        query = request.query.get("q", "").strip()
        if not query:
            return self.json(
                {"error": "the query parameter q is required"}, HTTPStatus.BAD_REQUEST
            )
        try:
            limit = int(request.query.get("limit", "0")) or None
        except ValueError:
            return self.json(
                {"error": "limit must be a whole number"}, HTTPStatus.BAD_REQUEST
            )
        if limit is not None and not 1 <= limit <= MAX_LIMIT:
            return self.json(
                {"error": f"limit must be from 1 to {MAX_LIMIT}"},
                HTTPStatus.BAD_REQUEST,
            )
        if (entry := _loaded_entry(hass)) is None:
            return self.json(
                {"error": "Assist Memory is not loaded"}, HTTPStatus.SERVICE_UNAVAILABLE
            )
        scopes: list[str] | None = None
        if scope := request.query.get("scope"):
            scopes = list(dict.fromkeys([HOUSEHOLD_SCOPE, scope]))
        try:
            found = await entry.runtime_data.backend.search(
                query, limit=limit, scopes=scopes
            )
        except MemoryEngineError as err:
            return self.json({"error": err.message}, HTTPStatus.BAD_REQUEST)
        results: list[dict[str, Any]] = [result.to_dict() for result in found]
        return self.json({"query": query, "results": results})
