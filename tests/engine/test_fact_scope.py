"""Whose a learnt fact is: a known speaker's facts about the home are the household's."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from custom_components.assist_memory.engine import InvalidMemoryError
from custom_components.assist_memory.engine.conversation.conversation_log import (
    ConversationLog,
)
from custom_components.assist_memory.engine.conversation.profile import UserProfile
from custom_components.assist_memory.engine.conversation.turn_settings import (
    LearnSettings,
)
from custom_components.assist_memory.engine.conversation.turns import (
    ExtractionBatch,
    TurnMemory,
)
from custom_components.assist_memory.engine.conversation.working import (
    WorkingMemoryManager,
)
from custom_components.assist_memory.engine.http.turn_wire import fact_from_json
from custom_components.assist_memory.engine.language.fact_scope import (
    for_the_household,
    placed,
    whose,
)
from custom_components.assist_memory.engine.language.facts import Fact
from custom_components.assist_memory.engine.language.llm_facts import (
    FACTS_SCHEMA,
    extraction_instructions,
    parse_llm_facts,
)
from custom_components.assist_memory.engine.language.rule_extraction import (
    RuleBasedExtractor,
)
from custom_components.assist_memory.engine.memory.memory_engine import MemoryEngine
from custom_components.assist_memory.engine.storage.settings import StoreSettings

ANNA = "0123456789abcdef0123456789abcdef"


def ruled(sentence: str) -> list[tuple[str, str]]:
    """What the rules learn from a sentence, placed: (content, whose)."""
    kept = [placed(f) for f in RuleBasedExtractor().extract(sentence)]
    return [(f.content, whose(f)) for f in kept]


@pytest.mark.parametrize(
    ("sentence", "learnt"),
    [
        ("Our fridge is from 2019", "The household's fridge is from 2019"),
        ("We keep the torch under the sink", "The household keeps the torch under"),
        ("The recycling goes out on Tuesdays", "The recycling goes out on Tuesdays"),
        ("The stopcock is under the kitchen sink", "The stopcock is under the kitchen"),
        ("Mia is scared of spiders", "Mia is scared of spiders"),
        ("我们家的冰箱是去年买的", "用户家的冰箱是去年买的"),
        ("家裡的貓叫小花", "的貓叫小花"),
    ],
)
def test_what_is_about_the_home_is_the_households(sentence: str, learnt: str) -> None:
    ((content, owner),) = ruled(sentence)
    assert learnt in content
    assert owner == "household"


@pytest.mark.parametrize(
    "sentence",
    [
        "I'm allergic to penicillin",
        "My daughter Lily loves dinosaurs",
        "I keep my glasses on the nightstand",
        "My bike is in the shed",
        "I walk the dog every morning",
        "我对青霉素过敏",
        "我的眼镜放在床头柜上",
    ],
)
def test_what_is_about_the_speaker_stays_theirs(sentence: str) -> None:
    ((_, owner),) = ruled(sentence)
    assert owner == "speaker"


def test_a_fact_that_says_nobodys_and_not_the_homes_stays_the_speakers() -> None:
    assert whose(Fact("The meeting was moved to four")) == "speaker"
    assert whose(Fact("Monday is a holiday", "event")) == "speaker"
    assert whose(Fact("Tea is at four", "routine")) == "speaker"  # not a name
    assert whose(Fact("Mum loves gardening", "person")) == "speaker"  # kin: theirs
    assert whose(Fact("Emma is afraid of the dark", "person")) == "household"


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        (
            "The user put the torch in the top drawer",
            "The torch was put in the top drawer",
        ),
        (
            "The user keeps the scissors behind the bread bin",
            "The scissors are kept behind the bread bin",
        ),
        (
            "The user moved the spare key to the shed",
            "The spare key was moved to the shed",
        ),
        ("用户把充电宝放在书房的抽屉里", "充电宝放在书房的抽屉里"),
        ("用戶將雨傘放在門口", "雨傘放在門口"),
    ],
)
def test_a_thing_of_the_home_put_away_is_kept_without_the_speaker(
    said: str, kept: str
) -> None:
    fact = Fact(said, "fact", "thing_location")
    assert whose(fact) == "household"
    assert placed(fact) == Fact(kept, "fact", "thing_location", whose="household")


@pytest.mark.parametrize(
    "said",
    [
        "The user put their glasses on the nightstand",
        "The user put the kids to bed at eight",
        "用户把自己的护照放在抽屉里",
    ],
)
def test_the_speakers_own_things_and_other_doings_stay_theirs(said: str) -> None:
    assert whose(Fact(said)) == "speaker"
    assert for_the_household(Fact(said)).content == said


def test_an_llm_says_whose_a_fact_is_and_the_engine_checks_it() -> None:
    facts = parse_llm_facts(
        {
            "facts": [
                {"content": "The wifi is slow upstairs", "category": "fact"},
                {
                    "content": "Dinner is at seven",
                    "category": "routine",
                    "scope": "household",
                },
                {
                    "content": "The dog is walked at six",
                    "category": "routine",
                    "scope": "speaker",
                },
                {
                    "content": "The user's mother visits on Sundays",
                    "category": "routine",
                    "scope": "household",
                },
                {"content": "Tea is at four", "category": "routine", "scope": "nobody"},
            ]
        }
    )
    assert [f.whose for f in facts] == [None, "household", "speaker", "household", None]
    assert [whose(f) for f in facts] == [
        "household",  # the rules: the wifi is the home's
        "household",  # the LLM's word
        "speaker",  # the LLM's word, though about the home: private wins
        "speaker",  # "household", but about the user: it stays theirs
        "speaker",  # an unknown scope is left to the rules
    ]
    assert placed(facts[3]).whose == "speaker"
    item = FACTS_SCHEMA["properties"]["facts"]["items"]
    assert item["properties"]["scope"]["enum"] == ["household", "speaker"]
    assert '"scope": "speaker"' in extraction_instructions(
        datetime(2026, 11, 28, tzinfo=UTC)
    )


def test_whose_is_checked_and_travels_as_json() -> None:
    with pytest.raises(ValueError, match="whose"):
        Fact("The bins go out on Monday", whose="everyone")  # type: ignore[arg-type]
    fact = Fact("The bins go out on Monday", "routine", whose="household")
    assert fact.to_dict()["whose"] == "household"
    assert "whose" not in Fact("The bins go out on Monday").to_dict()
    assert fact_from_json(fact.to_dict()) == fact
    with pytest.raises(InvalidMemoryError):
        fact_from_json({"content": "The bins go out on Monday", "whose": "everyone"})


@pytest.fixture
def turns(tmp_path: Path) -> Iterator[TurnMemory]:
    engine = MemoryEngine(tmp_path / "memories.json", StoreSettings(max_items=0))
    engine.init()
    log = ConversationLog(tmp_path / "conversations.db")
    log.open()
    try:
        yield TurnMemory(engine, log, WorkingMemoryManager(), UserProfile(tmp_path))
    finally:
        log.close()
        engine.close()


def learn(
    turns: TurnMemory, facts: list[Fact], scope: str, *, unknown: bool = False
) -> dict[str, str]:
    batch = ExtractionBatch("s1", (), ("…",), "user: …")
    turns.learn(
        batch, facts, scope=scope, settings=LearnSettings(), speaker_unknown=unknown
    )
    return {m.content: m.scope for m in turns.engine.store.get_all()}


def test_a_known_speakers_facts_go_where_they_belong(turns: TurnMemory) -> None:
    stored = learn(
        turns,
        [
            Fact("The household's wifi router is in the study", key="router_location"),
            Fact("The user is allergic to hazelnuts", key="user_allergy_hazelnut"),
            Fact("The user moved the spare key to the shed"),
        ],
        ANNA,
    )
    assert stored == {
        "The household's wifi router is in the study": "household",
        "The user is allergic to hazelnuts": ANNA,
        "The spare key was moved to the shed": "household",
    }
    # Said again: the household's memory is refreshed, not added twice.
    learn(turns, [Fact("The household's wifi router is in the study")], ANNA)
    assert len(turns.engine.store.get_all()) == 3


def test_an_unknown_speaker_keeps_the_households_and_holds_what_an_llm_calls_theirs(
    turns: TurnMemory,
) -> None:
    stored = learn(
        turns,
        [
            Fact("The user put the torch in the top drawer"),
            Fact("Dinner is at seven", "routine", whose="speaker"),
        ],
        "household",
        unknown=True,
    )
    assert stored == {"The torch was put in the top drawer": "household"}
    assert [f.content for f in turns.held.all()] == ["Dinner is at seven"]


def test_a_full_memory_holds_each_fact_for_whom_it_was_meant(tmp_path: Path) -> None:
    engine = MemoryEngine(tmp_path / "memories.json", StoreSettings(max_items=1))
    engine.init()
    log = ConversationLog(tmp_path / "conversations.db")
    log.open()
    try:
        turns = TurnMemory(engine, log, WorkingMemoryManager(), UserProfile(tmp_path))
        learn(turns, [Fact("The user is allergic to hazelnuts")], ANNA)
        learn(turns, [Fact("The boiler is in the garage", key="boiler_location")], ANNA)
        assert [(f.content, f.scope) for f in turns.held.all()] == [
            ("The boiler is in the garage", "household")
        ]
    finally:
        log.close()
        engine.close()
