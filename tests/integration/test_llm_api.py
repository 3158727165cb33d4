"""The "Assist Memory" LLM API: its tools and its prompt, through Home Assistant's llm helper."""

from __future__ import annotations

from typing import Any

from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import llm
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.assist_memory.const import CONF_ENABLE_AGENTIC_SEARCH, DOMAIN
from custom_components.assist_memory.options import DEFAULT_OPTIONS

from .conversing import data_files_containing

pytestmark = pytest.mark.usefixtures("loaded_entry")


def llm_context(user_id: str | None = None) -> llm.LLMContext:
    return llm.LLMContext(
        platform="test",
        context=Context(user_id=user_id),
        language="en",
        assistant="conversation",
        device_id=None,
    )


async def api(hass: HomeAssistant, user_id: str | None = None) -> llm.APIInstance:
    return await llm.async_get_api(hass, DOMAIN, llm_context(user_id))


async def call(instance: llm.APIInstance, tool: str, **args: Any) -> llm.ToolResult:
    return await instance.async_call_tool(llm.ToolInput(tool_name=tool, tool_args=args))


async def test_the_api_is_registered_with_its_tools(hass: HomeAssistant) -> None:
    assert any(
        a.id == DOMAIN and a.name == "Assist Memory" for a in llm.async_get_apis(hass)
    )
    instance = await api(hass)
    assert [t.name for t in instance.tools] == [
        "read_memory",
        "append_memory",
        "search_memory",
        "append_daily_log",
    ]
    assert "long-term memory" in instance.api_prompt


async def test_append_search_and_read(hass: HomeAssistant) -> None:
    instance = await api(hass)
    stored = await call(
        instance,
        "append_memory",
        fact="Anna takes her coffee black",
        category="preference",
    )
    assert stored.data["stored"] == "Anna takes her coffee black"
    # The memory says it was stored by the assistant's tool.
    backend = hass.config_entries.async_entries(DOMAIN)[0].runtime_data.backend
    kept = await backend.get(str(stored.data["id"]))
    assert kept is not None
    assert dict(kept.metadata) == {"learned_by": "tool"}
    found = await call(instance, "search_memory", query="How does Anna take coffee?")
    assert [r["content"] for r in found.data["results"]] == [
        "Anna takes her coffee black"
    ]
    memory = await call(instance, "read_memory")
    assert "## Preferences" in memory.data["memory"]
    assert "- Anna takes her coffee black" in memory.data["memory"]
    # The prompt of a new instance carries what is remembered.
    assert "Anna takes her coffee black" in (await api(hass)).api_prompt


async def test_search_returns_at_most_ten(hass: HomeAssistant) -> None:
    for n in range(15):
        await hass.services.async_call(
            DOMAIN, "add", {"content": f"tea fact {n}"}, blocking=True
        )
    found = await call(await api(hass), "search_memory", query="tea")
    assert len(found.data["results"]) == 10


async def test_bad_input_is_an_error_result(hass: HomeAssistant) -> None:
    result = await call(await api(hass), "append_memory", fact="   ")
    assert result.error
    assert result.data == {"error": "content must not be empty"}


async def test_daily_log(hass: HomeAssistant, loaded_entry: MockConfigEntry) -> None:
    result = await call(await api(hass), "append_daily_log", entry="Boiler serviced")
    assert result.data["logged"] == "Boiler serviced"
    backend = loaded_entry.runtime_data.backend
    assert "Boiler serviced" in await backend.read_daily_log(result.data["date"])


async def test_scoped_search(hass: HomeAssistant) -> None:
    await hass.services.async_call(
        DOMAIN,
        "add",
        {"content": "Anna's book club is on Thursday", "scope": "anna"},
        blocking=True,
    )
    assert (
        await call(await api(hass, "tom"), "search_memory", query="book club")
    ).data["results"] == []
    found = await call(await api(hass, "anna"), "search_memory", query="book club")
    assert len(found.data["results"]) == 1


@pytest.mark.parametrize(
    "entry_options", [{**DEFAULT_OPTIONS, CONF_ENABLE_AGENTIC_SEARCH: True}]
)
async def test_agentic_search_by_time(hass: HomeAssistant) -> None:
    instance = await api(hass)
    assert "search_memory_by_time" in [t.name for t in instance.tools]
    await call(instance, "append_memory", fact="We bought a new kettle")
    found = await call(
        instance, "search_memory_by_time", keyword="kettle", start="2020-01-01T00:00:00"
    )
    assert [r["content"] for r in found.data["results"]] == ["We bought a new kettle"]
    none = await call(
        instance, "search_memory_by_time", keyword="kettle", end="2020-01-01T00:00:00"
    )
    assert none.data["results"] == []


@pytest.mark.parametrize(
    "entry_options", [{**DEFAULT_OPTIONS, CONF_ENABLE_AGENTIC_SEARCH: True}]
)
@pytest.mark.parametrize(
    "bound",
    [
        {"start": "0001-01-01T00:00:00+14:00"},
        {"end": "9999-12-31T23:59:59-12:00"},
    ],
)
async def test_agentic_search_with_a_time_out_of_range_is_an_error_result(
    hass: HomeAssistant, bound: dict[str, str]
) -> None:
    instance = await api(hass)
    await call(instance, "append_memory", fact="We bought a new kettle")

    found = await call(instance, "search_memory_by_time", keyword="kettle", **bound)

    assert found.error
    assert found.data == {"error": f"{next(iter(bound))} is out of range"}


async def test_the_api_goes_with_the_entry(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    assert await hass.config_entries.async_unload(loaded_entry.entry_id)
    assert all(a.id != DOMAIN for a in llm.async_get_apis(hass))


async def test_tools_keep_no_secret(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    instance = await api(hass)

    stored = await call(
        instance, "append_memory", fact="The guest wifi password is Tulip-4242"
    )
    logged = await call(
        instance, "append_daily_log", entry="Gave the plumber the door code 778841"
    )

    assert stored.data["stored"] == "The guest wifi password is [secret withheld]"
    assert logged.data["logged"] == "Gave the plumber the door code [secret withheld]"
    found = await data_files_containing(hass, loaded_entry, ["Tulip-4242", "778841"])
    assert found == {}


async def scope_of(hass: HomeAssistant, content: str) -> str | None:
    """The scope of the memory with this content (None: no such memory)."""
    response = await hass.services.async_call(
        DOMAIN, "list", {}, blocking=True, return_response=True
    )
    assert response is not None
    items: list[dict[str, Any]] = response["items"]  # type: ignore[assignment]
    return next((str(m["scope"]) for m in items if m["content"] == content), None)


async def test_append_memory_follows_the_speaker(hass: HomeAssistant) -> None:
    anna = await api(hass, "anna")
    for fact in (
        "My dentist appointment is with Dr. Chen on Friday",
        "The user's favourite colour is teal",
        "Our bins go out on Tuesday",
        "The spare key is under the flowerpot",
    ):
        stored = await call(anna, "append_memory", fact=fact)
        assert not stored.error
    satellite = await api(hass)
    held = await call(satellite, "append_memory", fact="My alarm is set for six")

    assert await scope_of(
        hass, "My dentist appointment is with Dr. Chen on Friday"
    ) == ("anna")
    assert await scope_of(hass, "The user's favourite colour is teal") == "anna"
    assert await scope_of(hass, "Our bins go out on Tuesday") == "household"
    assert await scope_of(hass, "The spare key is under the flowerpot") == "household"
    # A turn without a user (a satellite): nobody's until someone says whose.
    assert held.data == {"stored": None, "held_for_review": "My alarm is set for six"}
    assert await scope_of(hass, "My alarm is set for six") is None
    backend = hass.config_entries.async_entries(DOMAIN)[0].runtime_data.backend
    assert [f.content for f in await backend.held_facts()] == [
        "My alarm is set for six"
    ]


async def test_reading_and_searching_give_the_speaker_only_theirs_and_the_households(
    hass: HomeAssistant,
) -> None:
    await call(
        await api(hass, "anna"),
        "append_memory",
        fact="My dentist appointment is with Dr. Chen on Friday",
    )
    await call(
        await api(hass, "anna"), "append_memory", fact="Our bins go out on Tuesday"
    )
    await call(await api(hass, "ben"), "append_memory", fact="My dentist is Dr. Okafor")

    for user_id, mine, not_mine in (
        ("anna", "Dr. Chen", "Okafor"),
        ("ben", "Okafor", "Dr. Chen"),
        (None, "bins", "dentist"),
    ):
        instance = await api(hass, user_id)
        memory = (await call(instance, "read_memory")).data["memory"]
        assert mine in memory
        assert "Our bins go out on Tuesday" in memory
        assert not_mine not in memory
        found = await call(instance, "search_memory", query="dentist appointment Dr.")
        contents = [r["content"] for r in found.data["results"]]
        assert not [c for c in contents if not_mine in c]
        assert not_mine not in instance.api_prompt
