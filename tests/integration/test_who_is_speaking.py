"""Who is speaking: each person's memory at the household's voice devices.

A real Home Assistant with users, person entities following their phones, voice
devices in the device registry, and turns as a satellite sends them
(`conversation.async_converse` with a device id and a context without a user). The
memory agent wraps a recording LLM-style agent, so every prompt can be read.
"""

from __future__ import annotations

from typing import Any

from homeassistant.core import HomeAssistant
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry
from pytest_homeassistant_custom_component.typing import WebSocketGenerator

from custom_components.assist_memory.const import CONF_AGENT_ID
from custom_components.assist_memory.engine import HOUSEHOLD_SCOPE
from custom_components.assist_memory.engine.conversation.speaker import Speaker
from custom_components.assist_memory.speaker import (
    CONF_GUEST_DEVICES,
    CONF_PRESENCE,
    async_resolve_speaker,
    devices_option_key,
)

from .agents import AGENT_ENTITY_ID, LlmEntities
from .conversing import (
    EAGER,
    add,
    data_files_containing,
    forget_chat_logs,
    options,
    say,
    speech,
)
from .household import ANNA, BOB, LEO, Household, async_home, async_household

LLM_AGENT = options(**{CONF_AGENT_ID: AGENT_ENTITY_ID, **EAGER})
# Home Assistant's own agent: the memory agent answers memory sentences itself.
INTENT_AGENT = options(**EAGER)


@pytest.fixture
async def household(hass: HomeAssistant) -> Household:
    """Anna and Bob (users), Leo (a person only), a kitchen and a bedroom device."""
    return await async_household(hass)


async def set_speakers(
    hass: HomeAssistant, entry: MockConfigEntry, **changes: Any
) -> None:
    """Change the "Who is speaking" options (applied as saving the step does)."""
    hass.config_entries.async_update_entry(entry, options={**entry.options, **changes})
    await hass.async_block_till_done()


async def memories(hass: HomeAssistant, entry: MockConfigEntry) -> dict[str, str]:
    """Every memory's content -> its scope."""
    page = await entry.runtime_data.backend.list(limit=200)
    return {m.content: m.scope for m in page.items}


async def held(entry: MockConfigEntry) -> list[tuple[str, str | None]]:
    """The held facts as (content, device id)."""
    return [
        (f.content, f.device_id) for f in await entry.runtime_data.backend.held_facts()
    ]


# -- where the speaker comes from ---------------------------------------------------


@pytest.mark.parametrize("entry_options", [LLM_AGENT])
@pytest.mark.usefixtures("llm")
async def test_each_identity_source(
    hass: HomeAssistant, household: Household, loaded_entry: MockConfigEntry
) -> None:
    hall = "a-device-nobody-was-given"
    await set_speakers(
        hass,
        loaded_entry,
        **{
            devices_option_key(BOB): [household.bedroom],
            devices_option_key(LEO): [household.kitchen],
            CONF_GUEST_DEVICES: ["guest-room-device"],
        },
    )

    async def who(user_id: str | None, device_id: str | None) -> Speaker:
        return await async_resolve_speaker(
            hass, loaded_entry, user_id=user_id, device_id=device_id
        )

    # The user of the turn wins, at any device.
    anna = await who(household.anna_user, household.bedroom)
    assert (anna.source, anna.scope, anna.person_entity_id) == (
        "user",
        household.anna_user,
        ANNA,
    )
    bob = await who(None, household.bedroom)
    assert (bob.source, bob.scope, bob.user_id) == (
        "device",
        household.bob_user,
        household.bob_user,
    )
    # A person without a Home Assistant user is kept under the person entity.
    leo = await who(None, household.kitchen)
    assert (leo.source, leo.scope, leo.user_id) == ("device", LEO, None)
    guest = await who(None, "guest-room-device")
    assert (guest.source, guest.guest, guest.scope, guest.learns) == (
        "device",
        True,
        HOUSEHOLD_SCOPE,
        False,
    )
    # Presence is off by default: an unassigned device is nobody's.
    await async_home(hass, BOB)
    unknown = await who(None, hall)
    assert (unknown.source, unknown.known, unknown.scope, unknown.device_id) == (
        "unknown",
        False,
        HOUSEHOLD_SCOPE,
        hall,
    )
    assert (await who(None, None)).source == "unknown"

    await set_speakers(hass, loaded_entry, **{CONF_PRESENCE: True})
    alone = await who(None, hall)
    assert (alone.source, alone.scope, alone.person_entity_id) == (
        "presence",
        household.bob_user,
        BOB,
    )
    # An assigned device keeps its person whoever is home.
    assert (await who(None, household.kitchen)).scope == LEO
    await async_home(hass, BOB, ANNA)
    assert (await who(None, hall)).source == "unknown"
    await async_home(hass)
    assert (await who(None, hall)).source == "unknown"
    await async_home(hass, LEO)
    assert (await who(None, hall)).scope == LEO


# -- two people, two devices ----------------------------------------------------------


@pytest.mark.parametrize("entry_options", [LLM_AGENT])
async def test_two_people_at_their_own_devices(
    hass: HomeAssistant,
    household: Household,
    llm: LlmEntities,
    loaded_entry: MockConfigEntry,
) -> None:
    await set_speakers(
        hass,
        loaded_entry,
        **{
            devices_option_key(ANNA): [household.kitchen],
            devices_option_key(BOB): [household.bedroom],
        },
    )
    allergy = await say(
        hass, "I'm allergic to hazelnuts.", user_id=None, device_id=household.kitchen
    )
    await say(
        hass,
        "My dentist is Dr. Quill.",
        user_id=None,
        device_id=household.bedroom,
    )
    assert await memories(hass, loaded_entry) == {
        # Named as the manager names them: their person entities.
        "Anna is allergic to hazelnuts": household.anna_user,
        "Bob's dentist is Dr. Quill": household.bob_user,
    }

    await say(hass, "What am I allergic to?", user_id=None, device_id=household.bedroom)
    await say(hass, "What am I allergic to?", user_id=household.bob_user)
    await say(hass, "What am I allergic to?", user_id=household.anna_user)
    await say(hass, "What am I allergic to?", user_id=None, device_id=household.kitchen)
    bob_device, bob_app, anna_app, anna_device = (
        turn.system_prompt for turn in llm.agent.turns[-4:]
    )
    assert "hazelnuts" not in bob_device
    assert "hazelnuts" not in bob_app
    assert "hazelnuts" in anna_app
    assert "hazelnuts" in anna_device
    assert "Dr. Quill" not in anna_device
    # The turn's record says who spoke and how that was known.
    record = await loaded_entry.runtime_data.backend.conversation(
        str(allergy.conversation_id)
    )
    assert record is not None
    assert (record.messages[0].user_id, record.messages[0].speaker) == (
        household.anna_user,
        {"source": "device", "device_id": household.kitchen, "person_entity_id": ANNA},
    )


@pytest.mark.parametrize("entry_options", [LLM_AGENT])
async def test_an_unknown_speakers_personal_facts_wait_for_review(
    hass: HomeAssistant,
    household: Household,
    llm: LlmEntities,
    loaded_entry: MockConfigEntry,
) -> None:
    kitchen = household.kitchen
    await say(hass, "I'm allergic to hazelnuts.", user_id=None, device_id=kitchen)
    await say(hass, "The bins go out on Thursday", user_id=None, device_id=kitchen)
    await say(hass, "Our wifi router is in the study", user_id=None, device_id=kitchen)
    await say(hass, "Leo plays football", user_id=None, device_id=kitchen)
    await say(hass, "我对花生过敏", user_id=None, device_id=kitchen, language="zh")

    # What is everyone's, or someone named's, is learned as before.
    assert await memories(hass, loaded_entry) == {
        "The bins go out on Thursday": HOUSEHOLD_SCOPE,
        "The household's wifi router is in the study": HOUSEHOLD_SCOPE,
        "Leo plays football": HOUSEHOLD_SCOPE,
    }
    # What is about the speaker is nobody's: held, with the device it was said at.
    assert sorted(await held(loaded_entry)) == [
        ("The user is allergic to hazelnuts", kitchen),
        ("用户对花生过敏", kitchen),
    ]
    for user_id, device_id in (
        (household.bob_user, None),
        (household.anna_user, None),
        (None, kitchen),
    ):
        await say(hass, "What am I allergic to?", user_id=user_id, device_id=device_id)
    for turn in llm.agent.turns:
        assert "hazelnuts" not in turn.system_prompt
        assert "花生" not in turn.system_prompt


# -- memory sentences ------------------------------------------------------------------


@pytest.mark.parametrize("entry_options", [INTENT_AGENT])
async def test_memory_sentences_at_each_kind_of_device(
    hass: HomeAssistant, household: Household, loaded_entry: MockConfigEntry
) -> None:
    hall = "hall-device"
    await set_speakers(
        hass,
        loaded_entry,
        **{
            devices_option_key(BOB): [household.bedroom],
            CONF_GUEST_DEVICES: [household.kitchen],
            CONF_PRESENCE: True,
        },
    )
    await async_home(hass, ANNA, BOB)
    said = "Remember that my dentist is Dr. Quill."
    unknown = await say(hass, said, user_id=None, device_id=hall)
    assert "kept that for review" in speech(unknown)
    assert "Who is speaking" in speech(unknown)
    assert await held(loaded_entry) == [("my dentist is Dr. Quill", hall)]
    assert await memories(hass, loaded_entry) == {}

    guest = await say(hass, said, user_id=None, device_id=household.kitchen)
    assert (
        speech(guest) == "This is a guest device: I don't remember anything said here."
    )

    assigned = await say(hass, said, user_id=None, device_id=household.bedroom)
    assert speech(assigned) == "OK, I'll remember that."
    assert await memories(hass, loaded_entry) == {
        "my dentist is Dr. Quill": household.bob_user
    }
    await async_home(hass, ANNA)
    alone = await say(
        hass, "Remember that my bike is in the shed", user_id=None, device_id=hall
    )
    assert speech(alone) == "OK, I'll remember that."
    assert (await memories(hass, loaded_entry))["my bike is in the shed"] == (
        household.anna_user
    )
    # The household's memories are for everyone, a guest too.
    await say(
        hass, "Remember that the bins go out on Thursday", user_id=household.bob_user
    )
    recall = await say(
        hass,
        "What do you remember about the bins?",
        user_id=None,
        device_id=household.kitchen,
    )
    assert "Thursday" in speech(recall)
    for device_id in (household.kitchen, hall):
        await async_home(hass, ANNA, BOB)
        answer = await say(
            hass,
            "What do you remember about my dentist?",
            user_id=None,
            device_id=device_id,
        )
        assert "Quill" not in speech(answer)
    mine = await say(
        hass,
        "What do you remember about my dentist?",
        user_id=None,
        device_id=household.bedroom,
    )
    assert "Quill" in speech(mine)


@pytest.mark.parametrize("entry_options", [LLM_AGENT])
async def test_a_guest_device_learns_nothing_and_reads_the_households(
    hass: HomeAssistant,
    household: Household,
    llm: LlmEntities,
    loaded_entry: MockConfigEntry,
) -> None:
    await set_speakers(hass, loaded_entry, **{CONF_GUEST_DEVICES: [household.kitchen]})
    await say(hass, "My favourite fruit is mango", user_id=household.anna_user)
    await add(hass, "The household's wifi router is in the study")
    before = await memories(hass, loaded_entry)
    await say(
        hass, "I'm allergic to hazelnuts.", user_id=None, device_id=household.kitchen
    )
    await say(hass, "Leo plays football", user_id=None, device_id=household.kitchen)
    assert await memories(hass, loaded_entry) == before
    assert await held(loaded_entry) == []
    # Nor when its conversation ends: nothing of it was kept to learn from.
    await forget_chat_logs(hass)
    assert await memories(hass, loaded_entry) == before
    assert await held(loaded_entry) == []
    await say(
        hass,
        "Where is the wifi router, and what is my favourite fruit?",
        user_id=None,
        device_id=household.kitchen,
    )
    prompt = llm.agent.turns[-1].system_prompt
    assert "mango" not in prompt
    assert "wifi router is in the study" in prompt


@pytest.mark.parametrize("entry_options", [LLM_AGENT])
async def test_reassigning_a_device_moves_nothing_already_stored(
    hass: HomeAssistant,
    household: Household,
    llm: LlmEntities,
    loaded_entry: MockConfigEntry,
) -> None:
    kitchen = household.kitchen
    await set_speakers(hass, loaded_entry, **{devices_option_key(ANNA): [kitchen]})
    await say(hass, "My favourite fruit is mango", user_id=None, device_id=kitchen)
    await set_speakers(
        hass,
        loaded_entry,
        **{devices_option_key(ANNA): [], devices_option_key(BOB): [kitchen]},
    )
    await say(hass, "My favourite fruit is kiwi", user_id=None, device_id=kitchen)
    assert await memories(hass, loaded_entry) == {
        "Anna's favourite fruit is mango": household.anna_user,
        "Bob's favourite fruit is kiwi": household.bob_user,
    }
    await say(hass, "What fruit do I like?", user_id=None, device_id=kitchen)
    assert "mango" not in llm.agent.turns[-1].system_prompt
    assert "kiwi" in llm.agent.turns[-1].system_prompt


# -- Review: "Who said this?" ----------------------------------------------------------


@pytest.mark.parametrize("entry_options", [LLM_AGENT])
@pytest.mark.usefixtures("llm")
async def test_who_said_this(
    hass: HomeAssistant,
    household: Household,
    hass_ws_client: WebSocketGenerator,
    loaded_entry: MockConfigEntry,
) -> None:
    await set_speakers(
        hass, loaded_entry, **{devices_option_key(BOB): [household.bedroom]}
    )
    kitchen = household.kitchen
    await say(hass, "I'm allergic to hazelnuts.", user_id=None, device_id=kitchen)
    await say(hass, "My dentist is Dr. Quill.", user_id=None, device_id=kitchen)
    client = await hass_ws_client(hass)

    async def ask(command: str, **data: Any) -> dict[str, Any]:
        await client.send_json_auto_id(
            {"type": f"assist_memory/held/{command}", **data}
        )
        answer: dict[str, Any] = await client.receive_json()
        return answer

    listed = (await ask("list"))["result"]
    by_content = {item["content"]: item for item in listed["held"]}
    allergy = by_content["The user is allergic to hazelnuts"]
    assert allergy["reason"] == "speaker_unknown"
    assert allergy["device"] == {"id": kitchen, "name": "Kitchen voice"}
    assert allergy["said_at"]
    people = {p["entity_id"]: p for p in listed["people"]}
    assert people[BOB]["devices"] == [
        {"id": household.bedroom, "name": "Bedroom voice"}
    ]
    assert people[LEO]["scope"] == LEO
    assert listed["presence"] is False

    # Anna says it was her; then Undo; then Bob's after all.
    mine = (await ask("assign", held_id=allergy["id"], to=ANNA))["result"]
    assert mine["memory"]["scope"] == household.anna_user
    assert (await memories(hass, loaded_entry)) == {
        "The user is allergic to hazelnuts": household.anna_user
    }
    undone = await ask("undo", held=mine["held"], memory_id=mine["memory"]["id"])
    assert undone["success"]
    assert await memories(hass, loaded_entry) == {}
    assert len(await held(loaded_entry)) == 2
    bobs = (await ask("assign", held_id=allergy["id"], to=BOB))["result"]
    assert bobs["memory"]["scope"] == household.bob_user

    # Forgotten: in no file any more.
    quill = by_content["The user's dentist is Dr. Quill"]
    forgot = (await ask("assign", held_id=quill["id"], to="forget"))["result"]
    assert forgot["memory"] is None
    assert await held(loaded_entry) == []
    files = await data_files_containing(hass, loaded_entry, ["Quill"])
    assert "held.json" not in files
    # Unknown ids and people are clear errors.
    assert (await ask("assign", held_id="nope", to="forget"))["success"] is False


@pytest.mark.parametrize("entry_options", [LLM_AGENT])
@pytest.mark.usefixtures("llm")
async def test_review_errors(
    hass: HomeAssistant,
    household: Household,
    hass_ws_client: WebSocketGenerator,
    loaded_entry: MockConfigEntry,
) -> None:
    await say(
        hass, "I'm allergic to hazelnuts.", user_id=None, device_id=household.kitchen
    )
    client = await hass_ws_client(hass)
    (fact,) = await loaded_entry.runtime_data.backend.held_facts()
    for message, code in (
        ({"type": "assist_memory/held/assign", "held_id": fact.id, "to": "person.x"},
         "invalid_format"),
        ({"type": "assist_memory/held/assign", "held_id": "gone", "to": "household"},
         "not_found"),
        ({"type": "assist_memory/held/undo", "held": {"id": "x"}}, "invalid_held_fact"),
    ):  # fmt: skip
        await client.send_json_auto_id(message)
        answer = await client.receive_json()
        assert answer["error"]["code"] == code
    assert [f.id for f in await loaded_entry.runtime_data.backend.held_facts()] == [
        fact.id
    ]
    household_fact = await client_assign(client, fact.id, "household")
    assert household_fact["memory"]["scope"] == HOUSEHOLD_SCOPE


async def client_assign(client: Any, held_id: str, to: str) -> dict[str, Any]:
    """Assign a held fact over the websocket; the result."""
    await client.send_json_auto_id(
        {"type": "assist_memory/held/assign", "held_id": held_id, "to": to}
    )
    answer: dict[str, Any] = await client.receive_json()
    return answer["result"]  # type: ignore[no-any-return]


# -- a restart -----------------------------------------------------------------------


@pytest.mark.parametrize("entry_options", [LLM_AGENT])
@pytest.mark.usefixtures("llm")
async def test_held_facts_and_devices_survive_a_restart(
    hass: HomeAssistant, household: Household, loaded_entry: MockConfigEntry
) -> None:
    await set_speakers(
        hass, loaded_entry, **{devices_option_key(BOB): [household.bedroom]}
    )
    await say(
        hass, "I'm allergic to hazelnuts.", user_id=None, device_id=household.kitchen
    )
    assert await hass.config_entries.async_reload(loaded_entry.entry_id)
    await hass.async_block_till_done()
    assert await held(loaded_entry) == [
        ("The user is allergic to hazelnuts", household.kitchen)
    ]
    await say(
        hass, "My dentist is Dr. Quill.", user_id=None, device_id=household.bedroom
    )
    assert (await memories(hass, loaded_entry))["Bob's dentist is Dr. Quill"] == (
        household.bob_user
    )


# -- privacy: every combination of the identity sources ---------------------------


@pytest.mark.parametrize("entry_options", [LLM_AGENT])
async def test_no_personal_memory_reaches_another_persons_prompt(
    hass: HomeAssistant,
    household: Household,
    llm: LlmEntities,
    loaded_entry: MockConfigEntry,
) -> None:
    hall = "hall-device"
    await set_speakers(
        hass,
        loaded_entry,
        **{
            devices_option_key(ANNA): [household.kitchen],
            devices_option_key(LEO): [household.bedroom],
            CONF_PRESENCE: True,
        },
    )
    # (how the speaker is known, who it is (None: nobody), user, device, who is home)
    turns: list[tuple[str, str | None, str | None, str | None, tuple[str, ...]]] = [
        ("user", ANNA, household.anna_user, None, ()),
        ("user", BOB, household.bob_user, household.kitchen, ()),
        ("device", ANNA, None, household.kitchen, (BOB,)),
        ("device", LEO, None, household.bedroom, ()),
        ("presence", BOB, None, hall, (BOB,)),
        ("presence", LEO, None, hall, (LEO,)),
        ("unknown", None, None, hall, (ANNA, BOB)),
        ("unknown", None, None, hall, ()),
        ("unknown", None, None, None, (ANNA,)),
    ]
    fruits = {}
    latest: dict[str | None, str] = {}
    for number, (source, who, user_id, device_id, home) in enumerate(turns):
        await async_home(hass, *home)
        fruit = f"fruit{number}x"
        fruits[number] = fruit
        # A person's favourite fruit replaces the one they said before.
        latest[who] = fruit
        await say(
            hass,
            f"My favourite fruit is {fruit}",
            user_id=user_id,
            device_id=device_id,
        )
        speaker = await async_resolve_speaker(
            hass, loaded_entry, user_id=user_id, device_id=device_id
        )
        assert speaker.source == source
    household_memories = [
        content
        for content, scope in (await memories(hass, loaded_entry)).items()
        if scope == HOUSEHOLD_SCOPE
    ]
    assert household_memories == []

    for _, reader, user_id, device_id, home in turns:
        await async_home(hass, *home)
        await say(hass, "Which fruit do I like?", user_id=user_id, device_id=device_id)
        prompt = llm.agent.turns[-1].system_prompt
        for number, (_, owner, *_rest) in enumerate(turns):
            # Never another person's, never one said by nobody known.
            if owner is None or owner != reader:
                assert fruits[number] not in prompt, (reader, owner, fruits[number])
        if reader is not None:
            assert latest[reader] in prompt
