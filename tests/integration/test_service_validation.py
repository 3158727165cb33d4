"""Every service, with each required field missing and each field of a wrong type.

Home Assistant checks a service's schema before the handler runs and raises
`probatio.Invalid`, which it shows as a validation message; errors found later
must be translated `ServiceValidationError`s, never a bare `HomeAssistantError`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from homeassistant.core import HomeAssistant
from homeassistant.exceptions import ServiceValidationError
from homeassistant.helpers.translation import async_get_translations
import probatio
import pytest
import yaml

import custom_components.assist_memory as integration
from custom_components.assist_memory.const import DOMAIN

pytestmark = pytest.mark.usefixtures("loaded_entry")

SERVICES: dict[str, dict[str, Any]] = yaml.safe_load(
    (Path(integration.__file__).parent / "services.yaml").read_text()
)
# A valid value for each required field, so one broken field is the only fault.
# "id" is replaced by the id of a stored memory, so an update reaches the engine.
EXISTING = "<existing>"
VALID = {"content": "x", "id": EXISTING, "confirm": True, "query": "x", "prompt": "x"}
VALID["session_id"] = "x"
VALID["conversation_id"] = "x"
NOT_A_STRING = {"not": "a string"}


def wrong_values(selector: dict[str, Any]) -> list[Any]:
    """Values of the wrong type for a field with this selector."""
    kind, config = next(iter(selector.items()))
    if kind == "number":
        return ["many", [1], float("inf"), float("nan")]
    if kind == "boolean":
        return ["maybe", [True]]
    if kind == "object":
        return ["not an object", [1, 2]]
    if kind == "text" and (config or {}).get("multiple"):
        return [[NOT_A_STRING], NOT_A_STRING]
    return [NOT_A_STRING, ["a", "list"]]


def required(service: str) -> dict[str, Any]:
    fields = SERVICES[service]["fields"]
    return {name: VALID[name] for name, field in fields.items() if field["required"]}


def cases() -> list[Any]:
    """(service, data) pairs that must be refused."""
    found = []
    for service, spec in SERVICES.items():
        fields = spec["fields"]
        valid = required(service)
        for name in valid:
            missing = {k: v for k, v in valid.items() if k != name}
            found.append(pytest.param(service, missing, id=f"{service}-no-{name}"))
        for name, field in fields.items():
            for n, value in enumerate(wrong_values(field["selector"])):
                data = {**valid, name: value}
                found.append(pytest.param(service, data, id=f"{service}-{name}-{n}"))
        extra = {**valid, "unknown_field": 1}
        found.append(pytest.param(service, extra, id=f"{service}-unknown-field"))
    return found


def test_every_service_and_field_is_covered() -> None:
    """A field added to services.yaml gets its wrong-type cases automatically."""
    assert len(SERVICES) == 14
    assert all("selector" in f for s in SERVICES.values() for f in s["fields"].values())


@pytest.mark.parametrize(("service", "data"), cases())
async def test_invalid_call_is_a_validation_error(
    hass: HomeAssistant, service: str, data: dict[str, Any]
) -> None:
    stored = await call(hass, "add", {"content": "Anna takes her coffee black"})
    if data.get("id") == EXISTING:
        data = {**data, "id": stored["memory"]["id"]}
    with pytest.raises((probatio.Invalid, ServiceValidationError)) as caught:
        await call(hass, service, data)
    err = caught.value
    if isinstance(err, ServiceValidationError):
        assert err.translation_key
        domain = err.translation_domain
        strings = await async_get_translations(hass, "en", "exceptions", {domain})
        key = f"component.{domain}.exceptions.{err.translation_key}.message"
        assert key in strings
    # A refused call changed nothing.
    assert (await call(hass, "list", {}))["items"] == [stored["memory"]]


async def call(hass: HomeAssistant, service: str, data: dict[str, Any]) -> Any:
    return await hass.services.async_call(
        DOMAIN, service, data, blocking=True, return_response=True
    )
