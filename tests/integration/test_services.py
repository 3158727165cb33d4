"""Every service: success, response data, and each error (translated)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError, ServiceValidationError
from homeassistant.helpers.translation import async_get_translations
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.assist_memory.const import (
    CONF_MAX_CONTENT_LENGTH,
    CONF_MAX_ITEMS,
    DOMAIN,
)

from .conversing import meaning_caught_up

pytestmark = pytest.mark.usefixtures("loaded_entry")


async def call(
    hass: HomeAssistant, service: str, data: dict[str, Any] | None = None
) -> dict[str, Any]:
    response = await hass.services.async_call(
        DOMAIN, service, data or {}, blocking=True, return_response=True
    )
    assert response is not None
    return dict(response)


async def add(hass: HomeAssistant, content: str, **fields: Any) -> dict[str, Any]:
    return (await call(hass, "add", {"content": content, **fields}))["memory"]


async def translated(hass: HomeAssistant, err: HomeAssistantError) -> str:
    """The English message Home Assistant shows for a translated error."""
    assert err.translation_domain == DOMAIN
    strings = await async_get_translations(hass, "en", "exceptions", {DOMAIN})
    template = strings[f"component.{DOMAIN}.exceptions.{err.translation_key}.message"]
    return template.format(**(err.translation_placeholders or {}))


async def test_add_returns_the_stored_record(
    hass: HomeAssistant, store_file: Path
) -> None:
    memory = await add(
        hass,
        "  Anna takes her coffee black  ",
        category="preference",
        key="coffee",
        tags="Anna, kitchen",
        confidence=0.95,
        source="user_stated",
        scope="user-anna",
        session_id="conv-1",
        metadata={"room": "kitchen"},
    )
    assert memory["content"] == "Anna takes her coffee black"
    assert memory["category"] == "preference"
    assert memory["key"] == "coffee"
    assert memory["tags"] == ["anna", "kitchen"]
    assert memory["confidence"] == 0.95
    assert memory["scope"] == "user-anna"
    assert memory["session_id"] == "conv-1"
    assert memory["metadata"] == {"room": "kitchen"}
    assert memory["created_at"] == memory["updated_at"]
    assert memory["access_count"] == 0
    journal = store_file.with_suffix(".journal").read_text()
    assert memory["id"] in journal


async def test_add_without_response(hass: HomeAssistant) -> None:
    await hass.services.async_call(
        DOMAIN, "add", {"content": "The wifi password is on the fridge"}, blocking=True
    )
    assert (await call(hass, "list"))["total"] == 1


@pytest.mark.parametrize(
    ("data", "key", "message"),
    [
        ({"content": "   "}, "empty_content", "The memory content must not be empty."),
        (
            {"content": "x" * 2001},
            "content_too_long",
            "The memory is 2001 characters long; the limit is 2000.",
        ),
        (
            {"content": "ok", "category": "gossip"},
            "unknown_category",
            'Unknown category "gossip". Use one of: preference, fact, pattern, event, person, routine, note.',
        ),
        (
            {"content": "ok", "confidence": 1.5},
            "invalid_confidence",
            "The confidence must be a number from 0 to 1, not 1.5.",
        ),
        (
            {"content": "ok", "source": "rumour"},
            "unknown_source",
            'Unknown source "rumour". Use one of: user_stated, inferred, system.',
        ),
        (
            {"content": "ok", "scope": "two words"},
            "invalid_scope",
            'The scope must be "household" or a user ID, not "two words".',
        ),
        (
            {"content": "ok", "tags": ["x" * 51]},
            "invalid_tags",
            "Tags are at most 20 words of at most 50 characters each, without commas.",
        ),
        (
            {"content": "ok", "metadata": {"big": "x" * 9000}},
            "invalid_metadata",
            "The metadata must be a JSON object of at most 8192 characters.",
        ),
    ],
)
async def test_add_rejects_bad_input_and_stores_nothing(
    hass: HomeAssistant, data: dict[str, Any], key: str, message: str
) -> None:
    with pytest.raises(ServiceValidationError) as err:
        await call(hass, "add", data)
    assert err.value.translation_key == key
    assert await translated(hass, err.value) == message
    assert (await call(hass, "list"))["total"] == 0


async def test_add_schema_rejects_wrong_types(hass: HomeAssistant) -> None:
    with pytest.raises(Exception, match="content"):
        await call(hass, "add", {})
    with pytest.raises(Exception, match="confidence"):
        await call(hass, "add", {"content": "ok", "confidence": "very"})
    assert (await call(hass, "list"))["total"] == 0


@pytest.mark.parametrize(
    "entry_options", [{CONF_MAX_ITEMS: 2, CONF_MAX_CONTENT_LENGTH: 2000}]
)
async def test_add_when_full(hass: HomeAssistant) -> None:
    await add(hass, "one")
    await add(hass, "two")
    # A mistake of the call, as Home Assistant's own services raise them.
    with pytest.raises(ServiceValidationError) as err:
        await add(hass, "three")
    assert err.value.translation_key == "memory_full"
    assert "The memory is full (2 items)" in await translated(hass, err.value)
    assert (await call(hass, "list"))["total"] == 2


@pytest.mark.parametrize(
    "entry_options", [{CONF_MAX_ITEMS: 100, CONF_MAX_CONTENT_LENGTH: 10}]
)
async def test_content_length_option(hass: HomeAssistant) -> None:
    await add(hass, "ten chars!")
    with pytest.raises(ServiceValidationError) as err:
        await add(hass, "eleven char")
    assert err.value.translation_placeholders == {
        "error": "content is 11 characters, the limit is 10",
        "length": "11",
        "max_length": "10",
    }


async def test_get(hass: HomeAssistant) -> None:
    memory = await add(hass, "Grandma visits on Sundays", category="event")
    assert (await call(hass, "get", {"id": memory["id"]}))["memory"] == memory


async def test_get_unknown_id(hass: HomeAssistant) -> None:
    with pytest.raises(ServiceValidationError) as err:
        await call(hass, "get", {"id": "nope"})
    assert err.value.translation_key == "not_found"
    assert await translated(hass, err.value) == "There is no memory with the ID nope."


async def test_list_pages_filters_and_sorts(hass: HomeAssistant) -> None:
    first = await add(hass, "Lights off at 23:00", category="routine", tags=["night"])
    second = await add(
        hass, "Tom is allergic to nuts", category="fact", scope="user-tom"
    )
    third = await add(
        hass, "Tom likes jazz", category="preference", scope="user-tom", tags=["music"]
    )

    page = await call(hass, "list", {"limit": 2})
    assert [m["id"] for m in page["items"]] == [third["id"], second["id"]]
    assert (page["total"], page["offset"], page["limit"]) == (3, 0, 2)

    page = await call(hass, "list", {"limit": 2, "offset": 2})
    assert [m["id"] for m in page["items"]] == [first["id"]]

    oldest = await call(hass, "list", {"sort": "oldest"})
    assert [m["id"] for m in oldest["items"]] == [
        first["id"],
        second["id"],
        third["id"],
    ]

    assert [
        m["id"] for m in (await call(hass, "list", {"scope": "user-tom"}))["items"]
    ] == [
        third["id"],
        second["id"],
    ]
    assert [
        m["id"] for m in (await call(hass, "list", {"category": "routine"}))["items"]
    ] == [first["id"]]
    assert [
        m["id"] for m in (await call(hass, "list", {"tags": "music"}))["items"]
    ] == [third["id"]]


async def test_list_rejects_unknown_category_and_bad_paging(
    hass: HomeAssistant,
) -> None:
    with pytest.raises(ServiceValidationError) as err:
        await call(hass, "list", {"category": "gossip"})
    assert err.value.translation_key == "unknown_category"
    with pytest.raises(Exception, match="limit"):
        await call(hass, "list", {"limit": 0})
    with pytest.raises(Exception, match="sort"):
        await call(hass, "list", {"sort": "random"})


async def test_update(hass: HomeAssistant) -> None:
    memory = await add(hass, "Anna drinks tea", key="drink", tags=["anna"])
    updated = (
        await call(
            hass,
            "update",
            {
                "id": memory["id"],
                "content": "Anna drinks coffee",
                "confidence": 0.8,
                "key": "",
            },
        )
    )["memory"]
    assert updated["content"] == "Anna drinks coffee"
    assert updated["confidence"] == 0.8
    assert updated["key"] is None
    assert updated["tags"] == ["anna"]
    assert updated["created_at"] == memory["created_at"]
    assert updated["updated_at"] > memory["updated_at"]
    assert (await call(hass, "get", {"id": memory["id"]}))["memory"] == updated


async def test_update_errors(hass: HomeAssistant) -> None:
    memory = await add(hass, "Anna drinks tea")
    with pytest.raises(ServiceValidationError) as err:
        await call(hass, "update", {"id": "missing", "content": "x"})
    assert err.value.translation_key == "not_found"
    with pytest.raises(ServiceValidationError) as err:
        await call(hass, "update", {"id": memory["id"]})
    assert err.value.translation_key == "nothing_to_update"
    with pytest.raises(ServiceValidationError) as err:
        await call(hass, "update", {"id": memory["id"], "content": ""})
    assert err.value.translation_key == "empty_content"
    assert (await call(hass, "get", {"id": memory["id"]}))["memory"] == memory


async def test_delete(hass: HomeAssistant) -> None:
    memory = await add(hass, "The spare key is under the mat")
    assert await call(hass, "delete", {"id": memory["id"]}) == {"deleted": memory["id"]}
    assert (await call(hass, "list"))["total"] == 0
    with pytest.raises(ServiceValidationError) as err:
        await call(hass, "delete", {"id": memory["id"]})
    assert err.value.translation_key == "not_found"


async def test_clear_requires_confirmation(
    hass: HomeAssistant, store_file: Path
) -> None:
    await add(hass, "one")
    await add(hass, "two")
    with pytest.raises(Exception, match="confirm"):
        await call(hass, "clear", {})
    with pytest.raises(Exception, match="confirm"):
        await call(hass, "clear", {"confirm": False})
    assert (await call(hass, "list"))["total"] == 2
    assert await call(hass, "clear", {"confirm": True}) == {"removed": 2}
    assert (await call(hass, "list"))["total"] == 0
    assert json.loads(store_file.read_text())["memories"] == []


async def test_search(hass: HomeAssistant) -> None:
    await add(hass, "Anna takes her COFFEE black")
    await add(hass, "Tom drinks tea")
    await add(hass, "Coffee beans are in the left cupboard")
    await meaning_caught_up(hass)
    results = (await call(hass, "search", {"query": "coffee"}))["results"]
    # Found by the word first; the others may follow by meaning only.
    assert sorted(r["content"] for r in results[:2]) == [
        "Anna takes her COFFEE black",
        "Coffee beans are in the left cupboard",
    ]
    assert all(not r["matched"] for r in results[2:])
    assert (
        len((await call(hass, "search", {"query": "coffee", "limit": 1}))["results"])
        == 1
    )
    whisky = (await call(hass, "search", {"query": "whisky"}))["results"]
    assert all(not r["matched"] for r in whisky)  # no memory has the word


async def test_search_empty_query(hass: HomeAssistant) -> None:
    with pytest.raises(ServiceValidationError) as err:
        await call(hass, "search", {"query": "  "})
    assert err.value.translation_key == "empty_query"


async def test_build_prompt(hass: HomeAssistant) -> None:
    assert (await call(hass, "build_prompt", {"prompt": "Hello"}))["prompt"] == "Hello"
    await add(hass, "Anna takes her coffee black")
    await add(hass, "Tom drinks tea")
    prompt = (await call(hass, "build_prompt", {"prompt": "What should I brew?"}))[
        "prompt"
    ]
    assert prompt == (
        "<long_term_memory>\n- Anna takes her coffee black\n- Tom drinks tea\n"
        "</long_term_memory>\n\nWhat should I brew?"
    )
    await meaning_caught_up(hass)
    prompt = (await call(hass, "build_prompt", {"prompt": "Brew?", "query": "tea"}))[
        "prompt"
    ]
    # The memory with the word first (coffee may follow, by meaning).
    assert prompt.startswith("<long_term_memory>\n- Tom drinks tea\n")
    assert prompt.endswith("</long_term_memory>\n\nBrew?")
    prompt = (await call(hass, "build_prompt", {"prompt": "Brew?", "limit": 1}))[
        "prompt"
    ]
    assert prompt.count("\n- ") == 1


@pytest.mark.parametrize(
    "entry_options", [{CONF_MAX_ITEMS: 1000, CONF_MAX_CONTENT_LENGTH: 2000}]
)
async def test_200_concurrent_adds(hass: HomeAssistant) -> None:
    await asyncio.gather(*(add(hass, f"memory number {n}") for n in range(200)))
    page = await call(hass, "list", {"limit": 1000})
    assert page["total"] == 200
    assert {m["content"] for m in page["items"]} == {
        f"memory number {n}" for n in range(200)
    }
    assert len({m["id"] for m in page["items"]}) == 200


async def test_services_fail_clearly_when_not_loaded(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    assert await hass.config_entries.async_unload(loaded_entry.entry_id)
    with pytest.raises(ServiceValidationError) as err:
        await call(hass, "list")
    assert err.value.translation_key == "service_config_entry_not_loaded"


async def test_storage_failure_is_reported_and_keeps_data(
    hass: HomeAssistant, store_file: Path
) -> None:
    memory = await add(hass, "kept safe")
    journal = store_file.with_suffix(".journal")
    kept = journal.rename(journal.with_name("journal.kept"))
    journal.mkdir()  # a folder where the journal should be: it cannot be written
    try:
        with pytest.raises(HomeAssistantError) as err:
            await add(hass, "cannot be written")
        assert err.value.translation_key == "storage_error"
        assert "could not be saved" in await translated(hass, err.value)
    finally:
        journal.rmdir()
        kept.rename(journal)
    assert (await call(hass, "get", {"id": memory["id"]}))["memory"][
        "content"
    ] == "kept safe"
