"""Consistency of strings.json, the translations, services.yaml and icons.json.

Plain file reads: no Home Assistant fixtures are needed.
"""

from __future__ import annotations

from collections.abc import Iterator
import json
from pathlib import Path
import re
from typing import Any

import pytest
import yaml

INTEGRATION = Path(__file__).parent.parent / "custom_components" / "assist_memory"
STRINGS = INTEGRATION / "strings.json"
TRANSLATIONS = INTEGRATION / "translations"
SERVICES_YAML = INTEGRATION / "services.yaml"
ICONS = INTEGRATION / "icons.json"

# Translation files that must exist; any other *.json in translations/ is checked too.
REQUIRED_TRANSLATIONS = ("en.json", "zh-Hans.json", "zh-Hant.json")

PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
# A web address in a string (hassfest refuses them: an address goes into the text as a
# description placeholder, so translators never copy it). "http://" alone, naming a
# scheme, is no address.
URL = re.compile(
    r"\b(?:https?|ftps?|mqtts?|scp|socks5|socket)://[a-z0-9\[]|\bwww\.", re.IGNORECASE
)

KeyPath = tuple[str, ...]


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key {key!r}")
        result[key] = value
    return result


def _load_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(
            path.read_text(encoding="utf-8"), object_pairs_hook=_no_duplicate_keys
        )
    except ValueError as err:
        pytest.fail(f"{path.name} is not valid JSON: {err}")
    assert isinstance(data, dict), f"{path.name} must hold a JSON object"
    return data


def _dotted(path: KeyPath) -> str:
    return ".".join(path)


def _leaves(node: Any, path: KeyPath = ()) -> Iterator[tuple[KeyPath, Any]]:
    """Every (key path, value) whose value is not an object."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _leaves(value, (*path, key))
    else:
        yield path, node


def _strings_by_path(data: dict[str, Any]) -> dict[KeyPath, Any]:
    return dict(_leaves(data))


def _placeholders(text: str) -> set[str]:
    return set(PLACEHOLDER.findall(text))


def _translation_files() -> list[Path]:
    return sorted(TRANSLATIONS.glob("*.json"))


@pytest.fixture(scope="module")
def strings() -> dict[str, Any]:
    return _load_json(STRINGS)


@pytest.fixture(scope="module")
def services_yaml() -> dict[str, Any]:
    data = yaml.safe_load(SERVICES_YAML.read_text(encoding="utf-8"))
    assert isinstance(data, dict), "services.yaml must map service names to services"
    return data


def test_required_translations_exist() -> None:
    missing = [
        name for name in REQUIRED_TRANSLATIONS if not (TRANSLATIONS / name).is_file()
    ]
    assert not missing, f"missing translation files in translations/: {missing}"


def test_en_equals_strings(strings: dict[str, Any]) -> None:
    english = _load_json(TRANSLATIONS / "en.json")
    if english == strings:
        return
    en_leaves = _strings_by_path(english)
    src_leaves = _strings_by_path(strings)
    differing = sorted(
        _dotted(path)
        for path in en_leaves.keys() | src_leaves.keys()
        if en_leaves.get(path) != src_leaves.get(path)
    )
    pytest.fail(
        "translations/en.json differs from strings.json at: " + ", ".join(differing)
    )


def test_strings_are_non_empty_text(strings: dict[str, Any]) -> None:
    for path, value in _leaves(strings):
        assert isinstance(value, str), (
            f"strings.json: {_dotted(path)} must be a string, not {value!r}"
        )
        assert value.strip(), f"strings.json: {_dotted(path)} is empty"


@pytest.mark.parametrize(
    "path", [STRINGS, *_translation_files()], ids=lambda path: path.name
)
def test_no_web_addresses_in_strings(path: Path) -> None:
    found = [
        f"{_dotted(key)}: {text}"
        for key, text in _leaves(_load_json(path))
        if isinstance(text, str) and URL.search(text)
    ]
    assert not found, (
        f"{path.name}: use a description placeholder for these addresses: {found}"
    )


@pytest.mark.parametrize(
    "text",
    [
        "Such as http://192.168.1.20:8099.",
        "see https://example.com/x",
        "go to www.home-assistant.io",
        "MQTTS://broker:8883",
    ],
)
def test_the_address_check_finds_addresses(text: str) -> None:
    assert URL.search(text)


def test_the_address_check_lets_a_scheme_alone_pass() -> None:
    assert not URL.search("Enter a URL starting with http:// or https://.")


@pytest.mark.parametrize("path", _translation_files(), ids=lambda path: path.name)
def test_translation_matches_strings(path: Path, strings: dict[str, Any]) -> None:
    source = _strings_by_path(strings)
    translated = _strings_by_path(_load_json(path))

    missing = sorted(_dotted(key) for key in source.keys() - translated.keys())
    extra = sorted(_dotted(key) for key in translated.keys() - source.keys())
    assert not missing, f"{path.name} is missing keys: {', '.join(missing)}"
    assert not extra, f"{path.name} has keys not in strings.json: {', '.join(extra)}"

    for key, text in translated.items():
        name = _dotted(key)
        assert isinstance(text, str), (
            f"{path.name}: {name} must be a string, not {text!r}"
        )
        assert text.strip(), f"{path.name}: {name} is empty"
        want = _placeholders(source[key])
        got = _placeholders(text)
        assert got == want, (
            f"{path.name}: {name} has placeholders {sorted(got)}, "
            f"strings.json has {sorted(want)}"
        )


def test_services_match_strings(
    strings: dict[str, Any], services_yaml: dict[str, Any]
) -> None:
    described = strings.get("services", {})
    defined = set(services_yaml)
    missing = sorted(defined - described.keys())
    extra = sorted(described.keys() - defined)
    assert not missing, f"services missing from strings.json services: {missing}"
    assert not extra, f"strings.json describes services not in services.yaml: {extra}"

    for service, spec in services_yaml.items():
        text = described[service]
        for attr in ("name", "description"):
            assert text.get(attr), f"strings.json: services.{service}.{attr} is missing"

        yaml_fields = set((spec or {}).get("fields") or {})
        text_fields = text.get("fields", {})
        missing = sorted(yaml_fields - text_fields.keys())
        extra = sorted(text_fields.keys() - yaml_fields)
        assert not missing, (
            f"strings.json: services.{service}.fields lacks {missing} "
            "(defined in services.yaml)"
        )
        assert not extra, (
            f"strings.json: services.{service}.fields has {extra}, "
            "which services.yaml does not define"
        )
        for field in sorted(yaml_fields):
            for attr in ("name", "description"):
                assert text_fields[field].get(attr), (
                    f"strings.json: services.{service}.fields.{field}.{attr} is missing"
                )


def _select_selectors(
    services_yaml: dict[str, Any],
) -> Iterator[tuple[str, dict[str, Any]]]:
    for service, spec in services_yaml.items():
        for field, field_spec in ((spec or {}).get("fields") or {}).items():
            select = ((field_spec or {}).get("selector") or {}).get("select")
            if isinstance(select, dict):
                yield f"{service}.{field}", select


def test_select_translation_keys_exist(
    strings: dict[str, Any], services_yaml: dict[str, Any]
) -> None:
    selectors = strings.get("selector", {})
    for where, select in _select_selectors(services_yaml):
        key = select.get("translation_key")
        if key is None:
            continue
        assert key in selectors, (
            f"services.yaml {where}: translation_key {key!r} "
            "is not under selector in strings.json"
        )
        labels = selectors[key].get("options", {})
        for option in select.get("options", []):
            value = option["value"] if isinstance(option, dict) else option
            assert labels.get(value), (
                f"strings.json: selector.{key}.options.{value} is missing "
                f"(used by services.yaml {where})"
            )


def test_every_service_has_an_icon(services_yaml: dict[str, Any]) -> None:
    icons = _load_json(ICONS).get("services", {})
    for service in services_yaml:
        icon = (icons.get(service) or {}).get("service")
        assert icon, f"icons.json: services.{service}.service is missing"
        assert icon.startswith("mdi:"), (
            f"icons.json: services.{service}.service {icon!r} is not an mdi: icon"
        )
    extra = sorted(set(icons) - set(services_yaml))
    assert not extra, f"icons.json has icons for unknown services: {extra}"
