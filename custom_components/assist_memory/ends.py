"""A memory's end as people give it in Home Assistant: a day, or a day and a time.

A day alone ("2026-12-06") means the memory holds through that day: it ends at the
next midnight in the home's time zone. A time without a zone is in the home's zone.
An empty value means the memory never ends ("" to the engine, which clears it).
"""

from __future__ import annotations

from homeassistant.util import dt as dt_util

from .engine import InvalidMemoryError
from .engine.language.time_phrases import ends_at


def expires_at_given(value: str) -> str:
    """The engine's `expires_at` (UTC, ISO 8601) for an end given in Home Assistant.

    InvalidMemoryError (`invalid_timestamp`) when it is neither a day nor a time.
    """
    text = value.strip()
    if not text:
        return ""
    zone = dt_util.get_default_time_zone()
    if len(text) == 10 and (day := dt_util.parse_date(text)) is not None:
        return ends_at(day, zone).isoformat()
    moment = dt_util.parse_datetime(text)
    if moment is None:
        raise InvalidMemoryError(
            "invalid_timestamp",
            "expires_at must be a date or an ISO 8601 time",
            field="expires_at",
        )
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=zone)
    return dt_util.as_utc(moment).isoformat()
