"""A memory server (the add-on) as an entry's store, through Home Assistant's session.

Setup raises ConfigEntryNotReady while the server is down (Home Assistant retries) and
ConfigEntryAuthFailed when it refuses the token (reauthentication). Later, any call
answered 401 starts reauthentication; the coordinator polls the server for the
sensor and tracks whether it answers.
"""

from __future__ import annotations

from homeassistant.const import CONF_TOKEN, CONF_URL
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import ConfigEntryAuthFailed, ConfigEntryNotReady
from homeassistant.helpers.aiohttp_client import async_get_clientsession

from .const import DOMAIN, LOGGER
from .engine import MemoryEngineError
from .engine.errors import AuthenticationError
from .engine.http.remote_backend import RemoteBackend
from .runtime_data import AssistMemoryConfigEntry


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
    """Connect to the entry's server."""
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
    return backend
