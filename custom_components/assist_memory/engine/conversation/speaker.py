"""Who is speaking in a turn, and how that is known.

A host (Home Assistant, the memory server's REST API) decides who speaks; the engine
only follows what it is told. The sources, most certain first:

- `user`: the turn has a logged-in user (the app, the Assist dialog);
- `device`: a voice device assigned to a person (or marked a guest device);
- `presence`: an unassigned voice device while exactly one person is home;
- `unknown`: nobody can tell (an unassigned device, a turn without user or device).

Personal memories are kept under the person's id, the `scope`: their Home
Assistant user id, which is the scope of everything they said logged in; a person
without a Home Assistant user (a child with only a person entity) is kept under the
person's entity id (`person.leo`), which never collides with a user id (a user id is
32 hex digits). A guest device and an unknown speaker read the household's memories
only; a guest device learns nothing, and a fact an unknown speaker says about
themselves is held for review rather than stored as the household's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal, get_args

from ..errors import InvalidMemoryError
from ..storage.models import HOUSEHOLD_SCOPE, MAX_SCOPE_LENGTH

type SpeakerSource = Literal["user", "device", "presence", "unknown"]
SPEAKER_SOURCES: Final[tuple[str, ...]] = get_args(SpeakerSource.__value__)


@dataclass(frozen=True, slots=True)
class Speaker:
    """The person a turn is from (`user_id`, `person_entity_id`) and how it is known."""

    user_id: str | None
    source: SpeakerSource
    device_id: str | None = None
    guest: bool = False
    person_entity_id: str | None = None
    # How the person is called (their person entity's name, else their user's), for
    # the wording of what they teach (`naming`); the host's, never sent with a turn.
    name: str | None = field(default=None, compare=False)

    @property
    def known(self) -> bool:
        """Whether anyone can tell who spoke."""
        return self.source != "unknown"

    @property
    def owner(self) -> str | None:
        """Whose personal memories and conversation records the turn uses.

        The user id, else the person's entity id; None for the household's (a guest
        device, an unknown speaker).
        """
        if not self.known or self.guest:
            return None
        return self.user_id or self.person_entity_id

    @property
    def scope(self) -> str:
        """The memory scope of this speaker (the household's when not known)."""
        return self.owner or HOUSEHOLD_SCOPE

    @property
    def learns(self) -> bool:
        """Whether what is said in the turn may be learned (never at a guest device)."""
        return not self.guest

    def as_dict(self) -> dict[str, Any]:
        """The speaker on the wire (the REST API's `speaker` object)."""
        return {
            "user_id": self.user_id,
            "source": self.source,
            "device_id": self.device_id,
            "guest": self.guest,
            "person_entity_id": self.person_entity_id,
        }

    @classmethod
    def from_dict(cls, value: object) -> Speaker:
        """A speaker from the wire; a clear error for anything malformed."""
        if not isinstance(value, Mapping):
            raise _invalid("speaker must be an object")
        source = value.get("source", "unknown")
        if source not in SPEAKER_SOURCES:
            raise _invalid(
                f"speaker.source must be one of {', '.join(SPEAKER_SOURCES)}"
            )
        guest = value.get("guest")
        if guest is None:
            guest = False
        if not isinstance(guest, bool):
            raise _invalid("speaker.guest must be true or false")
        return cls(
            user_id=_optional_id(value, "user_id"),
            source=source,
            device_id=_optional_id(value, "device_id"),
            guest=guest,
            person_entity_id=_optional_id(value, "person_entity_id"),
        )


UNKNOWN_SPEAKER: Final = Speaker(None, "unknown")


def owner_speaker(owner: str | None) -> Speaker:
    """The speaker a conversation's record names (its owner), for learning later.

    A person's entity id for someone without a user, their user id, or None: nobody
    could tell who spoke.
    """
    if owner is None:
        return UNKNOWN_SPEAKER
    if owner.startswith("person."):
        return Speaker(None, "device", person_entity_id=owner)
    return Speaker(owner, "user")


def user_speaker(user_id: str | None) -> Speaker:
    """The speaker of a turn that only has a user id (None: unknown)."""
    return Speaker(user_id, "user") if user_id else UNKNOWN_SPEAKER


def _optional_id(value: Mapping[str, Any], name: str) -> str | None:
    item = value.get(name)
    if item is None or item == "":
        return None
    if (
        not isinstance(item, str)
        or len(item) > MAX_SCOPE_LENGTH
        or item != item.strip()
    ):
        raise _invalid(f"speaker.{name} must be short text or null")
    return item


def _invalid(message: str) -> InvalidMemoryError:
    return InvalidMemoryError("invalid_speaker", message, field="speaker")
