"""A corpus of secrets said through every conversation path is kept nowhere.

Passwords, PINs, door and alarm codes, API keys, card numbers and IBANs, in English
and Chinese, are said to the memory agent in front of an LLM-style agent (memory in
the system prompt, and in front of the words), learned from by the rules and by an
AI Task, said to the memory agent in front of Home Assistant's intent agent, and
passed to the LLM tools. Afterwards no file of the data folder (SQLite files and
their write-ahead logs included) and no prompt holds any of them: not the system
prompts the wrapped agent got, not the memory block in front of its words, not the
instructions the extractor got.
"""

from __future__ import annotations

from typing import Any

from homeassistant.components import ai_task
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import llm
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.assist_memory.const import (
    CONF_AGENT_ID,
    CONF_EXTRACTOR_ENTITY,
    CONF_PROMPT_MODE,
    DOMAIN,
    PROMPT_MODE_PREFIX,
    PROMPT_MODE_SYSTEM,
)
from custom_components.assist_memory.engine import REDACTED, redact

from .agents import AGENT_ENTITY_ID, TASK_ENTITY_ID, LlmEntities
from .conversing import EAGER, data_files_containing, forget_chat_logs, options, say

# (what is said, the secret values in it)
CORPUS: list[tuple[str, tuple[str, ...]]] = [
    ("My wifi password is Zebra-Quartz-77", ("Zebra-Quartz-77",)),
    ("The alarm code is 48392017 and my bank PIN is 9182736", ("48392017", "9182736")),
    ("The front door code is 5730291#, tell nobody", ("5730291",)),
    ("My API key is sk-proj-Abc123Def456Ghi789Jkl0", ("sk-proj-Abc123Def456Ghi789Jkl0",)),
    ("My card number is 4111 1111 1111 1111", ("4111 1111 1111 1111",)),
    ("Pay the rent to IBAN DE89 3704 0044 0532 0130 00 please",
     ("DE89 3704 0044 0532 0130 00",)),
    ("The garage token is ghp_Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8",
     ("ghp_Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8",)),
    ("我的wifi密码是Qwerty-8842", ("Qwerty-8842",)),
    ("门禁密码是7305918", ("7305918",)),
    ("我的银行卡密码是6029174，别告诉别人", ("6029174",)),
    ("验证码：5830291", ("5830291",)),
    ("我的卡号是5500000000000004", ("5500000000000004",)),
    ("转账到GB82WEST12345698765432就好", ("GB82WEST12345698765432",)),
    ("报警器密码是8264019#", ("8264019",)),
]  # fmt: skip
# Each secret as it could be written: grouped numbers also without their spaces.
SECRETS = sorted(
    {
        form
        for _, values in CORPUS
        for value in values
        for form in (value, value.replace(" ", ""))
    }
)


def leaks(text: str) -> list[str]:
    """The secrets of the corpus found in a text (any case)."""
    folded = text.casefold()
    return [secret for secret in SECRETS if secret.casefold() in folded]


def block_in_front(text: str) -> str:
    """The `<long_term_memory>` block in front of the words, if any."""
    return (
        text.partition("</long_term_memory>")[0] if "<long_term_memory>" in text else ""
    )


def echo_facts(task: ai_task.GenDataTask) -> dict[str, Any]:
    """An LLM extractor that turns every line it was given into a fact."""
    lines = task.instructions.partition("Conversation:\n")[2].splitlines()
    said = [line.removeprefix("user: ") for line in lines if line.startswith("user: ")]
    return {"facts": [{"content": text, "category": "fact"} for text in said]}


async def say_the_corpus(hass: HomeAssistant, **kwargs: Any) -> None:
    """Each sentence in a conversation of its own, then again once it was forgotten."""
    for index, (text, _) in enumerate(CORPUS):
        await say(hass, text, f"corpus-{index}", user_id="anna", **kwargs)
    # As after a restart: the window and the summaries come from the files.
    await forget_chat_logs(hass)
    for index, _ in enumerate(CORPUS):
        await say(hass, "And what else?", f"corpus-{index}", user_id="anna", **kwargs)


async def use_the_tools(hass: HomeAssistant) -> None:
    """The LLM tools given every sentence of the corpus."""
    context = llm.LLMContext(
        platform="test",
        context=Context(user_id="anna"),
        language="en",
        assistant="conversation",
        device_id=None,
    )
    instance = await llm.async_get_api(hass, DOMAIN, context)
    for text, _ in CORPUS:
        for tool, args in (
            ("append_memory", {"fact": text}),
            ("append_daily_log", {"entry": text}),
        ):
            await instance.async_call_tool(
                llm.ToolInput(tool_name=tool, tool_args=args)
            )


async def working_memories(hass: HomeAssistant) -> str:
    """The working memory of every conversation of the corpus, as text."""
    found = []
    for index, _ in enumerate(CORPUS):
        response = await hass.services.async_call(
            DOMAIN,
            "get_working_memory",
            {"session_id": f"corpus-{index}"},
            blocking=True,
            return_response=True,
        )
        found.append(str(response))
    return "\n".join(found)


@pytest.mark.parametrize(
    "entry_options",
    [
        options(
            **{
                CONF_AGENT_ID: AGENT_ENTITY_ID,
                CONF_PROMPT_MODE: mode,
                CONF_EXTRACTOR_ENTITY: TASK_ENTITY_ID,
                **EAGER,
            }
        )
        for mode in (PROMPT_MODE_SYSTEM, PROMPT_MODE_PREFIX)
    ],
    ids=["system-prompt", "prefix"],
)
async def test_secrets_said_to_an_llm_agent_are_kept_nowhere(
    hass: HomeAssistant, llm: LlmEntities, loaded_entry: MockConfigEntry
) -> None:
    assert [text for text, _ in CORPUS if leaks(redact(text))] == []  # all known
    llm.task.answer = echo_facts
    await say_the_corpus(hass)
    await use_the_tools(hass)

    # Every sentence went through: the extractor heard each, withheld.
    assert len(llm.task.instructions) >= len(CORPUS)
    heard = "\n".join(llm.task.instructions)
    assert heard.count(REDACTED) >= len(SECRETS) // 2
    for turn in llm.agent.turns:
        assert leaks(turn.system_prompt) == []
        assert leaks(turn.extra_system_prompt or "") == []
        assert leaks(block_in_front(turn.text)) == []
    assert leaks(heard) == []
    assert leaks(await working_memories(hass)) == []
    assert await data_files_containing(hass, loaded_entry, SECRETS) == {}


@pytest.mark.parametrize("entry_options", [options(**EAGER)])
@pytest.mark.usefixtures("loaded_entry")
async def test_secrets_said_through_the_intent_agent_are_kept_nowhere(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    await say_the_corpus(hass, language="en")
    for index, (text, _) in enumerate(CORPUS):
        await say(hass, text, f"zh-{index}", user_id="ben", language="zh-Hans")

    log = loaded_entry.runtime_data.backend.turns.log
    kept = await hass.async_add_executor_job(log.messages, "corpus-0")
    assert kept[0].content == f"My wifi password is {REDACTED}"
    assert leaks(await working_memories(hass)) == []
    assert await data_files_containing(hass, loaded_entry, SECRETS) == {}
