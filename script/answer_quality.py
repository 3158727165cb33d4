"""Answers from memory without an LLM, measured on tests/data/question_set.json.

A Home Assistant test instance in this process, Assist Memory set up through its
config flow with the default options (the memory agent wraps Home Assistant's own
intent agent), the set's devices as states, its memories added through the `add`
service (the household's, the speaker's and another person's). Each question is asked
by the speaker in its language. An answer from memory names its memories in the
response's results; "What do you know about ..." answers are judged by the memories
they say. `script/bench` prints the figures; `problems()` is the set's self-check.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
import json
import logging
from pathlib import Path
import sys
import tempfile
from typing import Any, Final

from homeassistant import loader
from homeassistant.components import conversation
from homeassistant.config_entries import SOURCE_USER
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import entity_registry as er, frame, intent
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import async_test_home_assistant

from assist_memory_engine.language.listener import for_listener

ROOT = Path(__file__).resolve().parent.parent
QUESTION_SET = ROOT / "tests" / "data" / "question_set.json"
INTEGRATION = "assist_memory"
LANGUAGES: Final = {"en": "en", "zh-Hans": "zh-CN", "zh-Hant": "zh-TW"}
MIN_QUESTIONS: Final = 150
MIN_NEGATIVES: Final = 50
DEVICES: Final = (
    ("light.kitchen", "Kitchen light"),
    ("light.living_room_lamp", "Living room lamp"),
    ("cover.garage_door", "Garage door"),
    ("lock.front_door", "Front door"),
    ("climate.thermostat", "Thermostat"),
    ("cover.bedroom_blinds", "Bedroom blinds"),
    ("light.chufang", "厨房灯"),
    ("light.keting", "客厅灯"),
    ("light.chufang_tw", "廚房燈"),
    ("light.keting_tw", "客廳燈"),
)


@dataclass
class Tally:
    """One language's (or kind's) figures."""

    questions: int = 0
    right: int = 0
    negatives: int = 0
    negatives_taken: int = 0
    answers: int = 0
    wrong: int = 0
    misses: list[str] = field(default_factory=list)

    @property
    def positives(self) -> int:
        """Questions memory should answer."""
        return self.questions - self.negatives

    @property
    def recall(self) -> float | None:
        """Share of the questions memory should answer that it answered right."""
        return self.right / self.positives if self.positives else None

    @property
    def precision(self) -> float | None:
        """Share of memory's answers that were right."""
        return self.right / self.answers if self.answers else None


def labelled() -> dict[str, Any]:
    """The question set."""
    data: dict[str, Any] = json.loads(QUESTION_SET.read_text(encoding="utf-8"))
    return data


def problems(data: dict[str, Any]) -> list[str]:
    """What is wrong with the set ([] when it is fit to measure with)."""
    found = []
    questions = data["questions"]
    ids = {m["id"] for m in data["memories"]}
    if len(questions) < MIN_QUESTIONS:
        found.append(f"only {len(questions)} questions")
    negatives = [q for q in questions if q.get("answer") == []]
    if len(negatives) < MIN_NEGATIVES:
        found.append(f"only {len(negatives)} questions memory must not answer")
    for q in questions:
        if q["lang"] not in LANGUAGES:
            found.append(f"{q['id']}: unknown language {q['lang']}")
        if "answer" not in q and q.get("answer_scope") not in ("speaker", "household"):
            found.append(f"{q['id']}: no answer")
        if unknown := set(q.get("answer", [])) - ids:
            found.append(f"{q['id']}: unknown memories {sorted(unknown)}")
    said = [(q["lang"], q["say"]) for q in questions]
    if len(said) != len(set(said)):
        found.append("a question is asked twice in one language")
    return found


def measure() -> dict[str, Tally]:
    """Ask every question; the figures by language, kind and in all."""
    # Home Assistant's own errors (timers without a device, ...) are its answers here.
    logging.getLogger("homeassistant").setLevel(logging.CRITICAL)
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))  # where Home Assistant finds custom_components
    with tempfile.TemporaryDirectory() as folder:
        return asyncio.run(_measure(Path(folder), labelled()))


async def _measure(config: Path, data: dict[str, Any]) -> dict[str, Tally]:
    async with async_test_home_assistant(config_dir=str(config)) as hass:
        agent = await start_assist_memory(hass)
        memories = await _add_memories(hass, data)
        await meaning_caught_up(hass)
        tallies: dict[str, Tally] = {}
        for question in data["questions"]:
            result = await conversation.async_converse(
                hass,
                question["say"],
                None,
                Context(user_id=data["speaker"]),
                language=LANGUAGES[question["lang"]],
                agent_id=agent,
            )
            await hass.async_block_till_done()
            verdict = _judge(question, result, memories, data)
            for name in ("all", question["lang"], f"kind {question['kind']}"):
                _count(tallies.setdefault(name, Tally()), question, verdict)
        for entry in hass.config_entries.async_entries(INTEGRATION):
            await hass.config_entries.async_unload(entry.entry_id)
        await hass.async_stop(force=True)
    return tallies


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether memory answered, and whether the memory it said first was right."""

    answered: bool
    right: bool


def _count(tally: Tally, question: dict[str, Any], verdict: Verdict) -> None:
    tally.questions += 1
    negative = question.get("answer") == []
    tally.negatives += negative
    if verdict.answered:
        tally.answers += 1
        tally.negatives_taken += negative
        tally.right += verdict.right
        tally.wrong += not verdict.right
    if verdict.right != (not negative) or (negative and verdict.answered):
        tally.misses.append(question["id"])


def _judge(
    question: dict[str, Any],
    result: conversation.ConversationResult,
    memories: dict[str, dict[str, Any]],
    data: dict[str, Any],
) -> Verdict:
    by_id = {m["id"]: m for m in data["memories"]}
    if question["kind"] == "about":
        return _judge_about(question, _speech(result), by_id)
    said = [
        t.id
        for t in result.response.success_results
        if t.type is intent.IntentResponseTargetType.CUSTOM
    ]
    if not said:
        return Verdict(answered=False, right=False)
    first = memories.get(str(said[0]), {}).get("id")
    return Verdict(answered=True, right=first in question.get("answer", []))


def _judge_about(
    question: dict[str, Any], speech: str, by_id: dict[str, dict[str, Any]]
) -> Verdict:
    """Right when it says an expected memory and no other person's."""
    heard = {
        memory_id
        for memory_id, m in by_id.items()
        if for_listener(m["content"], own=m["scope"] == "speaker").rstrip(".") in speech
    }
    if not heard:
        return Verdict(answered=False, right=False)
    if scope := question.get("answer_scope"):
        expected = {i for i, m in by_id.items() if m["scope"] == scope}
    else:
        expected = set(question["answer"])
    leaked = any(by_id[i]["scope"] == "other" for i in heard)
    return Verdict(answered=True, right=bool(heard & expected) and not leaked)


def _speech(result: conversation.ConversationResult) -> str:
    return str(result.response.speech.get("plain", {}).get("speech", ""))


async def start_assist_memory(hass: HomeAssistant) -> str:
    """Assist Memory through its config flow, default options: the memory agent's id."""
    from bench_agent import free_port

    frame.async_setup(hass)
    hass.data.pop(loader.DATA_CUSTOM_COMPONENTS)
    http = {"server_host": ["127.0.0.1"], "server_port": free_port()}
    components = {"homeassistant": {}, "http": {"http": http}, "conversation": {}}
    for domain, config in components.items():
        if not await async_setup_component(hass, domain, config):
            raise RuntimeError(f"Home Assistant did not set up {domain}")
    for entity_id, name in DEVICES:
        hass.states.async_set(entity_id, "off", {"friendly_name": name})
    flows = hass.config_entries.flow
    flow = await flows.async_init(INTEGRATION, context={"source": SOURCE_USER})
    flow = await flows.async_configure(flow["flow_id"], {"next_step_id": "embedded"})
    await flows.async_configure(flow["flow_id"], {})
    await hass.async_block_till_done()
    (entry,) = hass.config_entries.async_entries(INTEGRATION)
    agent = er.async_get(hass).async_get_entity_id(
        "conversation", INTEGRATION, f"{entry.entry_id}_agent"
    )
    if agent is None:
        raise RuntimeError("Home Assistant did not set up the memory agent")
    return agent


async def _add_memories(
    hass: HomeAssistant, data: dict[str, Any]
) -> dict[str, dict[str, Any]]:
    """The set's memories, added through the service; by their stored id."""
    scopes = {
        "household": "household",
        "speaker": data["speaker"],
        "other": data["other"],
    }
    stored = {}
    for memory in data["memories"]:
        response: Any = await hass.services.async_call(
            INTEGRATION,
            "add",
            {"content": memory["content"], "scope": scopes[memory["scope"]]},
            blocking=True,
            return_response=True,
        )
        stored[str(response["memory"]["id"])] = memory
    return stored


async def meaning_caught_up(hass: HomeAssistant) -> None:
    """Wait until every memory has its vector (search by meaning is on by default)."""
    for entry in hass.config_entries.async_loaded_entries(INTEGRATION):
        # Home Assistant loads the engine as custom_components.assist_memory.engine,
        # not as this script's assist_memory_engine: its classes are not ours.
        engine = getattr(entry.runtime_data.backend, "engine", None)
        vectors = getattr(engine, "vectors", None)
        if vectors is None:
            continue
        if not await hass.async_add_executor_job(vectors.wait_until_idle, 300):
            raise RuntimeError("the memories were not embedded within 5 minutes")


def rows(tallies: dict[str, Tally], names: Sequence[str]) -> list[list[object]]:
    """Table rows: questions, right, recall, memory answers, precision, false ones."""

    def share(value: float | None) -> str:
        return "-" if value is None else f"{value:.3f}"

    return [
        [
            name,
            t.questions,
            f"{t.right} of {t.positives}",
            share(t.recall),
            t.answers,
            share(t.precision),
            t.wrong,
            f"{t.negatives_taken} of {t.negatives}",
        ]
        for name in names
        if (t := tallies.get(name)) is not None
    ]


def kinds(tallies: dict[str, Tally]) -> list[str]:
    """The kind rows, in a stable order."""
    return sorted(name for name in tallies if name.startswith("kind "))
