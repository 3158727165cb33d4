"""One version for the engine, the integration and the add-on, and the release.

script/version.py reads the version (pyproject.toml is the source) and refuses a
disagreement; script/integration_zip.py builds the zip HACS installs; the release
workflow runs both.
"""

from __future__ import annotations

import json
from pathlib import Path
import re
import shutil
import subprocess
import sys
from typing import Any
import zipfile

import pytest
import yaml

from script.integration_zip import INTEGRATION, build_zip, integration_files
from script.version import (
    VersionError,
    changelog_section,
    read_versions,
    release_version,
)

ROOT = Path(__file__).resolve().parents[2]
VERSIONED = [
    "pyproject.toml",
    "custom_components/assist_memory/manifest.json",
    "addon/config.yaml",
    "addon/Dockerfile",
    "CHANGELOG.md",
    "script/version.py",
]


def load_yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def workflow() -> dict[str, Any]:
    data = load_yaml(ROOT / ".github" / "workflows" / "release.yaml")
    assert isinstance(data, dict)
    return data


def test_one_version_everywhere() -> None:
    version = release_version()
    assert re.fullmatch(r"\d+\.\d+\.\d+", version)
    assert set(read_versions().values()) == {version}
    # The script's reading of config.yaml agrees with a YAML parser's.
    assert load_yaml(ROOT / "addon" / "config.yaml")["version"] == version


def test_the_changelogs_describe_this_version() -> None:
    version = release_version()
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert changelog.startswith("# Changelog\n")
    assert "## [Unreleased]" in changelog
    assert "### Added" in changelog_section(version)
    # The Supervisor shows the add-on's own changelog.
    addon = (ROOT / "addon" / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"\n## {version}\n" in addon


def run_version_script(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(root / "script" / "version.py"), *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


@pytest.fixture
def copy_of_the_versioned_files(tmp_path: Path) -> Path:
    for name in VERSIONED:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, tmp_path / name)
    return tmp_path


def test_the_version_script_prints_the_version_and_the_notes(
    copy_of_the_versioned_files: Path,
) -> None:
    root = copy_of_the_versioned_files
    version = release_version()
    printed = run_version_script(root)
    assert (printed.returncode, printed.stdout) == (0, f"{version}\n")
    notes = run_version_script(root, "--changelog")
    assert notes.returncode == 0
    assert notes.stdout == changelog_section(version)
    assert run_version_script(root, "--bump").returncode == 2


def test_the_version_script_refuses_a_disagreement(
    copy_of_the_versioned_files: Path,
) -> None:
    root = copy_of_the_versioned_files
    manifest_path = root / "custom_components/assist_memory/manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    manifest["version"] = "9.9.9"
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")

    result = run_version_script(root)
    assert result.returncode == 1
    assert result.stdout == ""
    assert "manifest.json says 9.9.9" in result.stderr
    with pytest.raises(VersionError, match=r"says 9\.9\.9"):
        release_version(root)


def test_the_version_script_wants_a_changelog_section(
    copy_of_the_versioned_files: Path,
) -> None:
    root = copy_of_the_versioned_files
    (root / "CHANGELOG.md").write_text("# Changelog\n\n## [Unreleased]\n")

    result = run_version_script(root)
    assert result.returncode == 1
    assert "CHANGELOG.md has no section" in result.stderr


def test_the_zip_holds_the_integration_at_its_root(tmp_path: Path) -> None:
    hacs = json.loads((ROOT / "hacs.json").read_text(encoding="utf-8"))
    assert hacs["zip_release"] is True

    target = build_zip(tmp_path)
    assert target.name == hacs["filename"]
    with zipfile.ZipFile(target) as archive:
        assert archive.testzip() is None
        names = archive.namelist()
        assert json.loads(archive.read("manifest.json"))["domain"] == "assist_memory"
    assert "brand/icon.png" in names
    assert "engine/web/index.html" in names
    assert not [name for name in names if "__pycache__" in name or ".pyc" in name]
    assert names == [
        path.relative_to(INTEGRATION).as_posix() for path in integration_files()
    ]


def steps_running(job: dict[str, Any], text: str) -> list[dict[str, Any]]:
    return [step for step in job["steps"] if text in step.get("run", "")]


def test_the_release_workflow_attaches_what_hacs_downloads(
    workflow: dict[str, Any],
) -> None:
    jobs = workflow["jobs"]
    assert steps_running(jobs["version"], "python3 script/version.py")
    github = jobs["github"]
    assert github["permissions"] == {"contents": "write"}
    assert steps_running(github, "python3 script/integration_zip.py dist")
    (release,) = steps_running(github, "gh release create")
    assert '"v$VERSION"' in release["run"]
    assert "dist/*.zip" in release["run"]  # the zip, named as hacs.json says


def test_the_release_workflow_publishes_the_wheel_and_the_images(
    workflow: dict[str, Any],
) -> None:
    jobs = workflow["jobs"]
    pypi = jobs["pypi"]
    assert pypi["permissions"] == {"id-token": "write"}  # trusted publishing
    assert any(
        step.get("uses", "").startswith("pypa/gh-action-pypi-publish@")
        for step in pypi["steps"]
    )

    image = jobs["addon-image"]
    assert "pypi" in image["needs"]  # the image installs the engine from PyPI
    config = load_yaml(ROOT / "addon" / "config.yaml")
    arches = [entry["arch"] for entry in image["strategy"]["matrix"]["include"]]
    assert sorted(arches) == sorted(config["arch"])
    (build,) = [
        step
        for step in image["steps"]
        if step.get("uses", "").startswith("docker/build-push-action@")
    ]
    assert build["with"]["context"] == "addon"  # as the Supervisor builds it
    assert "BUILD_VERSION=${{ env.VERSION }}" in build["with"]["build-args"]
    assert image["env"]["VERSION"] == "${{ needs.version.outputs.version }}"


def test_the_release_workflow_publishes_the_documentation_site(
    workflow: dict[str, Any],
) -> None:
    docs = workflow["jobs"]["docs"]
    assert docs["needs"] == "github"  # the site of the version just released
    assert docs["permissions"] == {"pages": "write", "id-token": "write"}
    (build,) = steps_running(docs, "mkdocs build --strict")
    assert "pip install -r requirements_docs.txt" in build["run"]
    uses = [step.get("uses", "") for step in docs["steps"]]
    assert any(use.startswith("actions/upload-pages-artifact@") for use in uses)
    assert any(use.startswith("actions/deploy-pages@") for use in uses)
    (upload,) = [
        step
        for step in docs["steps"]
        if step.get("uses", "").startswith("actions/upload-pages-artifact@")
    ]
    site_dir = load_yaml(ROOT / "mkdocs.yml")["site_dir"]
    assert upload["with"]["path"] == site_dir
