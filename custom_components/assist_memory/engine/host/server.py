"""The standalone memory server (and the add-on's): the REST API, the web UI, /health.

Routes are the engine's (`http/api.py`) at the memory server's REST paths (`/api/memory/main`,
`/memory/long-term`, ...), the OpenAPI document at `/openapi.json`, the web UI
(`web/`) at `/`. Everything but `/health` and the UI's files needs the bearer token
(compared in constant time); in the add-on, requests from the Supervisor's ingress
proxy (172.30.32.2) are let through without it, since Home Assistant checked the user
(who then reads only their own conversations, as in Home Assistant).

Settings a person changes through the API are kept in `config.json` beside the store.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
import contextlib
from dataclasses import dataclass, field
import gc
import hmac
from http import HTTPStatus
import json
import logging
from pathlib import Path
import secrets
import signal
import sys
from typing import Any, Final
from urllib.parse import quote

import aiohttp
from aiohttp import web
from aiohttp.abc import AbstractAccessLogger

from ..backend.configure import apply_settings
from ..backend.local import LocalBackend
from ..config import DEFAULT_CONFIG, SETTINGS_BY_KEY, InvalidConfigError
from ..http.aiohttp_requests import answer_route, json_response
from ..http.api import ROUTES
from ..http.events_sse import add_event_stream
from ..http.openapi import openapi_document
from ..http.routing import ApiResponse, Route, error_body
from ..language.llm import LlmCaller, OpenAiChatCaller
from ..model.embeddings import EmbeddingConfig
from ..model.local_model import LocalModel
from ..storage.durable import keep_private, make_private_folder, write_atomically
from ..storage.paths import DEFAULT_PORT
from ..storage.settings import StoreSettings

_LOGGER = logging.getLogger(__name__)

CONFIG_FILE: Final = "config.json"
TOKEN_FILE: Final = "token"  # noqa: S105 (a file name)
INGRESS_ADDRESS: Final = "172.30.32.2"
# The Home Assistant user the ingress proxy says is asking.
REMOTE_USER_HEADER: Final = "X-Remote-User-Id"
WEB_FOLDER: Final = Path(__file__).parent.parent / "web"
# Paths anyone may read: the health check and the web UI's files (no memory in them).
PUBLIC_PATHS: Final = frozenset({"/health"})


@dataclass(frozen=True, slots=True)
class LlmEndpoint:
    """An OpenAI-compatible chat endpoint for compaction (and extraction)."""

    url: str
    model: str
    api_key: str | None = None


@dataclass(frozen=True, slots=True)
class ServerOptions:
    """How the server runs: where, on which data, with which endpoints."""

    data_dir: Path
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    ingress: bool = False
    llm: LlmEndpoint | None = None
    embeddings: EmbeddingConfig | LocalModel | None = None
    initial_config: dict[str, Any] = field(default_factory=dict)
    # Print the web UI's link with the token at each start (script/server does).
    print_link: bool = False


def read_or_create_token(data_dir: Path) -> tuple[str, bool]:
    """The server's token, made at first start (readable by the owner only).

    Returns the token and whether it was made now (then it is shown once).
    """
    path = data_dir / TOKEN_FILE
    try:
        token = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        token = ""
    if token:
        return token, False
    token = secrets.token_urlsafe(32)
    write_atomically(path, [token + "\n"])
    return token, True


def _prepare_folder(data_dir: Path) -> None:
    """Create the data folder (0700); the server's own files in it are private."""
    make_private_folder(data_dir)
    keep_private(data_dir, (TOKEN_FILE, CONFIG_FILE))


class ServerApiHost:
    """Settings in `config.json` beside the store; applied at once."""

    def __init__(
        self,
        backend: LocalBackend,
        data_dir: Path,
        llm: LlmCaller | None,
        options: dict[str, Any] | None = None,
    ) -> None:
        """`options`: the settings as `load_config` read them (else the defaults)."""
        self._backend = backend
        self.path = data_dir / CONFIG_FILE
        self.llm = llm
        self.options: dict[str, Any] = dict(options or DEFAULT_CONFIG)

    @property
    def backend(self) -> LocalBackend:
        """The memory backend."""
        return self._backend

    def load(self, initial: dict[str, Any]) -> None:
        """Read `config.json` (blocking); `initial` (the add-on's options) wins."""
        self.options = load_config(self.path, initial)

    async def read_options(self) -> dict[str, Any]:
        """The current settings by storage key."""
        return dict(self.options)

    async def write_options(self, changes: dict[str, Any]) -> None:
        """Save the settings durably, then apply them."""
        options = {**self.options, **changes}
        text = json.dumps(options, indent=2, sort_keys=True) + "\n"
        await asyncio.to_thread(write_atomically, self.path, [text])
        self.options = options
        await self.apply()

    async def apply(self) -> None:
        """Give the backend the limits, retention and compaction LLM of the settings."""
        await apply_settings(self._backend, self.options, compaction_llm=self.llm)


def load_config(path: Path, initial: dict[str, Any]) -> dict[str, Any]:
    """The settings in `path` (blocking) over the defaults; `initial` wins."""
    options = dict(DEFAULT_CONFIG)
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        saved = {}
    except ValueError:
        _LOGGER.warning("%s is not JSON; using the defaults", path)
        saved = {}
    for key, value in {**saved, **initial}.items():
        if (setting := SETTINGS_BY_KEY.get(key)) is None:
            continue
        try:
            options[key] = setting.check(value)
        except InvalidConfigError as err:
            _LOGGER.warning("Ignoring the setting %s: %s", key, err.message)
    return options


class PathOnlyAccessLogger(AbstractAccessLogger):
    """One line per request, without its query string (search text is private).

    Neither the referer nor the user agent: a referer carries a page's query too.
    """

    def log(
        self, request: web.BaseRequest, response: web.StreamResponse, time: float
    ) -> None:
        """Log who asked, the method and path, the status and how long it took."""
        self.logger.info(
            '%s "%s %s" %d %.3fs',
            request.remote,
            request.method,
            request.path,
            response.status,
            time,
        )


def _bearer(request: web.Request) -> bytes:
    """The bearer token of the request, as bytes (b"" when there is none).

    Header bytes that are not UTF-8 arrive as lone surrogates: they are compared
    as the bytes they were, so they are simply not the token.
    """
    header = request.headers.get("Authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer":
        return b""
    return value.strip().encode("utf-8", "surrogateescape")


def auth_middleware(token: str, *, ingress: bool) -> Any:
    """Let through the public paths, the ingress proxy (add-on) and the token."""

    @web.middleware
    async def check(
        request: web.Request,
        handler: Callable[[web.Request], Awaitable[web.StreamResponse]],
    ) -> web.StreamResponse:
        if request.path in PUBLIC_PATHS or _is_web_file(request.path):
            return await handler(request)
        if ingress and request.remote == INGRESS_ADDRESS:
            return await handler(request)
        if hmac.compare_digest(_bearer(request), token.encode()):
            return await handler(request)
        return json_response(
            ApiResponse(
                HTTPStatus.UNAUTHORIZED,
                error_body("a valid bearer token is required", "unauthorized"),
            )
        )

    return check


def ingress_viewer(request: web.Request, *, ingress: bool) -> str | None:
    """Who asks, for what of the conversations they see (`seen_by.py`).

    Through the add-on's ingress, the Home Assistant user the Supervisor names
    (`X-Remote-User-Id`): another person's conversations are shown without what was
    said in them, as inside Home Assistant ("" when it names nobody: only the
    household's open). None for the token's holder: everything.
    """
    if not (ingress and request.remote == INGRESS_ADDRESS):
        return None
    return request.headers.get(REMOTE_USER_HEADER, "").strip()


def frame_policy(*, ingress: bool) -> Any:
    """Who may show the pages in a frame: nobody, or Home Assistant through ingress.

    Home Assistant shows the add-on's UI in a frame of its own origin, the one the
    ingress proxy serves the page from ('self'); no other page may frame it, so
    none can trick a person into clicking in it (clickjacking).
    """

    @web.middleware
    async def guard(
        request: web.Request,
        handler: Callable[[web.Request], Awaitable[web.StreamResponse]],
    ) -> web.StreamResponse:
        response = await handler(request)
        if ingress and request.remote == INGRESS_ADDRESS:
            ancestors, frame_options = "'self'", "SAMEORIGIN"
        else:
            ancestors, frame_options = "'none'", "DENY"
        response.headers["Content-Security-Policy"] = f"frame-ancestors {ancestors}"
        response.headers["X-Frame-Options"] = frame_options
        return response

    return guard


def _is_web_file(path: str) -> bool:
    return path == "/" or path.startswith("/ui/")


def create_app(
    host: ServerApiHost, token: str, *, ingress: bool = False
) -> web.Application:
    """The aiohttp application: routes, OpenAPI, health and web UI."""
    app = web.Application(
        middlewares=[
            frame_policy(ingress=ingress),
            auth_middleware(token, ingress=ingress),
        ]
    )

    def route_handler(route: Route) -> Callable[[web.Request], Awaitable[web.Response]]:
        async def handle(request: web.Request) -> web.Response:
            viewer = ingress_viewer(request, ingress=ingress)
            return await answer_route(host, route, request, viewer=viewer)

        return handle

    for route in ROUTES:
        app.router.add_route(route.method, route.path, route_handler(route))

    async def openapi(_request: web.Request) -> web.Response:
        return web.json_response(openapi_document(lambda path: path))

    async def health(_request: web.Request) -> web.Response:
        # Never queued behind the store's worker, never a look at every memory.
        store = host.backend.store
        count = store.known_count
        stopped = store.fullness_tracker.check(count, store.settings).learning_stopped
        return web.json_response(
            {"status": "ok", "count": count, "learningStopped": stopped}
        )

    app.router.add_get("/openapi.json", openapi)
    app.router.add_get("/health", health)
    add_event_stream(app, host.backend)
    if (WEB_FOLDER / "index.html").exists():

        async def index(_request: web.Request) -> web.FileResponse:
            return web.FileResponse(WEB_FOLDER / "index.html")

        app.router.add_get("/", index)
        app.router.add_static("/ui/", WEB_FOLDER)
    return app


type ReadyCallback = Callable[[str, int], Coroutine[Any, Any, None]]


async def serve(
    options: ServerOptions,
    *,
    on_ready: ReadyCallback | None = None,
) -> None:
    """Run until SIGTERM or SIGINT; then stop taking requests and flush everything.

    Once listening, prints the address (port 0 picks a free port) and runs
    `on_ready(token, port)` in the background (the add-on announces itself there;
    it must not raise); that is cancelled at shutdown if still running.
    """
    await asyncio.to_thread(_prepare_folder, options.data_dir)
    token, created = await asyncio.to_thread(read_or_create_token, options.data_dir)
    if created:
        # Shown once, at first start; it stays readable in the data folder.
        _print(f"Assist Memory API token (keep it secret): {token}")
    # The limits apply from the start: opening may apply an edit of MEMORY.md.
    config = await asyncio.to_thread(
        load_config, options.data_dir / CONFIG_FILE, options.initial_config
    )
    # One session for the server's own calls (embeddings, the LLM).
    async with aiohttp.ClientSession() as session:
        backend, _report = await LocalBackend.open(
            options.data_dir / "memories.json",
            StoreSettings.from_options(config),
            embeddings=options.embeddings,
            session=session,
        )
        # The memories just loaded live as long as the process: Python's garbage
        # collector need not walk them at each full pass (60-70 ms at 100 000
        # memories, a pause in whatever request it lands in).
        gc.freeze()
        try:
            await _run(
                options, backend, token, on_ready, config=config, session=session
            )
        finally:
            await backend.close()


async def _run(
    options: ServerOptions,
    backend: LocalBackend,
    token: str,
    on_ready: ReadyCallback | None,
    *,
    config: dict[str, Any],
    session: aiohttp.ClientSession,
) -> None:
    llm = (
        OpenAiChatCaller(
            options.llm.url,
            options.llm.model,
            options.llm.api_key,
            session=session,
        )
        if options.llm
        else None
    )
    host = ServerApiHost(backend, options.data_dir, llm, config)
    await host.apply()
    runner = web.AppRunner(
        create_app(host, token, ingress=options.ingress),
        access_log_class=PathOnlyAccessLogger,
    )
    await runner.setup()
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    signals = (signal.SIGTERM, signal.SIGINT)
    announcing: asyncio.Task[None] | None = None
    try:
        # Before the address is printed: a signal right after it must stop cleanly.
        for signum in signals:
            loop.add_signal_handler(signum, stop.set)
        await web.TCPSite(runner, options.host, options.port).start()
        port = int(runner.addresses[0][1])
        _print(f"Assist Memory serving on http://{options.host}:{port}")
        if options.print_link:
            _print(f"Open the web UI: {web_ui_link(options.host, port, token)}")
        if on_ready is not None:
            announcing = asyncio.create_task(on_ready(token, port))
        await stop.wait()
        _LOGGER.info("Stopping: finishing requests and flushing the store")
    finally:
        for signum in signals:
            loop.remove_signal_handler(signum)
        if announcing is not None:
            announcing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await announcing
        await runner.cleanup()


def web_ui_link(host: str, port: int, token: str) -> str:
    """The web UI with the token in the fragment (it logs in, the server never sees it).

    A server on every interface is opened on this machine's loopback address.
    """
    if host in ("", "0.0.0.0", "::"):  # noqa: S104 (an address to link to, not to bind)
        host = "127.0.0.1"
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}/#token={quote(token, safe='')}"


def _print(line: str) -> None:
    """A line for the person who started the server (stdout, at once)."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()
