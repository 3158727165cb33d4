"""What a logged-in person says about the home is the household's, not only theirs.

A real Home Assistant, the memory agent wrapping Home Assistant's own intent agent with
the default options. Anna is logged in: "Our wifi router is in the study" is learnt as
the household's, so Bob's "Where is the router?" is answered from it; "I'm allergic to
hazelnuts" stays Anna's. With an LLM extractor, its `scope` says whose a fact is, and a
"household" fact that speaks of the user stays the user's.
"""

from __future__ import annotations

from typing import Any

from homeassistant.core import HomeAssistant
import pytest

from custom_components.assist_memory.const import CONF_AGENT_ID, CONF_EXTRACTOR_ENTITY

from .agents import AGENT_ENTITY_ID, TASK_ENTITY_ID, LlmEntities
from .conversing import EAGER, options, say, speech

ANNA = "anna-user-id"
BOB = "bob-user-id"


async def scopes(hass: HomeAssistant) -> dict[str, str]:
    """Each memory's content, with its scope."""
    response: Any = await hass.services.async_call(
        "assist_memory", "list", {}, blocking=True, return_response=True
    )
    return {m["content"]: m["scope"] for m in response["items"]}


@pytest.mark.usefixtures("loaded_entry")
async def test_a_household_fact_said_logged_in_reaches_everyone(
    hass: HomeAssistant,
) -> None:
    said = await say(hass, "Our wifi router is in the study", user_id=ANNA)

    assert speech(said) == "Got it: Your household's wifi router is in the study."
    assert await scopes(hass) == {
        "The household's wifi router is in the study": "household"
    }
    answer = await say(hass, "Where is the router?", user_id=BOB)
    assert speech(answer) == "Your household's wifi router is in the study."


@pytest.mark.usefixtures("loaded_entry")
async def test_a_personal_fact_said_logged_in_stays_the_speakers(
    hass: HomeAssistant,
) -> None:
    said = await say(hass, "I'm allergic to hazelnuts", user_id=ANNA)

    assert speech(said) == "Got it: You're allergic to hazelnuts."
    assert await scopes(hass) == {"The user is allergic to hazelnuts": ANNA}
    answer = await say(hass, "What am I allergic to?", user_id=BOB)
    assert "hazelnut" not in speech(answer)
    answer = await say(hass, "What am I allergic to?", user_id=ANNA)
    assert speech(answer) == "You're allergic to hazelnuts."


@pytest.mark.usefixtures("loaded_entry")
@pytest.mark.parametrize(
    ("sentence", "language", "stored", "asked"),
    [
        (
            "I moved the spare key to the shed",
            "en",
            "The spare key was moved to the shed",
            ("Where is the spare key?", "The spare key was moved to the shed."),
        ),
        (
            "我们家的路由器在书房",
            "zh-CN",
            "用户家的路由器在书房",
            ("路由器在哪里？", "你家的路由器在书房。"),
        ),
        (
            "家裡的wifi路由器在書房",
            "zh-TW",
            "家裡的wifi路由器在書房",
            ("路由器在哪裡？", "家裡的wifi路由器在書房。"),
        ),
    ],
)
async def test_household_facts_in_each_language(
    hass: HomeAssistant,
    sentence: str,
    language: str,
    stored: str,
    asked: tuple[str, str],
) -> None:
    await say(hass, sentence, user_id=ANNA, language=language)

    assert await scopes(hass) == {stored: "household"}
    question, answer = asked
    assert speech(await say(hass, question, user_id=BOB, language=language)) == answer


@pytest.mark.parametrize(
    "entry_options",
    [
        options(
            **{
                CONF_AGENT_ID: AGENT_ENTITY_ID,
                CONF_EXTRACTOR_ENTITY: TASK_ENTITY_ID,
                **EAGER,
            }
        )
    ],
)
@pytest.mark.usefixtures("loaded_entry")
async def test_an_llm_extractor_says_whose_a_fact_is(
    hass: HomeAssistant, llm: LlmEntities
) -> None:
    llm.task.answer = {
        "facts": [
            {
                "content": "The wifi router is in the study",
                "category": "fact",
                "scope": "household",
            },
            {
                "content": "The user is allergic to hazelnuts",
                "category": "fact",
                "scope": "speaker",
            },
            # Said to be the household's, but about the user: it stays theirs.
            {
                "content": "The user works from home on Fridays",
                "category": "routine",
                "scope": "household",
            },
            # No scope: the rules place it (where a thing is kept: the household).
            {"content": "The boiler is in the garage", "category": "fact"},
        ]
    }

    await say(
        hass,
        "Our wifi router is in the study, I'm allergic to hazelnuts, I work from home"
        " on Fridays, and the boiler is in the garage",
        user_id=ANNA,
    )

    assert await scopes(hass) == {
        "The wifi router is in the study": "household",
        "The user is allergic to hazelnuts": ANNA,
        "The user works from home on Fridays": ANNA,
        "The boiler is in the garage": "household",
    }
    (instructions, *_) = llm.task.instructions
    assert '"household" or "speaker"' in instructions
