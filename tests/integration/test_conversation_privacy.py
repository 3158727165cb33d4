"""The conversation path keeps what is said with whom said it, and never a secret.

A real Home Assistant with the memory agent in front of a recording LLM-style agent:
secrets are withheld from everything kept or repeated (conversation log, summaries,
the rolling window), a conversation id reused by another person gives them nothing
of the first one's, and prefix mode gives the wrapped agent the words once.
"""

from __future__ import annotations

from homeassistant.core import HomeAssistant
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.assist_memory.const import (
    CONF_AGENT_ID,
    CONF_PROMPT_MODE,
    CONF_SESSION_SUMMARY_LIMIT,
)
from custom_components.assist_memory.engine import REDACTED

from .agents import AGENT_ENTITY_ID, LlmEntities
from .conversing import (
    EAGER,
    add,
    data_files_containing,
    earlier_messages,
    forget_chat_logs,
    layer,
    meaning_caught_up,
    options,
    say,
)

LLM_AGENT = options(**{CONF_AGENT_ID: AGENT_ENTITY_ID, **EAGER})
# Codes said in passing, as people say them, each with its secret (six digits or more:
# a shorter number may be in a timestamp's microseconds by chance).
IN_PASSING = (
    ("My gym is PureMove on King Street, and my locker PIN there is 221847.", "221847"),
    ("My passport number is 533918274.", "533918274"),
    ("the code for the key safe is nine one eight two", "nine one eight two"),
    ("The verification code they just texted me is 771 204.", "771 204"),
    ("门禁密码幺洞洞拐 记一下", "幺洞洞拐"),
)


@pytest.mark.parametrize("entry_options", [LLM_AGENT])
async def test_secrets_do_not_come_back_through_summaries_or_the_window(
    hass: HomeAssistant, llm: LlmEntities, loaded_entry: MockConfigEntry
) -> None:
    await say(hass, "My wifi password is hunter2", "wifi", user_id="anna")
    await say(
        hass,
        "The alarm code is 482913 and my bank PIN is 975318",
        "codes",
        user_id="anna",
    )
    await say(hass, "What is for dinner?", "dinner", user_id="anna")
    await forget_chat_logs(hass)  # as after a restart: the window comes from the log
    await say(hass, "And tomorrow?", "codes", user_id="anna")

    dinner, resumed = llm.agent.turns[2], llm.agent.turns[3]
    recent = layer(dinner.system_prompt, "Recent Conversations")
    # The conversations are mentioned, their secrets are not.
    assert any(f"My wifi password is {REDACTED}" in line for line in recent)
    assert f"- [user] The alarm code is {REDACTED} and my bank PIN is {REDACTED}" in (
        earlier_messages(resumed.system_prompt)
    )
    secrets = ("hunter2", "482913", "975318")
    for turn in llm.agent.turns:
        assert not [s for s in secrets if s in turn.system_prompt]
    assert await data_files_containing(hass, loaded_entry, secrets) == {}


@pytest.mark.parametrize(
    "entry_options", [{**LLM_AGENT, CONF_SESSION_SUMMARY_LIMIT: 10}]
)
async def test_codes_said_in_passing_reach_no_title_file_or_later_prompt(
    hass: HomeAssistant, llm: LlmEntities, loaded_entry: MockConfigEntry
) -> None:
    for index, (text, _) in enumerate(IN_PASSING):
        await say(hass, text, f"passing-{index}", user_id="anna")
    await say(hass, "What's the weather like tomorrow?", "weather", user_id="anna")

    log = loaded_entry.runtime_data.backend.turns.log
    titles = [
        summary.title
        for index in range(len(IN_PASSING))
        if (
            summary := await hass.async_add_executor_job(
                log.summary, f"passing-{index}"
            )
        )
    ]
    assert len(titles) == len(IN_PASSING)
    assert titles[0].startswith("My gym is PureMove on King Street")
    secrets = [secret for _, secret in IN_PASSING]
    secrets += ["771204"]  # as written without its space
    assert not [s for s in secrets if s in " ".join(titles)]
    # The later, unrelated turn hears of those conversations, not of their codes.
    weather = llm.agent.turns[-1]
    recent = layer(weather.system_prompt, "Recent Conversations")
    assert any("PureMove" in line for line in recent)
    assert not [s for s in secrets if s in weather.system_prompt]
    assert await data_files_containing(hass, loaded_entry, secrets) == {}


@pytest.mark.parametrize("entry_options", [LLM_AGENT])
async def test_a_conversation_id_is_bound_to_its_user_across_a_restart(
    hass: HomeAssistant, llm: LlmEntities, loaded_entry: MockConfigEntry
) -> None:
    await say(
        hass,
        "My dentist appointment is with Dr. Chen on Friday",
        "win-3",
        user_id="anna",
    )
    await say(hass, "Remind me to bring the x-rays", "win-3", user_id="anna")
    # Home Assistant restarts: its chat logs are gone, the memory is loaded again.
    await forget_chat_logs(hass)
    assert await hass.config_entries.async_reload(loaded_entry.entry_id)
    await hass.async_block_till_done()

    await say(hass, "What did I say before?", "win-3", user_id="ben")
    await say(hass, "And before that?", "win-3")  # a satellite: no user
    await forget_chat_logs(hass)
    await say(hass, "Where was I?", "win-3", user_id="anna")

    ben, satellite, anna = llm.agent.turns[2:]
    for turn in (ben, satellite):
        assert earlier_messages(turn.system_prompt) == []
        assert "Chen" not in turn.system_prompt
        assert "x-rays" not in turn.system_prompt
    # Anna still gets her own earlier messages, and nothing the others said.
    assert any("Dr. Chen" in line for line in earlier_messages(anna.system_prompt))
    assert "before" not in anna.system_prompt


@pytest.mark.parametrize("entry_options", [LLM_AGENT])
async def test_another_user_in_a_live_chat_log_gets_none_of_the_first_ones(
    hass: HomeAssistant, llm: LlmEntities, loaded_entry: MockConfigEntry
) -> None:
    await say(
        hass,
        "My dentist appointment is with Dr. Chen on Friday",
        "win-3",
        user_id="anna",
    )
    # Within Home Assistant's chat log lifetime, Ben takes the same conversation id.
    await say(hass, "What did the last person say?", "win-3", user_id="ben")
    await say(hass, "And now?", "win-3", user_id="ben")

    ben, ben_again = llm.agent.turns[1:]
    assert ben.messages == [("user", "What did the last person say?")]
    assert "Chen" not in ben.system_prompt
    # His own turns go on in the chat log as usual.
    assert [role for role, _ in ben_again.messages] == ["user", "assistant", "user"]


@pytest.mark.parametrize(
    "entry_options",
    [options(**{CONF_AGENT_ID: AGENT_ENTITY_ID, CONF_PROMPT_MODE: "prefix"})],
)
async def test_prefix_mode_gives_the_words_once_and_no_earlier_block(
    hass: HomeAssistant, llm: LlmEntities, loaded_entry: MockConfigEntry
) -> None:
    await add(hass, "Anna takes her coffee black")
    await add(hass, "Tom drinks green tea")
    await meaning_caught_up(hass)
    first = await say(hass, "How does Anna take her coffee?")
    await say(hass, "And what does Tom drink?", first.conversation_id)

    one, two = llm.agent.turns
    ((role, words),) = one.messages
    assert role == "user"
    # The block, with the memory the words found first (tea may follow, by meaning).
    assert words.startswith("<long_term_memory>\n- Anna takes her coffee black\n")
    assert words.endswith("</long_term_memory>\n\nHow does Anna take her coffee?")
    assert words.count("<long_term_memory>") == 1
    assert [role for role, _ in two.messages] == ["user", "assistant", "user"]
    # The earlier turn is in the history as it was said; only the newest has a block.
    assert two.messages[0] == ("user", "How does Anna take her coffee?")
    assert two.messages[2][1].endswith("\n\nAnd what does Tom drink?")
    said = [text for role, text in two.messages if role == "user"]
    assert sum("<long_term_memory>" in text for text in said) == 1


@pytest.mark.parametrize(
    "entry_options", [{**LLM_AGENT, CONF_SESSION_SUMMARY_LIMIT: 10}]
)
async def test_a_replaced_fact_no_longer_reaches_the_prompt(
    hass: HomeAssistant, llm: LlmEntities, loaded_entry: MockConfigEntry
) -> None:
    await say(hass, "My favourite colour is teal", "c1", user_id="anna")
    await say(hass, "I work as a nurse", "c2", user_id="anna")
    await say(hass, "My favourite colour is orange now", "c3", user_id="anna")
    await say(hass, "I work as a teacher", "c4", user_id="anna")
    await say(hass, "What colour should I paint the shed?", "c5", user_id="anna")

    prompt = llm.agent.turns[-1].system_prompt
    # What is true now is there, in memory, profile and recent conversations.
    assert "orange" in " ".join(layer(prompt, "Relevant Past Context"))
    assert "Works as a teacher" in " ".join(layer(prompt, "Long-term Memory"))
    assert "orange" in " ".join(layer(prompt, "Recent Conversations"))
    # What was replaced since is not, anywhere.
    assert "teal" not in prompt
    assert "nurse" not in prompt
