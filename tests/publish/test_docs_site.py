"""The documentation site answers a newcomer's questions, and its hand-written summaries
stay true to the code.

The strict build (script/docs --strict, in script/test) fails on a broken link, a
missing anchor or a page left out of the navigation; these tests check what it cannot:
that the home page leads to the pages a newcomer asks for, and that the summaries
written by hand (the services' answers, the routes at a glance) name nothing the code
does not have and leave out nothing it has.
"""

from __future__ import annotations

from pathlib import Path
import re

import yaml

from custom_components.assist_memory.engine.http.openapi import openapi_document

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
# Routes the server has outside the OpenAPI document (a stream, not JSON).
NOT_IN_THE_DOCUMENT = {"/memory/events"}


def page(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def nav_pages() -> list[str]:
    """Every page of mkdocs.yml's navigation."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))

    def walk(items: list[object]) -> list[str]:
        found: list[str] = []
        for item in items:
            if isinstance(item, str):
                found.append(item)
            elif isinstance(item, dict):
                for value in item.values():
                    found += walk(value) if isinstance(value, list) else [value]
        return found

    return walk(config["nav"])


def test_the_home_page_leads_to_each_newcomers_question() -> None:
    """Install, the kitchen device, what is stored and erasing, automations, speed,
    the REST API: each one click from the home page (two with the page's section)."""
    home = page("index.md")
    for target in (
        "getting-started.md",
        "using/voice-devices.md",
        "privacy.md",
        "using/automations.md",
        "benchmarks.md",
        "rest-api.md",
    ):
        assert f"]({target})" in home, target
        assert target in nav_pages()


def test_the_pages_teammates_write_to_are_in_the_navigation() -> None:
    for name in (
        "using/talking-to-assist.md",
        "using/voice-devices.md",
        "using/memory-manager.md",
        "addon-and-server.md",
        "how-it-works.md",
        "troubleshooting.md",
        "benchmarks.md",
    ):
        assert (DOCS / name).is_file(), name
        assert name in nav_pages(), name


def test_the_services_answers_name_every_service() -> None:
    services = yaml.safe_load(
        (ROOT / "custom_components/assist_memory/services.yaml").read_text()
    )
    automations = page("using/automations.md")
    listed = set(re.findall(r"(?m)^\| `assist_memory\.([a-z_]+)` \|", automations))
    assert listed == set(services)


def test_the_routes_at_a_glance_are_the_served_routes() -> None:
    document = openapi_document(lambda path: path)
    glance = page("rest-api.md").split("## The routes at a glance", 1)[1]
    glance = glance.split("\n## ", 1)[0]
    named: set[str] = set()
    for cell in re.findall(r"(?m)^\| ([^|]+) \|", glance):
        for path, query in re.findall(r"(/(?:api|memory)[\w/{}-]*)(\?[\w=&]*)?", cell):
            named.add(path)
            operation = document["paths"].get(path, {}).get("get", {})
            known = {param["name"] for param in operation.get("parameters", [])}
            for name in re.findall(r"[?&](\w+)=", query):
                assert name in known, f"{path}?{name}="
    assert named - set(document["paths"]) == NOT_IN_THE_DOCUMENT
    # The turn routes are the integration's own link to a server; the rest are here.
    public = {path for path in document["paths"] if not path.startswith("/api/turns/")}
    assert not public - named, public - named


def test_every_image_is_shown_by_a_page() -> None:
    shown = "\n".join(
        path.read_text(encoding="utf-8") for path in DOCS.rglob("*.md")
    ) + (ROOT / "README.md").read_text(encoding="utf-8")
    for image in (DOCS / "images").glob("*.png"):
        assert f"images/{image.name}" in shown, image.name


def test_every_image_is_a_browser_tests_screenshot() -> None:
    """Taken by the browser tests (ASSIST_MEMORY_DOC_IMAGES=1), never by hand, so
    they show today's interface."""
    browser_tests = "\n".join(
        path.read_text(encoding="utf-8")
        for path in (ROOT / "tests/browser").glob("*.py")
    )
    for image in (DOCS / "images").glob("*.png"):
        assert f'"{image.stem}"' in browser_tests, image.name


def test_the_development_page_says_how_to_read_the_built_site() -> None:
    """The site links to folders (`use_directory_urls`, as GitHub Pages serves it):
    opened from disk those links show folder listings, so the page says to serve it."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert config.get("use_directory_urls", True)
    development = " ".join(page("development.md").split())
    assert "Read the site through `script/docs serve`" in development
    assert "not by opening `build/site/index.html` from disk" in development
