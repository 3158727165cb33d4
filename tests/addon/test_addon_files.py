"""The add-on folder against the Supervisor's rules, and against the server it runs.

The rules restate what the Supervisor accepts in an add-on's config.yaml (its
`addons/validate.py` and `addons/options.py`) for the keys this add-on uses; a key
the schema does not know is an error here (the Supervisor would silently drop it).
"""

from __future__ import annotations

import json
from pathlib import Path
import re
import struct
import tomllib
from typing import Any

import pytest
import voluptuous as vol
import yaml

from assist_memory_engine.config import FIELDS_BY_KEY
from assist_memory_engine.discovery import SERVICE
from assist_memory_engine.serve_cli import LOG_LEVELS, SERVER_KEYS
from assist_memory_engine.server import DEFAULT_PORT

ROOT = Path(__file__).resolve().parents[2]
ADDON = ROOT / "addon"

# The architectures the Supervisor knows (const.ARCH_ALL).
SUPERVISOR_ARCHES = ("aarch64", "amd64", "armhf", "armv7", "i386")
# One option's type: bool, email, url, port, str/password/int/float with an optional
# (min,max) range, match(regex), list(a|b|c), device(filter); `?` makes it optional.
_RANGE = r"(?:\((\d+(?:\.\d+)?)?,(\d+(?:\.\d+)?)?\))?"
OPTION_TYPE = re.compile(
    rf"^(bool|email|url|port|(?:str|password|int|float){_RANGE}"
    r"|match\(.+\)|list\([^|()]+(?:\|[^|()]+)*\)|device(?:\(subsystem=[a-z]+\))?)(\?)?$"
)
SLUG = re.compile(r"^[-_.A-Za-z0-9]+$")
IMAGE = re.compile(r"^([a-zA-Z\-.:\d{}]+/)*?([\-\w{}]+)/([\-\w{}]+)(:[.\-\w{}]+)?$")


def strictly(kind: type) -> Any:
    """The type exactly (YAML's `true` is an int to Python; not to the Supervisor)."""

    def check(value: object) -> object:
        if type(value) is not kind:
            raise vol.Invalid(f"expected {kind.__name__}, got {value!r}")
        return value

    return check


CONFIG_SCHEMA = vol.Schema(
    {
        vol.Required("name"): str,
        vol.Required("version"): str,
        vol.Required("slug"): vol.Match(SLUG),
        vol.Required("description"): str,
        vol.Required("arch"): vol.All([vol.In(SUPERVISOR_ARCHES)], vol.Length(min=1)),
        vol.Optional("url"): vol.Url(),
        vol.Optional("image"): vol.Match(IMAGE),
        vol.Optional("homeassistant"): vol.Match(r"^\d{4}\.\d{1,2}\.\d+$"),
        vol.Optional("init"): strictly(bool),
        vol.Optional("startup"): vol.In(
            ("initialize", "system", "services", "application", "once")
        ),
        vol.Optional("boot"): vol.In(("auto", "manual", "manual_only")),
        vol.Optional("ingress"): strictly(bool),
        vol.Optional("ingress_port"): vol.All(strictly(int), vol.Range(0, 65535)),
        vol.Optional("panel_icon"): vol.Match(r"^mdi:[a-z0-9-]+$"),
        vol.Optional("panel_title"): str,
        vol.Optional("discovery"): [str],
        vol.Optional("options"): {str: vol.Any(str, int, float, bool, list, dict)},
        vol.Optional("schema"): {str: vol.Match(OPTION_TYPE)},
    },
    extra=vol.PREVENT_EXTRA,
)


def load_yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def config() -> dict[str, Any]:
    return load_yaml(ADDON / "config.yaml")


def value_fits(option_type: str, value: object) -> bool:
    """Whether the Supervisor would take the value for an option of this type."""
    match = OPTION_TYPE.match(option_type)
    assert match, option_type
    base = match.group(1)
    if base.startswith("list("):
        return value in base[5:-1].split("|")
    if base == "bool":
        return isinstance(value, bool)
    if base.startswith(("int", "float")):
        kind = int if base.startswith("int") else (int, float)
        low, high = match.group(2), match.group(3)
        return (
            isinstance(value, kind)
            and not isinstance(value, bool)
            and (low is None or value >= float(low))
            and (high is None or value <= float(high))
        )
    return isinstance(value, str)


def test_config_follows_the_supervisor_rules(config: dict[str, Any]) -> None:
    CONFIG_SCHEMA(config)


def test_config_is_this_addon(config: dict[str, Any]) -> None:
    assert config["slug"] == "assist_memory"
    assert config["arch"] == ["aarch64", "amd64"]
    assert config["init"] is False  # the base image's s6-overlay is the init
    assert config["ingress"] is True
    assert "webui" not in config  # ingress replaces it
    assert config["ingress_port"] == DEFAULT_PORT
    assert config["panel_icon"] == "mdi:brain"
    assert config["discovery"] == [SERVICE]


def test_every_option_has_a_type_and_every_required_type_a_default(
    config: dict[str, Any],
) -> None:
    options, schema = config["options"], config["schema"]

    assert set(options) <= set(schema)
    required = {key for key, kind in schema.items() if not kind.endswith("?")}
    assert required <= set(options)
    for key, value in options.items():
        assert value_fits(schema[key], value), (key, value)


def test_every_option_is_one_the_server_reads(config: dict[str, Any]) -> None:
    schema = config["schema"]

    assert set(schema) <= set(FIELDS_BY_KEY) | set(SERVER_KEYS)
    assert schema["log_level"] == f"list({'|'.join(LOG_LEVELS)})"
    max_items = FIELDS_BY_KEY["max_items"]
    assert schema["max_items"] == f"int({max_items.minimum},{max_items.maximum})"
    assert config["options"]["max_items"] == max_items.default
    assert schema["compaction_enabled"] == "bool"


@pytest.mark.parametrize(
    ("option_type", "value", "fits"),
    [
        ("int(0,10)", 10, True),
        ("int(0,10)", 11, False),
        ("int", True, False),
        ("float(0.5,)", 0.5, True),
        ("bool", "true", False),
        ("list(a|b)", "b", True),
        ("list(a|b)", "c", False),
        ("str?", "", True),
        ("password", 1, False),
    ],
)
def test_option_check_itself(option_type: str, value: object, fits: bool) -> None:
    assert value_fits(option_type, value) is fits


@pytest.mark.parametrize(
    "option_type", ["string", "int(a,b)", "list()", "list(a||b)", "url??", "bool?x"]
)
def test_unknown_option_types_are_refused(option_type: str) -> None:
    assert OPTION_TYPE.match(option_type) is None


def test_translations_name_and_describe_every_option(config: dict[str, Any]) -> None:
    translations = load_yaml(ADDON / "translations" / "en.yaml")["configuration"]

    assert set(translations) == set(config["schema"])
    for key, text in translations.items():
        assert set(text) == {"name", "description"}, key
        assert all(isinstance(v, str) and v.strip() for v in text.values()), key


def test_version_is_the_engine_version_and_in_the_changelog(
    config: dict[str, Any],
) -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))

    assert config["version"] == project["project"]["version"]
    changelog = (ADDON / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"\n## {config['version']}\n" in changelog


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    assert data[12:16] == b"IHDR", path
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_icon_and_logo_are_pngs() -> None:
    assert png_size(ADDON / "icon.png") == (128, 128)
    width, height = png_size(ADDON / "logo.png")
    assert width > height  # a wide logo (250 x 100 recommended)


def test_docs_readme_and_changelog_exist() -> None:
    for name in ("DOCS.md", "README.md", "CHANGELOG.md"):
        assert (ADDON / name).read_text(encoding="utf-8").startswith("# "), name


def dockerfile_copies() -> list[list[str]]:
    """The sources of each COPY of the Dockerfile (without --from: the context's)."""
    sources = []
    for line in (ADDON / "Dockerfile").read_text(encoding="utf-8").splitlines():
        words = line.split()  # no path here has a space
        if words[:1] != ["COPY"] or any(w.startswith("--from") for w in words):
            continue
        paths = [w for w in words[1:] if not w.startswith("--")]
        sources.append(paths[:-1])
    return sources


def test_image_is_built_from_the_repository_root(config: dict[str, Any]) -> None:
    copies = dockerfile_copies()
    sources = [source for copy in copies for source in copy]
    assert "custom_components/assist_memory/engine" in sources
    assert "addon/run.sh" in sources
    ignore = (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
    for source in sources:
        assert (ROOT / source).exists(), source
        # The context sends nothing but what is un-ignored.
        assert f"!{source}" in ignore or f"!{source}/" in ignore, source

    build = load_yaml(ADDON / "build.yaml")
    assert set(build["build_from"]) == set(config["arch"])
    assert "{arch}" in config["image"]


def test_the_workflow_publishes_the_image_config_yaml_names(
    config: dict[str, Any],
) -> None:
    workflow = load_yaml(ROOT / ".github" / "workflows" / "addon.yaml")
    (job,) = workflow["jobs"].values()
    arches = [entry["arch"] for entry in job["strategy"]["matrix"]["include"]]
    assert sorted(arches) == sorted(config["arch"])
    steps = {step.get("id") or step.get("uses", ""): step for step in job["steps"]}
    # The image name the workflow pushes, with the matrix's arch for config's {arch}.
    script = steps["addon"]["run"].replace("\\\n", "")
    pushed = re.search(r"image=([^\"]+)\"", script)
    assert pushed is not None
    assert pushed.group(1) == config["image"].replace("{arch}", "${{ matrix.arch }}")
    build = steps["docker/build-push-action@v6"]["with"]
    assert build["context"] == "."
    assert build["file"] == "addon/Dockerfile"
    assert "BUILD_FROM=${{ steps.addon.outputs.base }}" in build["build-args"]
    assert "${{ steps.addon.outputs.version }}" in build["tags"]


def test_run_script_runs_the_server_as_the_addon() -> None:
    script = (ADDON / "run.sh").read_text(encoding="utf-8")

    assert script.startswith("#!/usr/bin/with-contenv sh\n")
    assert 'exec assist-memory serve --addon "$@"' in script
    assert (ADDON / "run.sh").stat().st_mode & 0o111


def test_repository_is_an_addon_repository_and_one_integration(
    config: dict[str, Any],
) -> None:
    repository = load_yaml(ROOT / "repository.yaml")
    assert set(repository) == {"name", "url", "maintainer"}
    assert repository["url"] == config["url"]

    # HACS: hacs.json at the root and exactly one integration in custom_components.
    hacs = json.loads((ROOT / "hacs.json").read_text(encoding="utf-8"))
    assert hacs["name"] == "Assist Memory"
    manifests = sorted((ROOT / "custom_components").glob("*/manifest.json"))
    assert [m.parent.name for m in manifests] == ["assist_memory"]
    assert json.loads(manifests[0].read_text("utf-8"))["domain"] == "assist_memory"
    assert not list(ADDON.glob("**/manifest.json"))
