"""'When is the plumber coming?' without an LLM: the day the memory keeps, said as a day.

Default options, Home Assistant's own agent behind the memory agent, a frozen clock in
the home's time zone: the sentence is learnt with its date made absolute, then asked
about days later in a new conversation.
"""

from __future__ import annotations

from freezegun.api import FrozenDateTimeFactory
from homeassistant.core import HomeAssistant
import pytest

from .conversing import contents, say, speech


@pytest.mark.usefixtures("loaded_entry")
async def test_when_is_answered_with_the_day(
    hass: HomeAssistant, freezer: FrozenDateTimeFactory
) -> None:
    await hass.config.async_set_time_zone("Europe/London")
    freezer.move_to("2026-12-01 09:00:00+00:00")  # a Tuesday
    told = await say(hass, "The plumber is coming on Friday at 10:00.")
    assert speech(told).startswith("Got it: ")
    assert await contents(hass) == [
        "The plumber is coming on Friday 4 December at 10:00"
    ]

    freezer.move_to("2026-12-03 18:00:00+00:00")
    asked = await say(hass, "When is the plumber coming?")
    assert speech(asked) == "On Friday 4 December at 10:00."
