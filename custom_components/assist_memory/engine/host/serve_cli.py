"""`assist-memory serve`: the memory server, standalone or as the Home Assistant add-on.

Settings come in layers, a later one winning over an earlier one:

1. the environment: `MEMORY_<SETTING>` for every memory setting of the settings
   table (`config.py`: `MEMORY_MAX_ITEMS`, `MEMORY_COMPACTION_ENABLED`, ...;
   `MEMORY_RETRIEVAL_LIMIT` is also read for `rag_top_n`), and `LOG_LEVEL`,
   `LLM_URL`, `LLM_MODEL`, `LLM_API_KEY`, `EMBEDDING_URL`, `EMBEDDING_MODEL`,
   `EMBEDDING_API_KEY`, `EMBEDDING_LOCAL` (`on`, the default, or `off`);
2. in the add-on, its options file (`/data/options.json`): the same names in lower
   case, without `MEMORY_` (`max_items`, `compaction_enabled`, `llm_url`, ...);
3. the flags: one per memory setting (`--compaction-enabled true`, ...).

Memory settings given so win, at each start, over the ones saved through the API.
Search by meaning: an embedding endpoint when one is set, else the local model when it
is installed (`assist-memory[local]`, as in the add-on) and `embedding_local` is on,
else keywords only (one log line says why).
In the add-on (`--addon`, or detected: `SUPERVISOR_TOKEN` is set or
`/data/options.json` exists), the data folder is `/data/memories`, the server listens
on all interfaces, lets the ingress proxy in without the token, and announces itself
to Home Assistant by Supervisor discovery.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import dataclass
import functools
import json
import logging
from pathlib import Path
import sys
from typing import TYPE_CHECKING, Final

from ..config import (
    MAX_ITEMS,
    SETTINGS,
    SETTINGS_BY_KEY,
    AnySetting,
    InvalidConfigError,
    config_from_env,
)
from ..storage.paths import (
    ADDON_DATA_DIR,
    ADDON_OPTIONS_FILE,
    DEFAULT_PORT,
    resolve_store_path,
    running_as_addon,
)

# The HTTP stack (aiohttp) and the embedding modules are loaded by `serve` only, not
# by the CLI's other commands (each import costs their start).
if TYPE_CHECKING:
    from ..model.embeddings import EmbeddingConfig
    from ..model.local_model import LocalModel
    from .discovery import Supervisor
    from .server import ServerOptions

_LOGGER = logging.getLogger(__name__)

LOG_LEVELS: Final = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
}
DEFAULT_LOG_LEVEL: Final = "info"
STANDALONE_HOST: Final = "127.0.0.1"
ADDON_HOST: Final = "0.0.0.0"  # noqa: S104 (the add-on's network is the Supervisor's)
# The server's own settings (not memory settings); in the environment, in capitals.
SERVER_KEYS: Final = (
    "log_level",
    "llm_url",
    "llm_model",
    "llm_api_key",
    "embedding_url",
    "embedding_model",
    "embedding_api_key",
    "embedding_local",
)
# What `embedding_local` may be (the add-on's options file gives a JSON boolean).
_SWITCH: Final = {"on": True, "true": True, "off": False, "false": False}
# Every memory setting has a flag of `serve` but `--max-items`, the CLI's own.
FLAG_SETTINGS: Final = tuple(s for s in SETTINGS if s is not MAX_ITEMS)


@dataclass(frozen=True, slots=True)
class ServeSetup:
    """Everything `serve` needs, read from the flags, the environment and the add-on."""

    options: ServerOptions
    log_level: str
    supervisor: Supervisor | None = None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags of `serve` (`--data-dir` and `--max-items` are the CLI's own)."""
    parser.add_argument(
        "--host",
        help=f"address to listen on (default {STANDALONE_HOST}; {ADDON_HOST} in the "
        "add-on)",
    )
    parser.add_argument(
        "--port",
        type=_port,
        default=DEFAULT_PORT,
        help=f"port to listen on (default {DEFAULT_PORT}; 0 picks a free one)",
    )
    parser.add_argument(
        "--log-level", choices=list(LOG_LEVELS), help="default info (LOG_LEVEL)"
    )
    for prefix, what in (
        ("llm", "an OpenAI-compatible chat endpoint, for compaction"),
        ("embedding", "an OpenAI-compatible embeddings endpoint, for hybrid search"),
    ):
        upper = prefix.upper()
        # API keys only from the environment: a flag would show in the process list.
        parser.add_argument(
            f"--{prefix}-url",
            metavar="URL",
            help=f"{what} ({upper}_URL; its key is read from {upper}_API_KEY)",
        )
        parser.add_argument(
            f"--{prefix}-model", metavar="NAME", help=f"its model ({upper}_MODEL)"
        )
    parser.add_argument(
        "--embedding-local",
        choices=["on", "off"],
        help="search by meaning with the local model when no embedding endpoint is "
        "set (default on; EMBEDDING_LOCAL)",
    )
    settings = parser.add_argument_group(
        "memory settings", "each also read from its MEMORY_<SETTING> variable"
    )
    for setting in FLAG_SETTINGS:
        settings.add_argument(
            setting.flag,
            dest=setting.key,
            metavar=_metavar(setting),
            help=_help(setting),
        )
    parser.add_argument(
        "--print-link",
        action="store_true",
        help="print the web UI's link with the token (#token=...) at each start",
    )
    parser.add_argument(
        "--addon",
        action="store_true",
        help="run as the Home Assistant add-on (detected when SUPERVISOR_TOKEN is set): "
        "options from --options-file, data in /data/memories, ingress, discovery",
    )
    parser.add_argument(
        "--options-file",
        type=Path,
        default=ADDON_OPTIONS_FILE,
        metavar="FILE",
        help=f"the add-on's options (default {ADDON_OPTIONS_FILE})",
    )


def _metavar(setting: AnySetting) -> str:
    if isinstance(setting.default, bool):
        return "{true,false}"
    if isinstance(setting.default, int):
        return "N"
    return "{" + ",".join(setting.choices) + "}"


def _help(setting: AnySetting) -> str:
    """The description, unit, range and default (argparse's help is %-formatted)."""
    default = str(setting.default).lower()
    parts = [setting.unit] if setting.unit else []
    if setting.minimum is not None and setting.maximum is not None:
        parts.append(f"{setting.minimum}-{setting.maximum}")
    parts.append(f"default {default}")
    return f"{setting.description} ({', '.join(parts)})".replace("%", "%%")


def _port(raw: str) -> int:
    try:
        port = int(raw)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{raw!r} is not a port number") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port number (0-65535)")
    return port


def serve_setup(args: argparse.Namespace, env: Mapping[str, str]) -> ServeSetup:
    """Read the layers; InvalidConfigError (one line for the CLI) for a bad value."""
    from .discovery import (  # loaded here only: see TYPE_CHECKING above
        DEFAULT_SUPERVISOR_URL,
        ENV_SUPERVISOR_TOKEN,
        ENV_SUPERVISOR_URL,
        Supervisor,
    )
    from .server import LlmEndpoint, ServerOptions

    addon = bool(args.addon) or running_as_addon(env)
    values = _env_values(env)
    if addon:
        values.update(_file_values(args.options_file))
    values.update(_flag_values(args))
    if args.data_dir is None and addon:
        data_dir = ADDON_DATA_DIR
    else:
        data_dir = resolve_store_path(env, data_dir=args.data_dir).parent
    log_level = str(values.get("log_level", DEFAULT_LOG_LEVEL)).lower()
    if log_level not in LOG_LEVELS:
        raise InvalidConfigError(
            f"log_level must be one of {', '.join(LOG_LEVELS)}, not {log_level!r}"
        )
    llm = _endpoint(values, "llm")
    embeddings = _embeddings(values)
    options = ServerOptions(
        data_dir=data_dir,
        host=args.host or (ADDON_HOST if addon else STANDALONE_HOST),
        port=args.port,
        ingress=addon,
        llm=LlmEndpoint(*llm) if llm else None,
        embeddings=embeddings,
        initial_config={k: v for k, v in values.items() if k in SETTINGS_BY_KEY},
        print_link=bool(args.print_link),
    )
    supervisor = None
    if addon and (token := env.get(ENV_SUPERVISOR_TOKEN, "").strip()):
        url = env.get(ENV_SUPERVISOR_URL, "").strip() or DEFAULT_SUPERVISOR_URL
        supervisor = Supervisor(url, token)
    return ServeSetup(options, log_level, supervisor)


def _env_values(env: Mapping[str, str]) -> dict[str, object]:
    values: dict[str, object] = {}
    for key in SERVER_KEYS:
        if raw := env.get(key.upper(), "").strip():
            values[key] = raw
    values.update(config_from_env(env))
    return values


def _file_values(path: Path) -> dict[str, object]:
    """The add-on's options; a missing file is no options (the Supervisor writes it)."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except ValueError:
        raise InvalidConfigError(f"{path} is not valid JSON") from None
    if not isinstance(document, dict):
        raise InvalidConfigError(f"{path} must hold a JSON object")
    values: dict[str, object] = {}
    for key, value in document.items():
        if setting := SETTINGS_BY_KEY.get(key):
            values[key] = setting.check(value, key)
        elif key in SERVER_KEYS and value not in (None, ""):
            values[key] = str(value)
    return values


def _flag_values(args: argparse.Namespace) -> dict[str, object]:
    values: dict[str, object] = {
        key: getattr(args, key)
        for key in SERVER_KEYS
        if getattr(args, key, None) is not None
    }
    if args.max_items is not None:
        values[MAX_ITEMS.key] = MAX_ITEMS.check(args.max_items, MAX_ITEMS.flag)
    for setting in FLAG_SETTINGS:
        if (raw := getattr(args, setting.key, None)) is not None:
            values[setting.key] = setting.parse(raw, setting.flag)
    return values


def _endpoint(
    values: Mapping[str, object], prefix: str
) -> tuple[str, str, str | None] | None:
    """(url, model, api key) of an endpoint, None when not set."""
    from urllib.parse import urlsplit  # loaded here only: see TYPE_CHECKING above

    url = str(values.get(f"{prefix}_url", ""))
    model = str(values.get(f"{prefix}_model", ""))
    if not url and not model:
        return None
    if not url or not model:
        raise InvalidConfigError(
            f"{prefix}_url and {prefix}_model must be set together"
        )
    if urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).netloc:
        raise InvalidConfigError(f"{prefix}_url must be an http(s) URL, not {url!r}")
    api_key = values.get(f"{prefix}_api_key")
    return url, model, str(api_key) if api_key else None


def _embeddings(values: Mapping[str, object]) -> EmbeddingConfig | LocalModel | None:
    """The endpoint when one is set, else the local model when on and it runs here."""
    # Loaded here only: see TYPE_CHECKING above.
    from ..model.embeddings import EmbeddingConfig
    from ..model.local_model import LocalModel, local_model_problem

    if endpoint := _endpoint(values, "embedding"):
        return EmbeddingConfig(*endpoint)
    raw = str(values.get("embedding_local", "on")).lower()
    if raw not in _SWITCH:
        raise InvalidConfigError(f"embedding_local must be on or off, not {raw!r}")
    if not _SWITCH[raw]:
        return None
    if (problem := local_model_problem()) is not None:
        _LOGGER.warning("Search uses keywords only: %s", problem)
        return None
    return LocalModel()


def configure_logging(level: str) -> None:
    """Log lines on stderr at the level; requests only at debug."""
    logging.basicConfig(
        level=LOG_LEVELS[level],
        format="%(asctime)s %(levelname)s (%(name)s) %(message)s",
        stream=sys.stderr,
        force=True,
    )
    if level != "debug":
        logging.getLogger("aiohttp.access").setLevel(logging.WARNING)


def run(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    """Serve until SIGTERM or SIGINT; 0 after a clean shutdown."""
    import asyncio  # loaded here only: the other commands have no event loop

    from .server import serve  # loaded here only: see TYPE_CHECKING above

    setup = serve_setup(args, env)
    configure_logging(setup.log_level)
    options = setup.options
    if options.initial_config.get("compaction_enabled") and options.llm is None:
        _LOGGER.warning("Compaction is enabled but no LLM is set (llm_url, llm_model)")
    on_ready = None
    if setup.supervisor is not None:
        on_ready = functools.partial(_announce, setup.supervisor)
    elif options.ingress:
        _LOGGER.warning(
            "No SUPERVISOR_TOKEN: not announcing the server to Home Assistant"
        )
    asyncio.run(serve(options, on_ready=on_ready))
    return 0


async def _announce(supervisor: Supervisor, token: str, port: int) -> None:
    """Tell Home Assistant where the server is: this container's host name."""
    import socket  # loaded here only: see TYPE_CHECKING above

    from .discovery import announce  # loaded here only: see TYPE_CHECKING above

    await announce(
        supervisor, {"host": socket.gethostname(), "port": port, "token": token}
    )
