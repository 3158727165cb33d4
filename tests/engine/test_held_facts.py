"""Held facts (Review's "Who said this?") and the speaker of a turn, in the engine.

Real files: the held facts' file, the conversation log, retention; the REST
handlers through `dispatch` on a real LocalBackend.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
import stat
from typing import Any

import pytest

from custom_components.assist_memory.engine.backend.local import LocalBackend
from custom_components.assist_memory.engine.backend.review import (
    settle_held,
    undo_settle,
)
from custom_components.assist_memory.engine.conversation.held_facts import (
    HELD_FILE,
    MAX_HELD,
    HeldFact,
    HeldFacts,
    new_held_fact,
)
from custom_components.assist_memory.engine.conversation.retention import (
    RetentionSettings,
)
from custom_components.assist_memory.engine.conversation.speaker import (
    UNKNOWN_SPEAKER,
    Speaker,
    user_speaker,
)
from custom_components.assist_memory.engine.errors import (
    InvalidMemoryError,
    StorageError,
)
from custom_components.assist_memory.engine.http.api import dispatch

from .test_rest_api import DictHost

NOW = datetime.now(UTC)


@pytest.fixture
async def backend(tmp_path: Path) -> AsyncIterator[LocalBackend]:
    backend, _ = await LocalBackend.open(tmp_path / "memories.json", watch=False)
    yield backend
    await backend.close()


def fact(content: str = "my dentist is Dr. Quill", **fields: Any) -> HeldFact:
    return new_held_fact(content, reason="speaker_unknown", **fields)


# -- the speaker ---------------------------------------------------------------------


def test_whose_memories_a_speaker_uses() -> None:
    assert user_speaker("anna") == Speaker("anna", "user")
    assert user_speaker(None) is UNKNOWN_SPEAKER
    assert (UNKNOWN_SPEAKER.known, UNKNOWN_SPEAKER.owner, UNKNOWN_SPEAKER.scope) == (
        False,
        None,
        "household",
    )
    leo = Speaker(None, "device", "d1", person_entity_id="person.leo")
    assert (leo.known, leo.scope, leo.learns) == (True, "person.leo", True)
    bob = Speaker("bob-id", "presence", "d2", person_entity_id="person.bob")
    assert bob.scope == "bob-id"
    guest = Speaker(None, "device", "d3", guest=True)
    assert (guest.known, guest.scope, guest.learns) == (True, "household", False)
    # Nobody known has no user even when one is given by mistake.
    assert Speaker("x", "unknown").scope == "household"
    assert Speaker.from_dict(bob.as_dict()) == bob
    assert Speaker.from_dict({}) == UNKNOWN_SPEAKER


@pytest.mark.parametrize(
    "value",
    [
        None,
        {"source": "guess"},
        {"source": "user", "user_id": 7},
        {"source": "device", "guest": "yes"},
        {"source": "device", "device_id": " padded "},
        {"source": "user", "user_id": "x" * 201},
    ],
)
def test_a_malformed_speaker_is_a_clear_error(value: object) -> None:
    with pytest.raises(InvalidMemoryError) as caught:
        Speaker.from_dict(value)
    assert caught.value.code == "invalid_speaker"


# -- the file --------------------------------------------------------------------------


def test_held_facts_are_kept_privately_and_read_back(tmp_path: Path) -> None:
    held = HeldFacts(tmp_path)
    first = held.hold(fact(device_id="kitchen", now=NOW))
    second = held.hold(fact("I work nights", now=NOW + timedelta(minutes=1)))
    assert stat.S_IMODE((tmp_path / HELD_FILE).stat().st_mode) == 0o600
    again = HeldFacts(tmp_path)
    again.keep_for = timedelta(days=3650)
    assert again.all() == [second, first]
    assert again.take(first.id) == first
    assert b"Quill" not in (tmp_path / HELD_FILE).read_bytes()


def test_at_most_max_held_the_oldest_leaving_first(tmp_path: Path) -> None:
    held = HeldFacts(tmp_path)
    facts = [
        held.hold(fact(f"fact {n}", now=datetime.now(UTC) - timedelta(minutes=n)))
        for n in range(MAX_HELD + 2)
    ]
    kept = held.all()
    assert len(kept) == MAX_HELD
    assert facts[-1] not in kept
    assert facts[-2] not in kept
    assert facts[0] in kept


def test_held_facts_leave_after_the_conversation_retention(tmp_path: Path) -> None:
    held = HeldFacts(tmp_path)
    old = held.hold(fact("old", now=NOW - timedelta(days=8)))
    new = held.hold(fact("new", now=NOW - timedelta(days=1)))
    held.keep_for = timedelta(days=7)
    assert held.all(NOW) == [new]
    assert held.prune(NOW) == 1
    assert held.prune(NOW) == 0
    assert b"old" not in (tmp_path / HELD_FILE).read_bytes()
    assert old not in HeldFacts(tmp_path).all(NOW)


def test_a_damaged_file_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / HELD_FILE).write_text("{not json")
    with pytest.raises(StorageError):
        HeldFacts(tmp_path).all()


@pytest.mark.parametrize(
    "changes",
    [
        {"reason": "bored"},
        {"category": "gossip"},
        {"id": ""},
        {"content": "  "},
        {"said_at": "yesterday"},
        {"device_id": 5},
    ],
)
def test_a_malformed_held_fact_is_a_clear_error(changes: dict[str, Any]) -> None:
    with pytest.raises(InvalidMemoryError):
        HeldFact.from_dict({**fact().as_dict(), **changes})
    with pytest.raises(InvalidMemoryError):
        HeldFact.from_dict([])


# -- the backend -------------------------------------------------------------------------


async def test_retention_drops_held_facts_with_the_conversations(
    backend: LocalBackend,
) -> None:
    await backend.hold(fact("old", now=datetime.now(UTC) - timedelta(days=3)))
    kept = await backend.hold(fact("new"))
    result = await backend.set_retention(RetentionSettings(conversation_days=2))
    assert result.held == 1
    assert await backend.held_facts() == [kept]


async def test_settling_and_undoing(backend: LocalBackend) -> None:
    held = await backend.hold(fact(category="person", key="user_dentist"))
    settled = await settle_held(backend, held.id, "anna")
    assert settled is not None
    assert settled.fact == held
    assert settled.memory is not None
    assert (settled.memory.scope, settled.memory.category, settled.memory.key) == (
        "anna",
        "person",
        "user_dentist",
    )
    assert settled.memory.metadata == {
        "learned_by": "review",
        "held_reason": "speaker_unknown",
    }
    assert await settle_held(backend, held.id, "anna") is None
    await undo_settle(backend, held, settled.memory.id)
    assert await backend.held_facts() == [held]
    assert (await backend.list()).total == 0
    forgotten = await settle_held(backend, held.id, None)
    assert forgotten is not None
    assert forgotten.memory is None
    assert await backend.held_facts() == []
    assert (await backend.list()).total == 0


# -- the REST API ------------------------------------------------------------------------


async def test_the_held_routes(backend: LocalBackend) -> None:
    host = DictHost(backend, None)
    body = fact().as_dict()
    held = await dispatch(host, "POST", "/api/held", None, body)
    assert held.status == 200
    assert held.body == body
    listed = await dispatch(host, "GET", "/api/held", None, None)
    assert listed.body == {"held": [body]}
    bad = await dispatch(host, "POST", "/api/held", None, {**body, "reason": "x"})
    assert bad.status == 400
    taken = await dispatch(host, "DELETE", f"/api/held/{body['id']}", None, None)
    assert taken.body == body
    again = await dispatch(host, "DELETE", f"/api/held/{body['id']}", None, None)
    assert again.status == 404


async def test_a_rest_turn_with_a_speaker_reads_their_memories(
    backend: LocalBackend,
) -> None:
    host = DictHost(backend, None)
    await backend.add("The user's dentist is Dr. Quill", scope="person.leo")
    body = {
        "session_id": "s1",
        "text": "Who is my dentist?",
        "speaker": {
            "source": "device",
            "device_id": "d1",
            "person_entity_id": "person.leo",
        },
    }
    answer = await dispatch(host, "POST", "/api/turns/begin", None, body)
    assert answer.status == 200, answer.body
    assert isinstance(answer.body, dict)
    assert answer.body["scopes"] == ["household", "person.leo"]
    unknown = {**body, "session_id": "s2", "speaker": {"source": "unknown"}}
    answer = await dispatch(host, "POST", "/api/turns/begin", None, unknown)
    assert isinstance(answer.body, dict)
    assert answer.body["scopes"] == ["household"]
    bad = {**body, "speaker": {"source": "guess"}}
    assert (await dispatch(host, "POST", "/api/turns/begin", None, bad)).status == 400


async def test_deleting_a_conversation_drops_what_it_held(
    backend: LocalBackend,
) -> None:
    said_there = await backend.hold(fact(session_id="s1"))
    elsewhere = await backend.hold(fact("I work nights", session_id="s2"))
    # Someone's own part of it holds nothing: the held facts stay.
    await backend.delete_conversation("s1", owner="anna")
    assert len(await backend.held_facts()) == 2
    await backend.delete_conversation("s1")
    assert await backend.held_facts() == [elsewhere]
    # "Stop remembering" at a device nobody is known at erases them too.
    await backend.pause_session("s2", user_id=None)
    assert await backend.held_facts() == []
    assert said_there not in await backend.held_facts()
