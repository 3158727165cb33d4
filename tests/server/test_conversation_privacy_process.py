"""The conversation path in a real memory server process: what it keeps, and for whom.

Home Assistant with its memory in the add-on speaks to the server's turn routes. Here
a server process on 127.0.0.1 gets turns with secrets from two people in one
conversation id, is stopped and started again, deletes the conversation, and keeps
its retention at start; every file of its data folder is read as bytes afterwards.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from custom_components.assist_memory.engine.conversation.conversation_log import (
    ConversationLog,
)
from tests.support.server_process import ServerProcess, serve_command

SECRETS = ("Zebra-Quartz-77", "48392017", "4111111111111111", "Qwerty-8842")
SAID = (
    "My wifi password is Zebra-Quartz-77 and the grumbleweed is blue",
    "The alarm code is 48392017",
    "My card number is 4111111111111111",
    "我的wifi密码是Qwerty-8842",
)


def files_with(folder: Path, words: tuple[str, ...]) -> dict[str, list[str]]:
    """Every file under the folder holding one of the words (bytes)."""
    found: dict[str, list[str]] = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        data = path.read_bytes()
        if hits := [word for word in words if word.encode() in data]:
            found[str(path.relative_to(folder))] = hits
    return found


async def post(http: aiohttp.ClientSession, path: str, body: Any, headers: Any) -> Any:
    async with http.post(path, json=body, headers=headers) as response:
        assert response.status == 200, await response.text()
        return await response.json()


async def turn(
    http: aiohttp.ClientSession, headers: Any, session: str, user: str, text: str
) -> dict[str, Any]:
    """One turn as Home Assistant's memory agent takes it: begin, then end."""
    context: dict[str, Any] = await post(
        http,
        "/api/turns/begin",
        {"session_id": session, "text": text, "user_id": user},
        headers,
    )
    await post(
        http,
        "/api/turns/end",
        {"session_id": session, "user_text": text, "reply": f"Noted: {text}",
         "user_id": user},
        headers,
    )  # fmt: skip
    return context


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


async def test_the_server_keeps_no_secret_and_no_one_elses_words(
    data_dir: Path,
) -> None:
    async with ServerProcess(serve_command(data_dir)) as server:
        async with aiohttp.ClientSession(server.base_url) as http:
            for text in SAID:
                await turn(http, server.headers, "win-3", "anna", text)
        assert await server.stop() == 0
    assert files_with(data_dir, SECRETS) == {}
    assert files_with(data_dir, ("grumbleweed",))  # the rest of what was said

    async with ServerProcess(serve_command(data_dir)) as server:
        async with aiohttp.ClientSession(server.base_url) as http:
            ben = await turn(http, server.headers, "win-3", "ben", "What was said?")
            anna = await turn(http, server.headers, "win-3", "anna", "Go on")
            async with http.delete(
                "/memory/sessions/win-3", headers=server.headers
            ) as deleted:
                assert await deleted.json() == {"deleted": "win-3", "messages": 12}
        assert await server.stop() == 0

    assert "grumbleweed" not in ben["memory_block"]
    assert "Earlier in This Conversation" not in ben["memory_block"]
    assert "grumbleweed" in anna["memory_block"]
    assert "[secret withheld]" in anna["memory_block"]
    assert files_with(data_dir, (*SECRETS, "grumbleweed")) == {}


async def test_the_server_deletes_old_conversations_at_start(data_dir: Path) -> None:
    now = datetime.now(UTC)
    with ConversationLog(data_dir / "conversations.db") as log:
        log.append("old", "user", "The quondam plan", when=now - timedelta(days=31))
        log.append("new", "user", "The recens plan", when=now - timedelta(days=2))

    async with ServerProcess(serve_command(data_dir)) as server:
        async with (
            aiohttp.ClientSession(server.base_url) as http,
            http.get("/memory/conversations", headers=server.headers) as listed,
        ):
            items = (await listed.json())["items"]
        assert await server.stop() == 0

    assert [item["session_id"] for item in items] == ["new"]
    assert files_with(data_dir, ("quondam", "recens")) == {
        "conversations.db": ["recens"]
    }
