"""Working memory: creation, updates, 30-minute expiry, archiving."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
import json
import logging
from typing import Any

import pytest

from custom_components.assist_memory.engine import InvalidMemoryError
from custom_components.assist_memory.engine.conversation.working import (
    DEFAULT_TTL,
    MAX_VARIABLES_BYTES,
    WorkingMemory,
    WorkingMemoryManager,
    important_items,
    validate_session_id,
)

START = datetime(2025, 3, 1, 8, 0, tzinfo=UTC)


class FakeClock:
    """A clock that stands still until a test moves it."""

    def __init__(self, now: datetime = START) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now


@pytest.fixture
def clock() -> FakeClock:  # overrides the engine conftest's store clock
    return FakeClock()


@pytest.fixture
def manager(clock: FakeClock) -> WorkingMemoryManager:
    return WorkingMemoryManager(clock=clock)


# -- creation on the first message -----------------------------------------


def test_first_message_creates_working_memory(manager: WorkingMemoryManager) -> None:
    memory = manager.touch("kitchen-1")

    assert memory.session_id == "kitchen-1"
    assert memory.turn_count == 1
    assert memory.created_at == memory.updated_at == START.isoformat()
    assert memory.current_topic is None
    assert memory.last_emotion is None
    assert dict(memory.context_variables) == {}
    assert manager.get("kitchen-1") == memory


def test_first_message_can_set_topic_variables_and_emotion(
    manager: WorkingMemoryManager,
) -> None:
    memory = manager.touch(
        "s", topic="dinner", variables={"guests": 4}, emotion="happy"
    )

    assert memory.current_topic == "dinner"
    assert memory.context_variables == {"guests": 4}
    assert memory.last_emotion == "happy"


def test_default_ttl_is_thirty_minutes() -> None:
    assert timedelta(minutes=30) == DEFAULT_TTL
    assert WorkingMemoryManager().ttl == timedelta(minutes=30)


def test_default_clock_gives_utc_times() -> None:
    memory = WorkingMemoryManager().touch("s")

    assert datetime.fromisoformat(memory.created_at).utcoffset() == timedelta(0)


# -- update on each turn ----------------------------------------------------


def test_each_turn_increments_count_and_updates_time(
    manager: WorkingMemoryManager, clock: FakeClock
) -> None:
    first = manager.touch("s", topic="weather")
    second_time = clock.advance(minutes=2)
    second = manager.touch("s")
    third_time = clock.advance(minutes=5)
    third = manager.touch("s", topic="holiday", emotion="excited")

    assert [first.turn_count, second.turn_count, third.turn_count] == [1, 2, 3]
    assert second.updated_at == second_time.isoformat()
    assert third.updated_at == third_time.isoformat()
    assert third.created_at == first.created_at == START.isoformat()
    assert second.current_topic == "weather"  # kept when not given
    assert third.current_topic == "holiday"  # replaced when given
    assert third.last_emotion == "excited"
    assert first.turn_count == 1  # records are immutable snapshots


def test_variables_merge_and_none_removes(manager: WorkingMemoryManager) -> None:
    manager.touch("s", variables={"room": "kitchen", "guests": 2})
    memory = manager.touch("s", variables={"guests": 3, "dish": "soup"})
    assert memory.context_variables == {"room": "kitchen", "guests": 3, "dish": "soup"}

    memory = manager.touch("s", variables={"room": None, "missing": None})
    assert memory.context_variables == {"guests": 3, "dish": "soup"}


def test_empty_text_clears_topic_and_emotion(manager: WorkingMemoryManager) -> None:
    manager.touch("s", topic="music", emotion="calm")

    memory = manager.touch("s", topic="", emotion="  ")

    assert memory.current_topic is None
    assert memory.last_emotion is None


def test_text_is_trimmed(manager: WorkingMemoryManager) -> None:
    memory = manager.touch("  s  ", topic="  music ")

    assert memory.session_id == "s"
    assert memory.current_topic == "music"
    assert manager.get("s") is memory


def test_context_variables_are_read_only_all_the_way_down(
    manager: WorkingMemoryManager,
) -> None:
    given: dict[str, Any] = {"list": [1, {"a": 2}], "obj": {"b": [3]}}
    memory = manager.touch("s", variables=given)
    given["list"].append(99)  # the caller's object is copied

    with pytest.raises(TypeError):
        memory.context_variables["new"] = 1  # type: ignore[index]
    with pytest.raises(TypeError):
        memory.context_variables["obj"]["b"] = 1
    assert memory.context_variables["list"] == (1, {"a": 2})
    assert memory.to_dict()["context_variables"] == {
        "list": [1, {"a": 2}],
        "obj": {"b": [3]},
    }


def test_to_dict_is_plain_json(manager: WorkingMemoryManager) -> None:
    memory = manager.touch(
        "s", topic="t", variables={"x": [1]}, emotion="calm", user_id="anna"
    )

    assert memory.to_dict() == {
        "session_id": "s",
        "current_topic": "t",
        "context_variables": {"x": [1]},
        "turn_count": 1,
        "last_emotion": "calm",
        "created_at": START.isoformat(),
        "updated_at": START.isoformat(),
        "user_id": "anna",
    }
    assert WorkingMemory.from_dict(memory.to_dict()) == memory


def test_another_users_message_starts_a_new_working_memory(
    manager: WorkingMemoryManager,
) -> None:
    manager.touch("win-3", topic="dentist", variables={"remember_x": "A"}, user_id="a")
    manager.touch("win-3", user_id="a")

    taken_over = manager.touch("win-3", user_id="b")

    assert taken_over.turn_count == 1
    assert taken_over.current_topic is None
    assert dict(taken_over.context_variables) == {}
    # The first user's is handed back once, like an expired one.
    assert [(m.user_id, m.turn_count) for m in manager.expire()] == [("a", 2)]


def test_topic_and_variables_are_kept_redacted(manager: WorkingMemoryManager) -> None:
    memory = manager.touch(
        "s",
        topic="my pin is 1234",
        variables={"remember_door": "the door code is 7788", "n": [{"k": "PIN 4321"}]},
    )

    text = json.dumps(memory.to_dict())
    assert "1234" not in text
    assert "7788" not in text
    assert "4321" not in text
    assert memory.current_topic == "my pin is [secret withheld]"


def test_a_forgotten_working_memory_is_never_archived(
    manager: WorkingMemoryManager,
) -> None:
    manager.touch("live", variables={"remember_spot": "B2"})
    manager.touch("other", user_id="a")
    manager.touch("other", user_id="b")  # the first one waits to be archived

    manager.forget("live")
    manager.forget("other")

    assert manager.get("live") is None
    assert manager.get("other") is None
    assert manager.expire() == []


def test_sessions_are_independent(manager: WorkingMemoryManager) -> None:
    manager.touch("a")
    manager.touch("a")
    manager.touch("b")

    counts = {m.session_id: m.turn_count for m in manager.sessions()}

    assert counts == {"a": 2, "b": 1}
    assert len(manager) == 2


def test_sessions_lists_most_recently_active_last(
    manager: WorkingMemoryManager, clock: FakeClock
) -> None:
    manager.touch("a")
    clock.advance(seconds=1)
    manager.touch("b")
    clock.advance(seconds=1)
    manager.touch("a")

    assert [m.session_id for m in manager.sessions()] == ["b", "a"]


def test_naive_clock_is_taken_as_utc() -> None:
    naive = datetime(2025, 3, 1, 8, 0)  # noqa: DTZ001 - the point of the test
    memory = WorkingMemoryManager(clock=lambda: naive).touch("s")

    assert memory.created_at == "2025-03-01T08:00:00+00:00"


# -- auto-cleanup after 30 minutes idle --------------------------------------


def test_idle_for_thirty_minutes_is_still_alive(
    manager: WorkingMemoryManager, clock: FakeClock
) -> None:
    manager.touch("s")
    clock.advance(minutes=30)

    assert manager.get("s") is not None
    assert manager.expire() == []


def test_idle_for_more_than_thirty_minutes_expires(
    manager: WorkingMemoryManager, clock: FakeClock
) -> None:
    memory = manager.touch("s", variables={"remember_parking": "B2"})
    clock.advance(minutes=30, seconds=1)

    expired = manager.expire()

    assert expired == [memory]
    assert manager.get("s") is None
    assert manager.sessions() == []
    assert manager.expire() == []  # handed back once


def test_activity_postpones_expiry(
    manager: WorkingMemoryManager, clock: FakeClock
) -> None:
    manager.touch("s")
    clock.advance(minutes=20)
    manager.touch("s")
    clock.advance(minutes=20)

    assert manager.expire() == []
    assert manager.get("s") is not None


def test_expire_only_removes_idle_sessions(
    manager: WorkingMemoryManager, clock: FakeClock
) -> None:
    old = manager.touch("old")
    clock.advance(minutes=25)
    manager.touch("recent")
    clock.advance(minutes=10)

    assert manager.expire() == [old]
    assert [m.session_id for m in manager.sessions()] == ["recent"]


def test_expire_accepts_an_explicit_time(manager: WorkingMemoryManager) -> None:
    memory = manager.touch("s")

    assert manager.expire(START + timedelta(minutes=10)) == []
    assert manager.expire(START + timedelta(hours=1)) == [memory]


def test_get_hides_expired_but_expire_still_returns_it(
    manager: WorkingMemoryManager, clock: FakeClock
) -> None:
    memory = manager.touch("s")
    clock.advance(hours=1)

    assert manager.get("s") is None
    assert manager.sessions() == []
    assert len(manager) == 0
    assert manager.expire() == [memory]


def test_message_after_expiry_starts_a_new_working_memory(
    manager: WorkingMemoryManager, clock: FakeClock
) -> None:
    old = manager.touch("s", topic="lights")
    manager.touch("s")
    later = clock.advance(minutes=45)

    new = manager.touch("s")

    assert new.turn_count == 1
    assert new.current_topic is None
    assert new.created_at == new.updated_at == later.isoformat()
    assert [m.turn_count for m in manager.expire()] == [2]
    assert old.turn_count == 1


def test_custom_ttl(clock: FakeClock) -> None:
    manager = WorkingMemoryManager(ttl=timedelta(minutes=5), clock=clock)
    manager.touch("s")
    clock.advance(minutes=6)

    assert manager.get("s") is None


@pytest.mark.parametrize(
    "kwargs", [{"ttl": timedelta(0)}, {"ttl": timedelta(-1)}, {"max_sessions": 0}]
)
def test_bad_manager_settings(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError):  # noqa: PT011
        WorkingMemoryManager(**kwargs)  # type: ignore[arg-type]


def test_remove_ends_a_session(manager: WorkingMemoryManager) -> None:
    manager.touch("s")

    assert manager.remove("s") is True
    assert manager.remove("s") is False
    assert manager.remove("never") is False
    assert manager.get("s") is None
    assert manager.expire() == []


def test_remove_of_an_expired_session_keeps_it_for_archiving(
    manager: WorkingMemoryManager, clock: FakeClock
) -> None:
    memory = manager.touch("s")
    clock.advance(hours=2)

    assert manager.remove("s") is False
    assert manager.expire() == [memory]


def test_session_limit_displaces_the_idlest(
    clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    manager = WorkingMemoryManager(clock=clock, max_sessions=2)
    a = manager.touch("a")
    clock.advance(seconds=1)
    manager.touch("b")
    clock.advance(seconds=1)
    manager.touch("a")  # "b" is now the idlest
    clock.advance(seconds=1)
    manager.touch("c")

    assert {m.session_id for m in manager.sessions()} == {"a", "c"}
    assert [m.session_id for m in manager.expire()] == ["b"]

    # Expired memories nobody collects are bounded too.
    for name in ("d", "e", "f"):
        manager.touch(name)
    with caplog.at_level(logging.WARNING):
        manager.touch("g")
    assert "nobody collected" in caplog.text
    assert len(manager.expire()) == 2
    assert a.turn_count == 1


def test_thread_safe_touches(manager: WorkingMemoryManager) -> None:
    def work(i: int) -> None:
        manager.touch(f"s{i % 4}", variables={f"k{i}": i})

    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(work, range(400)))

    memories = manager.sessions()
    assert sorted(m.turn_count for m in memories) == [100, 100, 100, 100]
    assert all(len(m.context_variables) == 100 for m in memories)


# -- validation -------------------------------------------------------------------------


@pytest.mark.parametrize("session_id", ["", "   ", "x" * 201, "a\x00b", None, 42])
def test_invalid_session_id(manager: WorkingMemoryManager, session_id: object) -> None:
    with pytest.raises(InvalidMemoryError) as err:
        manager.touch(session_id)  # type: ignore[arg-type]

    assert err.value.code == "invalid_session_id"
    assert manager.sessions() == []


def test_session_id_of_200_characters_is_fine() -> None:
    assert validate_session_id("x" * 200) == "x" * 200


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"topic": "t" * 201}, "invalid_topic"),
        ({"topic": 5}, "invalid_topic"),
        ({"emotion": "e" * 51}, "invalid_emotion"),
        ({"emotion": "a\x00"}, "invalid_emotion"),
        ({"variables": ["not", "a", "mapping"]}, "invalid_variables"),
        ({"variables": {1: "int key"}}, "invalid_variables"),
        (
            {"variables": {"when": datetime(2025, 1, 1, tzinfo=UTC)}},
            "invalid_variables",
        ),
        ({"variables": {"x": float("nan")}}, "invalid_variables"),
        ({"variables": {"big": "x" * MAX_VARIABLES_BYTES}}, "variables_too_large"),
    ],
)
def test_invalid_input_is_refused_without_changes(
    manager: WorkingMemoryManager, kwargs: dict[str, object], code: str
) -> None:
    before = manager.touch("s", variables={"keep": 1})

    with pytest.raises(InvalidMemoryError) as err:
        manager.touch("s", **kwargs)  # type: ignore[arg-type]

    assert err.value.code == code
    assert manager.get("s") == before


def test_variables_limit_counts_the_merged_total(
    manager: WorkingMemoryManager,
) -> None:
    half = "x" * (MAX_VARIABLES_BYTES // 2)
    manager.touch("s", variables={"a": half})

    with pytest.raises(InvalidMemoryError) as err:
        manager.touch("s", variables={"b": half})

    assert err.value.code == "variables_too_large"
    # Removing a key makes room again.
    memory = manager.touch("s", variables={"a": None, "b": half})
    assert set(memory.context_variables) == {"b"}


def test_variables_limit_counts_utf8_bytes(manager: WorkingMemoryManager) -> None:
    # 3000 Chinese characters are 9000 bytes in UTF-8.
    with pytest.raises(InvalidMemoryError) as err:
        manager.touch("s", variables={"note": "记" * 3000})

    assert err.value.code == "variables_too_large"


# -- archiving: important_items ---------------------------------------------------------


def memory_with(variables: dict[str, object]) -> WorkingMemory:
    return WorkingMemoryManager().touch("s", variables=variables)


def test_important_items_from_remember_keys() -> None:
    memory = memory_with(
        {
            "remember_parking_spot": "level 3, B2",
            "remember-guest-name": "Alice",
            "rememberWifi": {"ssid": "home"},
            "remember": ["buy milk", "call mum"],
            "remembered_at": "not a remember key",
            "room": "kitchen",
        }
    )

    assert important_items(memory) == [
        "Parking spot: level 3, B2",
        "Guest name: Alice",
        'Wifi: {"ssid":"home"}',
        "buy milk",
        "call mum",
    ]


def test_important_items_from_the_important_list() -> None:
    memory = memory_with(
        {
            "guests": 4,
            "dish": "lasagne",
            "important": ["guests", "The oven needs 20 minutes to preheat", 7],
        }
    )

    assert important_items(memory) == [
        "Guests: 4",
        "The oven needs 20 minutes to preheat",
        "7",
    ]


def test_important_single_value_and_dedup() -> None:
    memory = memory_with(
        {
            "remember_table": "12B",
            "important": "Table: 12B",
            "REMEMBER": "  spaced   out  ",
        }
    )

    assert important_items(memory) == ["Table: 12B", "spaced out"]


def test_a_value_its_key_names_a_secret_is_withheld_and_never_archived() -> None:
    memory = memory_with(
        {
            "door_code": "7788",
            "rememberGateCode": "nine one eight two",
            "remember_locker": "my locker PIN there is 2218",
            "remember_spot": "B2",
            "important": ["door_code", "The PIN is 4321"],
        }
    )

    text = json.dumps(memory.to_dict())
    assert not [s for s in ("7788", "nine one eight two", "2218", "4321") if s in text]
    assert memory.context_variables["door_code"] == "[secret withheld]"
    assert important_items(memory) == ["Spot: B2"]


def test_important_items_skip_blank_and_cut_long() -> None:
    memory = memory_with(
        {"remember_empty": "", "important": ["", "  ", "y" * 600], "remember": ""}
    )

    assert important_items(memory) == ["y" * 500]


def test_no_important_items() -> None:
    assert important_items(memory_with({"room": "kitchen"})) == []
    assert important_items(memory_with({})) == []


def test_expired_memories_feed_the_archive(
    manager: WorkingMemoryManager, clock: FakeClock
) -> None:
    manager.touch("s", variables={"remember_birthday": "Mum's birthday is May 3"})
    clock.advance(minutes=31)

    archived = [item for m in manager.expire() for item in important_items(m)]

    assert archived == ["Birthday: Mum's birthday is May 3"]
