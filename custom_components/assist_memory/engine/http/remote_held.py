"""The held facts of a memory server (`RemoteBackend`'s part for Review).

The server's routes are in `turn_routes.py` (`/api/held`).
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from ..conversation.held_facts import HeldFact
from ..errors import InvalidMemoryError


class RemoteHeldFacts:
    """Held facts over HTTP; `RemoteBackend` gives the calls."""

    async def _call(
        self,
        method: str,
        path: str,
        *,
        query: Mapping[str, str] | None = None,
        body: object = None,
        missing_ok: bool = False,
        seconds: float | None = None,
    ) -> Any:
        raise NotImplementedError

    def _notify(self) -> None:
        raise NotImplementedError

    async def held_facts(self) -> builtins.list[HeldFact]:
        """The facts the server holds, newest first."""
        answer = await self._call("GET", "/api/held")
        return [HeldFact.from_dict(item) for item in _items(answer)]

    async def hold(self, fact: HeldFact) -> HeldFact:
        """Hold a fact on the server."""
        answer = await self._call("POST", "/api/held", body=fact.as_dict())
        self._notify()
        return HeldFact.from_dict(answer)

    async def take_held(self, held_id: str) -> HeldFact | None:
        """Remove a held fact from the server; None when it is not held."""
        answer = await self._call(
            "DELETE", f"/api/held/{quote(held_id, safe='')}", missing_ok=True
        )
        if answer is None:
            return None
        self._notify()
        return HeldFact.from_dict(answer)


def _items(answer: object) -> builtins.list[object]:
    items = answer.get("held") if isinstance(answer, dict) else None
    if not isinstance(items, list):
        raise InvalidMemoryError("bad_answer", "the server's held facts are not a list")
    return items
