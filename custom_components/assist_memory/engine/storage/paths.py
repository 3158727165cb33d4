"""Where the store file lives.

Add-on: `/data/memories/memories.json`. Anywhere else: `data/memories.json`
under a base folder (Home Assistant's config folder, or the working folder for the CLI).
`MEMORY_FILE` or an explicit data folder overrides both.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Final

ADDON_OPTIONS_FILE: Final = Path("/data/options.json")
ADDON_DATA_DIR: Final = Path("/data/memories")
# Where the memory server listens unless told otherwise.
DEFAULT_PORT: Final = 8099
STORE_FILE_NAME: Final = "memories.json"
ENV_MEMORY_FILE: Final = "MEMORY_FILE"


def running_as_addon(env: Mapping[str, str]) -> bool:
    """True inside a Home Assistant add-on container."""
    return bool(env.get("SUPERVISOR_TOKEN")) or ADDON_OPTIONS_FILE.exists()


def resolve_store_path(
    env: Mapping[str, str],
    *,
    data_dir: Path | None = None,
    base_dir: Path | None = None,
    detect_addon: bool = True,
) -> Path:
    """Return the store file path, in order of precedence.

    1. `data_dir` given (a `--data-dir` flag): `data_dir/memories.json`
    2. `MEMORY_FILE` in the environment
    3. the add-on path, when `detect_addon` and running as an add-on
    4. `base_dir/data/memories.json` (base_dir defaults to the working folder)
    """
    if data_dir is not None:
        return Path(data_dir) / STORE_FILE_NAME
    if memory_file := env.get(ENV_MEMORY_FILE, "").strip():
        return Path(memory_file)
    if detect_addon and running_as_addon(env):
        return ADDON_DATA_DIR / STORE_FILE_NAME
    return (base_dir if base_dir is not None else Path.cwd()) / "data" / STORE_FILE_NAME
