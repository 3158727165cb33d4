"""What is said is not kept forever, and a person can delete a conversation.

A real Home Assistant with the memory agent in front of a recording agent: old
conversations and daily logs go by themselves (the options say when), and a
conversation deleted through the service, the REST API or the websocket commands
leaves its text in no file of the data folder. People who are not administrators
see and delete only their own conversations.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from homeassistant.auth.models import User
from homeassistant.core import Context, HomeAssistant
from homeassistant.data_entry_flow import InvalidData
from homeassistant.exceptions import ServiceValidationError
from homeassistant.util import dt as dt_util
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry
from pytest_homeassistant_custom_component.typing import (
    ClientSessionGenerator,
    WebSocketGenerator,
)

from custom_components.assist_memory.const import (
    CONF_AGENT_ID,
    CONF_CONVERSATION_RETENTION_DAYS,
    CONF_DAILY_LOG_RETENTION_DAYS,
    DATA_FOLDER,
    DOMAIN,
)
from custom_components.assist_memory.engine.conversation.conversation_log import (
    ConversationLog,
)

from .agents import AGENT_ENTITY_ID, LlmEntities
from .conftest import configure_options
from .conversing import EAGER, data_files_containing, layer, options, say

LLM_AGENT = options(**{CONF_AGENT_ID: AGENT_ENTITY_ID, **EAGER})
PREFIX = "/api/assist_memory"


def write_old_data(folder: Path) -> dict[str, int]:
    """Conversations of 40 and 5 days ago, daily logs of 100 days ago and today.

    Returns the id of each conversation's message.
    """
    now = dt_util.utcnow()
    ids = {}
    with ConversationLog(folder / "conversations.db") as log:
        for days, word in ((40, "quondam"), (5, "recens")):
            when = now - timedelta(days=days)
            message = log.append(f"talk-{word}", "user", f"The {word} plan", when=when)
            ids[word] = message.id
            log.add_summary(f"talk-{word}", f"The {word} plan", "", when=when)
    daily = folder / "prompts" / "memory" / "daily"
    daily.mkdir(parents=True)
    today = dt_util.now().date()
    for day, word in ((today - timedelta(days=100), "vetustus"), (today, "hodie")):
        (daily / f"{day.isoformat()}.md").write_text(f"# {day}\n\n- 08:00:00 {word}\n")
    return ids


async def settle(hass: HomeAssistant, entry: MockConfigEntry) -> None:
    """Background work of the memory (the retention run included) is done."""
    await hass.async_block_till_done()
    await entry.runtime_data.backend.wait_for_background_jobs()


async def test_old_conversations_and_daily_logs_go_by_themselves(
    hass: HomeAssistant, config_entry: MockConfigEntry
) -> None:
    folder = Path(hass.config.path(DATA_FOLDER))
    ids = await hass.async_add_executor_job(write_old_data, folder)
    words = ("quondam", "recens", "vetustus", "hodie")
    before = await data_files_free(hass, folder, words)
    assert set(before) == set(words)

    config_entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(config_entry.entry_id)
    await settle(hass, config_entry)
    # A memory learned from the recent conversation quotes its sentence: the quote
    # is kept no longer than the message.
    await hass.services.async_call(
        DOMAIN,
        "add",
        {
            "content": "A plan was made",
            "metadata": {"said": "The recens plan", "message_id": ids["recens"]},
        },
        blocking=True,
    )
    await settle(hass, config_entry)

    # 30 days of conversations and 90 of daily logs are kept by default.
    kept = await data_files_containing(hass, config_entry, words)
    assert sorted({w for found in kept.values() for w in found}) == ["hodie", "recens"]

    await configure_options(
        hass,
        config_entry,
        "privacy",
        {CONF_CONVERSATION_RETENTION_DAYS: 3, CONF_DAILY_LOG_RETENTION_DAYS: 1},
    )
    await settle(hass, config_entry)
    kept = await data_files_containing(hass, config_entry, words)
    assert sorted({w for found in kept.values() for w in found}) == ["hodie"]


async def data_files_free(
    hass: HomeAssistant, folder: Path, words: tuple[str, ...]
) -> set[str]:
    """The words found in the data folder's files before anything is loaded."""

    def scan() -> set[str]:
        data = b"".join(p.read_bytes() for p in folder.rglob("*") if p.is_file())
        return {word for word in words if word.encode() in data}

    return await hass.async_add_executor_job(scan)


async def test_retention_options_keep_to_their_range(
    hass: HomeAssistant, loaded_entry: MockConfigEntry
) -> None:
    result = await hass.config_entries.options.async_init(loaded_entry.entry_id)
    result = await hass.config_entries.options.async_configure(
        result["flow_id"], {"next_step_id": "privacy"}
    )
    with pytest.raises(InvalidData, match=CONF_CONVERSATION_RETENTION_DAYS):
        await hass.config_entries.options.async_configure(
            result["flow_id"], {CONF_CONVERSATION_RETENTION_DAYS: 0}
        )
    assert loaded_entry.options.get(CONF_CONVERSATION_RETENTION_DAYS) is None


@pytest.mark.parametrize("entry_options", [LLM_AGENT])
async def test_a_deleted_conversation_leaves_no_trace(
    hass: HomeAssistant, llm: LlmEntities, loaded_entry: MockConfigEntry
) -> None:
    await say(hass, "The plumbagorix valve leaks", "leak", user_id="anna")
    await say(hass, "Call the plumbagorix people tomorrow", "leak", user_id="anna")
    await say(hass, "Anything else?", "other", user_id="anna")
    assert await data_files_containing(hass, loaded_entry, ["plumbagorix"])

    response = await hass.services.async_call(
        DOMAIN,
        "delete_conversation",
        {"conversation_id": "leak"},
        blocking=True,
        return_response=True,
    )

    assert response == {"deleted": "leak", "messages": 4}
    assert await data_files_containing(hass, loaded_entry, ["plumbagorix"]) == {}
    await say(hass, "What did we talk about?", "third", user_id="anna")
    recent = layer(llm.agent.turns[-1].system_prompt, "Recent Conversations")
    assert not any("plumbagorix" in line for line in recent)
    with pytest.raises(ServiceValidationError) as raised:
        await hass.services.async_call(
            DOMAIN,
            "delete_conversation",
            {"conversation_id": "leak"},
            blocking=True,
            return_response=True,
        )
    assert raised.value.translation_key == "unknown_conversation"


@pytest.mark.parametrize("entry_options", [LLM_AGENT])
async def test_deleting_a_conversation_through_the_rest_api(
    hass: HomeAssistant,
    llm: LlmEntities,
    loaded_entry: MockConfigEntry,
    hass_client: ClientSessionGenerator,
    hass_admin_user: User,
) -> None:
    fridge = await loaded_entry.runtime_data.backend.add(
        "Our code word is written on the fridge"
    )
    # The administrator's own conversation (another person's is not theirs to read).
    await say(
        hass,
        "The fizzlewick code word is sunflower",
        "rest",
        user_id=hass_admin_user.id,
    )
    client = await hass_client()

    listed = await client.get(f"{PREFIX}/memory/conversations")
    shown = await client.get(f"{PREFIX}/memory/sessions/rest")
    deleted = await client.delete(f"{PREFIX}/memory/sessions/rest")
    again = await client.delete(f"{PREFIX}/memory/sessions/rest")

    assert [c["session_id"] for c in (await listed.json())["items"]] == ["rest"]
    messages = (await shown.json())["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant"]
    # Why did Assist say that: the memories its turn was given.
    assert [m["memory_ids"] for m in messages] == [[fridge.id], []]
    assert await deleted.json() == {"deleted": "rest", "messages": 2}
    assert again.status == 404
    assert await data_files_containing(hass, loaded_entry, ["fizzlewick"]) == {}


async def ws_call(client: Any, command: str, **fields: object) -> dict[str, Any]:
    """One websocket command; the whole answer message."""
    await client.send_json_auto_id({"type": f"assist_memory/{command}", **fields})
    answer: dict[str, Any] = await client.receive_json()
    return answer


@pytest.mark.parametrize("entry_options", [LLM_AGENT])
@pytest.mark.usefixtures("llm")
async def test_people_see_and_delete_only_their_own_conversations(
    *,
    hass: HomeAssistant,
    loaded_entry: MockConfigEntry,
    hass_ws_client: WebSocketGenerator,
    hass_read_only_user: User,
    hass_read_only_access_token: str,
    hass_admin_user: User,
) -> None:
    reader = hass_read_only_user.id
    await say(hass, "Do my snorkelwort seedlings need water?", "mine", user_id=reader)
    await say(
        hass, "The admin's quillfeather plan", "admins", user_id=hass_admin_user.id
    )
    await say(hass, "Good night", "admins", user_id=reader)  # the same id, later
    person = await hass_ws_client(hass, hass_read_only_access_token)
    admin = await hass_ws_client(hass)

    listed = await ws_call(person, "conversations/list")
    assert listed["success"]
    items = listed["result"]["items"]
    assert [(c["session_id"], c["message_count"]) for c in items] == [
        ("admins", 2),
        ("mine", 2),
    ]
    shown = await ws_call(person, "conversations/get", conversation_id="admins")
    texts = [m["content"] for m in shown["result"]["messages"]]
    assert texts == ["Good night", "echo: Good night"]
    assert shown["result"]["title"] is None  # the admin started it
    everyone = await ws_call(admin, "conversations/list")
    assert everyone["result"]["total"] == 2

    # Deleting "admins" removes only the person's own messages there.
    removed = await ws_call(person, "conversations/delete", conversation_id="admins")
    assert removed["result"] == {"deleted": "admins", "messages": 2}
    gone = await ws_call(person, "conversations/get", conversation_id="admins")
    assert gone["error"]["code"] == "not_found"
    kept = await ws_call(admin, "conversations/get", conversation_id="admins")
    assert "quillfeather" in str(kept["result"]["messages"])
    removed = await ws_call(person, "conversations/delete", conversation_id="mine")
    assert removed["result"]["messages"] == 2
    assert await data_files_containing(hass, loaded_entry, ["snorkelwort"]) == {}
    assert (await ws_call(person, "conversations/list"))["result"]["items"] == []


@pytest.mark.parametrize("entry_options", [LLM_AGENT])
@pytest.mark.usefixtures("llm")
async def test_the_service_called_by_a_person_deletes_only_their_messages(
    hass: HomeAssistant,
    loaded_entry: MockConfigEntry,
    hass_read_only_user: User,
    hass_admin_user: User,
) -> None:
    await say(hass, "The admin's quillfeather plan", "shared", user_id="the-admin")
    await say(
        hass,
        "Are my snorkelwort seedlings dry?",
        "shared",
        user_id=hass_read_only_user.id,
    )

    def delete(user: User) -> Any:
        return hass.services.async_call(
            DOMAIN,
            "delete_conversation",
            {"conversation_id": "shared"},
            blocking=True,
            return_response=True,
            context=Context(user_id=user.id),
        )

    assert await delete(hass_read_only_user) == {"deleted": "shared", "messages": 2}
    found = await data_files_containing(
        hass, loaded_entry, ["quillfeather", "snorkelwort"]
    )
    assert {w for words in found.values() for w in words} == {"quillfeather"}
    assert await delete(hass_admin_user) == {"deleted": "shared", "messages": 2}
    assert await data_files_containing(hass, loaded_entry, ["quillfeather"]) == {}


async def test_conversation_commands_answer_errors(
    hass: HomeAssistant,
    loaded_entry: MockConfigEntry,
    hass_ws_client: WebSocketGenerator,
) -> None:
    client = await hass_ws_client(hass)
    missing = await ws_call(client, "conversations/delete", conversation_id="nope")
    assert missing["error"]["code"] == "not_found"
    too_many = await ws_call(client, "conversations/list", limit=1000)
    assert too_many["error"]["code"] == "invalid_format"

    assert await hass.config_entries.async_unload(loaded_entry.entry_id)
    unloaded = await ws_call(client, "conversations/list")
    assert unloaded["error"]["code"] == "not_loaded"
