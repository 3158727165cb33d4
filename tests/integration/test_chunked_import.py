"""Imports larger than one websocket message, sent in chunks and applied on commit.

Real websocket connections to a real Home Assistant test instance; the document is a
real export (large enough to need several chunks).
"""

from __future__ import annotations

from datetime import timedelta
import json
from typing import Any

from homeassistant.core import HomeAssistant
from homeassistant.util import dt as dt_util
import pytest
from pytest_homeassistant_custom_component.common import (
    MockConfigEntry,
    async_fire_time_changed,
)
from pytest_homeassistant_custom_component.typing import (
    MockHAClientWebSocket,
    WebSocketGenerator,
)

from custom_components.assist_memory.engine.http.memory_routes import MAX_IMPORT_BYTES

from .conversing import contents
from .people import Person, person

CHUNK = 20_000


def backup(count: int) -> str:
    """An import's body: `count` memories with long texts, some not ASCII."""
    memories = [
        {
            "id": f"m{number:05d}",
            "content": f"Memory {number}: the blue 自行车 is in shed {number} " * 20,
        }
        for number in range(count)
    ]
    return json.dumps({"document": {"memories": memories}, "mode": "merge"})


async def ask(client: MockHAClientWebSocket, **message: Any) -> dict[str, Any]:
    await client.send_json_auto_id(message)
    answer: dict[str, Any] = await client.receive_json()
    return answer


async def upload(client: MockHAClientWebSocket, text: str) -> str:
    """Begin an upload and send every chunk of `text`; its id."""
    size = len(text.encode())
    begun = await ask(client, type="assist_memory/import/begin", size=size)
    upload_id: str = begun["result"]["upload_id"]
    for start in range(0, len(text), CHUNK):
        sent = await ask(
            client,
            type="assist_memory/import/chunk",
            upload_id=upload_id,
            data=text[start : start + CHUNK],
        )
        assert sent["success"], sent
    return upload_id


async def commit(client: MockHAClientWebSocket, upload_id: str) -> dict[str, Any]:
    return await ask(client, type="assist_memory/import/commit", upload_id=upload_id)


async def test_a_chunked_import_is_applied_on_commit(
    hass: HomeAssistant,
    loaded_entry: MockConfigEntry,
    hass_ws_client: WebSocketGenerator,
) -> None:
    client = await hass_ws_client(hass)
    text = backup(90)
    assert len(text.encode()) > 4 * CHUNK

    upload_id = await upload(client, text)
    assert await contents(hass) == []  # nothing before the commit
    answer = await commit(client, upload_id)

    assert answer["result"] == {
        "status": 200,
        "body": {"added": 90, "updated": 0, "total": 90},
    }
    assert (await loaded_entry.runtime_data.backend.stats()).count == 90
    again = await commit(client, upload_id)  # used once
    assert again["error"]["code"] == "not_found"


@pytest.mark.usefixtures("loaded_entry")
async def test_a_chunked_import_is_checked_as_any_import(
    hass: HomeAssistant, hass_ws_client: WebSocketGenerator
) -> None:
    client = await hass_ws_client(hass)
    not_json = await commit(client, await upload(client, '{"document": [1, 2'))
    assert not_json["result"]["status"] == 400
    assert not_json["result"]["body"]["code"] == "invalid_json"
    bad = json.dumps({"document": "nonsense", "mode": "merge"})
    invalid = await commit(client, await upload(client, bad))
    assert invalid["result"]["body"]["code"] == "invalid_import"
    assert await contents(hass) == []


@pytest.mark.usefixtures("loaded_entry")
async def test_an_upload_is_capped(
    hass: HomeAssistant, hass_ws_client: WebSocketGenerator
) -> None:
    client = await hass_ws_client(hass)
    huge = await ask(
        client, type="assist_memory/import/begin", size=MAX_IMPORT_BYTES + 1
    )
    assert huge["error"]["code"] == "body_too_large"
    begun = await ask(client, type="assist_memory/import/begin", size=10)
    upload_id = begun["result"]["upload_id"]
    over = await ask(
        client, type="assist_memory/import/chunk", upload_id=upload_id, data="x" * 11
    )
    assert over["error"]["code"] == "body_too_large"
    assert (await commit(client, upload_id))["error"]["code"] == "not_found"


@pytest.mark.usefixtures("loaded_entry")
async def test_abandoned_uploads_are_dropped(
    hass: HomeAssistant, hass_ws_client: WebSocketGenerator
) -> None:
    client = await hass_ws_client(hass)
    text = backup(3)
    idle = await upload(client, text)
    async_fire_time_changed(hass, dt_util.utcnow() + timedelta(minutes=6))
    await hass.async_block_till_done()
    assert (await commit(client, idle))["error"]["code"] == "not_found"

    # A new upload replaces the caller's earlier one.
    first = await upload(client, text)
    second = await upload(client, text)
    assert (await commit(client, first))["error"]["code"] == "not_found"
    assert (await commit(client, second))["result"]["status"] == 200

    # An upload ends with its connection.
    closing = await hass_ws_client(hass)
    left = await upload(closing, text)
    await closing.close()
    await hass.async_block_till_done()
    other = await hass_ws_client(hass)
    assert (await commit(other, left))["error"]["code"] == "not_found"


async def test_only_administrators_upload(
    hass: HomeAssistant,
    loaded_entry: MockConfigEntry,
    hass_ws_client: WebSocketGenerator,
) -> None:
    anna: Person = await person(hass, hass_ws_client, "Anna")
    refused = await anna.ask("import/begin", size=10)
    assert refused["error"]["code"] == "unauthorized"
    # Someone else's upload is not theirs to commit either.
    admin = await hass_ws_client(hass)
    upload_id = await upload(admin, backup(1))
    assert (await anna.ask("import/commit", upload_id=upload_id))["error"][
        "code"
    ] == "unauthorized"
