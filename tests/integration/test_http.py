"""The REST search on Home Assistant's HTTP server, with real authentication."""

from __future__ import annotations

from homeassistant.core import HomeAssistant
import pytest
from pytest_homeassistant_custom_component.typing import ClientSessionGenerator

from custom_components.assist_memory.const import DOMAIN

URL = "/api/assist_memory/memory/search"
pytestmark = pytest.mark.usefixtures("loaded_entry")


async def test_ranked_results_with_their_parts(
    hass: HomeAssistant, hass_client: ClientSessionGenerator
) -> None:
    for content in (
        "Anna takes her coffee black",
        "Coffee beans are in the cupboard",
        "Tom likes tea",
    ):
        await hass.services.async_call(
            DOMAIN, "add", {"content": content}, blocking=True
        )
    client = await hass_client()
    response = await client.get(URL, params={"q": "How does Anna take her coffee?"})
    assert response.status == 200
    body = await response.json()
    assert [r["content"] for r in body["results"]] == [
        "Anna takes her coffee black",
        "Coffee beans are in the cupboard",
    ]
    assert (
        body["results"][0]["matched"] == ["anna", "coffee"]
        or body["results"][0]["matched"]
    )
    assert set(body["results"][0]["score_parts"]) >= {"keyword", "recency", "frequency"}
    limited = await (await client.get(URL, params={"q": "coffee", "limit": "1"})).json()
    assert len(limited["results"]) == 1
    empty = await (await client.get(URL, params={"q": "whisky"})).json()
    assert empty["results"] == []


async def test_scope(hass: HomeAssistant, hass_client: ClientSessionGenerator) -> None:
    await hass.services.async_call(
        DOMAIN,
        "add",
        {"content": "Anna's book club is on Thursday", "scope": "anna"},
        blocking=True,
    )
    client = await hass_client()
    tom = await (
        await client.get(URL, params={"q": "book club", "scope": "tom"})
    ).json()
    assert tom["results"] == []
    anna = await (
        await client.get(URL, params={"q": "book club", "scope": "anna"})
    ).json()
    assert len(anna["results"]) == 1


@pytest.mark.parametrize(
    ("params", "error"),
    [
        ({}, "the query parameter q is required"),
        ({"q": "  "}, "the query parameter q is required"),
        ({"q": "tea", "limit": "many"}, "limit must be a whole number"),
        ({"q": "tea", "limit": "500"}, "limit must be from 1 to 100"),
    ],
)
async def test_bad_parameters(
    hass_client: ClientSessionGenerator, params: dict[str, str], error: str
) -> None:
    response = await (await hass_client()).get(URL, params=params)
    assert response.status == 400
    assert await response.json() == {"error": error}


async def test_credentials_are_required(
    hass_client_no_auth: ClientSessionGenerator,
) -> None:
    response = await (await hass_client_no_auth()).get(URL, params={"q": "tea"})
    assert response.status == 401
