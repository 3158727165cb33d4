"""Supervisor discovery: the add-on tells Home Assistant where its server is.

POST {supervisor}/discovery with the add-on's `SUPERVISOR_TOKEN` and
{"service": "assist_memory", "config": {"host", "port", "token"}}; Home Assistant then
offers the integration's discovery step with that config. The Supervisor accepts only
services listed under `discovery:` in the add-on's config.yaml.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from http import HTTPStatus
import logging
from typing import Final

import aiohttp

_LOGGER = logging.getLogger(__name__)

SERVICE: Final = "assist_memory"
DEFAULT_SUPERVISOR_URL: Final = "http://supervisor"
ENV_SUPERVISOR_URL: Final = "SUPERVISOR_URL"
ENV_SUPERVISOR_TOKEN: Final = "SUPERVISOR_TOKEN"  # noqa: S105 (a variable name)
ATTEMPTS: Final = 5
FIRST_DELAY: Final = 1.0
TIMEOUT: Final = 10.0


@dataclass(frozen=True, slots=True)
class Supervisor:
    """Where the Supervisor's API is, and the add-on's token for it."""

    url: str
    token: str


async def announce(
    supervisor: Supervisor,
    config: dict[str, object],
    *,
    attempts: int = ATTEMPTS,
    first_delay: float = FIRST_DELAY,
) -> bool:
    """Send the discovery message; True once the Supervisor took it. Never raises.

    A refused message (4xx: not listed in config.yaml, bad token) is not retried; a
    Supervisor that is not answering yet (connection error, 5xx) is asked again after
    1, 2, 4, ... seconds.
    """
    body = {"service": SERVICE, "config": config}
    headers = {"Authorization": f"Bearer {supervisor.token}"}
    url = f"{supervisor.url.rstrip('/')}/discovery"
    delay = first_delay
    reason = "not tried"
    async with aiohttp.ClientSession(
        timeout=aiohttp.ClientTimeout(total=TIMEOUT)
    ) as session:
        for attempt in range(1, attempts + 1):
            try:
                async with session.post(url, json=body, headers=headers) as response:
                    status = response.status
            except (aiohttp.ClientError, TimeoutError) as err:
                reason = f"{type(err).__name__}: {err}"
            else:
                if status < HTTPStatus.MULTIPLE_CHOICES:
                    _LOGGER.info("Announced the server to Home Assistant (discovery)")
                    return True
                reason = f"HTTP {status}"
                if status < HTTPStatus.INTERNAL_SERVER_ERROR:
                    break
            if attempt < attempts:
                _LOGGER.debug("Discovery failed (%s); trying again", reason)
                await asyncio.sleep(delay)
                delay *= 2
    _LOGGER.error(
        "Could not announce the server to Home Assistant (%s); add the integration "
        "by hand with the server's URL and token",
        reason,
    )
    return False
