"""Every option, changed through the options flow, changes what happens next.

Each test does something, changes one option as a person would (the options flow,
which applies it to the running memory), does the same again and shows the difference. Some options
are shown elsewhere (`max_items` in test_config_flow.py, the embedding endpoint in
test_retrieval.py, `memory_enabled` in test_memory_switch.py); `EFFECT_TESTS` lists
where each one is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from homeassistant.components import conversation
from homeassistant.config_entries import ConfigEntry
from homeassistant.core import Context, HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.exceptions import ServiceValidationError
from homeassistant.helpers import llm as llm_helper
import pytest

from custom_components.assist_memory.config_flow import OPTION_STEPS
from custom_components.assist_memory.const import (
    CONF_AGENT_ID,
    CONF_ATOMIC_CONTENT_MAX_LENGTH,
    CONF_AUTO_EXTRACT,
    CONF_COMPACTION_ENABLED,
    CONF_COMPACTION_THRESHOLD,
    CONF_CONTEXT_LIMIT,
    CONF_CONTEXT_SIZE,
    CONF_CONVERSATION_RETENTION_DAYS,
    CONF_DAILY_LOG_RETENTION_DAYS,
    CONF_EMBEDDING_API_KEY,
    CONF_EMBEDDING_LOCAL,
    CONF_EMBEDDING_MODEL,
    CONF_EMBEDDING_URL,
    CONF_ENABLE_AGENTIC_SEARCH,
    CONF_ENABLE_USER_PROFILE,
    CONF_EVICTION_THRESHOLD,
    CONF_EXTRACT_MIN_INTERVAL,
    CONF_EXTRACT_MIN_MESSAGES,
    CONF_EXTRACTOR_ENTITY,
    CONF_FLUSH_THRESHOLD,
    CONF_LEARN_FROM_OTHER_AGENTS,
    CONF_MAX_CONTENT_LENGTH,
    CONF_MAX_ITEMS,
    CONF_MEMORY_BUDGET,
    CONF_MEMORY_ENABLED,
    CONF_PROMPT_MODE,
    CONF_RAG_TOP_N,
    CONF_SAY_LEARNT,
    CONF_SESSION_SUMMARY_LIMIT,
    CONF_VOICE_FORGET_HOUSEHOLD,
    DOMAIN,
    VOICE_FORGET_ANYONE,
)
from custom_components.assist_memory.engine.conversation.compose import BLOCK_START

from .agents import AGENT_ENTITY_ID, TASK_ENTITY_ID, LlmEntities
from .conftest import configure_options
from .conversing import (
    EAGER,
    add,
    contents,
    earlier_messages,
    forget_chat_logs,
    layer,
    options,
    say,
    speech,
)

# Where the effect of each option in the options flow is shown.
EFFECT_TESTS: dict[str, str] = {
    CONF_MAX_ITEMS: "test_config_flow.py::test_options_flow_changes_limits_at_once",
    CONF_MAX_CONTENT_LENGTH: "test_options_effects.py::test_max_content_length",
    CONF_EVICTION_THRESHOLD: "test_options_effects.py::test_eviction_threshold",
    CONF_MEMORY_ENABLED: "test_memory_switch.py::test_switching_memory_on_again",
    CONF_AGENT_ID: "test_options_effects.py::test_agent_id",
    CONF_PROMPT_MODE: "test_options_effects.py::test_prompt_mode",
    CONF_MEMORY_BUDGET: "test_options_effects.py::test_memory_budget",
    CONF_ENABLE_USER_PROFILE: "test_options_effects.py::test_enable_user_profile",
    CONF_SESSION_SUMMARY_LIMIT: "test_options_effects.py::test_session_summary_limit",
    CONF_ENABLE_AGENTIC_SEARCH: "test_options_effects.py::test_enable_agentic_search",
    CONF_AUTO_EXTRACT: "test_options_effects.py::test_auto_extract",
    CONF_EXTRACTOR_ENTITY: "test_options_effects.py::test_extractor_entity",
    CONF_EXTRACT_MIN_INTERVAL: "test_options_effects.py::test_extract_min_interval",
    CONF_EXTRACT_MIN_MESSAGES: "test_options_effects.py::test_extract_min_messages",
    CONF_ATOMIC_CONTENT_MAX_LENGTH: (
        "test_options_effects.py::test_atomic_content_max_length"
    ),
    CONF_CONTEXT_SIZE: "test_options_effects.py::test_flush_options",
    CONF_FLUSH_THRESHOLD: "test_options_effects.py::test_flush_options",
    CONF_CONTEXT_LIMIT: "test_options_effects.py::test_context_limit",
    CONF_LEARN_FROM_OTHER_AGENTS: (
        "test_options_effects.py::test_learn_from_other_agents"
    ),
    CONF_RAG_TOP_N: "test_options_effects.py::test_rag_top_n",
    CONF_COMPACTION_ENABLED: (
        "test_compaction.py::test_compaction_options_through_the_flow"
    ),
    CONF_COMPACTION_THRESHOLD: (
        "test_compaction.py::test_compaction_options_through_the_flow"
    ),
    CONF_EMBEDDING_URL: "test_retrieval.py::test_options_flow_sets_up_embeddings",
    CONF_EMBEDDING_MODEL: "test_retrieval.py::test_options_flow_sets_up_embeddings",
    CONF_EMBEDDING_API_KEY: "test_retrieval.py::test_options_flow_sets_up_embeddings",
    CONF_EMBEDDING_LOCAL: "test_local_model.py::test_the_options_flow_turns_it_off_and_on",
    CONF_CONVERSATION_RETENTION_DAYS: (
        "test_conversation_retention.py"
        "::test_old_conversations_and_daily_logs_go_by_themselves"
    ),
    CONF_DAILY_LOG_RETENTION_DAYS: (
        "test_conversation_retention.py"
        "::test_old_conversations_and_daily_logs_go_by_themselves"
    ),
    CONF_VOICE_FORGET_HOUSEHOLD: "test_options_effects.py::test_voice_forget_household",
    CONF_SAY_LEARNT: "test_options_effects.py::test_say_learnt",
}
WITH_AGENT = options(**{CONF_AGENT_ID: AGENT_ENTITY_ID})
# Learning only when the context fills (the pre-compaction flush).
FLUSH_ONLY = {CONF_EXTRACT_MIN_INTERVAL: 3600, CONF_EXTRACT_MIN_MESSAGES: 100}


def test_every_option_has_an_effect_test() -> None:
    in_the_flow = {key for fields in OPTION_STEPS.values() for key, _ in fields}
    assert set(EFFECT_TESTS) == in_the_flow
    here = Path(__file__).parent
    for where in EFFECT_TESTS.values():
        file, name = where.split("::")
        assert f"def {name}(" in (here / file).read_text(encoding="utf-8"), where


async def change(hass: HomeAssistant, entry: ConfigEntry, **values: Any) -> None:
    """Change options through the options flow, as a person would.

    Each part holding one of them is submitted with its other fields as they are.
    """
    unknown = set(values)
    for step, fields in OPTION_STEPS.items():
        keys = {key for key, _ in fields}
        if not keys & values.keys():
            continue
        unknown -= keys
        current = {key: entry.options[key] for key in keys if key in entry.options}
        changed = {key: value for key, value in values.items() if key in keys}
        result = await configure_options(hass, entry, step, {**current, **changed})
        assert result["type"] is FlowResultType.CREATE_ENTRY
    assert not unknown
    assert {key: entry.options.get(key) for key in values} == values


async def memory_lines(hass: HomeAssistant, llm: LlmEntities, text: str) -> list[str]:
    """Say `text` in a new conversation; the memories the wrapped agent got."""
    await say(hass, text)
    return layer(llm.agent.turns[-1].system_prompt, "Relevant Past Context")


# -- the store -----------------------------------------------------------------------


async def test_max_content_length(
    hass: HomeAssistant, loaded_entry: ConfigEntry
) -> None:
    await add(hass, "The spare key is under the mat")  # 30 characters
    await change(hass, loaded_entry, **{CONF_MAX_CONTENT_LENGTH: 20})
    with pytest.raises(ServiceValidationError):
        await add(hass, "The bike key is in the blue bowl")
    await add(hass, "The cat is Miso")
    assert await contents(hass) == ["The cat is Miso", "The spare key is under the mat"]


async def test_eviction_threshold(
    hass: HomeAssistant, loaded_entry: ConfigEntry
) -> None:
    await add(hass, "Maybe the bins go out on Monday", confidence=0.2)
    await add(hass, "Anna takes her coffee black", confidence=0.9)
    await add(hass, "Tom drinks green tea", confidence=0.9)
    assert len(await contents(hass)) == 3
    await change(hass, loaded_entry, **{CONF_EVICTION_THRESHOLD: 2})
    await add(hass, "The cat is called Miso", confidence=0.9)
    kept = await contents(hass)
    assert len(kept) == 2
    assert "Maybe the bins go out on Monday" not in kept
    assert "The cat is called Miso" in kept


@pytest.mark.parametrize("entry_options", [WITH_AGENT])
async def test_rag_top_n(
    hass: HomeAssistant, llm: LlmEntities, loaded_entry: ConfigEntry
) -> None:
    for n in range(6):
        await add(hass, f"tea fact {n}")
    assert len(await memory_lines(hass, llm, "tea")) == 5
    await change(hass, loaded_entry, **{CONF_RAG_TOP_N: 2})
    assert len(await memory_lines(hass, llm, "tea")) == 2


# -- the memory agent ----------------------------------------------------------------


async def test_agent_id(
    hass: HomeAssistant, llm: LlmEntities, loaded_entry: ConfigEntry
) -> None:
    await say(hass, "Turn on the kitchen light")
    assert llm.agent.turns == []  # Home Assistant's intent agent answered
    await change(hass, loaded_entry, **{CONF_AGENT_ID: AGENT_ENTITY_ID})
    result = await say(hass, "Turn on the kitchen light")
    assert speech(result).strip() == "echo: Turn on the kitchen light"
    assert len(llm.agent.turns) == 1


@pytest.mark.parametrize("entry_options", [WITH_AGENT])
async def test_prompt_mode(
    hass: HomeAssistant, llm: LlmEntities, loaded_entry: ConfigEntry
) -> None:
    await add(hass, "Anna takes her coffee black")
    question = "How does Anna take her coffee?"
    await say(hass, question)
    await change(hass, loaded_entry, **{CONF_PROMPT_MODE: "prefix"})
    await say(hass, question)
    in_system, in_front = llm.agent.turns
    assert in_system.text == question
    assert "- [fact] Anna takes her coffee black" in in_system.system_prompt
    assert in_front.text == (
        f"<long_term_memory>\n- Anna takes her coffee black\n</long_term_memory>\n\n"
        f"{question}"
    )
    assert BLOCK_START not in in_front.system_prompt


@pytest.mark.parametrize("entry_options", [WITH_AGENT])
async def test_memory_budget(
    hass: HomeAssistant, llm: LlmEntities, loaded_entry: ConfigEntry
) -> None:
    for n in range(5):
        await add(hass, f"Garden note {n}: " + "the roses need feeding in spring " * 4)
    assert len(await memory_lines(hass, llm, "garden roses")) == 5
    await change(hass, loaded_entry, **{CONF_MEMORY_BUDGET: 400})
    assert 0 < len(await memory_lines(hass, llm, "garden roses")) < 5


async def test_voice_forget_household(
    hass: HomeAssistant, loaded_entry: ConfigEntry
) -> None:
    # A voice device nobody is known at: not an administrator.
    await add(hass, "The spare key is under the mat")
    refused = await say(hass, "Forget the spare key")
    assert "administrator" in speech(refused)
    await change(
        hass, loaded_entry, **{CONF_VOICE_FORGET_HOUSEHOLD: VOICE_FORGET_ANYONE}
    )
    asked = await say(hass, "Forget the spare key")
    await say(hass, "yes", asked.conversation_id)
    assert await contents(hass) == []


@pytest.mark.parametrize("entry_options", [WITH_AGENT])
async def test_say_learnt(
    hass: HomeAssistant, llm: LlmEntities, loaded_entry: ConfigEntry
) -> None:
    # Off by default: the LLM's answer as it was; learnt later, silently.
    quiet = await say(hass, "My son Leo plays football on Saturdays.")
    assert "remember" not in speech(quiet)
    await change(hass, loaded_entry, **{CONF_SAY_LEARNT: True})
    told = await say(hass, "My daughter Lily loves dinosaurs.")
    assert speech(told).endswith(
        "I'll remember that: Your daughter Lily loves dinosaurs."
    )
    assert "The user's daughter Lily loves dinosaurs" in await contents(hass)
    # Nothing learnt, nothing said.
    asked = await say(hass, "How are you today?")
    assert "remember" not in speech(asked)


@pytest.mark.parametrize("entry_options", [WITH_AGENT])
async def test_enable_user_profile(
    hass: HomeAssistant, llm: LlmEntities, loaded_entry: ConfigEntry
) -> None:
    await loaded_entry.runtime_data.backend.write_profile(
        "household", "# Profile\n\n## Reply style\n- Keep answers short\n"
    )
    await say(hass, "Hello")
    await change(hass, loaded_entry, **{CONF_ENABLE_USER_PROFILE: False})
    await say(hass, "Hello")
    with_profile, without = llm.agent.turns
    assert layer(with_profile.system_prompt, "Long-term Memory") == [
        "- Reply style: Keep answers short"
    ]
    assert "Keep answers short" not in without.system_prompt


@pytest.mark.parametrize("entry_options", [WITH_AGENT])
async def test_session_summary_limit(
    hass: HomeAssistant, llm: LlmEntities, loaded_entry: ConfigEntry
) -> None:
    for text in ("Plan the garden party", "Book the Thai place", "Fix the boiler"):
        await say(hass, text)
    await say(hass, "Hello")
    assert len(layer(llm.agent.turns[-1].system_prompt, "Recent Conversations")) == 3
    await change(hass, loaded_entry, **{CONF_SESSION_SUMMARY_LIMIT: 1})
    await say(hass, "Hello again")
    (newest,) = layer(llm.agent.turns[-1].system_prompt, "Recent Conversations")
    assert newest.endswith(": Hello")  # what was said; the agent's echo is not kept


async def test_enable_agentic_search(
    hass: HomeAssistant, loaded_entry: ConfigEntry
) -> None:
    async def tools() -> list[str]:
        context = llm_helper.LLMContext(
            platform="test",
            context=Context(),
            language="en",
            assistant="conversation",
            device_id=None,
        )
        api = await llm_helper.async_get_api(hass, DOMAIN, context)
        return [tool.name for tool in api.tools]

    assert "search_memory_by_time" not in await tools()
    await change(hass, loaded_entry, **{CONF_ENABLE_AGENTIC_SEARCH: True})
    assert "search_memory_by_time" in await tools()


# -- learning ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "entry_options", [options(**{**WITH_AGENT, **EAGER, CONF_AUTO_EXTRACT: False})]
)
async def test_auto_extract(
    hass: HomeAssistant, llm: LlmEntities, loaded_entry: ConfigEntry
) -> None:
    await say(hass, "My favourite colour is blue")
    assert await contents(hass) == []
    await change(hass, loaded_entry, **{CONF_AUTO_EXTRACT: True})
    await say(hass, "My favourite food is pizza")
    assert await contents(hass) == ["The user's favourite food is pizza"]


@pytest.mark.parametrize("entry_options", [options(**{**WITH_AGENT, **EAGER})])
async def test_extractor_entity(
    hass: HomeAssistant, llm: LlmEntities, loaded_entry: ConfigEntry
) -> None:
    llm.task.answer = {
        "facts": [{"content": "Anna prefers oat milk", "category": "preference"}]
    }
    await say(hass, "Anna only drinks oat milk these days")
    assert llm.task.instructions == []  # learnt without the AI Task
    assert await contents(hass) == ["Anna only drinks oat milk"]
    await change(hass, loaded_entry, **{CONF_EXTRACTOR_ENTITY: TASK_ENTITY_ID})
    await say(hass, "Anna only drinks oat milk these days")
    assert len(llm.task.instructions) == 1
    assert "Anna prefers oat milk" in await contents(hass)


@pytest.mark.parametrize(
    "entry_options",
    [options(**{**WITH_AGENT, **EAGER, CONF_EXTRACT_MIN_INTERVAL: 3600})],
)
async def test_extract_min_interval(
    hass: HomeAssistant, llm: LlmEntities, loaded_entry: ConfigEntry
) -> None:
    # The first extraction of a conversation does not wait; the next one does.
    first = await say(hass, "My favourite colour is blue")
    await say(hass, "My favourite food is pizza", first.conversation_id)
    assert len(await contents(hass)) == 1
    await change(hass, loaded_entry, **{CONF_EXTRACT_MIN_INTERVAL: 0})
    second = await say(hass, "My car is a red Golf")
    await say(hass, "My dog is called Rex", second.conversation_id)
    assert "The user's dog is called Rex" in await contents(hass)


@pytest.mark.parametrize(
    "entry_options", [options(**{**WITH_AGENT, CONF_EXTRACT_MIN_INTERVAL: 0})]
)
async def test_extract_min_messages(
    hass: HomeAssistant, llm: LlmEntities, loaded_entry: ConfigEntry
) -> None:
    await say(hass, "My favourite colour is blue")  # 2 messages, 4 needed
    assert await contents(hass) == []
    await change(hass, loaded_entry, **{CONF_EXTRACT_MIN_MESSAGES: 2})
    await say(hass, "My favourite food is pizza")
    assert await contents(hass) == ["The user's favourite food is pizza"]


@pytest.mark.parametrize(
    "entry_options",
    [options(**{**WITH_AGENT, **EAGER, CONF_EXTRACTOR_ENTITY: TASK_ENTITY_ID})],
)
async def test_atomic_content_max_length(
    hass: HomeAssistant, llm: LlmEntities, loaded_entry: ConfigEntry
) -> None:
    def answer(*facts: str) -> None:
        llm.task.answer = {
            "facts": [{"content": fact, "category": "preference"} for fact in facts]
        }

    long_fact = "Anna " + "really " * 15 + "likes oat milk"  # 124 characters
    answer(long_fact)
    await say(hass, "Anna only drinks oat milk these days")
    assert await contents(hass) == [long_fact]
    await change(hass, loaded_entry, **{CONF_ATOMIC_CONTENT_MAX_LENGTH: 100})
    answer(long_fact.replace("Anna", "Tom"), "Tom likes green tea")
    await say(hass, "Tom only drinks green tea")
    assert await contents(hass) == [long_fact, "Tom likes green tea"]


@pytest.mark.parametrize(
    ("entry_options", "changes"),
    [
        (options(**{**WITH_AGENT, **FLUSH_ONLY}), {CONF_CONTEXT_SIZE: 800}),
        (
            options(
                **{
                    **WITH_AGENT,
                    **FLUSH_ONLY,
                    CONF_CONTEXT_SIZE: 1000,
                    CONF_FLUSH_THRESHOLD: 100,
                }
            ),
            {CONF_FLUSH_THRESHOLD: 50},
        ),
    ],
    ids=["context_size", "flush_threshold"],
)
async def test_flush_options(
    hass: HomeAssistant,
    llm: LlmEntities,
    loaded_entry: ConfigEntry,
    changes: dict[str, int],
) -> None:
    # About 700 tokens in the chat log: 9 % of 8000, 70 % of 1000, 88 % of 800.
    prompt = "Be kind. " * 300
    await say(hass, "My favourite colour is blue", extra_system_prompt=prompt)
    assert await contents(hass) == []
    await change(hass, loaded_entry, **changes)
    await say(hass, "My favourite food is pizza", extra_system_prompt=prompt)
    assert await contents(hass) == ["The user's favourite food is pizza"]


@pytest.mark.parametrize("entry_options", [WITH_AGENT])
async def test_context_limit(
    hass: HomeAssistant, llm: LlmEntities, loaded_entry: ConfigEntry
) -> None:
    async def resume(text: str) -> list[str]:
        """Say `text` in the kitchen after Home Assistant forgot the chat log."""
        await forget_chat_logs(hass)
        await say(hass, text, "kitchen")
        return earlier_messages(llm.agent.turns[-1].system_prompt)

    await say(hass, "Let's plan dinner", "kitchen")
    await say(hass, "Thai or pizza?", "kitchen")
    assert len(await resume("Book it for seven")) == 4
    await change(hass, loaded_entry, **{CONF_CONTEXT_LIMIT: 3})
    # The window: the last 3 messages, the one being answered included.
    assert await resume("Thanks") == [
        "- [user] Book it for seven",
        "- [assistant] echo: Book it for seven",
    ]
    await change(hass, loaded_entry, **{CONF_CONTEXT_LIMIT: 0})
    assert await resume("Bye") == []


@pytest.mark.parametrize("entry_options", [options(**EAGER)])
async def test_learn_from_other_agents(
    hass: HomeAssistant, llm: LlmEntities, loaded_entry: ConfigEntry
) -> None:
    async def talk_to_the_other_agent(*texts: str) -> str:
        conversation_id: str | None = None
        for text in texts:
            result = await conversation.async_converse(
                hass, text, conversation_id, Context(), agent_id=AGENT_ENTITY_ID
            )
            conversation_id = result.conversation_id
        await hass.async_block_till_done()
        assert conversation_id is not None
        return conversation_id

    def logged(conversation_id: str) -> int:
        log = loaded_entry.runtime_data.backend.turns.log
        return len(log.messages(conversation_id))

    unheard = await talk_to_the_other_agent("Our favourite colour is blue", "Thanks")
    assert logged(unheard) == 0
    assert await contents(hass) == []
    await change(hass, loaded_entry, **{CONF_LEARN_FROM_OTHER_AGENTS: True})
    heard = await talk_to_the_other_agent("Our favourite food is pizza", "Thanks")
    assert logged(heard) == 4
    assert await contents(hass) == ["The household's favourite food is pizza"]
