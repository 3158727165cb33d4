"""A corpus of secrets said through every conversation path is kept nowhere.

Passwords, PINs, door and alarm codes, API keys, card numbers and IBANs, in English
and Chinese (also in passing, as words or in groups of digits), are said to the memory agent in front of an LLM-style agent (memory in
the system prompt, and in front of the words), learned from by the rules and by an
AI Task, said to another agent whose conversations are followed, said to the memory
agent in front of Home Assistant's intent agent (plain, and in "remember that ..."
and "what do you remember about ..." sentences), and passed to the LLM tools; and all
of it again with the memory on a memory server process, which the memory agent
writes to through the REST API. Afterwards no file of the data folder (SQLite files
and their write-ahead logs included), no prompt and no spoken answer holds any of
them: not the system prompts the wrapped agent got, not the memory block in front of
its words, not the instructions the extractor got.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from homeassistant.components import ai_task, conversation
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import llm
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.assist_memory.const import (
    CONF_AGENT_ID,
    CONF_EXTRACTOR_ENTITY,
    CONF_LEARN_FROM_OTHER_AGENTS,
    CONF_PROMPT_MODE,
    DATA_FOLDER,
    DOMAIN,
    PROMPT_MODE_PREFIX,
    PROMPT_MODE_SYSTEM,
)
from custom_components.assist_memory.engine import REDACTED, redact
from tests.support.data_folder import files_containing
from tests.support.memory_server import MemoryServer

from .agents import AGENT_ENTITY_ID, TASK_ENTITY_ID, LlmEntities
from .conftest import remote_config_entry
from .conversing import (
    EAGER,
    data_files_containing,
    forget_chat_logs,
    options,
    say,
    speech,
)

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
    # Said in passing, as people say them: words, groups, a PIN "there" (six digits:
    # a shorter number may be in a timestamp's microseconds by chance).
    ("My gym is PureMove on King Street, and my locker PIN there is 221847.", ("221847",)),
    ("Our account password with them is bluebell.", ("bluebell",)),
    ("My passport number is 533918274.", ("533918274",)),
    ("the code for the key safe is nine one eight two", ("nine one eight two",)),
    ("The verification code they just texted me is 771 204.", ("771 204",)),
    ("门禁密码幺洞洞拐 记一下", ("幺洞洞拐",)),
]  # fmt: skip
REFUSALS = ("I don't keep passwords or codes.", "密码和验证码这类信息我不会记。")
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


async def tell_another_agent(hass: HomeAssistant) -> None:
    """The corpus said to the wrapped agent directly: a conversation memory follows."""
    conversation_id: str | None = None
    for text, _ in CORPUS:
        result = await conversation.async_converse(
            hass, text, conversation_id, Context(), agent_id=AGENT_ENTITY_ID
        )
        conversation_id = result.conversation_id
    await hass.async_block_till_done()


async def say_the_memory_sentences(hass: HomeAssistant) -> list[str]:
    """Each sentence to remember and to recall, in English and Chinese; the answers."""
    answers = []
    for index, (text, _) in enumerate(CORPUS):
        for sentence, language in (
            (f"Remember that {text}", "en"),
            (f"记住{text}", "zh-Hans"),
        ):
            result = await say(
                hass, sentence, f"remember-{index}", user_id="anna", language=language
            )
            assert speech(result) in REFUSALS, sentence
        for sentence, language in (
            (f"What do you remember about {text}?", "en"),
            (f"你记得{text}吗", "zh-Hans"),
        ):
            result = await say(
                hass, sentence, f"recall-{index}", user_id="anna", language=language
            )
            answers.append(speech(result))
    return answers


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
                CONF_LEARN_FROM_OTHER_AGENTS: True,
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
    await tell_another_agent(hass)
    await use_the_tools(hass)

    # Every sentence went through: the extractor heard each, withheld.
    assert len(llm.task.instructions) >= len(CORPUS) + 1
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
    answers = await say_the_memory_sentences(hass)
    assert leaks("\n".join(answers)) == []

    log = loaded_entry.runtime_data.backend.turns.log
    kept = await hass.async_add_executor_job(log.messages, "corpus-0")
    assert kept[0].content == f"My wifi password is {REDACTED}"
    assert leaks(await working_memories(hass)) == []
    assert await data_files_containing(hass, loaded_entry, SECRETS) == {}


@pytest.mark.parametrize(
    "entry_options",
    [
        options(
            **{
                CONF_EXTRACTOR_ENTITY: TASK_ENTITY_ID,
                CONF_LEARN_FROM_OTHER_AGENTS: True,
                **EAGER,
            }
        )
    ],
)
@pytest.mark.usefixtures("socket_enabled")
async def test_secrets_kept_nowhere_by_a_memory_server(
    hass: HomeAssistant,
    llm: LlmEntities,
    memory_server: MemoryServer,
    entry_options: dict[str, Any],
) -> None:
    entry = remote_config_entry(memory_server, entry_options)
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    llm.task.answer = echo_facts

    # The memory agent in front of the intent agent writes turns, learned facts,
    # memory sentences and the tools' memories and daily logs to the server.
    await say_the_corpus(hass, language="en")
    await tell_another_agent(hass)
    await use_the_tools(hass)
    answers = await say_the_memory_sentences(hass)
    assert leaks("\n".join(answers)) == []
    assert len(llm.task.instructions) >= len(CORPUS) + 1
    assert leaks("\n".join(llm.task.instructions)) == []
    assert await hass.config_entries.async_unload(entry.entry_id)

    # Stopped, the server has written everything it holds.
    await hass.async_add_executor_job(memory_server.stop)
    assert files_containing(memory_server.data_dir, *SECRETS) == []
    # The rest of what was said is there: the server did keep the conversations.
    assert "conversations.db" in files_containing(memory_server.data_dir, "tell nobody")
    local = Path(hass.config.path(DATA_FOLDER))
    assert not local.exists() or files_containing(local, *SECRETS) == []
