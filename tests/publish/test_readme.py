"""README.md opens for the people who use it: what it does, then how to install it.

The developer's part (commands, architecture) comes last; the install links open
Home Assistant's own pages (my.home-assistant.io) for this repository and domain.
"""

from __future__ import annotations

import json
from pathlib import Path
import re
from urllib.parse import parse_qs, urlparse

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
MANIFEST = json.loads(
    (ROOT / "custom_components" / "assist_memory" / "manifest.json").read_text()
)


def headings() -> list[str]:
    return re.findall(r"(?m)^## (.+)$", README)


def test_install_comes_first_and_developing_last() -> None:
    sections = headings()
    assert sections[0] == "Install"
    assert sections.index("Developing") > sections.index("Limitations")
    assert sections[-2:] == ["Releases", "License"]
    # Before the first heading: what it does, and a conversation showing it.
    opening = README.split("\n## ", 1)[0]
    assert "```text" in opening
    assert "script/" not in opening


def test_the_install_links_name_this_repository_and_domain() -> None:
    repository = urlparse(MANIFEST["documentation"]).path.strip("/")
    owner, name = repository.split("/")
    links = {
        urlparse(url).path: parse_qs(urlparse(url).query)
        for url in re.findall(
            r"\((https://my\.home-assistant\.io/redirect/[^)\s]+)\)", README
        )
    }
    assert links["/redirect/hacs_repository/"] == {
        "owner": [owner],
        "repository": [name],
        "category": ["integration"],
    }
    assert links["/redirect/config_flow_start/"] == {"domain": [MANIFEST["domain"]]}
    assert links["/redirect/supervisor_add_addon_repository/"] == {
        "repository_url": [MANIFEST["documentation"]]
    }
