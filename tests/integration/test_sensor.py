"""The memory count sensor follows every change."""

from __future__ import annotations

from datetime import timedelta

from homeassistant.core import HomeAssistant
from homeassistant.helpers import device_registry as dr, entity_registry as er
from homeassistant.util import dt as dt_util
import pytest
from pytest_homeassistant_custom_component.common import (
    MockConfigEntry,
    async_fire_time_changed,
)

from custom_components.assist_memory.const import (
    CONF_EMBEDDING_LOCAL,
    CONF_MAX_CONTENT_LENGTH,
    CONF_MAX_ITEMS,
    DOMAIN,
)
from custom_components.assist_memory.coordinator import REFRESH_COOLDOWN

pytestmark = pytest.mark.usefixtures("loaded_entry")
ENTITY_ID = "sensor.assist_memory_memories"


async def test_sensor_counts_memories(hass: HomeAssistant) -> None:
    state = hass.states.get(ENTITY_ID)
    assert state is not None
    assert state.state == "0"
    assert state.attributes["max_items"] == 100
    assert state.attributes["unit_of_measurement"] == "memories"
    assert state.attributes["state_class"] == "measurement"

    response = await hass.services.async_call(
        DOMAIN,
        "add",
        {"content": "Anna likes tulips"},
        blocking=True,
        return_response=True,
    )
    await hass.async_block_till_done()
    state = hass.states.get(ENTITY_ID)
    assert state is not None
    assert state.state == "1"
    first_change = state.attributes["last_changed"]
    assert first_change is not None

    await hass.services.async_call(
        DOMAIN, "delete", {"id": response["memory"]["id"]}, blocking=True
    )
    await after_cooldown(hass)
    state = hass.states.get(ENTITY_ID)
    assert state is not None
    assert state.state == "0"
    assert state.attributes["last_changed"] >= first_change


async def test_sensor_belongs_to_a_service_device(
    hass: HomeAssistant,
    entity_registry: er.EntityRegistry,
    device_registry: dr.DeviceRegistry,
) -> None:
    entity = entity_registry.async_get(ENTITY_ID)
    assert entity is not None
    assert entity.translation_key == "memories"
    device = device_registry.async_get(entity.device_id or "")
    assert device is not None
    assert device.entry_type is dr.DeviceEntryType.SERVICE
    assert device.name == "Assist Memory"


async def after_cooldown(
    hass: HomeAssistant, cooldown: float = REFRESH_COOLDOWN
) -> None:
    await hass.async_block_till_done()
    later = dt_util.utcnow() + timedelta(seconds=cooldown + 1)
    async_fire_time_changed(hass, later)
    await hass.async_block_till_done()


# About the debounced refresh alone: while memories are embedded, search by meaning
# also reads the counts every few seconds (its progress), which this frozen clock
# would interleave with the burst.
@pytest.mark.parametrize(
    "entry_options",
    [{CONF_MAX_ITEMS: 100, CONF_MAX_CONTENT_LENGTH: 2000, CONF_EMBEDDING_LOCAL: False}],
)
async def test_a_burst_of_changes_reads_the_counts_twice(
    hass: HomeAssistant, config_entry: MockConfigEntry, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend = config_entry.runtime_data.backend
    reads = 0
    stats = backend.stats

    async def counted_stats() -> object:
        nonlocal reads
        reads += 1
        return await stats()

    monkeypatch.setattr(backend, "stats", counted_stats)
    # A cooldown longer than the burst can take, however slow the machine is.
    debouncer = config_entry.runtime_data.coordinator._debounced_refresh
    monkeypatch.setattr(debouncer, "cooldown", 3600)
    for n in range(20):
        await hass.services.async_call(
            DOMAIN, "add", {"content": f"Memory number {n}"}, blocking=True
        )
    await after_cooldown(hass, 3600)

    state = hass.states.get(ENTITY_ID)
    assert state is not None
    assert state.state == "20"
    # At the burst's start, and once after it: not once per change.
    assert reads == 2


async def test_embedded_counts_are_pushed_not_polled(
    hass: HomeAssistant,
    config_entry: MockConfigEntry,
    entity_registry: er.EntityRegistry,
) -> None:
    coordinator = config_entry.runtime_data.coordinator
    assert coordinator.update_interval is None
    # A change that bypasses the services (the memory manager, the engine itself).
    await config_entry.runtime_data.backend.add("Anna likes tulips")
    await hass.async_block_till_done()
    state = hass.states.get(ENTITY_ID)
    assert state is not None
    assert state.state == "1"
    entity = entity_registry.async_get(ENTITY_ID)
    assert entity is not None
    assert entity.unique_id == f"{config_entry.entry_id}_memories"
