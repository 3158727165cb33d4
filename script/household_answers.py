"""Answers without an LLM on the households written apart (households.json).

For each household of a split, a Home Assistant test instance in this process with
Assist Memory set up through its config flow and its default options (the memory agent
wraps Home Assistant's own intent agent, search by meaning on), the household's
memories added through the `add` service (a private one under its owner's user), and
every question asked by its asker in its language. An answer from memory names the
memories it said in the response's results.

Per language and per wording: answered (the memories said all answer it) out of the
answerable questions, a wrong memory said out of the answerable ones, and a memory
said for a question no memory answers. `script/bench --answers` prints the test split.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
import logging
from pathlib import Path
import re
import sys
import tempfile
from typing import Any, Final

from answer_quality import (
    INTEGRATION,
    LANGUAGES,
    meaning_caught_up,
    start_assist_memory,
)
from homeassistant.components import conversation
from homeassistant.core import Context
from homeassistant.helpers import intent
from household_quality import Household, households
from pytest_homeassistant_custom_component.common import async_test_home_assistant

ROOT = Path(__file__).resolve().parent.parent
HOUSEHOLD: Final = "household"


@dataclass
class Tally:
    """One group's figures."""

    answerable: int = 0
    answered: int = 0
    wrong: int = 0
    unanswerable: int = 0
    given: int = 0
    wrong_ids: list[str] = field(default_factory=list)

    def row(self, name: str) -> list[object]:
        """The table row for one split."""

        def share(count: int, total: int) -> str:
            return f"{count} of {total} ({count / total:.2f})" if total else "-"

        return [
            name,
            share(self.answered, self.answerable),
            share(self.wrong, self.answerable),
            share(self.given, self.unanswerable),
        ]


def user_of(name: str) -> str:
    """The Home Assistant user id a household's person speaks as."""
    return "user-" + re.sub(r"\W+", "-", name.lower()).strip("-")


def measure(*splits: str) -> dict[str, Tally]:
    """Ask every question of the splits' households; figures by group."""
    logging.getLogger("homeassistant").setLevel(logging.CRITICAL)
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))  # where Home Assistant finds custom_components
    tallies: dict[str, Tally] = defaultdict(Tally)
    for house in households(*splits):
        with tempfile.TemporaryDirectory() as folder:
            asyncio.run(_measure_household(Path(folder), house, tallies))
    return dict(tallies)


async def _measure_household(
    config: Path, house: Household, tallies: dict[str, Tally]
) -> None:
    async with async_test_home_assistant(config_dir=str(config)) as hass:
        agent = await start_assist_memory(hass)
        # A household of more memories than the default limit raised it, as asked.
        (entry,) = hass.config_entries.async_entries(INTEGRATION)
        hass.config_entries.async_update_entry(
            entry, options={**entry.options, "max_items": 1000}
        )
        await hass.async_block_till_done()
        stored: dict[str, str] = {}
        for memory in house.memories:
            owner = memory["owner"]
            response: Any = await hass.services.async_call(
                INTEGRATION,
                "add",
                {
                    "content": memory["content"],
                    "scope": HOUSEHOLD if owner is None else user_of(owner),
                },
                blocking=True,
                return_response=True,
            )
            stored[str(response["memory"]["id"])] = memory["id"]
        await meaning_caught_up(hass)
        for question in house.questions:
            result = await conversation.async_converse(
                hass,
                question["say"],
                None,
                Context(user_id=user_of(question["asker"])),
                language=LANGUAGES[question["lang"]],
                agent_id=agent,
            )
            await hass.async_block_till_done()
            said = [
                stored.get(str(target.id), "?")
                for target in result.response.success_results
                if target.type is intent.IntentResponseTargetType.CUSTOM
            ]
            for group in ("all", question["lang"], f"wording {question['wording']}"):
                _count(tallies[group], question, said)
        for entry in hass.config_entries.async_entries(INTEGRATION):
            await hass.config_entries.async_unload(entry.entry_id)
        await hass.async_stop(force=True)


def _count(tally: Tally, question: dict[str, Any], said: Sequence[str]) -> None:
    answer = set(question["answer"])
    if not answer:
        tally.unanswerable += 1
        tally.given += bool(said)
        return
    tally.answerable += 1
    if said and all(memory in answer for memory in said):
        tally.answered += 1
    elif said:
        tally.wrong += 1
        tally.wrong_ids.append(question["id"])


HEADER: Final = [
    "questions",
    "answered",
    "a wrong memory said",
    "unanswerable answered",
]


def rows(tallies: dict[str, Tally]) -> list[list[object]]:
    """Table rows, all first, then by language and by wording."""
    order = sorted(
        tallies, key=lambda name: (name != "all", name.startswith("wording"), name)
    )
    return [tallies[name].row(name) for name in order]
