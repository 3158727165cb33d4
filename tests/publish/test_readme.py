"""README.md is for people deciding and installing; the documentation site has the rest.

It opens with what it does and a conversation, then how to install it; the developer's
part is a few lines at the end. The install links open Home Assistant's own pages
(my.home-assistant.io) for this repository and domain, and every link to the
documentation site names a page that the site has.
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
SITE = "https://assist-memory.github.io/assist-memory/"
MAX_LINES = 250


def headings() -> list[str]:
    return re.findall(r"(?m)^## (.+)$", README)


def test_the_readme_is_short() -> None:
    assert len(README.splitlines()) <= MAX_LINES


def test_install_comes_first_and_developing_last() -> None:
    sections = headings()
    assert sections[0] == "Install"
    assert sections[-2:] == ["Developing", "License"]
    # Before the first heading: what it does, and a conversation showing it.
    opening = README.split("\n## ", 1)[0]
    assert "```text" in opening
    assert "script/" not in opening
    # The developer's part is short: commands, not a guide.
    developing = README.split("\n## Developing\n", 1)[1].split("\n## ", 1)[0]
    assert len(developing.strip().splitlines()) <= 3


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


def test_the_site_is_this_repositorys_github_pages() -> None:
    owner, name = urlparse(MANIFEST["documentation"]).path.strip("/").split("/")
    assert f"https://{owner}.github.io/{name}/" == SITE
    assert f"site_url: {SITE}" in (ROOT / "mkdocs.yml").read_text(encoding="utf-8")


def test_every_link_to_the_site_names_one_of_its_pages() -> None:
    links = re.findall(rf"{re.escape(SITE)}[^)\s>]*", README)
    assert len(links) >= 10
    for link in links:
        page = link.removeprefix(SITE).split("#")[0].strip("/")
        candidates = [f"{page}.md", f"{page}/index.md"] if page else ["index.md"]
        assert any((ROOT / "docs" / c).is_file() for c in candidates), link


def test_the_readme_links_the_pages_a_newcomer_asks_for() -> None:
    for page in (
        "getting-started/",
        "using/voice-devices/",
        "privacy/",
        "using/automations/",
        "benchmarks/",
        "rest-api/",
    ):
        assert SITE + page in README, page


def test_every_image_and_file_the_readme_shows_exists() -> None:
    targets = re.findall(r"\]\((?!https?://)([^)#\s]+)\)", README)
    assert "docs/images/memory-manager.png" in targets
    for target in targets:
        assert (ROOT / target).is_file(), target
