"""The conversation log: persistence, rolling window, summaries, retention."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
import sqlite3
import subprocess
import sys
import textwrap
from typing import Any

import pytest

from custom_components.assist_memory.engine import InvalidMemoryError, StorageError
from custom_components.assist_memory.engine.conversation.conversation_log import (
    ConversationLog,
)
from custom_components.assist_memory.engine.conversation.conversation_records import (
    MAX_MESSAGE_LENGTH,
    Message,
    SessionInfo,
    SessionSummary,
    new_session_id,
    timestamp,
)
from custom_components.assist_memory.engine.conversation.session_titles import (
    first_sentence,
    is_cjk_text,
    shorten,
    summarize_first_exchange,
)

START = datetime(2025, 3, 1, 8, 0, tzinfo=UTC)


class StepClock:
    """Moves one second forward on every reading, so every message has its own time."""

    def __init__(self, now: datetime = START) -> None:
        self.now = now

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


@pytest.fixture
def clock() -> StepClock:
    return StepClock()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "conversations.db"


@pytest.fixture
def log(db_path: Path, clock: StepClock) -> Iterator[ConversationLog]:
    conversation_log = ConversationLog(db_path, clock=clock)
    conversation_log.open()
    yield conversation_log
    conversation_log.close()


def chat(log: ConversationLog, session: str, *texts: str) -> list[Message]:
    """Alternate user / assistant messages, starting with the user."""
    roles = ("user", "assistant")
    return [log.append(session, roles[i % 2], text) for i, text in enumerate(texts)]


# -- persistence -------------------------------------------------------------------------


def test_append_returns_the_stored_message(log: ConversationLog, db_path: Path) -> None:
    message = log.append("s1", "user", "  Turn on the lights  ", user_id="u1")

    assert message == Message(
        id=message.id,
        session_id="s1",
        role="user",
        content="Turn on the lights",
        created_at=(START + timedelta(seconds=1)).isoformat(),
        collected=False,
        user_id="u1",
    )
    assert db_path.is_file()
    assert log.messages("s1") == [message]
    assert message.to_dict()["content"] == "Turn on the lights"


def test_messages_are_oldest_first_and_per_session(log: ConversationLog) -> None:
    a = chat(log, "a", "one", "two", "three")
    b = chat(log, "b", "other")

    assert log.messages("a") == a
    assert log.messages("b") == b
    assert log.messages("missing") == []


def test_messages_limit_gives_the_newest(log: ConversationLog) -> None:
    sent = chat(log, "s", "1", "2", "3", "4", "5")

    assert log.messages("s", limit=2) == sent[3:]
    assert log.messages("s", limit=0) == []
    assert log.messages("s", limit=50) == sent


def test_explicit_times_are_stored_in_utc_and_ordered(log: ConversationLog) -> None:
    later = log.append("s", "assistant", "later", when="2025-01-01T10:00:00+02:00")
    earlier = log.append(
        "s", "user", "earlier", when=datetime(2025, 1, 1, 7, 0, tzinfo=UTC)
    )
    naive = log.append("s", "user", "naive", when="2025-01-01T09:30:00")

    assert later.created_at == "2025-01-01T08:00:00+00:00"
    assert naive.created_at == "2025-01-01T09:30:00+00:00"
    assert [m.content for m in log.messages("s")] == ["earlier", "later", "naive"]
    assert earlier.id > later.id  # ids follow insertion, the order follows time


def test_new_session_ids_are_unique_hex() -> None:
    ids = {new_session_id() for _ in range(1000)}

    assert len(ids) == 1000
    assert all(len(i) == 32 and int(i, 16) >= 0 for i in ids)
    assert len(ConversationLog.new_session_id()) == 32


@pytest.mark.parametrize(
    ("args", "kwargs", "code"),
    [
        (("", "user", "hi"), {}, "invalid_session_id"),
        (("x" * 201, "user", "hi"), {}, "invalid_session_id"),
        (("s", "system", "hi"), {}, "invalid_role"),
        (("s", "User", "hi"), {}, "invalid_role"),
        (("s", "user", "   "), {}, "empty_content"),
        (("s", "user", 42), {}, "invalid_content"),
        (("s", "user", "a\x00b"), {}, "invalid_content"),
        (("s", "user", "x" * (MAX_MESSAGE_LENGTH + 1)), {}, "content_too_long"),
        (("s", "user", "hi"), {"user_id": "u" * 201}, "invalid_user_id"),
        (("s", "user", "hi"), {"user_id": 5}, "invalid_user_id"),
        (("s", "user", "hi"), {"when": "yesterday"}, "invalid_timestamp"),
        (("s", "user", "hi"), {"when": 12}, "invalid_timestamp"),
    ],
)
def test_invalid_messages_are_refused(
    log: ConversationLog, args: tuple[object, ...], kwargs: dict[str, object], code: str
) -> None:
    with pytest.raises(InvalidMemoryError) as err:
        log.append(*args, **kwargs)  # type: ignore[arg-type]

    assert err.value.code == code
    assert log.sessions() == []


def test_longest_message_and_blank_user_id_are_accepted(log: ConversationLog) -> None:
    message = log.append("s", "user", "x" * MAX_MESSAGE_LENGTH, user_id="  ")

    assert len(message.content) == MAX_MESSAGE_LENGTH
    assert message.user_id is None


def test_messages_survive_reopening(db_path: Path) -> None:
    with ConversationLog(db_path) as first:
        sent = chat(first, "s", "hello", "hi there")
        first.add_summary("s", "Greeting", "hi there")

    with ConversationLog(db_path) as second:
        assert second.messages("s") == sent
        assert second.summary("s") is not None


def test_acknowledged_appends_survive_a_killed_process(db_path: Path) -> None:
    """The writer is SIGKILLed right after its appends returned, without close()."""
    script = textwrap.dedent(
        f"""
        import os, signal
        from assist_memory_engine.conversation.conversation_log import ConversationLog
        log = ConversationLog({str(db_path)!r})
        for i in range(50):
            log.append("crash", "user" if i % 2 == 0 else "assistant", f"message {{i}}")
        print("acknowledged", flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert result.stdout.strip() == "acknowledged"
    assert result.returncode == -9

    with ConversationLog(db_path) as log:
        assert [m.content for m in log.messages("crash")] == [
            f"message {i}" for i in range(50)
        ]
        # The database is sound after the crash.
        check = sqlite3.connect(db_path)
        try:
            assert check.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        finally:
            check.close()


def test_wal_mode_and_synchronous_setting(db_path: Path) -> None:
    with ConversationLog(db_path) as log:
        log.append("s", "user", "hi")
        db = log._connection()
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert db.execute("PRAGMA synchronous").fetchone() == (1,)  # NORMAL
    with ConversationLog(db_path, synchronous="FULL") as log:
        assert log._connection().execute("PRAGMA synchronous").fetchone() == (2,)
    with pytest.raises(ValueError):  # noqa: PT011
        ConversationLog(db_path, synchronous="OFF")  # type: ignore[arg-type]


def test_use_opens_lazily_and_close_is_repeatable(db_path: Path) -> None:
    log = ConversationLog(str(db_path))
    log.append("s", "user", "hi")  # opens on first use
    log.close()
    log.close()
    assert [m.content for m in log.messages("s")] == ["hi"]  # opens again
    log.open()  # already open: nothing happens
    log.close()


def test_thread_safety_many_writers(log: ConversationLog) -> None:
    def write(worker: int) -> list[int]:
        return [
            log.append(f"s{worker % 4}", "user", f"w{worker} m{i}").id
            for i in range(25)
        ]

    with ThreadPoolExecutor(max_workers=16) as pool:
        ids = [i for batch in pool.map(write, range(16)) for i in batch]

    assert len(ids) == len(set(ids)) == 400
    sessions = log.sessions(limit=10)
    assert sorted(s.message_count for s in sessions) == [100, 100, 100, 100]
    for worker in range(16):
        contents = [
            m.content
            for m in log.messages(f"s{worker % 4}")
            if m.content.startswith(f"w{worker} ")
        ]
        assert contents == [f"w{worker} m{i}" for i in range(25)]  # order kept


def test_two_logs_on_one_file(db_path: Path) -> None:
    """Home Assistant and the CLI may open the same file."""
    with ConversationLog(db_path) as one, ConversationLog(db_path) as two:
        one.append("s", "user", "from one")
        two.append("s", "assistant", "from two")
        assert [m.content for m in one.messages("s")] == ["from one", "from two"]


def test_a_file_that_is_not_a_database_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "conversations.db"
    original = b"this is not sqlite" * 100
    path.write_bytes(original)

    with pytest.raises(StorageError):
        ConversationLog(path).open()
    assert path.read_bytes() == original  # never thrown away


def test_a_folder_that_cannot_be_created_is_reported(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")

    with pytest.raises(StorageError):
        ConversationLog(blocker / "conversations.db").open()


def test_a_newer_schema_is_refused(db_path: Path) -> None:
    with ConversationLog(db_path) as log:
        log.append("s", "user", "hi")
        log._connection().execute("PRAGMA user_version=99")

    with pytest.raises(StorageError, match="newer version"):
        ConversationLog(db_path).open()


def test_sqlite_errors_become_storage_errors(db_path: Path) -> None:
    with ConversationLog(db_path) as log:
        log.append("s", "user", "hi")
        log._connection().execute("DROP TABLE summaries")

        with pytest.raises(StorageError):
            log.recent_summaries()
        with pytest.raises(StorageError):
            log.delete_session("s")  # fails inside a transaction: rolled back
        assert [m.content for m in log.messages("s")] == ["hi"]


# -- rolling window -----------------------------------------------------------------------


def test_window_within_the_limit_keeps_everything(log: ConversationLog) -> None:
    sent = chat(log, "s", "q1", "a1", "q2", "a2")

    assert log.window("s", 4) == sent
    assert log.window("s", 10) == sent


def test_window_over_the_limit_drops_the_oldest_turn(log: ConversationLog) -> None:
    sent = chat(log, "s", "q1", "a1", "q2", "a2", "q3", "a3")

    assert log.window("s", 4) == sent[2:]  # the q1/a1 turn is gone
    assert log.window("s", 5) == sent[2:]  # never a lone "a1" at the start
    assert log.window("s", 2) == sent[4:]
    assert log.window("s", 3) == sent[4:]


def test_window_with_a_pending_user_message(log: ConversationLog) -> None:
    sent = chat(log, "s", "q1", "a1", "q2", "a2", "q3")

    assert log.window("s", 3) == sent[2:]
    assert log.window("s", 2) == sent[4:]
    assert log.window("s", 1) == sent[4:]


def test_window_keeps_turns_with_several_assistant_messages_whole(
    log: ConversationLog,
) -> None:
    q1 = log.append("s", "user", "q1")
    log.append("s", "assistant", "a1 part 1")
    log.append("s", "assistant", "a1 part 2")
    q2 = log.append("s", "user", "q2")
    a2 = log.append("s", "assistant", "a2")

    assert log.window("s", 4) == [q2, a2]
    assert log.window("s", 5)[0] == q1
    # The newest turn alone is longer than the limit: nothing fits.
    log.append("s", "assistant", "a2 more")
    assert log.window("s", 2) == []


def test_window_may_start_with_an_assistant_message_no_user_precedes(
    log: ConversationLog,
) -> None:
    greeting = log.append("s", "assistant", "Good morning!")
    news = log.append("s", "assistant", "Rain is expected today.")
    question = log.append("s", "user", "Thanks")

    assert log.window("s", 2) == [news, question]
    assert log.window("s", 3) == [greeting, news, question]


def test_window_of_zero_and_unknown_session(log: ConversationLog) -> None:
    chat(log, "s", "q1", "a1")

    assert log.window("s", 0) == []
    assert log.window("missing", 5) == []


@pytest.mark.parametrize("limit", [-1, 1.5, True, "3"])
def test_window_limit_must_be_a_whole_number(
    log: ConversationLog, limit: object
) -> None:
    with pytest.raises(InvalidMemoryError) as err:
        log.window("s", limit)  # type: ignore[arg-type]

    assert err.value.code == "invalid_context_limit"


def test_window_leaves_the_log_unchanged(log: ConversationLog) -> None:
    sent = chat(log, "s", "q1", "a1", "q2", "a2", "q3", "a3")

    log.window("s", 2)

    assert log.messages("s") == sent


# -- extraction bookkeeping -------------------------------------------------------------


def test_collected_flags(log: ConversationLog) -> None:
    sent = chat(log, "s", "q1", "a1", "q2", "a2")
    other = chat(log, "t", "elsewhere")

    assert log.uncollected("s") == sent

    assert log.mark_collected([m.id for m in sent[:2]]) == 2
    assert log.mark_collected([sent[0].id, sent[0].id]) == 0  # already collected

    assert log.uncollected("s") == sent[2:]
    assert [m.collected for m in log.messages("s")] == [True, True, False, False]
    assert log.uncollected("t") == other
    assert log.mark_collected([]) == 0
    assert log.mark_collected([999_999]) == 0


def test_mark_collected_in_large_batches(log: ConversationLog) -> None:
    ids = [log.append("s", "user", f"m{i}").id for i in range(1200)]

    assert log.mark_collected(iter(ids)) == 1200
    assert log.uncollected("s") == []


@pytest.mark.parametrize("bad", [["1"], [True], [1.0]])
def test_mark_collected_refuses_non_ids(
    log: ConversationLog, bad: list[object]
) -> None:
    with pytest.raises(InvalidMemoryError) as err:
        log.mark_collected(bad)  # type: ignore[arg-type]

    assert err.value.code == "invalid_message_id"


# -- sessions ----------------------------------------------------------------------------------


def test_sessions_newest_first_with_counts(log: ConversationLog) -> None:
    first = chat(log, "old", "q1", "a1")
    chat(log, "new", "hello")
    latest = log.append("old", "user", "back again")  # "old" is active again
    log.add_summary("old", "Lights", "The lights are on.")

    sessions = log.sessions()

    assert sessions[0] == SessionInfo(
        session_id="old",
        first_message_at=first[0].created_at,
        last_message_at=latest.created_at,
        message_count=3,
        title="Lights",
        turn_count=2,
        snippet="The lights are on.",
    )
    assert [s.session_id for s in sessions] == ["old", "new"]
    assert (sessions[1].title, sessions[1].turn_count) == (None, 1)
    assert log.sessions(limit=1) == sessions[:1]
    assert log.sessions(limit=1, offset=1) == sessions[1:]
    assert log.session_count() == 2
    assert sessions[0].to_dict()["message_count"] == 3


def test_sessions_limit_validation(log: ConversationLog) -> None:
    with pytest.raises(InvalidMemoryError):
        log.sessions(-1)
    with pytest.raises(InvalidMemoryError):
        log.sessions(5, offset=-1)


def test_delete_session(log: ConversationLog) -> None:
    chat(log, "gone", "q1", "a1")
    kept = chat(log, "kept", "q")
    log.add_summary("gone", "Title", "Snippet")

    assert log.delete_session("gone") == 2
    assert log.delete_session("gone") == 0

    assert log.messages("gone") == []
    assert log.summary("gone") is None
    assert [s.session_id for s in log.sessions()] == ["kept"]
    assert log.messages("kept") == kept


def test_ids_are_never_reused_after_a_delete(log: ConversationLog) -> None:
    last = chat(log, "s", "q1", "a1")[-1]
    log.delete_session("s")

    assert log.append("s", "user", "again").id > last.id


# -- summaries --------------------------------------------------------------------------------------


def test_one_summary_per_session_replaced_on_repeat(log: ConversationLog) -> None:
    first = log.add_summary("s", "Kitchen lights", "Turned them on.")
    second = log.add_summary("s", "  Kitchen lights and music ", "Playing jazz.")

    assert first.title == "Kitchen lights"
    assert log.summary("s") == second
    assert second.title == "Kitchen lights and music"
    assert second.created_at > first.created_at
    assert log.recent_summaries(10) == [second]
    assert log.summary("missing") is None


def test_recent_summaries_newest_first(log: ConversationLog) -> None:
    for i in range(6):
        log.add_summary(f"s{i}", f"Title {i}", f"Snippet {i}")

    recent = log.recent_summaries(3)

    assert [s.session_id for s in recent] == ["s5", "s4", "s3"]
    assert all(isinstance(s, SessionSummary) for s in recent)
    assert log.recent_summaries(0) == []
    assert recent[0].to_dict() == {
        "session_id": "s5",
        "title": "Title 5",
        "snippet": "Snippet 5",
        "created_at": recent[0].created_at,
        "user_id": None,
    }


def test_speaker_summaries_are_the_speakers_own(log: ConversationLog) -> None:
    speakers = ["anna", "ben", "anna", None, "anna", "anna"]
    for i, speaker in enumerate(speakers):
        log.append(f"s{i}", "user", f"Hello {i}", user_id=speaker)
        log.add_summary(f"s{i}", f"Title {i}", f"Snippet {i}", user_id=speaker)
    # Anna speaking in Ben's conversation id later gets nothing of his.
    log.append("s1", "user", "Anna here now", user_id="anna")

    def ids(user_id: str | None, limit: int, **kwargs: Any) -> list[str]:
        found = log.speaker_summaries(user_id, limit, **kwargs)
        return [s.session_id for s in found]

    assert ids("anna", 10, among=10) == ["s5", "s4", "s2", "s0"]
    assert ids("anna", 2, among=10) == ["s5", "s4"]
    assert ids("anna", 10, among=10, excluding="s5") == ["s4", "s2", "s0"]
    # Only the newest `among` summaries are looked at.
    assert ids("anna", 10, among=3) == ["s5", "s4"]
    assert ids(None, 10, among=10) == ["s3"]
    assert ids("ben", 10, among=10) == ["s1"]
    assert ids("lea", 10, among=10) == []
    assert ids("anna", 0, among=10) == []
    with pytest.raises(InvalidMemoryError):
        log.speaker_summaries("anna", 1, among=-1)


def test_summary_with_explicit_time(log: ConversationLog) -> None:
    older = log.add_summary("a", "A", "", when="2024-01-01T00:00:00Z")
    log.add_summary("b", "B", "")

    assert older.created_at == "2024-01-01T00:00:00+00:00"
    assert older.snippet == ""
    assert [s.session_id for s in log.recent_summaries(5)] == ["b", "a"]


@pytest.mark.parametrize(
    ("title", "snippet", "code"),
    [
        ("", "s", "invalid_title"),
        ("   ", "s", "invalid_title"),
        ("t" * 201, "s", "invalid_title"),
        (None, "s", "invalid_title"),
        ("t", "s" * 1001, "invalid_snippet"),
        ("t", "a\x00", "invalid_snippet"),
        ("t", 5, "invalid_snippet"),
    ],
)
def test_invalid_summaries_are_refused(
    log: ConversationLog, title: object, snippet: object, code: str
) -> None:
    with pytest.raises(InvalidMemoryError) as err:
        log.add_summary("s", title, snippet)  # type: ignore[arg-type]

    assert err.value.code == code
    assert log.summary("s") is None


def test_first_exchange_summary_flow(log: ConversationLog) -> None:
    """A new session's first reply writes its summary (no LLM needed)."""
    session = new_session_id()
    user = log.append(session, "user", "What's on my calendar today? I forgot.")
    reply = log.append(session, "assistant", "You have a dentist visit at 3 pm. Also…")

    title, snippet = summarize_first_exchange(user.content, reply.content)
    log.add_summary(session, title, snippet)

    assert log.recent_summaries(1)[0].title == "What's on my calendar today?"
    assert log.recent_summaries(1)[0].snippet == "You have a dentist visit at 3 pm."


# -- retention -------------------------------------------------------------------------------------


def test_prune_removes_old_messages_and_orphaned_summaries(
    db_path: Path,
) -> None:
    log = ConversationLog(db_path)
    log.append("old", "user", "old q", when=START - timedelta(days=40))
    log.append("old", "assistant", "old a", when=START - timedelta(days=40))
    log.add_summary("old", "Old", "", when=START - timedelta(days=40))
    log.append("mixed", "user", "old part", when=START - timedelta(days=31))
    recent = log.append(
        "mixed", "assistant", "new part", when=START - timedelta(days=1)
    )
    log.add_summary("mixed", "Mixed", "", when=START - timedelta(days=31))

    removed = log.prune(timedelta(days=30), now=START)

    assert removed == 3
    assert log.messages("old") == []
    assert log.summary("old") is None
    assert log.messages("mixed") == [recent]
    assert log.summary("mixed") is not None  # its conversation still has messages
    assert log.prune(timedelta(days=30), now=START) == 0
    log.close()


def test_prune_uses_the_clock(log: ConversationLog, clock: StepClock) -> None:
    log.append("s", "user", "q")
    clock.now += timedelta(days=10)

    assert log.prune(timedelta(days=30)) == 0
    assert log.prune(timedelta(days=5)) == 1
    with pytest.raises(ValueError):  # noqa: PT011
        log.prune(timedelta(days=-1))


# -- first-exchange summaries without an LLM ------------------------------------------


def test_summarize_short_english() -> None:
    title, snippet = summarize_first_exchange(
        "Turn on the kitchen lights. And the radio.",
        "Done! The kitchen lights are on. Anything else?",
    )

    assert title == "Turn on the kitchen lights"
    assert snippet == "Done!"


def test_summarize_cuts_long_english_at_a_word_boundary() -> None:
    user = (
        "Could you please remind me about the quarterly budget meeting with the "
        "finance team next Tuesday afternoon"
    )
    assistant = "Sure, " + "I will remind you about that meeting " * 10

    title, snippet = summarize_first_exchange(user, assistant)

    assert title == "Could you please remind me about the quarterly budget…"
    assert len(title) <= 61
    assert user.startswith(title[:-1])
    assert snippet.endswith("…")
    assert len(snippet) <= 161
    assert not snippet[:-1].endswith(" ")
    assert assistant.startswith(snippet[:-1])


def test_summarize_chinese_cuts_at_thirty_characters() -> None:
    user = "请帮我记住明天早上八点要去医院复查血压并且带上上次的检查报告和医保卡以及身份证。还有别的吗"
    assistant = "好的，我已经记下了。明天早上提醒您。"

    title, snippet = summarize_first_exchange(user, assistant)

    assert title == user[:30] + "…"
    assert snippet == "好的，我已经记下了。"


def test_summarize_long_chinese_snippet() -> None:
    _, snippet = summarize_first_exchange("你好", "好" * 200)

    assert snippet == "好" * 80 + "…"


def test_summarize_keeps_question_marks_and_numbers() -> None:
    title, snippet = summarize_first_exchange(
        "Is it 3.5 degrees outside? Brr.", "It is 3.5 °C in Berlin right now."
    )

    assert title == "Is it 3.5 degrees outside?"
    assert snippet == "It is 3.5 °C in Berlin right now."


def test_summarize_without_what_was_done_keeps_to_the_user_s_words() -> None:
    title, snippet = summarize_first_exchange(
        "Turn on the kitchen lights. And the radio. Thanks.", None
    )

    assert (title, snippet) == ("Turn on the kitchen lights", "And the radio.")
    assert summarize_first_exchange("Hello", None) == ("Hello", "")


def test_summarize_without_user_text_falls_back() -> None:
    assert summarize_first_exchange("", "The timer is set.") == (
        "The timer is set",
        "The timer is set.",
    )
    assert summarize_first_exchange("  ", "  ") == ("Conversation", "")


def test_summarize_a_long_word_is_cut_hard() -> None:
    title, _ = summarize_first_exchange("x" * 100, "ok")

    assert title == "x" * 60 + "…"


def test_text_helpers() -> None:
    assert first_sentence("One. Two.") == "One."
    assert first_sentence("Line one\nline two") == "Line one"
    assert first_sentence("Visit example.com today") == "Visit example.com today"
    assert first_sentence("第一句。第二句。") == "第一句。"
    assert is_cjk_text("打开厨房的灯")
    assert is_cjk_text("打开 TV 的电源吧")
    assert not is_cjk_text("Turn on the 灯")
    assert not is_cjk_text("   ")
    assert shorten("short", 10, 5) == "short"
    assert shorten("中文很短", 10, 5) == "中文很短"
    assert timestamp(" 2025-01-01T00:00:00+00:00 ") == "2025-01-01T00:00:00+00:00"


# -- privacy ------------------------------------------------------------------------------


def file_bytes(db_path: Path) -> bytes:
    """The database with its write-ahead log and shared memory, as on disk."""
    return b"".join(
        path.read_bytes()
        for path in db_path.parent.iterdir()
        if path.name.startswith(db_path.name)
    )


def test_messages_and_summaries_are_kept_redacted(
    log: ConversationLog, db_path: Path
) -> None:
    said = log.append("s", "user", "My wifi password is hunter2, thanks")
    log.append("s", "assistant", "Noted: the alarm code is 4321.")
    summary = log.add_summary("s", "My PIN is 9876", "Card 4111 1111 1111 1111")

    assert said.content == "My wifi password is [secret withheld], thanks"
    assert [m.content for m in log.messages("s")] == [
        "My wifi password is [secret withheld], thanks",
        "Noted: the alarm code is [secret withheld].",
    ]
    assert (summary.title, summary.snippet) == (
        "My PIN is [secret withheld]",
        "Card [secret withheld]",
    )
    assert log.summary("s") == summary
    data = file_bytes(db_path)
    for secret in (b"hunter2", b"4321", b"9876", b"4111"):
        assert secret not in data


def test_a_speaker_gets_only_their_own_window(log: ConversationLog) -> None:
    log.append("win-3", "user", "My dentist is Dr. Chen", user_id="a")
    log.append("win-3", "assistant", "Noted", user_id="a")
    log.append("win-3", "user", "Lights on", user_id=None)
    log.append("win-3", "assistant", "Done", user_id=None)

    def texts(speaker: str | None) -> list[str]:
        return [m.content for m in log.window("win-3", 10, speaker=speaker)]

    assert texts("a") == ["My dentist is Dr. Chen", "Noted"]
    assert texts(None) == ["Lights on", "Done"]
    assert texts("b") == []
    assert len(log.window("win-3", 10)) == 4


def test_conversations_of_one_owner(log: ConversationLog) -> None:
    log.append("shared", "user", "Hello from Anna", user_id="anna")
    log.add_summary("shared", "Hello from Anna", "", user_id="anna")
    log.append("shared", "user", "Hello from Ben", user_id="ben")
    log.append("bens", "user", "Only Ben", user_id="ben")

    anna = log.sessions(owner="anna")
    ben = log.sessions(owner="ben")

    assert [(s.session_id, s.message_count, s.title) for s in anna] == [
        ("shared", 1, "Hello from Anna")
    ]
    # Ben spoke in Anna's conversation: he sees his message, not her title.
    assert [(s.session_id, s.message_count, s.title) for s in ben] == [
        ("bens", 1, None),
        ("shared", 1, None),
    ]
    assert [s.user_id for s in log.sessions()] == ["ben", "anna"]
    assert log.session_count(owner="ben") == 2
    assert log.session_count(owner="lea") == 0
    assert log.recent_summaries(owner="ben") == []


def test_deleting_own_messages_leaves_the_others(log: ConversationLog) -> None:
    log.append("shared", "user", "Hello from Anna", user_id="anna")
    log.add_summary("shared", "Hello from Anna", "", user_id="anna")
    log.append("shared", "user", "Hello from Ben", user_id="ben")

    assert log.delete_session("shared", owner="ben") == 1
    assert [m.user_id for m in log.messages("shared")] == ["anna"]
    assert log.summary("shared") is not None
    assert log.delete_session("shared", owner="anna") == 1
    assert log.summary("shared") is None
    assert log.delete_session("shared") == 0


@pytest.mark.parametrize("how", ["delete", "prune"])
def test_deleted_text_is_in_no_file(
    log: ConversationLog, db_path: Path, clock: StepClock, how: str
) -> None:
    # Enough text to fill pages of its own, beside a conversation that stays.
    for i in range(200):
        log.append("gone", "user", f"zorblaxian plan number {i} for the garden")
        log.append("kept", "user", f"ordinary message {i}")
    log.add_summary("gone", "zorblaxian plans", "zorblaxian snippet")
    assert b"zorblaxian" in file_bytes(db_path)

    if how == "delete":
        assert log.delete_session("gone") == 200
    else:
        clock.now += timedelta(days=31)
        log.append("kept", "user", "a new message")  # the older ones go
        assert log.prune(timedelta(days=30)) == 400

    assert b"zorblaxian" not in file_bytes(db_path)
    assert log.summary("gone") is None


V1_SCHEMA = (
    (
        "CREATE TABLE messages(id INTEGER PRIMARY KEY AUTOINCREMENT,"
        " session_id TEXT NOT NULL, role TEXT NOT NULL, content TEXT NOT NULL,"
        " user_id TEXT, created_at TEXT NOT NULL,"
        " collected INTEGER NOT NULL DEFAULT 0)"
    ),
    (
        "CREATE TABLE summaries(session_id TEXT PRIMARY KEY, title TEXT NOT NULL,"
        " snippet TEXT NOT NULL, created_at TEXT NOT NULL)"
    ),
)


def test_a_version_1_file_is_migrated_and_redacted(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    with sqlite3.connect(db_path) as db:
        for statement in V1_SCHEMA:
            db.execute(statement)
        rows = [
            ("s", "user", "My wifi password is hunter2", "anna", "2025-03-01T08:00:00"),
            ("s", "assistant", "OK", "anna", "2025-03-01T08:00:01"),
            ("s", "user", "Later, ben here", "ben", "2025-03-01T08:00:02"),
        ]
        db.executemany(
            "INSERT INTO messages(session_id, role, content, user_id, created_at)"
            " VALUES (?, ?, ?, ?, ?)",
            rows,
        )
        db.execute(
            "INSERT INTO summaries VALUES"
            " ('s', 'My wifi password is hunter2', 'OK', '2025-03-01T08:00:01')"
        )
        db.execute("DELETE FROM messages WHERE content = 'OK'")  # left in free space
        db.execute("PRAGMA user_version=1")
    db.close()
    assert b"hunter2" in db_path.read_bytes()

    with ConversationLog(db_path) as log:
        assert [m.content for m in log.messages("s")] == [
            "My wifi password is [secret withheld]",
            "Later, ben here",
        ]
        summary = log.summary("s")
        assert summary is not None
        assert summary.title == "My wifi password is [secret withheld]"
        # A summary belongs to who started the conversation.
        assert summary.user_id == "anna"
        assert [s.session_id for s in log.speaker_summaries("anna", 3, among=5)] == [
            "s"
        ]
        assert b"hunter2" not in file_bytes(db_path)
    with sqlite3.connect(db_path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 3
    db.close()


def test_a_file_redacted_by_an_older_filter_is_redacted_again(db_path: Path) -> None:
    # What the filter of version 2 let through: a code said as words, a PIN there.
    said = "the code for the key safe is nine one eight two"
    with ConversationLog(db_path) as log:
        log.append("s", "user", "Hello")
        log.add_summary("s", "Hello", "Hi", user_id="anna")
    with sqlite3.connect(db_path) as db:
        db.execute("UPDATE messages SET content = ?", (said,))
        db.execute("UPDATE summaries SET title = ?", (said,))
        db.execute("PRAGMA user_version=2")
    db.close()
    assert b"nine one eight two" in file_bytes(db_path)

    with ConversationLog(db_path) as log:
        (message,) = log.messages("s")
        assert message.content == "the code for the key safe is [secret withheld]"
        summary = log.summary("s")
        assert summary is not None
        assert summary.title == "the code for the key safe is [secret withheld]"
        assert b"nine one eight two" not in file_bytes(db_path)
    with sqlite3.connect(db_path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 3
    db.close()
