"""Deciding from meaning: the trained heads, learning with them, and search's confidence.

The heads run over the packaged local model's real vectors (loaded once per process).
The sentences here are not from the labelled corpus the heads were trained on; each
case is one a wrong head or a broken piece of wiring gets wrong.
"""

from __future__ import annotations

from collections.abc import Iterator
import dataclasses
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from custom_components.assist_memory.engine.language import extractors, worth_keeping
from custom_components.assist_memory.engine.language.learned_extraction import (
    LearnedExtractor,
    pieces,
    without_secrets,
)
from custom_components.assist_memory.engine.language.rule_extraction import (
    RuleBasedExtractor,
)
from custom_components.assist_memory.engine.language.worth_keeping import (
    CATEGORY_OF_KIND,
    Understanding,
    understanding,
)
from custom_components.assist_memory.engine.memory.memory_engine import MemoryEngine
from custom_components.assist_memory.engine.model.centres import CENTRES
from custom_components.assist_memory.engine.model.heads import (
    HeadFileError,
    features,
    head_from_json,
    load_head,
    trained_head,
)
from custom_components.assist_memory.engine.model.local_model import MODEL_NAME
from custom_components.assist_memory.engine.search.nearness import Nearness
from custom_components.assist_memory.engine.search.relevance import Evidence, relevance
from tests.support.embedded_engine import embedded_engine


@pytest.fixture(scope="module")
def understood() -> Understanding:
    found = understanding()
    assert found is not None, "the local model and its heads run here"
    return found


@pytest.fixture(scope="module")
def learned(understood: Understanding) -> LearnedExtractor:
    return LearnedExtractor(understood)


def _head_json(**changes: Any) -> dict[str, Any]:
    raw: dict[str, Any] = {
        "model": "m",
        "labels": ["no", "yes"],
        "weights": [[0.0, 0.0], [1.0, -1.0]],
        "bias": [0.0, 0.0],
        "threshold": 0.6,
        "thresholds": {"answer": 0.7},
    }
    raw.update(changes)
    return raw


# -- heads ------------------------------------------------------------------------


def test_a_head_reads_its_features_and_says_its_decision() -> None:
    head = head_from_json("t", _head_json())
    assert head.inputs == 2
    said, chance = head.says(np.asarray([3.0, 0.0], dtype=np.float32))
    assert said
    assert chance == pytest.approx(1 / (1 + np.exp(-3)))
    assert head.says(np.asarray([0.0, 3.0], dtype=np.float32))[0] is False
    assert head.best(np.asarray([0.0, 3.0], dtype=np.float32))[0] == "no"
    assert head.at("answer", 0.1) == 0.7
    assert head.at("unknown", 0.1) == 0.1
    with pytest.raises(ValueError, match="3 features, the head needs 2"):
        head.probabilities(np.zeros(3, dtype=np.float32))


def test_a_hidden_layer_is_read_first() -> None:
    head = head_from_json(
        "t",
        _head_json(hidden={"weights": [[1.0], [-1.0]], "bias": [0.0, 0.0]}),
    )
    assert head.inputs == 1
    # relu(x), relu(-x): a negative input only reaches the second unit.
    assert head.says(np.asarray([2.0], dtype=np.float32))[0] is True
    assert head.says(np.asarray([-2.0], dtype=np.float32))[0] is False


@pytest.mark.parametrize(
    "changes",
    [
        {"labels": None},
        {"weights": [[1.0, 2.0]]},
        {"bias": [0.0]},
        {"hidden": {"weights": [[1.0, 2.0]], "bias": [0.0]}},
        {"model": None, "weights": "x"},
    ],
)
def test_a_broken_weights_file_is_a_clear_error(changes: dict[str, Any]) -> None:
    raw = _head_json(**changes)
    if raw.get("labels") is None:
        del raw["labels"]
    with pytest.raises(HeadFileError, match=r"^t: "):
        head_from_json("t", raw)


def test_a_head_serves_only_the_model_it_was_trained_on() -> None:
    assert load_head("keep", MODEL_NAME) is not None
    assert trained_head("keep", f"{MODEL_NAME}@9.9.9") is load_head("keep", MODEL_NAME)
    assert trained_head("keep", "nomic-embed-text@1") is None
    assert load_head("no-such-head", MODEL_NAME) is None


def test_the_shipped_heads_are_well_formed() -> None:
    weights = Path(worth_keeping.__file__).parents[1] / "model" / "weights"
    for path in sorted(weights.glob("*.json")):
        if path.stem == CENTRES:  # average vectors, not a head (test_centres.py)
            continue
        head = head_from_json(path.stem, json.loads(path.read_text(encoding="utf-8")))
        assert head.model == MODEL_NAME
    keep = load_head("keep", MODEL_NAME)
    kind = load_head("kind", MODEL_NAME)
    assert keep is not None
    assert kind is not None
    assert keep.extra == worth_keeping.KEEP_EXTRA
    assert set(kind.labels) == set(CATEGORY_OF_KIND)


def test_features_follow_the_vector() -> None:
    vector = np.ones(2, dtype=np.float32)
    assert features(vector) is vector
    assert features(vector, (0.5,)).tolist() == [1.0, 1.0, 0.5]


# -- worth keeping ----------------------------------------------------------------


def test_lasting_things_are_worth_keeping_and_passing_ones_not(
    understood: Understanding,
) -> None:
    kept = [
        "We had the gutters cleared out in March.",
        "My sister Ruth can't eat gluten.",
        "我女儿每周三下午上钢琴课。",
    ]
    passing = [
        "Switch off the hallway lamp.",
        "I'm a bit cold right now.",
        "Is it going to rain later?",
        "现在几点了",
    ]
    chances = understood.worth_keeping([*kept, *passing])
    assert min(chances[: len(kept)]) > max(chances[len(kept) :])


def test_a_kept_sentence_has_a_category(understood: Understanding) -> None:
    assert understood.category("We had the gutters cleared out in March.") in set(
        CATEGORY_OF_KIND.values()
    )


def test_without_the_model_learning_keeps_to_its_rules(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(extractors, "understanding", lambda: None)
    assert isinstance(extractors.extractor_here(), RuleBasedExtractor)
    monkeypatch.undo()
    assert isinstance(extractors.extractor_here(), LearnedExtractor)


# -- learned extraction -----------------------------------------------------------


def test_a_sentence_is_cut_where_a_new_thought_may_begin() -> None:
    assert [p.text for p in pieces("We got a puppy, and her name is Biscuit")] == [
        "We got a puppy",
        "her name is Biscuit",
    ]
    found = pieces("我们家的狗叫豆豆，然后它三岁了")
    assert [p.starts_anew for p in found] == [True, True]
    assert [p.text for p in pieces("no break here")] == ["no break here"]
    # A space a recogniser writes between Chinese words is a pause; one between a
    # number and what it counts is not.
    assert [p.text for p in pieces("唔好意思 飲宴係 19 號 唔係 20 號")] == [
        "唔好意思",
        "飲宴係 19 號",
        "唔係 20 號",
    ]
    assert [p.text for p in pieces("密码改了 1234 我明天再说")] == [
        "密码改了",
        "1234",
        "我明天再说",
    ]


def test_the_harmless_half_of_a_secret_stays() -> None:
    kept = [
        p.text
        for p in without_secrets(
            "We bank with Halifax, the account number is 48392011, renewal is in June"
        )
    ]
    assert kept == ["We bank with Halifax", "renewal is in June"]
    assert without_secrets("My PIN is 4471") == []


def test_a_secret_named_in_another_piece_is_left_out_too() -> None:
    # The value's piece alone names no secret: the sentence does.
    said = "the garage keypad, it was 5151 but then Dan changed it to 7272 on Friday"
    kept = [p.text for p in without_secrets(said)]
    assert kept == ["the garage keypad"]
    said = "门禁卡丢了，新的门禁密码是 8 8 1 9 ，周五生效"
    kept = [p.text for p in without_secrets(said)]
    assert (kept[0], kept[-1]) == ("门禁卡丢了", "周五生效")
    assert not any(digit in piece for piece in kept for digit in "0123456789")


def test_a_secret_the_filter_does_not_know_is_not_learnt_by_meaning(
    understood: Understanding,
) -> None:
    said = "Grandad's bank login number is 55102938 and he banks with Lloyds"
    # The filter's names do not reach it: it keeps every piece.
    assert [p.text for p in without_secrets(said)] == [
        "Grandad's bank login number is 55102938",
        "he banks with Lloyds",
    ]
    assert understood.secret is not None
    assert understood.holding_secrets(
        ["Grandad's bank login number is 55102938", "The bins go out on Thursday"]
    ) == [True, False]
    learnt = [
        f.content for f in LearnedExtractor(understood).extract(said, language="en")
    ]
    assert learnt == ["He banks with Lloyds"]
    # Without the secret head (its weights missing) the filter alone decides.
    alone = LearnedExtractor(dataclasses.replace(understood, secret=None))
    assert any(
        "55102938" in fact.content for fact in alone.extract(said, language="en")
    )
    # Everyday facts with numbers stay.
    kept = LearnedExtractor(understood).extract(
        "Our flight is BA 2490 on the 14th of March", language="en"
    )
    assert any("BA 2490" in fact.content for fact in kept)


def test_what_people_say_in_passing_is_kept_in_their_words(
    learned: LearnedExtractor,
) -> None:
    (fact,) = learned.extract("Honestly, I really can't stand olives.")
    assert fact.content == "The user really can't stand olives"
    assert fact.source == "user_stated"
    (changed,) = learned.extract("My favourite colour is purple these days.")
    assert changed.key == "user_favorite_color"


def test_questions_commands_and_secrets_are_not_kept(
    learned: LearnedExtractor,
) -> None:
    assert learned.extract("Where did I leave my glasses?") == []
    assert learned.extract("Turn the porch light off please.") == []
    facts = learned.extract(
        "My bike lock code is nine one eight two, and I cycle to work on Fridays."
    )
    assert [f.content for f in facts] == ["The user cycles to work on Fridays"]


def test_a_correction_keeps_the_value_it_corrects_to(
    learned: LearnedExtractor,
) -> None:
    (fact,) = learned.extract("Sorry, the dentist is on the 14th, not the 13th.")
    assert "14th" in fact.content
    assert "13th" not in fact.content


# -- search's confidence ------------------------------------------------------------


def test_without_a_head_the_older_fusion_decides() -> None:
    evidence = {"a": Evidence(1.0, 1.0), "b": Evidence(0.2, 0.5)}
    nearest = {"a": Nearness(0.8, 2.0), "b": Nearness(0.7, 1.0)}
    keyword, confidence = relevance(evidence, None, nearest)
    assert confidence is None
    assert keyword["a"] > keyword["b"]
    head = load_head("relevance", MODEL_NAME)
    keyword, confidence = relevance(evidence, head, {})
    assert confidence is None


def test_confidence_orders_as_the_evidence_does() -> None:
    head = load_head("relevance", MODEL_NAME)
    assert head is not None
    evidence = {
        "answer": Evidence(1.0, 1.0, Nearness(0.9, 3.0)),
        "other": Evidence(0.1, 0.2, Nearness(0.75, 0.2)),
    }
    keyword, confidence = relevance(evidence, head, {"answer": Nearness(0.9, 3.0)})
    assert confidence is not None
    assert confidence["answer"] > 0.5 > confidence["other"]
    assert keyword["answer"] > keyword["other"]  # the fusion's order


@pytest.fixture(scope="module")
def household(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MemoryEngine]:
    path = tmp_path_factory.mktemp("household") / "memory.jsonl"
    with embedded_engine(
        path,
        (
            "The stopcock is under the kitchen sink, behind the bleach",
            "Priya is allergic to shellfish",
            "The bins go out on Tuesday night",
            "Dr Okafor is the dog's vet, on Mill Lane",
        ),
    ) as engine:
        yield engine


def test_results_say_how_sure_the_engine_is(household: MemoryEngine) -> None:
    found = household.search("Who looks after the dog when it's ill?", limit=3)
    assert found[0].memory.content.startswith("Dr Okafor")
    assert found[0].answer_confidence is not None
    assert all(
        r.answer_confidence is not None
        and found[0].answer_confidence >= r.answer_confidence
        for r in found
    )
    unanswerable = household.search("What's the name of our piano teacher?", limit=3)
    assert all(
        r.answer_confidence is not None
        and r.answer_confidence < found[0].answer_confidence
        for r in unanswerable
    )
    assert found[0].to_dict()["answer_confidence"] == round(
        found[0].answer_confidence, 4
    )


def test_a_memory_without_the_value_asked_for_is_not_an_answer(
    tmp_path: Path,
) -> None:
    with embedded_engine(
        tmp_path / "memory.jsonl",
        (
            "Jordan walks the dog on Tuesdays and Thursdays at noon",
            "Jordan gets £15 for each walk",
            "The bins go out on Tuesday night",
        ),
    ) as engine:
        found = engine.search("How much do we pay Jordan?", limit=3)
        confidence = {r.memory.content: r.answer_confidence for r in found}
        assert confidence["Jordan walks the dog on Tuesdays and Thursdays at noon"] == 0
        assert (confidence["Jordan gets £15 for each walk"] or 0) > 0
        # The order stays the search's: only the confidence knows.
        walks = engine.search("When does Jordan walk the dog?", limit=3)
        assert (walks[0].answer_confidence or 0) > 0
