"""The documentation site's reference pages are made from the code, never by hand.

Each page in docs/reference must be what script/docs_reference.py makes from its source
now (the settings table and the options flow's words, services.yaml, the served OpenAPI
document, the command line's parser): a change to the source without `script/docs`
fails here, naming the page.
"""

from __future__ import annotations

import json
from pathlib import Path
import re

import pytest

from custom_components.assist_memory.engine.config import SETTINGS
from custom_components.assist_memory.engine.host.cli import COMMANDS
from script import docs_reference
from script.docs_reference import PAGES, REFERENCE, main, stale_pages, write_pages


@pytest.mark.parametrize("name", list(PAGES))
def test_the_reference_page_is_current(name: str) -> None:
    path = REFERENCE / name
    assert path.is_file(), f"docs/reference/{name} is missing: run script/docs"
    assert path.read_text(encoding="utf-8") == PAGES[name](), (
        f"docs/reference/{name} is stale: run script/docs"
    )


def test_a_page_that_drifts_is_named_and_fails_the_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(docs_reference, "REFERENCE", tmp_path / "reference")
    write_pages()
    assert stale_pages() == []
    assert main(["--check"]) == 0

    page = tmp_path / "reference" / "configuration.md"
    page.write_text(page.read_text().replace("| 100 |", "| 200 |"), encoding="utf-8")
    (tmp_path / "reference" / "services.md").unlink()
    assert stale_pages() == ["configuration.md", "services.md"]
    assert main(["--check"]) == 1
    assert "configuration.md, services.md" in capsys.readouterr().err
    assert main(["--bad"]) == 2


def test_every_setting_is_in_the_configuration_reference() -> None:
    page = PAGES["configuration.md"]()
    for setting in SETTINGS:
        assert f"`{setting.name}`" in page
        assert f"`{setting.env_name}`" in page


def test_every_service_is_in_the_services_reference() -> None:
    page = PAGES["services.md"]()
    services = (Path(docs_reference.INTEGRATION) / "services.yaml").read_text()
    names = re.findall(r"(?m)^([a-z_]+):$", services)
    assert len(names) >= 14
    for name in names:
        assert f"## `assist_memory.{name}`" in page


def test_every_route_is_in_the_rest_reference() -> None:
    page = PAGES["rest-api.md"]()
    document = json.loads(PAGES["openapi.json"]())
    assert document == docs_reference.served_document()
    for path, operations in document["paths"].items():
        for method in operations:
            assert f"`{method.upper()} {path}`" in page


def test_every_command_is_in_the_command_line_reference() -> None:
    page = PAGES["command-line.md"]()
    for name in COMMANDS:
        assert f"## `assist-memory {name}`" in page
    assert "`--compaction-enabled {true,false}`" in page  # serve's memory settings
