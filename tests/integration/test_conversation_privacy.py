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

from custom_components.assist_memory.const import CONF_AGENT_ID
from custom_components.assist_memory.engine import REDACTED

from .agents import AGENT_ENTITY_ID, LlmEntities
from .conversing import (
    EAGER,
    data_files_containing,
    earlier_messages,
    forget_chat_logs,
    layer,
    options,
    say,
)

LLM_AGENT = options(**{CONF_AGENT_ID: AGENT_ENTITY_ID, **EAGER})


@pytest.mark.parametrize("entry_options", [LLM_AGENT])
async def test_secrets_do_not_come_back_through_summaries_or_the_window(
    hass: HomeAssistant, llm: LlmEntities, loaded_entry: MockConfigEntry
) -> None:
    await say(hass, "My wifi password is hunter2", "wifi", user_id="anna")
    await say(hass, "The alarm code is 4321 and my bank PIN is 9876", "codes",
              user_id="anna")  # fmt: skip
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
    secrets = ("hunter2", "4321", "9876")
    for turn in llm.agent.turns:
        assert not [s for s in secrets if s in turn.system_prompt]
    assert await data_files_containing(hass, loaded_entry, secrets) == {}
