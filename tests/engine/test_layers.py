"""The engine's layers: every import goes down (or stays within its own layer).

A newcomer finds a behaviour by its layer (docs/development.md, "Architecture"); this
keeps the layers honest. The package's `__init__` is the public API on top and may
import any layer.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ENGINE = Path(__file__).parents[2] / "custom_components" / "assist_memory" / "engine"

# Lowest first: a module may import its own layer and the ones before it.
LAYERS = (
    "errors",
    "config",
    "storage",
    "model",
    "language",
    "search",
    "documents",
    "memory",
    "conversation",
    "backend",
    "http",
    "host",
)


def _engine_modules() -> list[Path]:
    return sorted(p for p in ENGINE.rglob("*.py") if p != ENGINE / "__init__.py")


def _upward_imports(module: tuple[str, ...], source: str) -> list[str]:
    """The imports of `module` (its parts below the engine) that go to a higher layer."""
    package = module[:-1]
    own_layer = LAYERS.index(module[0])
    upward: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ImportFrom) or node.level == 0:
            continue
        base = package[: len(package) - (node.level - 1)]
        targets = (
            [(*base, *node.module.split("."))]
            if node.module
            else [(*base, alias.name) for alias in node.names]
        )
        upward.extend(
            f"line {node.lineno}: {'.'.join(target)}"
            for target in targets
            if LAYERS.index(target[0]) > own_layer
        )
    return upward


def _parts(path: Path) -> tuple[str, ...]:
    parts = path.relative_to(ENGINE).with_suffix("").parts
    return (*parts[:-1], "") if parts[-1] == "__init__" else parts


def test_every_engine_module_belongs_to_a_layer() -> None:
    """A new module or package is placed in the layer order on purpose."""
    for path in _engine_modules():
        assert _parts(path)[0] in LAYERS, f"{path.relative_to(ENGINE)} is in no layer"


@pytest.mark.parametrize(
    "path", _engine_modules(), ids=lambda p: str(p.relative_to(ENGINE))
)
def test_imports_only_go_down(path: Path) -> None:
    """No module imports a layer above its own."""
    assert _upward_imports(_parts(path), path.read_text(encoding="utf-8")) == []


def test_an_upward_import_is_caught() -> None:
    """The check sees an upward import, relative at any depth (the test above can fail)."""
    store = ENGINE / "storage" / "store.py"
    source = store.read_text(encoding="utf-8")
    assert _upward_imports(("storage", "store"), source) == []
    assert _upward_imports(
        ("storage", "store"), source + "\nfrom ..host.server import MemoryServer\n"
    ) == [f"line {source.count(chr(10)) + 2}: host.server"]
    assert _upward_imports(("storage", "models"), "from ..config import X\n") == []
    assert _upward_imports(("errors",), "from . import config\n") == ["line 1: config"]


def test_the_engine_imports_neither_home_assistant_nor_the_glue() -> None:
    """The engine runs without Home Assistant (server, add-on, CLI)."""
    outside = {"homeassistant", "custom_components"}
    found: list[str] = []
    for path in _engine_modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            found.extend(
                f"{path.relative_to(ENGINE)}: {name}"
                for name in names
                if name.split(".")[0] in outside
            )
    assert found == []
