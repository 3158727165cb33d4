"""Secrets said in passing are kept by no path of the engine, and the harmless rest is.

Each path that keeps or repeats a person's words is checked with the same sentences,
said as people say them (numbers as words, digits in groups, a PIN after "there"):
the conversation log's messages, the conversation's title and snippet, working
memory, the memory block of a later turn (its recent conversations and its rolling
window), what learning keeps (memories, where they came from, facts held for
Review), the export, the log records, and every file of the data folder as bytes.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
import logging
from pathlib import Path
import re

import pytest

from custom_components.assist_memory.engine.conversation.conversation_log import (
    ConversationLog,
)
from custom_components.assist_memory.engine.conversation.held_facts import (
    HeldFacts,
    hold_facts,
)
from custom_components.assist_memory.engine.conversation.profile import UserProfile
from custom_components.assist_memory.engine.conversation.turn_settings import (
    LearnSettings,
    TurnSettings,
)
from custom_components.assist_memory.engine.conversation.turns import TurnMemory
from custom_components.assist_memory.engine.conversation.working import (
    WorkingMemoryManager,
)
from custom_components.assist_memory.engine.language.facts import Fact
from custom_components.assist_memory.engine.language.secrets_filter import (
    REDACTED,
    redact,
)
from custom_components.assist_memory.engine.memory.memory_engine import MemoryEngine
from custom_components.assist_memory.engine.storage.settings import StoreSettings
from tests.support.data_folder import files_containing

# (what is said, the secrets in it); six digits or more, or words: a shorter number may
# be in a timestamp's microseconds by chance.
SAID: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "My gym is PureMove on King Street, and my locker PIN there is 221847.",
        ("221847",),
    ),
    (
        (
            "We moved the broadband to Zylo last month, and our account password"
            " with them is bluebell."
        ),
        ("bluebell",),
    ),
    ("My passport number is 533918274.", ("533918274",)),
    ("the code for the key safe is nine one eight two", ("nine one eight two",)),
    ("The verification code they just texted me is 771 204.", ("771 204",)),
    ("门禁密码幺洞洞拐 记一下", ("幺洞洞拐",)),
    ("保险柜密码 三八 二九 零六", ("三八 二九 零六",)),
)
EAGER = LearnSettings(min_interval=timedelta(0), min_messages=1)


def forms(secret: str) -> set[str]:
    """A secret as it could be written down: as said, and its digits without spaces."""
    return {secret, re.sub(r"(?<=\d)[\s-]+(?=\d)", "", secret)}


SECRETS = sorted(
    {form for _, values in SAID for value in values for form in forms(value)}
)


def leaks(text: str) -> list[str]:
    """The secrets found in a text, in any case."""
    folded = text.casefold()
    return [secret for secret in SECRETS if secret.casefold() in folded]


@pytest.fixture
def turns(store_path: Path) -> Iterator[TurnMemory]:
    engine = MemoryEngine(store_path, StoreSettings(max_items=0))
    engine.init()
    log = ConversationLog(store_path.parent / "conversations.db")
    log.open()
    try:
        yield TurnMemory(
            engine, log, WorkingMemoryManager(), UserProfile(store_path.parent)
        )
    finally:
        log.close()
        engine.close()


def say_each(turns: TurnMemory, user_id: str | None) -> None:
    """Each sentence as the first turn of a conversation of its own."""
    for index, (text, _) in enumerate(SAID):
        session = f"said-{index}"
        turns.begin(session_id=session, text=text, user_id=user_id)
        turns.end(session_id=session, user_text=text, reply="OK.", user_id=user_id)


def test_the_sentences_hold_what_they_are_said_to_hold() -> None:
    # The check itself can fail: each sentence holds its secret before redaction.
    assert all(any(leaks(text)) for text, _ in SAID)


def test_messages_titles_and_working_memory_keep_no_secret(turns: TurnMemory) -> None:
    say_each(turns, "anna")

    for index, (text, _) in enumerate(SAID):
        session = f"said-{index}"
        messages = turns.log.messages(session)
        assert [m.role for m in messages] == ["user", "assistant"]
        assert leaks(messages[0].content) == [], text
        summary = turns.log.summary(session)
        assert summary is not None
        assert leaks(f"{summary.title} {summary.snippet}") == [], text
        working = turns.working.get(session)
        assert working is not None
        assert leaks(str(working.to_dict())) == [], text
    # The harmless half of a sentence stays in its title.
    first = turns.log.summary("said-0")
    assert first is not None
    assert first.title.startswith("My gym is PureMove on King Street")


def test_a_later_unrelated_turn_gets_no_secret(turns: TurnMemory) -> None:
    say_each(turns, "anna")
    settings = TurnSettings(session_summary_limit=len(SAID) + 1)

    later = turns.begin(
        session_id="later", text="What's for dinner tonight?", user_id="anna",
        settings=settings,
    )  # fmt: skip
    # Its recent conversations are those sentences, withheld.
    assert later.summaries_used == len(SAID)
    assert "PureMove" in later.memory_block
    assert leaks(later.memory_block) == []
    assert leaks(later.prefixed_text) == []
    # The same conversation's rolling window, as after a restart of the host.
    again = turns.begin(session_id="said-4", text="And then?", user_id="anna")
    assert again.messages_used == 2
    assert leaks(again.memory_block) == []


def test_learning_keeps_the_harmless_half_and_no_secret(
    turns: TurnMemory, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    say_each(turns, "anna")
    for index in range(len(SAID)):
        batch = turns.extraction_batch(f"said-{index}", EAGER)
        assert batch is not None
        turns.learn(batch, turns.rule_facts(batch), scope="anna", settings=EAGER)

    memories = sorted(turns.engine.store.get_all(), key=lambda m: m.content)
    assert [m.content for m in memories][1:] == [
        "The user's gym is PureMove on King Street"
    ]
    # "last month", written out as the month it was.
    assert memories[0].content.startswith(
        "The household moved the broadband to Zylo in"
    )
    assert memories[1].metadata["said"] == (
        "My gym is PureMove on King Street, and my locker PIN there is"
        " [secret withheld]."
    )
    assert leaks(str(turns.engine.store.export())) == []
    assert leaks(caplog.text) == []


def test_facts_held_for_review_keep_no_secret(turns: TurnMemory) -> None:
    # Nobody known spoke: facts about the speaker wait in Review.
    say_each(turns, None)
    for index in range(len(SAID)):
        batch = turns.extraction_batch(f"said-{index}", EAGER)
        assert batch is not None
        turns.learn(
            batch,
            turns.rule_facts(batch),
            scope="household",
            settings=EAGER,
            speaker_unknown=True,
        )

    held = turns.held.all()
    assert [fact.content for fact in held] == [
        "The user's gym is PureMove on King Street"
    ]
    assert leaks(str([fact.as_dict() for fact in held])) == []


def test_no_file_of_the_data_folder_holds_a_secret(turns: TurnMemory) -> None:
    say_each(turns, "anna")
    say_each(turns, None)
    for index in range(len(SAID)):
        batch = turns.extraction_batch(f"said-{index}", EAGER)
        assert batch is not None
        turns.learn(batch, turns.rule_facts(batch), scope="anna", settings=EAGER)
    turns.expire_sessions()
    turns.log.close()
    turns.log.open()

    folder = turns.engine.store.path.parent
    assert files_containing(folder, "PureMove") != []
    assert files_containing(folder, *SECRETS) == []


def test_a_fact_with_a_secret_or_its_marker_is_never_held(tmp_path: Path) -> None:
    # What an LLM extractor proposes may quote the redacted message as it is.
    held = HeldFacts(tmp_path)
    facts = [
        Fact("The user's gym is PureMove on King Street"),
        Fact(f"The user's locker PIN there is {REDACTED}"),
        Fact("The key safe code is nine one eight two"),
    ]

    count = hold_facts(
        held, facts, reason="speaker_unknown", session_id="s", device_id=None
    )

    assert count == 1
    assert [fact.content for fact in held.all()] == [facts[0].content]


def test_a_secret_only_meaning_finds_is_kept_by_no_path(turns: TurnMemory) -> None:
    # The filter's names and shapes do not reach it; the secret head does.
    said = "Grandad's bank login number is 55102938 and he banks with Lloyds"
    assert redact(said) == said
    turns.begin(session_id="meaning", text=said, user_id="anna")
    turns.end(session_id="meaning", user_text=said, reply="OK.", user_id="anna")
    batch = turns.extraction_batch("meaning", EAGER)
    assert batch is not None
    turns.learn(batch, turns.rule_facts(batch), scope="anna", settings=EAGER)

    (message, _) = turns.log.messages("meaning")
    assert message.content == (
        "Grandad's bank login number is [secret withheld] and he banks with Lloyds"
    )
    summary = turns.log.summary("meaning")
    assert summary is not None
    assert "55102938" not in f"{summary.title} {summary.snippet}"
    assert summary.title.startswith("Grandad's bank login number is [secret withheld]")
    kept = [m.content for m in turns.engine.store.get_all()]
    assert kept == ["He banks with Lloyds"]
    assert "55102938" not in str(turns.engine.store.export())
    assert files_containing(turns.engine.store.path.parent, "55102938") == []
