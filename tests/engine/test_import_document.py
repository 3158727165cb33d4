"""An import's records: what the API document allows is what the server imports.

Each record is judged twice: by the document's `Import` schema (formats checked, as
schemathesis does) and by `POST /memory/import` on a real LocalBackend. A record the
schema allows is imported (200); one it refuses is refused with a clear 400 and the
store keeps what it had.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
import json
from pathlib import Path
from typing import Any

import jsonschema_rs  # schemathesis' own validator
import pytest

from custom_components.assist_memory.engine.backend.local import LocalBackend
from custom_components.assist_memory.engine.http.api import dispatch
from custom_components.assist_memory.engine.http.openapi import openapi_document

from .test_rest_api import DictHost


def import_validator() -> jsonschema_rs.Validator:
    """The document's `Import` schema with its references resolved."""
    schemas = openapi_document(lambda path: path)["components"]["schemas"]
    text = json.dumps({"$defs": schemas, **schemas["Import"]})
    return jsonschema_rs.validator_for(
        json.loads(text.replace("#/components/schemas/", "#/$defs/")),
        validate_formats=True,
    )


VALIDATOR = import_validator()
NESTED: dict[str, Any] = {}
for _ in range(20):
    NESTED = {"a": NESTED}


@pytest.fixture
async def host(tmp_path: Path) -> AsyncIterator[DictHost]:
    backend, _ = await LocalBackend.open(tmp_path / "memories.json", watch=False)
    yield DictHost(backend, None)
    await backend.close()


@pytest.mark.parametrize(
    ("extra", "stored"),
    [
        # Keys the server does not know are ignored, whatever they hold.
        ({"note": NESTED, "expires": "never"}, {}),
        # Times far ahead and far back, in any zone an RFC 3339 time may name.
        ({"created_at": "9998-12-31T23:59:59-23:59"}, {}),
        ({"updated_at": "1000-01-01T00:00:00+23:59"}, {}),
        ({"last_accessed": "9998-12-31T23:59:59.123456789Z"}, {}),
        ({"created_at": "2026-01-02t03:04:05+01:00"}, {}),
        # Other implementations' names for the same fields.
        (
            {"createdAt": "2026-01-02T03:04:05Z"},
            {"created_at": "2026-01-02T03:04:05+00:00"},
        ),
        ({"accessCount": 3, "sessionId": "kitchen"}, {"access_count": 3}),
        # Both names: ours wins, the other's must be valid too.
        (
            {"access_count": 2, "accessCount": 5, "value": "Anna likes green tea"},
            {"access_count": 2, "content": "Anna likes tea"},
        ),
    ],
)
async def test_what_the_document_allows_is_imported(
    host: DictHost, extra: dict[str, Any], stored: dict[str, Any]
) -> None:
    body = {"document": [{"id": "m1", "content": "Anna likes tea", **extra}]}
    assert VALIDATOR.is_valid(body)

    answer = await dispatch(host, "POST", "/memory/import", None, body)

    assert (answer.status, answer.body) == (200, {"added": 1, "updated": 0, "total": 1})
    memory = await dispatch(host, "GET", "/memory/long-term/m1", None, None)
    assert isinstance(memory.body, dict)
    assert memory.body.items() >= stored.items()


@pytest.mark.parametrize(
    "extra",
    [
        # Another implementation's name holding what the field may not.
        {"createdAt": "soon"},
        {"accessCount": -1},
        {"value": " "},
        {"session_id": "kitchen", "sessionId": "k" * 300},
        # RFC 3339 allows these; the document states that the server does not.
        {"created_at": "2026-01-02T03:04:05z"},
        {"updated_at": "2016-12-31T23:59:60Z"},
    ],
)
async def test_what_the_document_refuses_is_refused(
    host: DictHost, extra: dict[str, Any]
) -> None:
    kept = {"document": [{"id": "m0", "content": "Tom drinks coffee"}]}
    await dispatch(host, "POST", "/memory/import", None, kept)
    body = {
        "document": [{"id": "m1", "content": "Anna likes tea", **extra}],
        "mode": "replace",
    }
    assert not VALIDATOR.is_valid(body)

    answer = await dispatch(host, "POST", "/memory/import", None, body)

    assert answer.status == 400
    assert isinstance(answer.body, dict)
    assert answer.body["code"] == "invalid_import_record"
    page = await dispatch(host, "GET", "/memory/long-term", {}, None)
    assert isinstance(page.body, dict)
    assert [m["id"] for m in page.body["items"]] == ["m0"]
