"""Assist in the Home Assistant of script/develop: remember, recall, forget, commands.

Home Assistant runs as a process over a copy of the repository's
config/configuration.yaml (its demo light and switch included) on a free port, prepared
and set up by script/ha_instance.py as script/develop does. Assist is used the way the
frontend's Assist dialog uses it: `assist_pipeline/run` over the websocket API, text in,
from the intent stage; each sentence starts a new conversation.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
import shutil
from types import TracebackType
from typing import Any, Self

import aiohttp
import pytest
import pytest_socket

from tests.support.ha_process import ROOT, HomeAssistantProcess, ha_instance
from tests.support.memory_server import free_port

MEMORY_AGENT = "conversation.assist_memory"
HOME_ASSISTANT_AGENT = "conversation.home_assistant"
# Guards against a hang only.
TIMEOUT = 60.0


@dataclass
class Develop:
    """The running instance and what the last set-up answered."""

    process: HomeAssistantProcess
    instance: Any  # ha_instance.DevInstance

    @property
    def url(self) -> str:
        return self.process.url

    @property
    def token(self) -> str:
        return str(self.instance.token)

    def restart(self) -> None:
        """A later run of script/develop: stop, prepare, start, set up."""
        self.process.stop()
        ha_instance.prepare(self.process.config, self.url)
        self.process.start()
        self.instance = ha_instance.set_up(self.url)


@pytest.fixture(scope="module")
def develop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Develop]:
    """The first run: a fresh config folder with the repository's configuration."""
    # Set up before the per-test `socket_enabled`: allow 127.0.0.1 here too.
    pytest_socket.enable_socket()
    config = tmp_path_factory.mktemp("config")
    shutil.copy(ROOT / "config" / "configuration.yaml", config)
    url = f"http://127.0.0.1:{free_port()}"
    ha_instance.prepare(config, url)
    process = HomeAssistantProcess(config, url)
    process.start()
    try:
        yield Develop(process, ha_instance.set_up(url))
    finally:
        process.stop()


@dataclass(frozen=True)
class Turn:
    """One sentence typed into Assist, and what came back."""

    engine: str
    speech: str
    conversation_id: str


class Assist:
    """Home Assistant's websocket API, as the frontend's Assist dialog talks to it."""

    def __init__(self, develop: Develop) -> None:
        self.url = develop.url
        self.token = develop.token
        self._session: aiohttp.ClientSession | None = None
        self._socket: aiohttp.ClientWebSocketResponse | None = None
        self._next_id = 0

    async def __aenter__(self) -> Self:
        self._session = aiohttp.ClientSession()
        self._socket = await self._session.ws_connect(f"{self.url}/api/websocket")
        assert (await self._receive())["type"] == "auth_required"
        await self._socket.send_json({"type": "auth", "access_token": self.token})
        assert (await self._receive())["type"] == "auth_ok"
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        assert self._session is not None
        assert self._socket is not None
        await self._socket.close()
        await self._session.close()

    async def _receive(self) -> dict[str, Any]:
        assert self._socket is not None
        message: dict[str, Any] = await self._socket.receive_json(timeout=TIMEOUT)
        return message

    async def _send(self, message: dict[str, Any]) -> int:
        assert self._socket is not None
        self._next_id += 1
        await self._socket.send_json({**message, "id": self._next_id})
        return self._next_id

    async def command(self, message: dict[str, Any]) -> Any:
        """A websocket command's result."""
        sent = await self._send(message)
        answer = await self._receive()
        assert answer["id"] == sent
        assert answer["success"], answer
        return answer["result"]

    async def say(self, text: str, conversation_id: str | None = None) -> Turn:
        """Type `text` into Assist (the preferred pipeline), in a new conversation.

        With `conversation_id`: the next sentence of that conversation.
        """
        await self.command(
            {
                "type": "assist_pipeline/run",
                "start_stage": "intent",
                "end_stage": "intent",
                "input": {"text": text},
                **({"conversation_id": conversation_id} if conversation_id else {}),
            }
        )
        events: dict[str, Any] = {}
        while "run-end" not in events:
            event = (await self._receive())["event"]
            assert event["type"] != "error", event
            events[event["type"]] = event["data"]
        output = events["intent-end"]["intent_output"]
        return Turn(
            engine=events["intent-start"]["engine"],
            speech=output["response"]["speech"]["plain"]["speech"],
            conversation_id=output["conversation_id"],
        )

    async def state(self, entity_id: str) -> str:
        """An entity's state."""
        states = await self.command({"type": "get_states"})
        return str(next(s["state"] for s in states if s["entity_id"] == entity_id))


async def test_the_first_run_lets_assist_talk_to_the_memory_agent(
    develop: Develop,
) -> None:
    # The config flow's last step did it (its default); the set-up found it done.
    assert develop.instance.pipeline == {
        "pipeline_id": develop.instance.pipeline["pipeline_id"],
        "pipeline_name": "Home Assistant",
        "agent_id": MEMORY_AGENT,
        "wrapped_agent_id": HOME_ASSISTANT_AGENT,
        "changed": False,
    }
    said = ha_instance.what_to_try(develop.instance)
    assert f"open {develop.url}, log in dev / dev, open Assist" in said
    assert "Remember that the spare key is under the flowerpot" in said
    async with Assist(develop) as assist:
        # Confirmed HTTP settings: no trial that restarts Home Assistant 5 minutes on.
        http = await assist.command({"type": "http/config"})
        assert http["revert_at"] is None
        assert http["pending"] is None
        assert http["active_config_type"] == "stable"
        assert http["stable"]["server_host"] == ["127.0.0.1"]


def test_the_log_has_no_tracebacks(
    develop: Develop,
) -> None:
    # Onboarding's location step would add these: their packages (and the network)
    # are missing here, and their tracebacks would open the log.
    for domain in ("met", "radio_browser", "google_translate", "shopping_list"):
        assert ha_instance.config_entries(develop.url, develop.token, domain) == []
    log = develop.process.log.read_text(encoding="utf-8", errors="replace")
    for name in ("components.met", "radio_browser", "google_translate", "gtts"):
        assert name not in log
    assert "Traceback" not in log
    # Onboarding is finished all the same (the frontend shows no onboarding page).
    steps = ha_instance.onboarding_status(develop.url) or {}
    assert all(steps.values()), steps


async def test_assist_remembers_recalls_and_forgets(develop: Develop) -> None:
    async with Assist(develop) as assist:
        told = await assist.say("Remember that the spare key is under the flowerpot")
        assert told.engine == MEMORY_AGENT
        assert told.speech == "OK, I'll remember that."
        asked = await assist.say("What do you remember about the spare key?")
        assert asked.conversation_id != told.conversation_id
        assert (
            asked.speech
            == "Here is what I remember: The spare key is under the flowerpot."
        )
        # A question as people ask it, answered from memory.
        natural = await assist.say("Where is the spare key?")
        assert natural.speech == "The spare key is under the flowerpot."
        forgot = await assist.say("Forget the spare key")
        assert (
            forgot.speech
            == "Should I forget this: The spare key is under the flowerpot?"
        )
        forgot = await assist.say("yes", forgot.conversation_id)
        assert forgot.speech == "Done, I've forgotten that."
        asked = await assist.say("What do you remember about the spare key?")
        assert asked.speech == "I don't remember anything about the spare key."


async def test_assist_in_chinese(develop: Develop) -> None:
    async with Assist(develop) as assist:
        told = await assist.say("记住备用钥匙在花盆下面")
        assert told.speech == "好的，我记住了。"
        asked = await assist.say("你记得备用钥匙吗？")
        assert asked.speech == "我记得：备用钥匙在花盆下面。"
        natural = await assist.say("备用钥匙在哪里？")
        assert natural.speech == "备用钥匙在花盆下面。"
        forgot = await assist.say("忘记备用钥匙")
        assert forgot.speech == "要我忘记这条吗：备用钥匙在花盆下面？"
        forgot = await assist.say("是的", forgot.conversation_id)
        assert forgot.speech == "好的，我已经忘记了。"
        asked = await assist.say("你记得备用钥匙吗？")
        assert asked.speech == "我不记得关于备用钥匙的事情。"


async def test_ordinary_commands_reach_the_devices(develop: Develop) -> None:
    async with Assist(develop) as assist:
        turned = await assist.say("Turn on the kitchen light")
        assert turned.engine == MEMORY_AGENT
        assert await assist.state("light.kitchen_light") == "on"
        await assist.say("Turn on the coffee machine")
        assert await assist.state("switch.coffee_machine") == "on"
        await assist.say("Turn off the kitchen light")
        assert await assist.state("light.kitchen_light") == "off"


async def test_a_later_run_gives_assist_the_memory_agent_back(
    develop: Develop,
) -> None:
    async with Assist(develop) as assist:
        await assist.say("Remember that the bins go out on Tuesday")
        # Someone chooses Home Assistant's own agent in Settings > Voice assistants.
        pipelines = await assist.command({"type": "assist_pipeline/pipeline/list"})
        preferred = pipelines["preferred_pipeline"]
        pipeline = next(p for p in pipelines["pipelines"] if p["id"] == preferred)
        del pipeline["id"]
        await assist.command(
            {
                **pipeline,
                "type": "assist_pipeline/pipeline/update",
                "pipeline_id": preferred,
                "conversation_engine": HOME_ASSISTANT_AGENT,
            }
        )
        turn = await assist.say("What do you remember about the bins?")
        assert turn.engine == HOME_ASSISTANT_AGENT
    develop.restart()
    assert develop.instance.pipeline["changed"] is True
    assert develop.instance.pipeline["wrapped_agent_id"] == HOME_ASSISTANT_AGENT
    async with Assist(develop) as assist:
        entries = await assist.command(
            {"type": "config_entries/get", "domain": "assist_memory"}
        )
        assert len(entries) == 1
        http = await assist.command({"type": "http/config"})
        assert http["revert_at"] is None
        turn = await assist.say("What do you remember about the bins?")
        assert turn.engine == MEMORY_AGENT
        assert turn.speech == "Here is what I remember: The bins go out on Tuesday."
