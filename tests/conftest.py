"""Shared fixtures: Home Assistant tests run with our custom integration enabled.

The engine is loaded once per test run, as `custom_components.assist_memory.engine`:
the name Home Assistant's loader gives it, and the one tests import. The tools in
script/ that tests use (the quality measurements) import it by its installed name,
`assist_memory_engine`; that name is made to point at the same modules, so a class is
one class whichever name reached it (`isinstance` holds). Child processes (the CLI,
the server) run the installed package on their own.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from types import ModuleType

import pytest

ENGINE = "custom_components.assist_memory.engine"
INSTALLED_NAME = "assist_memory_engine"


def _load_the_engine_once() -> None:
    """Import every engine module by its one name, and let the installed name alias it."""
    engine = importlib.import_module(ENGINE)
    for found in pkgutil.walk_packages(engine.__path__, f"{ENGINE}."):
        importlib.import_module(found.name)
    for name, module in list(sys.modules.items()):
        if name == ENGINE or name.startswith(f"{ENGINE}."):
            sys.modules[INSTALLED_NAME + name.removeprefix(ENGINE)] = module


def engine_files_loaded_twice() -> list[str]:
    """Engine source files that more than one module object was loaded from."""
    loaded: dict[str, set[int]] = {}
    modules: list[ModuleType] = list(sys.modules.values())
    for module in modules:
        file = getattr(module, "__file__", None) or ""
        if f"{ENGINE.replace('.', '/')}/" in file.replace("\\", "/"):
            loaded.setdefault(file, set()).add(id(module))
    return sorted(file for file, ids in loaded.items() if len(ids) > 1)


_load_the_engine_once()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run when an engine module was loaded under a second name."""
    if twice := engine_files_loaded_twice():
        shown = ", ".join(twice[:3]) + (", ..." if len(twice) > 3 else "")
        sys.stderr.write(f"Engine modules loaded under two names: {shown}\n")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture(autouse=True)
def auto_enable_custom_integrations(enable_custom_integrations: None) -> None:
    """Let Home Assistant load custom_components/assist_memory."""


@pytest.fixture
def hass_config_dir(hass_tmp_config_dir: str) -> str:
    """A fresh config folder per test, so each test has its own memories.json."""
    return hass_tmp_config_dir
