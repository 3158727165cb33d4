"""What every MemoryBackend does, checked on LocalBackend and on RemoteBackend alike."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from custom_components.assist_memory.engine.backend.answers import answer_command
from custom_components.assist_memory.engine.backend.forget_by_voice import (
    propose_forget,
    settle_forget,
)
from custom_components.assist_memory.engine.backend.protocol import MemoryBackend
from custom_components.assist_memory.engine.conversation.held_facts import new_held_fact
from custom_components.assist_memory.engine.conversation.speaker import (
    UNKNOWN_SPEAKER,
    Speaker,
    user_speaker,
)
from custom_components.assist_memory.engine.conversation.turn_settings import (
    LearnSettings,
    TurnSettings,
)
from custom_components.assist_memory.engine.errors import MemoryEngineError
from custom_components.assist_memory.engine.language.commands import (
    MemoryCommand,
    parse_command,
)
from custom_components.assist_memory.engine.language.date_phrases import (
    absolute_date_phrase,
)
from custom_components.assist_memory.engine.language.facts import Fact
from custom_components.assist_memory.engine.language.time_phrases import ends_at
from custom_components.assist_memory.engine.storage.settings import StoreSettings

EAGER = LearnSettings(min_interval=timedelta(0), min_messages=1)


async def _code_of(call: object) -> str:
    """The error code a failing call raises."""
    with pytest.raises(MemoryEngineError) as caught:
        await call  # type: ignore[misc]
    return caught.value.code


async def test_add_get_update_delete(backend: MemoryBackend) -> None:
    memory = await backend.add(
        "Anna takes her coffee black",
        category="preference",
        key="anna_coffee",
        tags=["coffee", "Anna"],
        confidence=0.8,
        scope="anna",
        metadata={"room": "kitchen"},
    )
    assert memory.content == "Anna takes her coffee black"
    assert memory.tags == ("coffee", "anna")
    assert memory.metadata == {"room": "kitchen"}
    assert await backend.get(memory.id) == memory

    changed = await backend.update(memory.id, "Anna takes her coffee white", tags="x")
    assert changed is not None
    assert changed.content == "Anna takes her coffee white"
    assert changed.tags == ("x",)
    assert changed.key == "anna_coffee"
    assert await backend.get(memory.id) == changed
    fields_only = await backend.update(memory.id, confidence=0.5)
    assert fields_only is not None
    assert fields_only.confidence == 0.5
    assert fields_only.content == "Anna takes her coffee white"

    assert await backend.delete(memory.id)
    assert await backend.get(memory.id) is None


async def test_unknown_ids(backend: MemoryBackend) -> None:
    assert await backend.get("missing") is None
    assert await backend.update("missing", "text") is None
    assert not await backend.delete("missing")
    assert await backend.get("a/../b") is None
    assert await backend.working_memory("no-such-session") is None


@pytest.mark.parametrize(
    ("content", "fields", "code"),
    [
        ("", {}, "empty_content"),
        ("tea", {"category": "nonsense"}, "unknown_category"),
        ("tea", {"confidence": 2.0}, "invalid_confidence"),
        ("tea", {"source": "rumour"}, "unknown_source"),
    ],
)
async def test_bad_input_is_refused(
    backend: MemoryBackend, content: str, fields: dict[str, object], code: str
) -> None:
    assert await _code_of(backend.add(content, **fields)) == code  # type: ignore[arg-type]
    assert (await backend.stats()).count == 0


async def test_list_pages_and_filters(backend: MemoryBackend) -> None:
    for number in range(5):
        await backend.add(
            f"memory number {number}",
            category="note" if number % 2 else "fact",
            tags=["odd"] if number % 2 else ["even"],
            scope="tom" if number == 4 else "household",
        )
    page = await backend.list(limit=2)
    assert page.total == 5
    assert [m.content for m in page.items] == ["memory number 4", "memory number 3"]
    second = await backend.list(offset=2, limit=2)
    assert [m.content for m in second.items] == ["memory number 2", "memory number 1"]
    oldest = await backend.list(limit=1, sort="oldest")
    assert [m.content for m in oldest.items] == ["memory number 0"]
    notes = await backend.list(category="note")
    assert {m.content for m in notes.items} == {"memory number 1", "memory number 3"}
    even = await backend.list(tags=["even"])
    assert even.total == 3
    tom = await backend.list(scope="tom")
    assert [m.content for m in tom.items] == ["memory number 4"]
    assert await _code_of(backend.list(limit=0)) in {"invalid_paging", "bad_request"}


async def test_list_by_origin_and_last_use(backend: MemoryBackend) -> None:
    now = datetime.now(UTC)

    def memory(number: int, source: str, used_days_ago: int | None) -> object:
        used = None if used_days_ago is None else now - timedelta(days=used_days_ago)
        return {
            "id": f"m{number}",
            "content": f"memory number {number}",
            "source": source,
            "created_at": (now - timedelta(days=400 - number)).isoformat(),
            "last_accessed": None if used is None else used.isoformat(),
            "access_count": 0 if used is None else 3,
        }

    await backend.import_(
        {
            "memories": [
                memory(0, "user_stated", 1),
                memory(1, "inferred", 2),
                memory(2, "inferred", 30),
                memory(3, "user_stated", 200),
                memory(4, "inferred", None),
                memory(5, "system", 120),
            ]
        }
    )

    async def ids(**filters: object) -> tuple[list[str], int]:
        page = await backend.list(sort="oldest", **filters)  # type: ignore[arg-type]
        return [m.id for m in page.items], page.total

    assert await ids(origin="stated") == (["m0", "m3"], 2)
    assert await ids(origin="learned") == (["m1", "m2", "m4", "m5"], 4)
    assert await ids(last_used="recent") == (["m0", "m1"], 2)
    assert await ids(last_used="dormant") == (["m3", "m5"], 2)
    assert await ids(last_used="never") == (["m4"], 1)
    assert await ids(origin="learned", last_used="dormant") == (["m5"], 1)
    # Paging counts the filtered memories.
    page = await backend.list(origin="learned", offset=1, limit=2, sort="oldest")
    assert ([m.id for m in page.items], page.total) == (["m2", "m4"], 4)
    bad_origin = backend.list(origin="guessed")  # type: ignore[arg-type]
    assert await _code_of(bad_origin) in {"invalid_origin", "bad_request"}
    bad_bucket = backend.list(last_used="yesterday")  # type: ignore[arg-type]
    assert await _code_of(bad_bucket) in {"invalid_last_used", "bad_request"}


async def test_clear(backend: MemoryBackend) -> None:
    await backend.add("one")
    await backend.add("two")
    assert await backend.clear() == 2
    assert (await backend.list()).total == 0


async def test_search_and_prompt(backend: MemoryBackend) -> None:
    await backend.add("Anna takes her coffee black", category="preference")
    await backend.add("Tom likes tea")
    await backend.add("Anna's book club is on Thursday", scope="anna")
    found = await backend.search("How does Anna take her coffee?")
    assert found[0].memory.content == "Anna takes her coffee black"
    assert found[0].score > 0
    assert "coffee" in found[0].matched
    household = await backend.search("book club", scopes=["household"])
    assert household == []
    anna = await backend.search("book club", scopes=["household", "anna"], limit=1)
    assert [r.memory.content for r in anna] == ["Anna's book club is on Thursday"]
    with_topic = await backend.search("tea", topic="drinks", record_access=True)
    assert [r.memory.content for r in with_topic] == ["Tom likes tea"]
    assert (await backend.get(with_topic[0].memory.id)).access_count == 1  # type: ignore[union-attr]
    assert await _code_of(backend.search("  ")) == "empty_query"

    prompt = await backend.build_prompt("What should I brew?", query="tea")
    assert prompt.endswith("What should I brew?")
    assert "Tom likes tea" in prompt
    everything = await backend.build_prompt("Hi", scopes=["household"], limit=5)
    assert "Anna takes her coffee black" in everything
    assert "book club" not in everything
    assert await backend.reindex() == 3


async def test_markdown(backend: MemoryBackend) -> None:
    await backend.add("Anna takes her coffee black", category="preference")
    text = await backend.read_markdown()
    assert "- Anna takes her coffee black" in text
    result = await backend.write_markdown(text + "- Tom likes tea\n")
    assert (result.added, result.updated, result.removed) == (1, 0, 0)
    assert (await backend.stats()).count == 2
    unchanged = await backend.write_markdown(await backend.read_markdown())
    assert not unchanged.changed


async def test_daily_log(backend: MemoryBackend) -> None:
    now = datetime(2026, 3, 14, 9, 30, tzinfo=UTC)
    entry = await backend.append_daily_log("Watered the tomatoes", now)
    assert (entry.date, entry.time, entry.text) == (
        "2026-03-14",
        "09:30:00",
        "Watered the tomatoes",
    )
    await backend.append_daily_log("Fed the cat", now + timedelta(days=1))
    assert await backend.daily_log_dates() == ["2026-03-15", "2026-03-14"]
    assert "Watered the tomatoes" in await backend.read_daily_log("2026-03-14")
    assert await backend.read_daily_log(now.date() - timedelta(days=9)) == ""
    found = await backend.search_daily_logs("tomatoes", limit=5)
    assert [e.text for e in found] == ["Watered the tomatoes"]
    assert await _code_of(backend.append_daily_log("   ")) == "empty_log_entry"
    assert await _code_of(backend.search_daily_logs("")) == "empty_query"


async def test_export_import(backend: MemoryBackend) -> None:
    first = await backend.add("Anna takes her coffee black")
    await backend.add("Tom likes tea")
    document = await backend.export()
    assert document["count"] == 2
    await backend.delete(first.id)
    merged = await backend.import_(document)
    # Tom's, the same in the file, is not counted as updated.
    assert (merged.added, merged.updated, merged.total) == (1, 0, 2)
    assert await backend.get(first.id) == first
    replaced = await backend.import_({"memories": [first.to_dict()]}, mode="replace")
    assert replaced.total == 1
    assert await _code_of(backend.import_("nonsense")) == "invalid_import"


async def test_profile(backend: MemoryBackend) -> None:
    empty = await backend.read_profile()
    assert empty.startswith("# Profile")
    await backend.write_profile("anna", "# Anna\n\n- Prefers short answers\n")
    assert "Prefers short answers" in await backend.read_profile("anna")
    assert await backend.read_profile() == empty


async def test_turns_working_memory_and_learning(backend: MemoryBackend) -> None:
    await backend.add("Anna takes her coffee black", category="preference")
    live = datetime.now(UTC)
    context = await backend.begin_turn(
        session_id="s1",
        text="How does Anna like her coffee?",
        user_id="anna",
        settings=TurnSettings(session_summary_limit=0),
        live_since=live,
    )
    assert context.new_session
    assert context.scopes == ("household", "anna")
    assert [r.memory.content for r in context.memories] == [
        "Anna takes her coffee black"
    ]
    assert "Anna takes her coffee black" in context.memory_block
    assert context.prefixed_text.endswith("How does Anna like her coffee?")
    await backend.end_turn(
        session_id="s1",
        user_text="How does Anna like her coffee?",
        reply="Black.",
        user_id="anna",
    )
    working = await backend.working_memory("s1")
    assert working is not None
    assert working.turn_count == 1
    assert [w.session_id for w in await backend.working_sessions()] == ["s1"]
    summaries = await backend.recent_sessions(5)
    assert [s.session_id for s in summaries] == ["s1"]

    await backend.note_message("s1", "user", "My favourite colour is green")
    batch = await backend.extraction_batch("s1", EAGER, used_tokens=10)
    assert batch is not None
    assert batch.session_id == "s1"
    assert "My favourite colour is green" in batch.user_texts
    facts = await backend.rule_facts(batch)
    assert any("green" in fact.content for fact in facts)
    result = await backend.learn(
        batch,
        [*facts, Fact("Anna waters the plants on Sundays", category="routine")],
        scope="anna",
        settings=EAGER,
    )
    assert result.added >= 2
    assert await backend.extraction_batch("s1", EAGER) is None
    overview = await backend.memory_overview(user_id="anna")
    assert "Anna waters the plants on Sundays" in overview
    learned = await backend.list(scope="anna")
    assert [m.content for m in learned.items] == [
        "The user's favourite colour is green"
    ]
    # Someone named on their own is the household's, on both backends.
    shared = await backend.list(scope="household")
    assert "Anna waters the plants on Sundays" in [m.content for m in shared.items]


async def test_rule_facts_in_the_conversations_language(
    backend: MemoryBackend,
) -> None:
    # Written alike in both scripts: only the conversation's language tells.
    await backend.note_message("hant", "user", "我太太不吃牛肉")
    batch = await backend.extraction_batch("hant", EAGER)
    assert batch is not None
    assert batch.language is None
    assert [f.content for f in await backend.rule_facts(batch)] == [
        "用户的太太不吃牛肉"
    ]
    in_traditional = replace(batch, language="zh-Hant")
    facts = await backend.rule_facts(in_traditional)
    assert [f.content for f in facts] == ["用戶的太太不吃牛肉"]
    await backend.learn(in_traditional, facts, scope="household", settings=EAGER)
    learned = await backend.list(scope="household")
    assert [m.content for m in learned.items] == ["用戶的太太不吃牛肉"]


async def test_learning_when_the_speaker_is_unknown(backend: MemoryBackend) -> None:
    # A conversation with another agent: whoever spoke could be anyone in the home.
    for text in (
        "My favourite food is pizza",
        "I work as a nurse",
        "Our dog is called Rex",
        "我喜欢燕麦奶",
    ):
        await backend.note_message("followed", "user", text)
    profile_before = await backend.read_profile()
    batch = await backend.extraction_batch("followed", EAGER)
    assert batch is not None
    facts = await backend.rule_facts(batch)

    result = await backend.learn(
        batch,
        facts,
        scope="household",
        settings=EAGER,
        speaker_unknown=True,
        device_id="kitchen-device",
    )

    # Nothing about the speaker reaches the household: only what is everyone's.
    household = await backend.list(scope="household")
    assert [m.content for m in household.items] == ["The household's dog is called Rex"]
    assert result.added == 1
    # The rest waits in Review for someone to say whose it is.
    assert result.held == len(facts) - 1
    assert result.skipped == 0
    held = await backend.held_facts()
    assert sorted(f.content for f in held) == sorted(
        f.content for f in facts if "Rex" not in f.content
    )
    assert {(f.reason, f.device_id, f.session_id) for f in held} == {
        ("speaker_unknown", "kitchen-device", "followed")
    }
    assert (await backend.list()).total == 1
    assert result.profile_updates == 0
    assert await backend.read_profile() == profile_before
    assert await backend.extraction_batch("followed", EAGER) is None


async def test_held_facts_taken_and_put_back(backend: MemoryBackend) -> None:
    fact = new_held_fact(
        "my dentist is Dr. Quill", reason="speaker_unknown", device_id="d1"
    )
    assert await backend.hold(fact) == fact
    assert await backend.held_facts() == [fact]

    assert await backend.take_held(fact.id) == fact
    assert await backend.take_held(fact.id) is None
    assert await backend.held_facts() == []
    # Undo puts it back as it was.
    await backend.hold(fact)
    assert await backend.held_facts() == [fact]


async def test_a_turn_keeps_who_spoke(backend: MemoryBackend) -> None:
    bob = Speaker("bob", "device", "bedroom", person_entity_id="person.bob")
    await backend.begin_turn(
        session_id="s9", text="What is for dinner?", user_id="bob", speaker=bob
    )
    await backend.begin_turn(session_id="s9", text="And tomorrow?", user_id="bob")
    await asyncio.sleep(0)  # the turn's writes go out once the agent has its memory
    found = await backend.conversation("s9")
    assert found is not None
    assert [m.speaker for m in found.messages] == [
        {"source": "device", "device_id": "bedroom", "person_entity_id": "person.bob"},
        None,
    ]
    # The record goes with its message.
    assert await backend.delete_conversation("s9") == 2
    await backend.begin_turn(session_id="s9", text="Hello", speaker=UNKNOWN_SPEAKER)
    await asyncio.sleep(0)
    again = await backend.conversation("s9")
    assert again is not None
    assert [m.speaker for m in again.messages] == [
        {"source": "unknown", "device_id": None, "person_entity_id": None}
    ]


async def test_conversations_of_their_owners(backend: MemoryBackend) -> None:
    for session, user, text in (
        ("s1", "anna", "My PIN is 4321, and my dentist is Dr. Chen"),
        ("s1", "ben", "Ben here"),
        ("s2", "ben", "Only Ben"),
    ):
        await backend.begin_turn(session_id=session, text=text, user_id=user)
        await asyncio.sleep(0)  # the agent answers after the turn's writes went out
        await backend.end_turn(
            session_id=session, user_text=text, reply="OK", user_id=user
        )

    everyone = await backend.conversations(limit=10)
    bens = await backend.conversations(owner="ben", limit=1, offset=1)
    annas = await backend.conversation("s1", owner="anna")

    assert [(c.session_id, c.message_count) for c in everyone.items] == [
        ("s2", 2),
        ("s1", 4),
    ]
    assert (bens.total, [c.session_id for c in bens.items]) == (2, ["s1"])
    assert annas is not None
    assert [m.content for m in annas.messages] == [
        "My PIN is [secret withheld], and my dentist is Dr. Chen",
        "OK",
    ]
    assert annas.title is not None
    assert await backend.conversation("s2", owner="anna") is None
    assert await backend.delete_conversation("s1", owner="ben") == 2
    assert await backend.delete_conversation("s1", owner="ben") == 0
    remaining = await backend.conversation("s1")
    assert remaining is not None
    assert {m.user_id for m in remaining.messages} == {"anna"}
    assert await backend.delete_conversation("s1") == 2
    assert await backend.conversation("s1") is None
    assert await backend.working_memory("s1") is None


async def test_turn_with_defaults(backend: MemoryBackend) -> None:
    context = await backend.begin_turn(session_id="s2", text="Hello there")
    assert context.memories == ()
    assert context.scopes == ("household",)
    assert await backend.memory_overview(user_id=None) == ""


async def test_memory_sentences(backend: MemoryBackend) -> None:
    async def answer(text: str, user_id: str | None = "anna") -> str:
        command = parse_command(text)
        assert command is not None
        said = await answer_command(
            backend,
            command,
            session_id="s3",
            speaker=user_speaker(user_id),
            language="en",
        )
        return said.speech

    said = "Remember that my bike is in the shed"
    assert await answer(said) == "OK, I'll remember that."
    assert await answer(said) == "I already knew that."
    assert [m.scope for m in (await backend.list()).items] == ["anna"]
    assert await answer("Remember that my pin is 4321") == (
        "I don't keep passwords or codes."
    )
    assert await answer("What do you remember about my bike?", "tom") == (
        "I don't remember anything about my bike."
    )
    assert await answer("What do you remember about my bike?") == (
        "Here is what I remember: Your bike is in the shed."
    )
    question = await propose_forget(
        backend,
        MemoryCommand("forget", "my bike"),
        user_id="anna",
        language="en",
        may_forget_household=False,
    )
    assert question.speech == "Should I forget this: Your bike is in the shed?"
    assert question.proposal is not None
    assert await settle_forget(backend, question.proposal, "no") == "OK, I've kept it."
    assert (await backend.list()).total == 1
    said = await settle_forget(backend, question.proposal, "yes")
    assert said == "Done, I've forgotten that."
    assert (await backend.list()).total == 0

    assert await answer("Stop remembering") == (
        "OK, I won't remember anything from this conversation."
    )
    await backend.begin_turn(session_id="s3", text="My favourite colour is green")
    await backend.end_turn(
        session_id="s3", user_text="My favourite colour is green", reply="Nice."
    )
    assert await backend.working_memory("s3") is None
    assert await backend.extraction_batch("s3", EAGER) is None


async def test_compaction_not_enabled(backend: MemoryBackend) -> None:
    await backend.add("Anna takes her coffee black")
    assert not backend.compaction_enabled
    assert await backend.compact() is None
    assert await backend.maybe_compact() is None
    assert await backend.undo_compaction() is None
    assert await backend.compaction_backups() == []


async def test_stats_and_settings(backend: MemoryBackend) -> None:
    await backend.add("Anna takes her coffee black", category="preference")
    stats = await backend.stats()
    assert stats.count == 1
    assert stats.max_items == 100
    assert stats.by_category == {"preference": 1}
    assert stats.last_changed is not None
    await backend.set_settings(StoreSettings(max_items=1, max_content_length=50))
    assert (await backend.stats()).max_items == 1
    assert await _code_of(backend.add("Tom likes tea")) == "memory_full"
    await backend.set_settings(StoreSettings(max_items=5, max_content_length=10))
    assert await _code_of(backend.add("a memory that is too long")) == (
        "content_too_long"
    )


async def test_listeners_hear_changes(backend: MemoryBackend) -> None:
    calls: list[str] = []
    remove = backend.add_listener(lambda: calls.append("changed"))
    memory = await backend.add("Anna takes her coffee black")
    assert calls
    calls.clear()
    await backend.get(memory.id)
    assert not calls
    await backend.delete(memory.id)
    assert calls
    remove()
    remove()
    calls.clear()
    await backend.add("Tom likes tea")
    assert not calls


async def test_ends_over_every_backend(backend: MemoryBackend) -> None:
    now = datetime.now(UTC)
    ended = await backend.add(
        "The guests stayed in the spare room",
        expires_at=(now - timedelta(hours=1)).isoformat(),
    )
    going = await backend.add(
        "The boiler is off", expires_at=(now + timedelta(days=2)).isoformat()
    )

    assert [m.id for m in (await backend.list()).items] == [going.id]
    assert [m.id for m in (await backend.list(ended=True)).items] == [ended.id]
    assert (await backend.list(ended=None)).total == 2
    assert [r.memory.id for r in await backend.search("spare room boiler")] == [
        going.id
    ]
    assert "spare room" not in await backend.build_prompt("hi")
    exported = {m["id"]: m["expires_at"] for m in (await backend.export())["memories"]}
    assert exported[going.id] == going.expires_at
    cleared = await backend.update(going.id, expires_at="")
    assert cleared is not None
    assert cleared.expires_at is None


async def test_learning_over_every_backend_reads_time_at_home(
    backend: MemoryBackend,
) -> None:
    home = "Asia/Shanghai"
    await backend.note_message("t1", "user", "Remember that the plumber comes tomorrow")
    batch = await backend.extraction_batch("t1", EAGER)
    assert batch is not None
    tomorrow = datetime.now(ZoneInfo(home)).date() + timedelta(days=1)
    said_end = tomorrow + timedelta(days=9)
    await backend.learn(
        batch,
        [
            Fact("The plumber comes tomorrow", "event"),
            Fact("Grandma stays with the user", "event", until=said_end),
        ],
        scope="household",
        settings=replace(EAGER, time_zone=home),
    )

    memories = {m.content: m for m in (await backend.list()).items}
    plumber = memories[f"The plumber comes on {absolute_date_phrase(tomorrow, 'en')}"]
    assert (
        plumber.expires_at
        == ends_at(tomorrow + timedelta(days=1), ZoneInfo(home)).isoformat()
    )
    grandma = memories["Grandma stays with the user"]
    assert grandma.expires_at == ends_at(said_end, ZoneInfo(home)).isoformat()
