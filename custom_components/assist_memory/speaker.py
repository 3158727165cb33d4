"""Who is speaking in a turn: the one place every turn's speaker is decided.

The memory agent, the LLM tools, memory sentences, learning and followed
conversations all ask `async_resolve_speaker`. In order:

1. the turn's Home Assistant user (the app, the Assist dialog): `user`;
2. a voice device marked a guest device (household memories only, nothing learned),
   or assigned to a person in the options (`devices_person.<person>`): `device`;
3. with the `presence` option on, an unassigned voice device while exactly one person
   is home: `presence`;
4. otherwise nobody can tell: `unknown`.

A person's memories are those of their Home Assistant user, or of their person
entity when they have no user (see the engine's `Speaker`). Reassigning a device
changes only the turns after it: nothing stored moves.

The speaker's name, as the memory manager names people (their person entity's,
else their user's), words what they teach: "Sam's favourite colour is green".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Final

from homeassistant.const import STATE_HOME
from homeassistant.core import HomeAssistant, State, callback

from .engine.conversation.speaker import Speaker
from .runtime_data import AssistMemoryConfigEntry
from .voice_devices import async_heard_devices

PERSON_DOMAIN: Final = "person"
# The options of "Who is speaking": `devices_person.bob` lists the devices that speak
# for person.bob; `guest_devices` the devices of guests; `presence` the one home.
DEVICES_PERSON_PREFIX: Final = "devices_person."
CONF_GUEST_DEVICES: Final = "guest_devices"
CONF_PRESENCE: Final = "presence"


async def async_resolve_speaker(
    hass: HomeAssistant,
    entry: AssistMemoryConfigEntry,
    *,
    user_id: str | None,
    device_id: str | None,
) -> Speaker:
    """Who speaks in a turn from this user (None: none) at this device (None: none).

    The device is offered in the options from now on ("Who is speaking").
    """
    if device_id:
        (await async_heard_devices(hass)).async_heard(device_id)
    speaker = resolve_speaker(hass, entry.options, user_id=user_id, device_id=device_id)
    return await async_named_speaker(hass, speaker)


async def async_named_speaker(hass: HomeAssistant, speaker: Speaker) -> Speaker:
    """The speaker with their name (`Speaker.name`), when a person is known."""
    if speaker.name is not None or speaker.owner is None:
        return speaker
    person = (
        hass.states.get(speaker.person_entity_id) if speaker.person_entity_id else None
    )
    if person is None and speaker.user_id:
        person = next(
            (
                state
                for state in hass.states.async_all(PERSON_DOMAIN)
                if _user_of(state) == speaker.user_id
            ),
            None,
        )
    name = person.name if person is not None else None
    if not name and speaker.user_id:
        user = await hass.auth.async_get_user(speaker.user_id)
        if user is not None and not user.system_generated:
            name = user.name
    return replace(speaker, name=name or None)


@callback
def resolve_speaker(
    hass: HomeAssistant,
    options: Mapping[str, Any],
    *,
    user_id: str | None,
    device_id: str | None,
) -> Speaker:
    """`async_resolve_speaker` for given options (from the event loop)."""
    persons = hass.states.async_all(PERSON_DOMAIN)
    if user_id:
        person = next((p for p in persons if _user_of(p) == user_id), None)
        return Speaker(user_id, "user", device_id, person_entity_id=_entity(person))
    if not device_id:
        return Speaker(None, "unknown")
    if device_id in options.get(CONF_GUEST_DEVICES, ()):
        return Speaker(None, "device", device_id, guest=True)
    assigned = device_people(options).get(device_id)
    if assigned is not None:
        state = hass.states.get(assigned)
        return Speaker(_user_of(state), "device", device_id, person_entity_id=assigned)
    if options.get(CONF_PRESENCE):
        home = [p for p in persons if p.state == STATE_HOME]
        if len(home) == 1:
            person = home[0]
            return Speaker(
                _user_of(person),
                "presence",
                device_id,
                person_entity_id=person.entity_id,
            )
    return Speaker(None, "unknown", device_id)


def devices_option_key(person_entity_id: str) -> str:
    """The option listing a person's devices: `devices_person.bob` for person.bob."""
    return DEVICES_PERSON_PREFIX + person_entity_id.removeprefix(f"{PERSON_DOMAIN}.")


def device_people(options: Mapping[str, Any]) -> dict[str, str]:
    """Device id -> the person entity it speaks for (the first person listing it)."""
    people: dict[str, str] = {}
    for key, devices in options.items():
        if not key.startswith(DEVICES_PERSON_PREFIX) or not isinstance(devices, list):
            continue
        person = f"{PERSON_DOMAIN}.{key.removeprefix(DEVICES_PERSON_PREFIX)}"
        for device_id in devices:
            people.setdefault(device_id, person)
    return people


def _user_of(state: State | None) -> str | None:
    user_id = state.attributes.get("user_id") if state is not None else None
    return user_id if isinstance(user_id, str) and user_id else None


def _entity(state: State | None) -> str | None:
    return state.entity_id if state is not None else None
