#!/usr/bin/env python3
"""The release's version: one number for the engine, the integration and the add-on.

Usage: python3 script/version.py              print the version
       python3 script/version.py --changelog  print its CHANGELOG.md section

pyproject.toml's `[project] version` is the source; the integration's manifest.json,
the add-on's config.yaml and the Dockerfile's BUILD_VERSION default must say the
same, and CHANGELOG.md must have a section for it. Exits 1 with one line on stderr
otherwise. Standard library only: the release workflow runs it before installing
anything.
"""

from __future__ import annotations

import json
from pathlib import Path
import re
import sys
import tomllib

ROOT = Path(__file__).resolve().parent.parent
SOURCE = "pyproject.toml"
# Where else the version is written, each with how to read it.
CONFIG_VERSION = re.compile(r'^version: "?([^"\s]+)"?$', re.MULTILINE)
DOCKER_VERSION = re.compile(r"^ARG BUILD_VERSION=(\S+)$", re.MULTILINE)


class VersionError(Exception):
    """The files disagree, or the changelog lacks the version."""


def read_versions(root: Path = ROOT) -> dict[str, str]:
    """The version as each file gives it, by path (relative to `root`)."""
    pyproject = tomllib.loads((root / SOURCE).read_text(encoding="utf-8"))
    manifest = "custom_components/assist_memory/manifest.json"
    versions = {
        SOURCE: pyproject["project"]["version"],
        manifest: json.loads((root / manifest).read_text(encoding="utf-8"))["version"],
    }
    for path, pattern in (
        ("addon/config.yaml", CONFIG_VERSION),
        ("addon/Dockerfile", DOCKER_VERSION),
    ):
        match = pattern.search((root / path).read_text(encoding="utf-8"))
        versions[path] = match.group(1) if match else "(none)"
    return versions


def release_version(root: Path = ROOT) -> str:
    """The one version, or VersionError naming the files that differ."""
    versions = read_versions(root)
    version = versions[SOURCE]
    differing = [f"{path} says {v}" for path, v in versions.items() if v != version]
    if differing:
        raise VersionError(f"{SOURCE} says {version}, but " + ", ".join(differing))
    return version


def changelog_section(version: str, root: Path = ROOT) -> str:
    """The text under CHANGELOG.md's `## [version]` heading, up to the next one."""
    text = (root / "CHANGELOG.md").read_text(encoding="utf-8")
    heading = re.search(
        rf"^## \[{re.escape(version)}\][^\n]*\n", text, flags=re.MULTILINE
    )
    if heading is None:
        raise VersionError(f"CHANGELOG.md has no section ## [{version}]")
    rest = text[heading.end() :]
    end = re.search(r"^## ", rest, flags=re.MULTILINE)
    return rest[: end.start() if end else None].strip() + "\n"


def main(argv: list[str]) -> int:
    """Print the version (or its changelog section); 1 when something disagrees."""
    if argv not in ([], ["--changelog"]):
        print("usage: script/version.py [--changelog]", file=sys.stderr)
        return 2
    try:
        version = release_version()
        notes = changelog_section(version)
    except VersionError as err:
        print(f"script/version.py: {err}", file=sys.stderr)
        return 1
    print(notes if argv else version, end="" if argv else "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
