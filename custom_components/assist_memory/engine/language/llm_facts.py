"""Facts from an LLM extractor: what it is asked and how its answer is checked.

`parse_llm_facts` takes the answer of an LLM that was given
`LLM_EXTRACTION_INSTRUCTIONS` and `FACTS_SCHEMA`; bad items are dropped and logged.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from datetime import date, datetime
import json
import logging
import math
import re
from typing import Any, Final

from ..storage.models import CATEGORIES
from .date_phrases import absolute_date_phrase
from .facts import (
    DEFAULT_INFERRED_CONFIDENCE,
    EXTRACTION_SOURCES,
    MAX_FACT_KEY_LENGTH,
    MAX_INFERRED_CONFIDENCE,
    MAX_LLM_CONTENT_LENGTH,
    MIN_STATED_CONFIDENCE,
    STATED_CONFIDENCE,
    WHOSE,
    Fact,
    Whose,
)
from .keywords import normalize
from .secrets_filter import mentions_secret

_LOGGER = logging.getLogger(__name__)


# -- LLM output ------------------------------------------------------------------------

LLM_EXTRACTION_INSTRUCTIONS: Final = """\
You pick out what a home voice assistant should remember long-term from a conversation.

Only the lines marked "user:" are sources. The lines marked "assistant:" are the
assistant's own words: never take a fact from them, even when they sound certain.
Keep only what a user said outright, in their own words; never add a detail nobody
said (a room, a brand, a name, a time). When the users said nothing worth keeping,
answer with no facts: that is the usual case.

Keep only durable facts about the people in the household that will still be useful in
weeks or months:
- personal facts (name, allergies, diet, where they live or work),
- preferences and dislikes,
- routines and habits (what they do every day, usually, on weekends),
- people and pets and how they relate to the user,
- birthdays, anniversaries and other dated events.

Do not keep: small talk and greetings, questions, device commands and their results,
what the assistant said, what lasts only minutes (the weather now, a timer, where
something is right now), guesses and hypotheticals.
Do keep what is true for a while and then ends (a visit until a day, an appointment),
with its end.
Never keep secrets: passwords, PINs, door or alarm codes, one-time codes, API keys or
tokens, card or bank account numbers.

Write each fact as one short sentence that makes sense on its own later, in the language
the user spoke, in the third person ("I" and "my" become "The user" and "The user's";
"我" becomes "用户"), keeping the user's own words for everything else. The examples
below are patterns with placeholders in angle brackets, never facts: "The user
prefers <thing>", "用户喜欢<东西>", "<name>'s birthday is <date>".

Whose each fact is ("scope"): "household" for what is about the home and shared in it:
what "we", "our", 我们, 咱们, 家里 say, the house and its rooms, where shared things are
kept, the pets, a member of the household named on their own. Write those without
"the user": "<shared thing> is in <place>", "<共用的东西>在<地方>", also when the speaker
moved the thing. "speaker" for what is about the person speaking: "I", "my", 我, their
preferences, allergies, work and own schedule, their own things, and people named
through them ("The user's <relative> <name> <does something>"). When unsure, "speaker".

Time: write every relative date as the date it is, counted from "Now" below in the
home's time zone ("tomorrow at ten" -> "on <weekday> <day> <month> at 10:00", "下周五"
-> "<月>月<日>日（周五）", "last year" -> "in <year>"). Weeks run Monday to Sunday. Give
"until", the last day the fact is still true, as YYYY-MM-DD: "until Sunday" is that
Sunday; "for three days" three days from today; "this week" its Sunday; something
that happens on a day ends the day after it. Leave "until" null for what does not
end: habits, birthdays, past events, lasting facts.

Answer with JSON only, exactly this shape:
{"facts": [{"content": "...", "category": "preference", "key": "user_<subject>",
"confidence": 0.9, "source": "user_stated", "until": null, "scope": "speaker"}]}
- category: one of preference, fact, pattern, event, person, routine, note
- key: a short snake_case subject such as "user_name", "<name>_<subject>", or null
- source: "user_stated" when the user said it outright, "inferred" when you concluded it
- confidence: from 0 to 1
- scope: "household" or "speaker", as above
If nothing is worth keeping, answer {"facts": []}.
"""

FACTS_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "facts": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "content": {
                        "type": "string",
                        "minLength": 1,
                        "maxLength": MAX_LLM_CONTENT_LENGTH,
                        "description": "One self-contained sentence in the third person",
                    },
                    "category": {"type": "string", "enum": list(CATEGORIES)},
                    "key": {
                        "type": ["string", "null"],
                        "description": "Short snake_case subject, e.g. user_name",
                    },
                    "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                    "source": {"type": "string", "enum": list(EXTRACTION_SOURCES)},
                    "until": {
                        "type": ["string", "null"],
                        "description": "The last day the fact is true, YYYY-MM-DD",
                    },
                    "scope": {
                        "type": "string",
                        "enum": list(WHOSE),
                        "description": "Whose it is: the household's or the speaker's",
                    },
                },
                "required": ["content", "category"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["facts"],
    "additionalProperties": False,
}


def extraction_instructions(now: datetime) -> str:
    """The instructions, with now (in the home's time zone) to count dates from."""
    day = absolute_date_phrase(now.date(), "en")
    return (
        f"{LLM_EXTRACTION_INSTRUCTIONS}\nNow: {day} {now.year}, {now:%H:%M}"
        f" ({now.tzinfo}, UTC{now:%z}).\n"
    )


_FENCE: Final = re.compile(r"```(?:json|JSON)?\s*(?P<body>.*?)```", re.DOTALL)


class _DroppedItemError(Exception):
    """An LLM item that cannot become a fact; the message says why."""


def parse_llm_facts(raw: object) -> list[Fact]:
    """Facts from an LLM extractor's answer; bad items are dropped, one log line each.

    Accepts {"facts": [...]}, a list of items, one item, or their JSON text (also in a
    ```json fence or with prose around it).
    """
    items = _llm_items(raw)
    facts: list[Fact] = []
    for index, item in enumerate(items):
        try:
            facts.append(_llm_fact(item))
        except _DroppedItemError as err:
            _LOGGER.info("Dropped fact %d of the LLM's answer: %s", index, err)
    return facts


def _llm_items(raw: object) -> list[object]:
    if isinstance(raw, bytes | bytearray):
        raw = raw.decode("utf-8", errors="replace")
    if isinstance(raw, str):
        decoded = _decode_json(raw)
        if decoded is None:
            _LOGGER.warning("The LLM's extraction answer is not JSON; no facts taken")
            return []
        raw = decoded
    if isinstance(raw, Mapping):
        if "facts" in raw:
            facts = raw["facts"]
            if isinstance(facts, list | tuple):
                return list(facts)
            _LOGGER.warning("The LLM's extraction answer has no list of facts")
            return []
        if "content" in raw:
            return [raw]
        _LOGGER.warning("The LLM's extraction answer has no 'facts'")
        return []
    if isinstance(raw, list | tuple):
        return list(raw)
    _LOGGER.warning(
        "The LLM's extraction answer is a %s, not facts", type(raw).__name__
    )
    return []


def _decode_json(text: str) -> object | None:
    text = text.strip()
    if fence := _FENCE.search(text):
        text = fence.group("body").strip()
    try:
        decoded: object = json.loads(text)
    except ValueError:
        starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
        if not starts:
            return None
        start = min(starts)
        end = max(text.rfind("}"), text.rfind("]"))
        if end <= start:
            return None
        try:
            decoded = json.loads(text[start : end + 1])
        except ValueError:
            return None
    return decoded


def _llm_fact(item: object) -> Fact:
    if not isinstance(item, Mapping):
        raise _DroppedItemError(f"not an object but a {type(item).__name__}")
    content = item.get("content")
    if not isinstance(content, str):
        raise _DroppedItemError("content is not text")
    content = re.sub(r"\s+", " ", content).strip()
    if not content:
        raise _DroppedItemError("empty content")
    if len(content) > MAX_LLM_CONTENT_LENGTH:
        raise _DroppedItemError(
            f"content is {len(content)} characters, the limit is {MAX_LLM_CONTENT_LENGTH}"
        )
    if "\x00" in content:
        raise _DroppedItemError("content contains NUL characters")
    category = item.get("category")
    if not isinstance(category, str) or category.strip().lower() not in CATEGORIES:
        shown = repr(category)[:40]
        raise _DroppedItemError(f"unknown category {shown}")
    key = _llm_key(item.get("key"))
    confidence = _llm_confidence(item.get("confidence"))
    source = item.get("source")
    if isinstance(source, str) and source.strip().lower() == "user_stated":
        stated = STATED_CONFIDENCE if confidence is None else confidence
        fact = Fact(
            content, category, key, max(stated, MIN_STATED_CONFIDENCE), "user_stated"
        )
    else:
        inferred = DEFAULT_INFERRED_CONFIDENCE if confidence is None else confidence
        fact = Fact(
            content, category, key, min(inferred, MAX_INFERRED_CONFIDENCE), "inferred"
        )
    if mentions_secret(fact.content) or (fact.key and mentions_secret(fact.key)):
        raise _DroppedItemError(f"it contains a secret (category {fact.category})")
    return replace(
        fact,
        until=_llm_until(item.get("until")),
        whose=_llm_whose(item.get("scope")),
        from_llm=True,
    )


def _llm_whose(value: object) -> Whose | None:
    """Whose the LLM says a fact is; anything else is left to the rules (`fact_scope`)."""
    if value == "household":
        return "household"
    if value == "speaker":
        return "speaker"
    return None


def _llm_until(value: object) -> date | None:
    """The last day an LLM gave; one it wrote otherwise than YYYY-MM-DD is left out."""
    if not isinstance(value, str):
        return None
    try:
        return date.fromisoformat(value.strip()[:10])
    except ValueError:
        return None


def _llm_key(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise _DroppedItemError("key is not text")
    key = re.sub(r"[^\w]+", "_", normalize(value)).strip("_")
    if len(key) > MAX_FACT_KEY_LENGTH:
        raise _DroppedItemError(f"key is longer than {MAX_FACT_KEY_LENGTH} characters")
    return key or None


def _llm_confidence(value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            raise _DroppedItemError("confidence is not a number") from None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _DroppedItemError("confidence is not a number")
    if not math.isfinite(value) or not 0.0 <= value <= 1.0:
        raise _DroppedItemError("confidence is not between 0 and 1")
    return float(value)
