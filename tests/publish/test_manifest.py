"""manifest.json, hacs.json and LICENSE as Home Assistant's and HACS's validators read them.

The rules restate hassfest's manifest plugin for a custom integration (key order,
required keys, allowed values) and the HACS checks for a repository (a license, one
integration, a hacs.json that names what a release attaches).
"""

from __future__ import annotations

import json
from pathlib import Path
import tomllib
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
INTEGRATION = ROOT / "custom_components" / "assist_memory"

# hassfest: a custom integration's manifest needs these (plus `version`).
REQUIRED_KEYS = {
    "codeowners",
    "documentation",
    "domain",
    "integration_type",
    "iot_class",
    "issue_tracker",
    "name",
    "requirements",
    "version",
}
IOT_CLASSES = {
    "assumed_state",
    "calculated",
    "cloud_polling",
    "cloud_push",
    "local_polling",
    "local_push",
}
# HACS refuses a hacs.json with any other key.
HACS_KEYS = {
    "content_in_root",
    "country",
    "filename",
    "hacs",
    "hide_default_branch",
    "homeassistant",
    "name",
    "persistent_directory",
    "render_readme",
    "zip_release",
}


@pytest.fixture(scope="module")
def manifest() -> dict[str, Any]:
    data = json.loads((INTEGRATION / "manifest.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_manifest_keys_are_sorted_as_hassfest_wants(manifest: dict[str, Any]) -> None:
    keys = list(manifest)
    assert keys[:2] == ["domain", "name"]
    assert keys[2:] == sorted(keys[2:]), (
        "manifest.json: keys after domain and name must be in alphabetical order"
    )


def test_manifest_has_what_a_custom_integration_needs(
    manifest: dict[str, Any],
) -> None:
    missing = REQUIRED_KEYS - manifest.keys()
    assert not missing, f"manifest.json lacks {sorted(missing)}"
    assert manifest["domain"] == INTEGRATION.name
    assert manifest["iot_class"] in IOT_CLASSES
    assert manifest["config_flow"] is True
    assert manifest["integration_type"] == "service"
    assert all(owner.startswith("@") for owner in manifest["codeowners"])
    for key in ("documentation", "issue_tracker"):
        assert manifest[key].startswith("https://"), key


def test_the_repository_has_the_license_it_declares() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["license"] == "Apache-2.0"
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.lstrip().startswith("Apache License")
    assert "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text  # the full text, not a stub


def test_hacs_json_has_only_keys_hacs_knows() -> None:
    hacs = json.loads((ROOT / "hacs.json").read_text(encoding="utf-8"))
    unknown = hacs.keys() - HACS_KEYS
    assert not unknown, f"hacs.json: HACS refuses {sorted(unknown)}"
    assert hacs["name"] == "Assist Memory"
