"""The "Assist Memory" LLM API: memory tools any LLM agent can be given.

read_memory, append_memory, search_memory (at most 10 results) and append_daily_log,
plus, when agentic search is on, a search by keyword and time range. The
API's prompt carries the memory block, so an agent given only this API still knows
what the household told it. What the tools keep is redacted: a password, code or key
the model passes on is kept as "[secret withheld]".

Whose memories: the speaker is decided as for every turn (`speaker.py`: the user, or
the person of the voice device). A fact goes where the memory sentences would put it
("my ...", "the user's ..." for the speaker when known, "our ..." and anything else
for the household; about an unknown speaker, held for Review; nothing at a guest
device), and reading and searching give the speaker the household's memories and
their own, never another person's.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

from homeassistant.core import HomeAssistant
from homeassistant.helpers import config_validation as cv, llm
from homeassistant.util import dt as dt_util
from homeassistant.util.json import JsonObjectType
import probatio

from .const import CONF_ENABLE_AGENTIC_SEARCH, DOMAIN
from .engine import (
    CATEGORIES,
    DocumentOperations,
    Memory,
    MemoryBackend,
    MemoryEngineError,
    MemoryOperations,
    redact,
)
from .engine.conversation.held_facts import new_held_fact
from .engine.conversation.speaker import Speaker
from .engine.conversation.turn_settings import TurnSettings
from .engine.conversation.turns import scopes_for
from .engine.documents.markdown import render_markdown
from .engine.language.commands import about_whom, scopes_about
from .engine.language.provenance import Provenance
from .engine.storage.models import utc_time
from .runtime_data import AssistMemoryConfigEntry
from .speaker import resolve_speaker

API_PROMPT = (
    "You have a long-term memory for this household (tools: read_memory, search_memory, "
    "append_memory, append_daily_log). When the user tells you something worth keeping "
    "(preferences, facts about people, routines, events), store it with append_memory. "
    "Before answering questions about the past or about people, search your memory. "
    "Never store passwords, codes or other secrets."
)
SEARCH_LIMIT = 10


# Memories are read for `read_memory` in pages of this many.
_PAGE: Final = 1000


def _speaker(
    hass: HomeAssistant, entry: AssistMemoryConfigEntry, llm_context: llm.LLMContext
) -> Speaker:
    """Who the tool works for: the user, or the person of the voice device."""
    return resolve_speaker(
        hass,
        entry.options,
        user_id=llm_context.context.user_id if llm_context.context else None,
        device_id=llm_context.device_id,
    )


def _scopes(speaker: Speaker) -> list[str]:
    return list(scopes_for(speaker.owner))


class _MemoryTool(llm.Tool):
    """A tool working on the entry's memory; an engine error is an error result."""

    integration = DOMAIN

    def __init__(self, entry: AssistMemoryConfigEntry) -> None:
        self.entry = entry

    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> llm.ToolResult:
        """Run the tool on the entry's backend."""
        try:
            data = await self._async_run(
                self.entry.runtime_data.backend,
                tool_input.tool_args,
                _speaker(hass, self.entry, llm_context),
            )
        except MemoryEngineError as err:
            return llm.ToolResult(data={"error": err.message}, error=True)
        return llm.ToolResult(data=data)

    async def _async_run(
        self, backend: MemoryBackend, args: dict[str, Any], speaker: Speaker
    ) -> JsonObjectType:
        raise NotImplementedError


class ReadMemoryTool(_MemoryTool):
    """MEMORY.md as the speaker may see it."""

    name = "read_memory"
    description = (
        "Read the whole long-term memory of the household and the person speaking "
        "(MEMORY.md, grouped by category)."
    )
    annotations = llm.ToolAnnotations(
        read_only=True, destructive=False, open_world=False
    )

    async def _async_run(
        self,
        backend: MemoryOperations,
        args: dict[str, Any],
        speaker: Speaker,
    ) -> JsonObjectType:
        """The Markdown view of the memories the speaker may see."""
        memories: list[Memory] = []
        for scope in _scopes(speaker):
            offset = 0
            while True:
                page = await backend.list(scope=scope, offset=offset, limit=_PAGE)
                memories.extend(page.items)
                offset += len(page.items)
                if not page.items or offset >= page.total:
                    break
        return {"memory": render_markdown(memories, dt_util.get_default_time_zone())}


class AppendMemoryTool(_MemoryTool):
    """Remember a fact."""

    name = "append_memory"
    description = (
        "Store one fact in long-term memory: a short, self-contained sentence "
        "(for example 'Anna takes her coffee black'), with its category. A fact "
        "about the person speaking starts 'The user' or 'The user's' (kept for them "
        "only); one for everyone in the home says 'our' or 'the household'."
    )
    parameters = probatio.Schema(
        {
            probatio.Required("fact"): cv.string,
            probatio.Optional("category", default="fact"): probatio.In(CATEGORIES),
        }
    )
    annotations = llm.ToolAnnotations(destructive=False, open_world=False)

    async def _async_run(
        self,
        backend: MemoryBackend,
        args: dict[str, Any],
        speaker: Speaker,
    ) -> JsonObjectType:
        """Add the fact for the speaking user or the household, as it says."""
        fact = redact(args["fact"])
        category = args.get("category", "fact")
        if not speaker.learns:
            return {"stored": None, "reason": "guest_device"}
        if not speaker.known and about_whom(fact) == "speaker":
            # Nobody can tell whose it is: held for Review, never the household's.
            held = await backend.hold(
                new_held_fact(
                    fact,
                    reason="speaker_unknown",
                    device_id=speaker.device_id,
                    category=category,
                )
            )
            return {"stored": None, "held_for_review": held.content}
        memory = await backend.add(
            fact,
            category=category,
            source="user_stated",
            confidence=0.9,
            scope=scopes_about(fact, speaker.owner).write,
            metadata=Provenance("tool", speaker=speaker.owner).metadata(),
        )
        return {"stored": memory.content, "id": memory.id}


class SearchMemoryTool(_MemoryTool):
    """Find memories."""

    name = "search_memory"
    description = "Search long-term memory; returns at most 10 memories, best first."
    parameters = probatio.Schema({probatio.Required("query"): cv.string})
    annotations = llm.ToolAnnotations(
        read_only=True, destructive=False, open_world=False
    )

    async def _async_run(
        self,
        backend: MemoryOperations,
        args: dict[str, Any],
        speaker: Speaker,
    ) -> JsonObjectType:
        """The best matches for the query."""
        found = await backend.search(
            args["query"],
            limit=SEARCH_LIMIT,
            scopes=_scopes(speaker),
            record_access=True,
        )
        return {"results": [_brief(r.memory.to_dict()) for r in found]}


class AppendDailyLogTool(_MemoryTool):
    """Note what happened today."""

    name = "append_daily_log"
    description = (
        "Add a time-stamped entry to today's log (things that happened today)."
    )
    parameters = probatio.Schema({probatio.Required("entry"): cv.string})
    annotations = llm.ToolAnnotations(destructive=False, open_world=False)

    async def _async_run(
        self,
        backend: DocumentOperations,
        args: dict[str, Any],
        speaker: Speaker,
    ) -> JsonObjectType:
        """Append the entry to today's log."""
        entry = await backend.append_daily_log(redact(args["entry"]), dt_util.now())
        return {"logged": entry.text, "date": entry.date}


class SearchMemoryByTimeTool(_MemoryTool):
    """Agentic search: keyword and an optional time range."""

    name = "search_memory_by_time"
    description = (
        "Search long-term memory by keyword, optionally only memories created or changed "
        "between two ISO 8601 times (for example 2026-11-01T00:00:00)."
    )
    parameters = probatio.Schema(
        {
            probatio.Required("keyword"): cv.string,
            probatio.Optional("start"): cv.datetime,
            probatio.Optional("end"): cv.datetime,
        }
    )
    annotations = llm.ToolAnnotations(
        read_only=True, destructive=False, open_world=False
    )

    async def _async_run(
        self,
        backend: MemoryOperations,
        args: dict[str, Any],
        speaker: Speaker,
    ) -> JsonObjectType:
        """Matches for the keyword within the time range."""
        start = _moment(args.get("start"), "start")
        end = _moment(args.get("end"), "end")
        found = await backend.search(args["keyword"], limit=50, scopes=_scopes(speaker))
        matching = [r for r in found if _within(r.memory.updated_at, start, end)]
        return {
            "results": [_brief(r.memory.to_dict()) for r in matching[:SEARCH_LIMIT]]
        }


def _moment(value: object, name: str) -> datetime | None:
    """A time argument in UTC (local time when it has no zone).

    MemoryEngineError when UTC cannot hold it (year 1 at +14:00).
    """
    if isinstance(value, str):
        value = dt_util.parse_datetime(value)
    if not isinstance(value, datetime):
        return None
    if not value.tzinfo:
        value = value.replace(tzinfo=dt_util.get_default_time_zone())
    return utc_time(value, name)


def _within(stamp: str, start: datetime | None, end: datetime | None) -> bool:
    when = dt_util.parse_datetime(stamp)
    if when is None:
        return False
    if start is not None and when < start:
        return False
    return end is None or when <= end


def _brief(record: dict[str, Any]) -> JsonObjectType:
    """What a model needs of a memory."""
    return {
        "id": record["id"],
        "content": record["content"],
        "category": record["category"],
        "updated_at": record["updated_at"],
    }


class AssistMemoryAPI(llm.API):
    """Memory tools for any LLM agent, selectable in its options."""

    def __init__(self, hass: HomeAssistant, entry: AssistMemoryConfigEntry) -> None:
        super().__init__(hass=hass, id=DOMAIN, name="Assist Memory")
        self.entry = entry

    async def async_get_api_instance(
        self, llm_context: llm.LLMContext
    ) -> llm.APIInstance:
        """The tools, and a prompt with what the household told us."""
        tools: list[llm.Tool] = [
            ReadMemoryTool(self.entry),
            AppendMemoryTool(self.entry),
            SearchMemoryTool(self.entry),
            AppendDailyLogTool(self.entry),
        ]
        if self.entry.options.get(CONF_ENABLE_AGENTIC_SEARCH):
            tools.append(SearchMemoryByTimeTool(self.entry))
        try:
            block = await self.entry.runtime_data.backend.memory_overview(
                user_id=_speaker(self.hass, self.entry, llm_context).owner,
                settings=TurnSettings.from_options(self.entry.options),
            )
        except MemoryEngineError:
            block = ""
        prompt = f"{API_PROMPT}\n{block}" if block else API_PROMPT
        return llm.APIInstance(
            api=self, api_prompt=prompt, llm_context=llm_context, tools=tools
        )
