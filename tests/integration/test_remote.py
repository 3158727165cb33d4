"""The integration as the client of a memory server: a real server process on 127.0.0.1.

Discovery, the manual flow, reauthentication, reconfiguring, and the server's memories
used end to end: services, the sensor, the memory agent, the server going away and
coming back.
"""

from __future__ import annotations

from datetime import timedelta
import json
import logging
from pathlib import Path
from typing import Any
import urllib.request

from homeassistant.config_entries import SOURCE_HASSIO, SOURCE_USER, ConfigEntryState
from homeassistant.const import CONF_TOKEN, CONF_URL, STATE_UNAVAILABLE
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers.service_info.hassio import HassioServiceInfo
from homeassistant.setup import async_setup_component
from homeassistant.util import dt as dt_util
import pytest
from pytest_homeassistant_custom_component.common import (
    MockConfigEntry,
    async_fire_time_changed,
)
from pytest_homeassistant_custom_component.components.diagnostics import (
    get_diagnostics_for_config_entry,
)
from pytest_homeassistant_custom_component.typing import ClientSessionGenerator

from custom_components.assist_memory.const import (
    CONF_AGENT_ID,
    CONF_STORAGE,
    DOMAIN,
    STORAGE_EMBEDDED,
    STORAGE_REMOTE,
)
from custom_components.assist_memory.coordinator import (
    CONNECTED_INTERVAL,
    RECONNECT_INTERVAL,
)
from custom_components.assist_memory.options import DEFAULT_OPTIONS
from tests.support.memory_server import MemoryServer, free_port

from .agents import AGENT_ENTITY_ID, LlmEntities
from .conftest import ADDON_SLUG, assert_placeholders_supplied, remote_config_entry
from .conversing import options, say

pytestmark = pytest.mark.usefixtures("socket_enabled")

SENSOR = "sensor.assist_memory_memories"
SLUG = ADDON_SLUG
INTEGRATION_LOGGER = "custom_components.assist_memory"


@pytest.fixture
def config_entry(
    memory_server: MemoryServer, entry_options: dict[str, Any]
) -> MockConfigEntry:
    """An entry using the memory server (the conftest's `loaded_entry` sets it up)."""
    return remote_config_entry(memory_server, entry_options)


def discovery(server: MemoryServer, **changes: Any) -> HassioServiceInfo:
    """What the Supervisor sends when the add-on announces its server."""
    config = {"host": "127.0.0.1", "port": server.port, "token": server.token}
    return HassioServiceInfo(
        config={**config, **changes},
        name="Assist Memory",
        slug=SLUG,
        uuid="c0ffee",
    )


def server_memories(server: MemoryServer) -> list[str]:
    """The contents the server holds, asked over its own REST API."""
    request = urllib.request.Request(  # noqa: S310 (127.0.0.1)
        f"{server.url}/memory/long-term",
        headers={"Authorization": f"Bearer {server.token}"},
    )
    with urllib.request.urlopen(request, timeout=10) as answer:  # noqa: S310
        return [item["content"] for item in json.load(answer)["items"]]


async def tick(hass: HomeAssistant, seconds: int) -> None:
    """Let `seconds` pass: the server poll runs (in the background) and finishes."""
    async_fire_time_changed(hass, dt_util.utcnow() + timedelta(seconds=seconds))
    await hass.async_block_till_done(wait_background_tasks=True)


async def restart_with_new_token(hass: HomeAssistant, server: MemoryServer) -> None:
    await hass.async_add_executor_job(server.new_token)


# -- discovery -----------------------------------------------------------------------


async def test_discovery_creates_a_remote_entry(
    hass: HomeAssistant, memory_server: MemoryServer
) -> None:
    result = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": SOURCE_HASSIO}, data=discovery(memory_server)
    )
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "hassio_confirm"
    assert result["description_placeholders"] == {"addon": "Assist Memory"}
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {})
    await hass.async_block_till_done()
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["data"] == {
        CONF_STORAGE: STORAGE_REMOTE,
        CONF_URL: memory_server.url,
        CONF_TOKEN: memory_server.token,
    }
    assert result["options"] == DEFAULT_OPTIONS
    entry = result["result"]
    assert entry.unique_id == SLUG
    assert entry.state is ConfigEntryState.LOADED
    assert entry.runtime_data.store_path is None
    state = hass.states.get(SENSOR)
    assert state is not None
    assert state.state == "0"


async def test_rediscovery_updates_the_entry(
    hass: HomeAssistant, loaded_entry: MockConfigEntry, memory_server: MemoryServer
) -> None:
    await restart_with_new_token(hass, memory_server)
    result = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": SOURCE_HASSIO}, data=discovery(memory_server)
    )
    await hass.async_block_till_done()
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "already_configured"
    assert loaded_entry.data[CONF_TOKEN] == memory_server.token
    assert loaded_entry.state is ConfigEntryState.LOADED


@pytest.mark.parametrize(
    "changes",
    [
        {"token": ""},
        {"token": None},
        {"host": ""},
        {"port": "eighty"},
        {"port": 0},
        {"port": True},
    ],
)
async def test_discovery_with_unusable_data(
    hass: HomeAssistant, memory_server: MemoryServer, changes: dict[str, Any]
) -> None:
    result = await hass.config_entries.flow.async_init(
        DOMAIN,
        context={"source": SOURCE_HASSIO},
        data=discovery(memory_server, **changes),
    )
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "invalid_discovery_info"


async def test_discovery_port_as_text_and_a_server_that_fails(
    hass: HomeAssistant, memory_server: MemoryServer
) -> None:
    wrong_token = await hass.config_entries.flow.async_init(
        DOMAIN,
        context={"source": SOURCE_HASSIO},
        data=discovery(
            memory_server,
            port=str(memory_server.port),
            token="wrong",  # noqa: S106
        ),
    )
    assert wrong_token["type"] is FlowResultType.ABORT
    assert wrong_token["reason"] == "invalid_auth"
    nobody = await hass.config_entries.flow.async_init(
        DOMAIN,
        context={"source": SOURCE_HASSIO},
        data=discovery(memory_server, port=free_port()),
    )
    assert nobody["type"] is FlowResultType.ABORT
    assert nobody["reason"] == "cannot_connect"


async def test_discovery_when_the_embedded_store_is_set_up(
    hass: HomeAssistant, memory_server: MemoryServer
) -> None:
    MockConfigEntry(domain=DOMAIN, data={CONF_STORAGE: STORAGE_EMBEDDED}).add_to_hass(
        hass
    )
    result = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": SOURCE_HASSIO}, data=discovery(memory_server)
    )
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "single_instance_allowed"


# -- the manual flow -----------------------------------------------------------------


async def test_manual_flow(hass: HomeAssistant, memory_server: MemoryServer) -> None:
    result = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": SOURCE_USER}
    )
    assert result["type"] is FlowResultType.MENU
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {"next_step_id": "server"}
    )
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "server"
    assert_placeholders_supplied(result, "config")
    flow_id = result["flow_id"]
    for url, token, error in (
        ("not a url", memory_server.token, "invalid_url"),
        ("ftp://127.0.0.1", memory_server.token, "invalid_url"),
        ("http://[::1", memory_server.token, "invalid_url"),
        (f"http://127.0.0.1:{free_port()}", memory_server.token, "cannot_connect"),
        (memory_server.url, "wrong", "invalid_auth"),
    ):
        result = await hass.config_entries.flow.async_configure(
            flow_id, {CONF_URL: url, CONF_TOKEN: token}
        )
        assert result["type"] is FlowResultType.FORM
        assert result["errors"] == {"base": error}
    result = await hass.config_entries.flow.async_configure(
        flow_id, {CONF_URL: memory_server.url + "/ ", CONF_TOKEN: memory_server.token}
    )
    await hass.async_block_till_done()
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["data"] == {
        CONF_STORAGE: STORAGE_REMOTE,
        CONF_URL: memory_server.url,
        CONF_TOKEN: memory_server.token,
    }
    assert result["result"].state is ConfigEntryState.LOADED


async def test_a_second_entry_is_refused_at_the_end(
    hass: HomeAssistant, memory_server: MemoryServer
) -> None:
    result = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": SOURCE_USER}
    )
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {"next_step_id": "embedded"}
    )
    # Another flow finished first.
    MockConfigEntry(domain=DOMAIN, data={CONF_STORAGE: STORAGE_EMBEDDED}).add_to_hass(
        hass
    )
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {})
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "single_instance_allowed"


# -- setup, reauthentication, reconfiguring -------------------------------------------


async def test_setup_waits_for_a_server_that_is_down(
    hass: HomeAssistant, config_entry: MockConfigEntry, memory_server: MemoryServer
) -> None:
    await hass.async_add_executor_job(memory_server.stop)
    config_entry.add_to_hass(hass)
    assert not await hass.config_entries.async_setup(config_entry.entry_id)
    assert config_entry.state is ConfigEntryState.SETUP_RETRY


async def test_setup_with_a_refused_token_asks_for_a_new_one(
    hass: HomeAssistant, config_entry: MockConfigEntry, memory_server: MemoryServer
) -> None:
    await restart_with_new_token(hass, memory_server)
    config_entry.add_to_hass(hass)
    assert not await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done()
    assert config_entry.state is ConfigEntryState.SETUP_ERROR
    (flow,) = config_entry.async_get_active_flows(hass, {"reauth"})
    result = await hass.config_entries.flow.async_configure(
        flow["flow_id"], {CONF_TOKEN: memory_server.token}
    )
    await hass.async_block_till_done()
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "reauth_successful"
    assert config_entry.state is ConfigEntryState.LOADED


async def test_reauth_when_the_token_changes_on_the_server(
    hass: HomeAssistant, loaded_entry: MockConfigEntry, memory_server: MemoryServer
) -> None:
    await restart_with_new_token(hass, memory_server)
    with pytest.raises(HomeAssistantError) as caught:
        await hass.services.async_call(
            DOMAIN, "add", {"content": "Anna takes her coffee black"}, blocking=True
        )
    assert caught.value.translation_key == "server_unauthorized"
    await hass.async_block_till_done()
    (flow,) = loaded_entry.async_get_active_flows(hass, {"reauth"})
    result = await hass.config_entries.flow.async_configure(flow["flow_id"])
    assert result["step_id"] == "reauth_confirm"
    assert result["description_placeholders"]["url"] == memory_server.url
    result = await hass.config_entries.flow.async_configure(
        flow["flow_id"], {CONF_TOKEN: "still wrong"}
    )
    assert result["errors"] == {"base": "invalid_auth"}
    result = await hass.config_entries.flow.async_configure(
        flow["flow_id"], {CONF_TOKEN: f" {memory_server.token} "}
    )
    await hass.async_block_till_done()
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "reauth_successful"
    assert loaded_entry.data[CONF_TOKEN] == memory_server.token
    assert loaded_entry.state is ConfigEntryState.LOADED
    await hass.services.async_call(
        DOMAIN, "add", {"content": "Anna takes her coffee black"}, blocking=True
    )
    assert await hass.async_add_executor_job(server_memories, memory_server) == [
        "Anna takes her coffee black"
    ]


async def test_reconfigure(
    hass: HomeAssistant,
    loaded_entry: MockConfigEntry,
    memory_server: MemoryServer,
    tmp_path: Path,
) -> None:
    result = await loaded_entry.start_reconfigure_flow(hass)
    assert result["step_id"] == "reconfigure"
    assert_placeholders_supplied(result, "config")
    flow_id = result["flow_id"]
    result = await hass.config_entries.flow.async_configure(
        flow_id, {CONF_URL: f"http://127.0.0.1:{free_port()}"}
    )
    assert result["errors"] == {"base": "cannot_connect"}
    with MemoryServer(tmp_path / "other") as other:
        # An empty token keeps the current one, which the other server refuses.
        result = await hass.config_entries.flow.async_configure(
            flow_id, {CONF_URL: other.url, CONF_TOKEN: ""}
        )
        assert result["errors"] == {"base": "invalid_auth"}
        result = await hass.config_entries.flow.async_configure(
            flow_id, {CONF_URL: other.url, CONF_TOKEN: other.token}
        )
        await hass.async_block_till_done()
        assert result["type"] is FlowResultType.ABORT
        assert result["reason"] == "reconfigure_successful"
        assert loaded_entry.data[CONF_URL] == other.url
        assert loaded_entry.data[CONF_TOKEN] == other.token
        assert loaded_entry.state is ConfigEntryState.LOADED
        await hass.services.async_call(
            DOMAIN, "add", {"content": "Tom likes tea"}, blocking=True
        )
        assert await hass.async_add_executor_job(server_memories, other) == [
            "Tom likes tea"
        ]
        await hass.config_entries.async_unload(loaded_entry.entry_id)


async def test_reconfigure_an_embedded_entry(hass: HomeAssistant) -> None:
    entry = MockConfigEntry(domain=DOMAIN, data={CONF_STORAGE: STORAGE_EMBEDDED})
    entry.add_to_hass(hass)
    result = await entry.start_reconfigure_flow(hass)
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "reconfigure_embedded"


async def test_options_leave_the_limits_to_the_server(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    result = await hass.config_entries.options.async_init(loaded_entry.entry_id)
    assert result["type"] is FlowResultType.MENU
    assert "memory" not in result["menu_options"]
    assert "privacy" not in result["menu_options"]


# -- end to end ------------------------------------------------------------------------


async def test_services_and_sensor_use_the_server(
    hass: HomeAssistant, loaded_entry: MockConfigEntry, memory_server: MemoryServer
) -> None:
    response = await hass.services.async_call(
        DOMAIN,
        "add",
        {"content": "Anna takes her coffee black", "category": "preference"},
        blocking=True,
        return_response=True,
    )
    assert response is not None
    assert await hass.async_add_executor_job(server_memories, memory_server) == [
        "Anna takes her coffee black"
    ]
    await hass.async_block_till_done()
    state = hass.states.get(SENSOR)
    assert state is not None
    assert state.state == "1"
    found = await hass.services.async_call(
        DOMAIN, "search", {"query": "coffee"}, blocking=True, return_response=True
    )
    assert found is not None
    assert [r["content"] for r in found["results"]] == ["Anna takes her coffee black"]
    with pytest.raises(HomeAssistantError) as caught:
        await hass.services.async_call(DOMAIN, "add", {"content": "   "}, blocking=True)
    assert caught.value.translation_key == "empty_content"


async def test_diagnostics_hide_the_token(
    hass: HomeAssistant,
    hass_client: ClientSessionGenerator,
    loaded_entry: MockConfigEntry,
    memory_server: MemoryServer,
) -> None:
    assert await async_setup_component(hass, "diagnostics", {})
    diagnostics = await get_diagnostics_for_config_entry(
        hass, hass_client, loaded_entry
    )
    assert diagnostics["entry"]["data"][CONF_TOKEN] == "**REDACTED**"
    # The server's address says where the person's memories live: left out too.
    assert diagnostics["entry"]["data"][CONF_URL] == "**REDACTED**"
    assert diagnostics["store"]["count"] == 0
    assert diagnostics["coordinator"] == {
        "last_update_success": True,
        "update_interval": CONNECTED_INTERVAL.total_seconds(),
    }
    text = json.dumps(diagnostics)
    assert memory_server.token not in text
    assert memory_server.url not in text

    # Away: diagnostics still download, with the last counts the coordinator read.
    await hass.async_add_executor_job(memory_server.stop)
    await tick(hass, 31)
    diagnostics = await get_diagnostics_for_config_entry(
        hass, hass_client, loaded_entry
    )
    assert diagnostics["store"]["count"] == 0
    assert diagnostics["coordinator"] == {
        "last_update_success": False,
        "update_interval": RECONNECT_INTERVAL.total_seconds(),
    }
    assert memory_server.url not in json.dumps(diagnostics)


async def test_settings_through_home_assistant_leave_the_server_alone(
    hass: HomeAssistant,
    hass_client: ClientSessionGenerator,
    loaded_entry: MockConfigEntry,
) -> None:
    client = await hass_client()
    response = await client.put(
        "/api/assist_memory/memory/config", json={"ragTopN": 7, "maxItems": 3}
    )
    assert response.status == 200
    assert loaded_entry.options["rag_top_n"] == 7
    # The server's limit is the add-on's: adding a fourth memory still works.
    for content in ("one", "two", "three", "four"):
        await hass.services.async_call(
            DOMAIN, "add", {"content": content}, blocking=True
        )


async def test_sensor_follows_changes_made_on_the_server(
    hass: HomeAssistant, loaded_entry: MockConfigEntry, memory_server: MemoryServer
) -> None:
    def add_on_the_server() -> None:
        request = urllib.request.Request(  # noqa: S310 (127.0.0.1)
            f"{memory_server.url}/memory/long-term",
            data=json.dumps({"content": "Tom likes tea"}).encode(),
            headers={
                "Authorization": f"Bearer {memory_server.token}",
                "Content-Type": "application/json",
            },
            method="POST",
        )
        urllib.request.urlopen(request, timeout=10).close()  # noqa: S310

    await tick(hass, 31)
    await hass.async_add_executor_job(add_on_the_server)
    await tick(hass, 62)
    state = hass.states.get(SENSOR)
    assert state is not None
    assert state.state == "1"


@pytest.mark.parametrize("entry_options", [options(**{CONF_AGENT_ID: AGENT_ENTITY_ID})])
async def test_memory_agent_with_a_memory_server(
    hass: HomeAssistant,
    llm: LlmEntities,
    loaded_entry: MockConfigEntry,
    memory_server: MemoryServer,
) -> None:
    await hass.services.async_call(
        DOMAIN,
        "add",
        {"content": "Anna takes her coffee black", "category": "preference"},
        blocking=True,
    )
    result = await say(hass, "How does Anna like her coffee?")
    (turn,) = llm.agent.turns
    assert "- [preference] Anna takes her coffee black" in turn.system_prompt
    working = await hass.services.async_call(
        DOMAIN,
        "get_working_memory",
        {"session_id": result.conversation_id},
        blocking=True,
        return_response=True,
    )
    assert working is not None
    assert working["working_memory"]["turn_count"] == 1


@pytest.mark.parametrize("entry_options", [options(**{CONF_AGENT_ID: AGENT_ENTITY_ID})])
async def test_stop_remembering_with_a_memory_server(
    hass: HomeAssistant, llm: LlmEntities, loaded_entry: MockConfigEntry
) -> None:
    await hass.services.async_call(
        DOMAIN, "add", {"content": "Anna takes her coffee black"}, blocking=True
    )
    first = await say(hass, "Plan the Quorvath party", user_id="anna")
    conversation_id = str(first.conversation_id)
    await say(hass, "Stop remembering", conversation_id, user_id="anna")
    await say(hass, "How does Anna like her coffee?", conversation_id, user_id="anna")
    turn = llm.agent.turns[-1]
    assert "Anna takes her coffee black" in turn.system_prompt
    backend = loaded_entry.runtime_data.backend
    assert await backend.working_memory(conversation_id) is None
    # What Anna said before the sentence is erased on the server too.
    assert await backend.conversation(conversation_id) is None


async def test_server_going_away_and_coming_back(
    hass: HomeAssistant,
    loaded_entry: MockConfigEntry,
    memory_server: MemoryServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    coordinator = loaded_entry.runtime_data.coordinator
    assert coordinator.update_interval == CONNECTED_INTERVAL
    await hass.services.async_call(
        DOMAIN, "add", {"content": "Anna takes her coffee black"}, blocking=True
    )
    await hass.async_add_executor_job(memory_server.stop)
    caplog.clear()
    caplog.set_level(logging.INFO, logger=INTEGRATION_LOGGER)

    with pytest.raises(HomeAssistantError) as caught:
        await hass.services.async_call(
            DOMAIN, "add", {"content": "Tom likes tea"}, blocking=True
        )
    assert caught.value.translation_key == "server_unavailable"
    assert memory_server.url in str(caught.value)
    await hass.async_block_till_done()
    # The failed call is enough: unavailable now, and checked more often until back.
    state = hass.states.get(SENSOR)
    assert state is not None
    assert state.state == STATE_UNAVAILABLE
    assert coordinator.update_interval == RECONNECT_INTERVAL
    for seconds in (31, 62):
        await tick(hass, seconds)
    state = hass.states.get(SENSOR)
    assert state is not None
    assert state.state == STATE_UNAVAILABLE
    gone = our_log_lines(caplog)
    assert [r.levelno for r in gone] == [logging.ERROR]
    assert memory_server.url in gone[0].getMessage()

    caplog.clear()
    await hass.async_add_executor_job(memory_server.start)
    for seconds in (93, 124):
        await tick(hass, seconds)
    state = hass.states.get(SENSOR)
    assert state is not None
    assert state.state == "1"
    back = our_log_lines(caplog)
    assert [r.levelno for r in back] == [logging.INFO]
    assert "recovered" in back[0].getMessage()
    assert coordinator.update_interval == CONNECTED_INTERVAL


async def test_a_token_refused_while_polling_asks_for_a_new_one(
    hass: HomeAssistant, loaded_entry: MockConfigEntry, memory_server: MemoryServer
) -> None:
    await restart_with_new_token(hass, memory_server)
    await tick(hass, 31)
    state = hass.states.get(SENSOR)
    assert state is not None
    assert state.state == STATE_UNAVAILABLE
    (flow,) = loaded_entry.async_get_active_flows(hass, {"reauth"})
    result = await hass.config_entries.flow.async_configure(
        flow["flow_id"], {CONF_TOKEN: memory_server.token}
    )
    await hass.async_block_till_done()
    assert result["reason"] == "reauth_successful"
    state = hass.states.get(SENSOR)
    assert state is not None
    assert state.state == "0"


def our_log_lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """What the integration and its engine logged (debug lines aside)."""
    return [
        r
        for r in caplog.records
        if r.levelno >= logging.INFO
        and (
            r.name.startswith(INTEGRATION_LOGGER) or r.name.startswith("assist_memory")
        )
    ]


@pytest.mark.parametrize("entry_options", [options(**{CONF_AGENT_ID: AGENT_ENTITY_ID})])
async def test_talking_while_the_server_is_away_logs_it_once(
    hass: HomeAssistant,
    llm: LlmEntities,
    loaded_entry: MockConfigEntry,
    memory_server: MemoryServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    await hass.async_add_executor_job(memory_server.stop)
    caplog.clear()
    for question in ("How does Anna like her coffee?", "And Tom?"):
        await say(hass, question)
    await hass.async_block_till_done()
    # The wrapped agent answered both, without memory.
    assert len(llm.agent.turns) == 2
    logged = [r for r in our_log_lines(caplog) if r.levelno >= logging.WARNING]
    assert len(logged) == 1
    assert memory_server.url in logged[0].getMessage()


async def test_a_poll_finds_the_server_away(
    hass: HomeAssistant,
    loaded_entry: MockConfigEntry,
    memory_server: MemoryServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    await hass.async_add_executor_job(memory_server.stop)
    caplog.clear()
    await tick(hass, 31)
    state = hass.states.get(SENSOR)
    assert state is not None
    assert state.state == STATE_UNAVAILABLE
    (gone,) = our_log_lines(caplog)
    assert gone.levelno == logging.ERROR
    assert (
        f"the memory server at {memory_server.url} is unavailable" in gone.getMessage()
    )
    assert loaded_entry.runtime_data.coordinator.update_interval == RECONNECT_INTERVAL
