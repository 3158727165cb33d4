"""The README's conversation is what Assist says: default options, Home Assistant's own
agent behind the memory agent, an administrator typing in Assist."""

from __future__ import annotations

from pathlib import Path
import re

from homeassistant.core import HomeAssistant
import pytest
from pytest_homeassistant_custom_component.common import MockUser

from .conversing import say, speech

README = Path(__file__).parents[2] / "README.md"


def readme_conversation() -> list[tuple[str, str]]:
    """The (said, answered) pairs of the README's first text block."""
    block = (
        README.read_text(encoding="utf-8").split("```text\n", 1)[1].split("```", 1)[0]
    )
    lines = [line for line in block.splitlines() if not line.strip().startswith("…")]
    turns = [re.match(r"(You|Assist):\s+(.*)", line) for line in lines]
    pairs = [(m[1], m[2]) for m in turns if m]
    assert [who for who, _ in pairs] == ["You", "Assist"] * (len(pairs) // 2)
    return [(pairs[i][1], pairs[i + 1][1]) for i in range(0, len(pairs), 2)]


@pytest.mark.usefixtures("loaded_entry")
async def test_the_readme_conversation(
    hass: HomeAssistant, hass_admin_user: MockUser
) -> None:
    conversation_id: str | None = None
    for said, answered in readme_conversation():
        if said.startswith("Where"):
            conversation_id = None  # the next day: a new conversation
        result = await say(hass, said, conversation_id, user_id=hass_admin_user.id)
        assert speech(result) == answered, said
        conversation_id = result.conversation_id
