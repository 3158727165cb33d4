"""The web page of the memory server preloads every module the manager imports."""

from __future__ import annotations

from pathlib import Path
import re

WEB = (
    Path(__file__).parents[2] / "custom_components" / "assist_memory" / "engine" / "web"
)
# Loaded another way: the page's own script, and the Home Assistant panel's files.
NOT_PRELOADED = {"main.js", "panel.js", "transport-ha.js", "transport-me.js"}


def test_every_module_is_preloaded() -> None:
    page = (WEB / "index.html").read_text(encoding="utf-8")
    preloaded = set(re.findall(r'rel="modulepreload" href="ui/([^"]+)"', page))
    modules = {
        path.relative_to(WEB).as_posix() for path in WEB.rglob("*.js")
    } - NOT_PRELOADED
    assert preloaded == modules
