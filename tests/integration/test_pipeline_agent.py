"""The memory agent as the conversation agent of the preferred Assist pipeline.

The config flow's last step offers it (on by default) when Home Assistant has Assist
pipelines; the `set_pipeline_agent` service does it at any time. Either way the agent
the pipeline used before becomes the agent the memory agent wraps, and the memory agent
never wraps itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from homeassistant.components import assist_pipeline, conversation
from homeassistant.config_entries import SOURCE_HASSIO, SOURCE_USER, ConfigEntry
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers.service_info.hassio import HassioServiceInfo
from homeassistant.setup import async_setup_component
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry
from pytest_homeassistant_custom_component.typing import WebSocketGenerator

from custom_components.assist_memory.const import (
    CONF_AGENT_ID,
    CONF_PIPELINE_AGENT,
    CONF_STORAGE,
    DOMAIN,
    STORAGE_EMBEDDED,
)
from tests.support.memory_server import MemoryServer

from .agents import AGENT_ENTITY_ID, LlmEntities
from .conversing import MEMORY_AGENT

SERVICE = "set_pipeline_agent"


@pytest.fixture
async def pipelines(hass: HomeAssistant) -> None:
    """Assist pipelines, as in every Home Assistant with `default_config`."""
    assert await async_setup_component(hass, "assist_pipeline", {})
    await hass.async_block_till_done()


def preferred_agent(hass: HomeAssistant) -> str:
    """The conversation agent of the preferred pipeline."""
    return assist_pipeline.async_get_pipeline(hass).conversation_engine


async def use_agent(hass: HomeAssistant, agent_id: str) -> None:
    """Choose the preferred pipeline's agent, as in Settings > Voice assistants."""
    await assist_pipeline.async_update_pipeline(
        hass, assist_pipeline.async_get_pipeline(hass), conversation_engine=agent_id
    )


async def last_step(hass: HomeAssistant) -> dict[str, Any]:
    """The user flow up to its last step (the memories in the config folder)."""
    result = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": SOURCE_USER}
    )
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {"next_step_id": "embedded"}
    )
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "embedded"
    return dict(result)


async def finish(
    hass: HomeAssistant, step: dict[str, Any], answer: dict[str, Any]
) -> ConfigEntry:
    result = await hass.config_entries.flow.async_configure(step["flow_id"], answer)
    await hass.async_block_till_done()
    assert result["type"] is FlowResultType.CREATE_ENTRY
    entry: ConfigEntry = result["result"]
    return entry


def offered(step: dict[str, Any]) -> dict[str, Any]:
    """The pipeline choice of a form step: {name: default}, {} when not offered."""
    schema = step["data_schema"]
    if schema is None:
        return {}
    return {
        str(key): key.default()
        for key in schema.schema
        if str(key) == CONF_PIPELINE_AGENT
    }


async def run_pipeline(
    hass: HomeAssistant, hass_ws_client: WebSocketGenerator, text: str
) -> str:
    """Type `text` into Assist (the preferred pipeline, from the intent stage)."""
    client = await hass_ws_client(hass)
    await client.send_json_auto_id(
        {
            "type": "assist_pipeline/run",
            "start_stage": "intent",
            "end_stage": "intent",
            "input": {"text": text},
        }
    )
    assert (await client.receive_json())["success"]
    while True:
        event = (await client.receive_json())["event"]
        if event["type"] == "intent-end":
            speech: str = event["data"]["intent_output"]["response"]["speech"]["plain"][
                "speech"
            ]
            return speech
        assert event["type"] != "error", event


@pytest.mark.usefixtures("pipelines")
async def test_the_flow_makes_the_memory_agent_the_pipeline_agent(
    hass: HomeAssistant, hass_ws_client: WebSocketGenerator
) -> None:
    assert preferred_agent(hass) == conversation.HOME_ASSISTANT_AGENT
    step = await last_step(hass)
    assert offered(step) == {CONF_PIPELINE_AGENT: True}
    entry = await finish(hass, step, {CONF_PIPELINE_AGENT: True})
    assert preferred_agent(hass) == MEMORY_AGENT
    # The agent the pipeline used answers now, behind the memory agent.
    assert entry.options[CONF_AGENT_ID] == conversation.HOME_ASSISTANT_AGENT
    # Done once: the choice is not kept in the entry.
    assert entry.data == {CONF_STORAGE: STORAGE_EMBEDDED}
    said = await run_pipeline(
        hass, hass_ws_client, "Remember that the spare key is under the flowerpot"
    )
    assert said == "OK, I'll remember that."
    said = await run_pipeline(
        hass, hass_ws_client, "What do you remember about the spare key?"
    )
    assert said == "Here is what I remember: The spare key is under the flowerpot."


@pytest.mark.usefixtures("pipelines")
async def test_the_flow_wraps_the_agent_the_pipeline_used(
    hass: HomeAssistant, llm: LlmEntities
) -> None:
    await use_agent(hass, AGENT_ENTITY_ID)
    entry = await finish(hass, await last_step(hass), {})
    assert preferred_agent(hass) == MEMORY_AGENT
    assert entry.options[CONF_AGENT_ID] == AGENT_ENTITY_ID


@pytest.mark.usefixtures("pipelines")
async def test_the_flow_can_leave_the_pipeline_alone(hass: HomeAssistant) -> None:
    entry = await finish(hass, await last_step(hass), {CONF_PIPELINE_AGENT: False})
    assert preferred_agent(hass) == conversation.HOME_ASSISTANT_AGENT
    assert CONF_AGENT_ID not in entry.options
    assert entry.data == {CONF_STORAGE: STORAGE_EMBEDDED}


@pytest.mark.usefixtures("pipelines")
async def test_a_reload_does_not_take_the_pipeline_back(hass: HomeAssistant) -> None:
    entry = await finish(hass, await last_step(hass), {})
    assert preferred_agent(hass) == MEMORY_AGENT
    # The person goes back to Home Assistant's own agent: that choice stays.
    await use_agent(hass, conversation.HOME_ASSISTANT_AGENT)
    assert await hass.config_entries.async_reload(entry.entry_id)
    await hass.async_block_till_done()
    assert preferred_agent(hass) == conversation.HOME_ASSISTANT_AGENT


async def test_without_assist_pipelines_the_flow_does_not_offer_it(
    hass: HomeAssistant,
) -> None:
    step = await last_step(hass)
    assert offered(step) == {}
    entry = await finish(hass, step, {})
    assert entry.data == {CONF_STORAGE: STORAGE_EMBEDDED}
    with pytest.raises(HomeAssistantError) as raised:
        await hass.services.async_call(
            DOMAIN, SERVICE, {}, blocking=True, return_response=True
        )
    assert raised.value.translation_key == "pipelines_unavailable"


@pytest.mark.usefixtures("pipelines")
async def test_the_service_sets_the_pipeline_once_and_never_wraps_itself(
    hass: HomeAssistant, loaded_entry: MockConfigEntry, llm: LlmEntities
) -> None:
    await use_agent(hass, AGENT_ENTITY_ID)
    answer = await hass.services.async_call(
        DOMAIN, SERVICE, {}, blocking=True, return_response=True
    )
    pipeline = assist_pipeline.async_get_pipeline(hass)
    assert answer == {
        "pipeline_id": pipeline.id,
        "pipeline_name": pipeline.name,
        "agent_id": MEMORY_AGENT,
        "wrapped_agent_id": AGENT_ENTITY_ID,
        "changed": True,
    }
    assert preferred_agent(hass) == MEMORY_AGENT
    assert loaded_entry.options[CONF_AGENT_ID] == AGENT_ENTITY_ID
    # Again: nothing changes, and the memory agent does not wrap itself.
    answer = await hass.services.async_call(
        DOMAIN, SERVICE, {}, blocking=True, return_response=True
    )
    assert answer is not None
    assert answer["changed"] is False
    assert answer["wrapped_agent_id"] == AGENT_ENTITY_ID
    assert preferred_agent(hass) == MEMORY_AGENT
    assert loaded_entry.options[CONF_AGENT_ID] == AGENT_ENTITY_ID


async def test_a_choice_that_cannot_be_done_is_dropped_with_a_warning(
    hass: HomeAssistant, caplog: pytest.LogCaptureFixture
) -> None:
    """The flow asked for it, but Assist pipelines are gone by the first setup."""
    entry = MockConfigEntry(
        domain=DOMAIN,
        title="Assist Memory",
        data={CONF_STORAGE: STORAGE_EMBEDDED, CONF_PIPELINE_AGENT: True},
    )
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    assert "choose it in Settings > Voice assistants" in caplog.text
    assert entry.data == {CONF_STORAGE: STORAGE_EMBEDDED}


@pytest.mark.usefixtures("pipelines")
async def test_a_disabled_memory_agent_is_not_put_in_the_pipeline(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    er.async_get(hass).async_update_entity(
        MEMORY_AGENT, disabled_by=er.RegistryEntryDisabler.USER
    )
    assert await hass.config_entries.async_reload(loaded_entry.entry_id)
    await hass.async_block_till_done()
    with pytest.raises(HomeAssistantError) as raised:
        await hass.services.async_call(
            DOMAIN, SERVICE, {}, blocking=True, return_response=True
        )
    assert raised.value.translation_key == "memory_agent_unavailable"
    assert preferred_agent(hass) == conversation.HOME_ASSISTANT_AGENT


@pytest.mark.usefixtures("pipelines", "socket_enabled")
async def test_the_add_on_confirmation_offers_it_too(
    hass: HomeAssistant, tmp_path: Path
) -> None:
    with MemoryServer(tmp_path / "server") as server:
        result = await hass.config_entries.flow.async_init(
            DOMAIN,
            context={"source": SOURCE_HASSIO},
            data=HassioServiceInfo(
                config={
                    "host": "127.0.0.1",
                    "port": server.port,
                    "token": server.token,
                },
                name="Assist Memory",
                slug="local_assist_memory",
                uuid="c0ffee",
            ),
        )
        assert result["step_id"] == "hassio_confirm"
        assert offered(dict(result)) == {CONF_PIPELINE_AGENT: True}
        entry = await finish(hass, dict(result), {})
        assert preferred_agent(hass) == MEMORY_AGENT
        assert CONF_PIPELINE_AGENT not in entry.data
        assert await hass.config_entries.async_unload(entry.entry_id)


@pytest.mark.usefixtures("pipelines")
async def test_another_memory_agent_in_the_pipeline_is_not_wrapped(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    """The pipeline names the memory agent of an entry set up earlier."""
    earlier = er.async_get(hass).async_get_or_create(
        "conversation", DOMAIN, "earlier_entry_agent"
    )
    await use_agent(hass, earlier.entity_id)
    answer = await hass.services.async_call(
        DOMAIN, SERVICE, {}, blocking=True, return_response=True
    )
    assert answer is not None
    assert answer["wrapped_agent_id"] == conversation.HOME_ASSISTANT_AGENT
    assert preferred_agent(hass) == MEMORY_AGENT
    assert CONF_AGENT_ID not in loaded_entry.options
