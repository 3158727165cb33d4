"""A memory server (the add-on) as an entry's store, through Home Assistant's session.

Setup raises ConfigEntryNotReady while the server is down (Home Assistant retries) and
ConfigEntryAuthFailed when it refuses the token (reauthentication). Later, any call
answered 401 starts reauthentication. Every `POLL_INTERVAL` the backend polls the
server: the sensor hears of changes made there (the web UI, the CLI), and the server
going away or coming back is noticed even when nobody calls; the backend logs that
once each way and the sensor, which reads the stats, goes unavailable and back.
"""

from __future__ import annotations

from datetime import datetime

from homeassistant.const import CONF_TOKEN, CONF_URL
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import ConfigEntryAuthFailed, ConfigEntryNotReady
from homeassistant.helpers.aiohttp_client import async_get_clientsession
from homeassistant.helpers.event import async_track_time_interval

from .const import DOMAIN, LOGGER
from .data import AssistMemoryConfigEntry
from .engine import MemoryEngineError
from .engine.errors import AuthenticationError
from .engine.remote import POLL_INTERVAL, RemoteBackend


def remote_backend(hass: HomeAssistant, url: str, token: str) -> RemoteBackend:
    """A client of the memory server at `url`."""
    return RemoteBackend(async_get_clientsession(hass), url, token)


async def async_check_server(hass: HomeAssistant, url: str, token: str) -> str | None:
    """None when the server answers and takes the token, else the flow's error key."""
    try:
        await remote_backend(hass, url, token).connect()
    except AuthenticationError:
        return "invalid_auth"
    except MemoryEngineError as err:
        LOGGER.debug("No memory server at %s: %s", url, err.message)
        return "cannot_connect"
    return None


async def async_open_remote(
    hass: HomeAssistant, entry: AssistMemoryConfigEntry
) -> RemoteBackend:
    """Connect to the entry's server and poll it while the entry is loaded."""
    url = entry.data[CONF_URL]
    backend = RemoteBackend(
        async_get_clientsession(hass),
        url,
        entry.data[CONF_TOKEN],
        on_auth_failed=lambda: entry.async_start_reauth(hass),
    )
    try:
        await backend.connect()
    except AuthenticationError as err:
        raise ConfigEntryAuthFailed(
            translation_domain=DOMAIN,
            translation_key=err.code,
            translation_placeholders=err.placeholders,
        ) from err
    except MemoryEngineError as err:
        raise ConfigEntryNotReady(
            translation_domain=DOMAIN,
            translation_key="server_unavailable",
            translation_placeholders={"url": url, "error": err.message},
        ) from err

    async def _poll(_now: datetime) -> None:
        await backend.poll()

    entry.async_on_unload(
        async_track_time_interval(
            hass, _poll, POLL_INTERVAL, name="Assist Memory server poll"
        )
    )
    return backend
