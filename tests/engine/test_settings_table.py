"""The settings table is the one place a memory setting is defined.

The engine's settings objects, the REST config and its OpenAPI schema and the
environment take their defaults, bounds and names from it; one function applies a
change to a running backend (Home Assistant and the memory server both call it).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest

from custom_components.assist_memory.engine.backend.configure import apply_settings
from custom_components.assist_memory.engine.backend.local import LocalBackend
from custom_components.assist_memory.engine.config import (
    DEFAULT_CONFIG,
    SETTINGS,
    SETTINGS_BY_KEY,
    AnySetting,
    InvalidConfigError,
    config_changes,
    config_from_env,
    config_view,
)
from custom_components.assist_memory.engine.conversation.compose import DEFAULT_BUDGET
from custom_components.assist_memory.engine.conversation.retention import (
    RetentionSettings,
)
from custom_components.assist_memory.engine.conversation.turn_settings import (
    LearnSettings,
    TurnSettings,
)
from custom_components.assist_memory.engine.http.openapi import openapi_document
from custom_components.assist_memory.engine.memory.compaction import DEFAULT_THRESHOLD
from custom_components.assist_memory.engine.storage.models import (
    DEFAULT_MAX_CONTENT_LENGTH,
)
from custom_components.assist_memory.engine.storage.settings import StoreSettings

from .test_compaction import FakeLlm


def other_value(setting: AnySetting) -> bool | int | str:
    """An allowed value that is not the default."""
    default: bool | int | str = setting.default
    maximum: int | None = setting.maximum
    if isinstance(default, bool):
        return not default
    if isinstance(default, int):
        assert maximum is not None
        return maximum
    choices: tuple[str, ...] = setting.choices
    return next(choice for choice in choices if choice != default)


CHANGED = {setting.key: other_value(setting) for setting in SETTINGS}


def test_every_setting_is_defined_once() -> None:
    assert len({s.key for s in SETTINGS}) == len({s.name for s in SETTINGS})
    assert len(SETTINGS_BY_KEY) == len(SETTINGS)
    for setting in SETTINGS:
        assert setting.description, setting.key
        assert setting.check(setting.default) == setting.default
        if isinstance(setting.default, int) and not isinstance(setting.default, bool):
            assert setting.minimum is not None, setting.key
            assert setting.maximum is not None, setting.key


def test_the_settings_objects_take_their_defaults_from_the_table() -> None:
    # TurnSettings() leaves the number of memories to the store (its own default).
    assert replace(TurnSettings(), rag_top_n=5) == TurnSettings.from_options({})
    for built in (
        TurnSettings.from_options({}),
        LearnSettings(),
        LearnSettings.from_options({}),
        StoreSettings(),
        StoreSettings.from_options({}),
        RetentionSettings(),
        RetentionSettings.from_options({}),
    ):
        assert built == type(built).from_options(DEFAULT_CONFIG)
    assert DEFAULT_CONFIG["memory_budget"] == DEFAULT_BUDGET
    assert DEFAULT_CONFIG["compaction_threshold"] == DEFAULT_THRESHOLD
    assert DEFAULT_CONFIG["max_content_length"] == DEFAULT_MAX_CONTENT_LENGTH


def test_the_settings_objects_are_built_from_stored_settings() -> None:
    assert TurnSettings.from_options(CHANGED) == TurnSettings(
        enable_user_profile=False,
        session_summary_limit=20,
        memory_budget=20_000,
        rag_top_n=50,
        context_limit=200,
    )
    assert LearnSettings.from_options(CHANGED) == LearnSettings(
        min_interval=timedelta(seconds=3600),
        min_messages=100,
        atomic_content_max_length=2000,
        context_size=1_000_000,
        flush_threshold=1.0,
    )
    assert StoreSettings.from_options(CHANGED) == StoreSettings(
        max_items=1_000_000,
        max_content_length=100_000,
        eviction_threshold=1_000_000,
        retrieval_limit=50,
    )
    assert RetentionSettings.from_options(CHANGED) == RetentionSettings(3650, 3650)


def test_rest_config_round_trip() -> None:
    by_name = {SETTINGS_BY_KEY[key].name: value for key, value in CHANGED.items()}
    assert config_changes(by_name) == CHANGED
    assert config_view(CHANGED) == by_name
    assert config_view({}) == {s.name: s.default for s in SETTINGS}


def test_openapi_config_schema_is_the_table() -> None:
    document = openapi_document(lambda path: path)
    schema = document["components"]["schemas"]["Config"]
    assert set(schema["properties"]) == {s.name for s in SETTINGS}
    for setting in SETTINGS:
        described = schema["properties"][setting.name]
        assert described["default"] == setting.default
        assert described["description"] == setting.description
        assert described.get("minimum") == setting.minimum
        assert described.get("maximum") == setting.maximum
        assert described.get("x-unit") == setting.unit


def test_every_setting_is_read_from_its_environment_variable() -> None:
    env = {setting.env_name: f" {CHANGED[setting.key]} " for setting in SETTINGS}
    assert config_from_env(env) == CHANGED
    assert config_from_env({s.env_name: " " for s in SETTINGS}) == {}
    assert config_from_env({"MEMORY_RETRIEVAL_LIMIT": "7"}) == {"rag_top_n": 7}
    assert StoreSettings.from_env({"MEMORY_MAX_ITEMS": "7"}).max_items == 7


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"MEMORY_MAX_ITEMS": "lots"}, "MEMORY_MAX_ITEMS: maxItems must be a whole"),
        ({"MEMORY_MAX_ITEMS": "-1"}, "MEMORY_MAX_ITEMS: maxItems must be from 0 to"),
        ({"MEMORY_AUTO_EXTRACT": "maybe"}, "MEMORY_AUTO_EXTRACT: autoExtract must be"),
        ({"MEMORY_PROMPT_MODE": "loud"}, "promptMode must be one of system, prefix"),
    ],
)
def test_a_bad_environment_variable_is_named(env: dict[str, str], message: str) -> None:
    with pytest.raises(InvalidConfigError) as caught:
        config_from_env(env)
    assert message in caught.value.message


async def test_applying_settings_to_a_running_backend(tmp_path: Path) -> None:
    backend, _ = await LocalBackend.open(tmp_path / "memories.json")
    llm = FakeLlm()
    try:
        session = "kitchen"
        await backend.begin_turn(session_id=session, text="Hello", user_id=None)
        await apply_settings(backend, CHANGED, compaction_llm=llm)
        stats = await backend.stats()
        assert (stats.max_items, stats.retrieval_limit) == (1_000_000, 50)
        assert backend.compaction_enabled
        assert backend.compactor.threshold == 100_000
        assert await backend.working_memory(session) is not None
        await apply_settings(backend, {}, compaction_llm=llm)
        assert not backend.compaction_enabled  # off by default
        assert (await backend.stats()).max_items == DEFAULT_CONFIG["max_items"]
    finally:
        await backend.close()
