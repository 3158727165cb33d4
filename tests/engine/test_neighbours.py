"""Nearest memories by meaning, read per writing system, and fused with the words.

Vectors here are built with a known cosine to the question ([1, 0, 0]): the first
coordinate is the cosine, the other two place the memory around it.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from custom_components.assist_memory.engine.model.centres import Centres
from custom_components.assist_memory.engine.search.fusion import (
    ACROSS_WORDS,
    MEANING_WHEN_NO_WORD,
    MEANING_WHEN_WORDS_MATCH,
    fused_keyword_scores,
)
from custom_components.assist_memory.engine.search.nearness import Nearness
from custom_components.assist_memory.engine.search.neighbours import (
    CJK,
    LETTERS,
    Neighbours,
    spoken_system,
    writing_systems,
)

QUESTION = [1.0, 0.0, 0.0]


def at(cosine: float, angle: float = 0.0) -> list[float]:
    """A unit vector with this cosine to QUESTION, turned by `angle` around it."""
    side = math.sqrt(1 - cosine**2)
    return [cosine, side * math.cos(angle), side * math.sin(angle)]


def spread(count: int, centre: float, width: float = 0.02) -> list[float]:
    """`count` cosines evenly spread around `centre`."""
    return [centre - width + 2 * width * n / (count - 1) for n in range(count)]


def test_writing_systems_of_texts() -> None:
    assert writing_systems("The spare key is under the pot") == LETTERS
    assert writing_systems("备用钥匙在花盆下面。") == CJK
    assert writing_systems("朵朵的 Lego 在床底下。") == CJK | LETTERS
    assert writing_systems("PM2.5 超过 100 就开净化器") == CJK | LETTERS
    assert writing_systems("12:30") == LETTERS  # no letters at all: not Chinese
    assert spoken_system("Where is the key?") == LETTERS
    assert spoken_system("AQI 爆表怎么办？") == CJK


def test_the_nearest_of_the_other_language_comes_first() -> None:
    """Below every English memory by cosine, far above the other Chinese ones."""
    neighbours = Neighbours()
    for n, cosine in enumerate(spread(300, 0.80)):
        neighbours.put(f"en{n}", at(cosine, 0.1 * (n % 3)), LETTERS)
    for n, cosine in enumerate(spread(300, 0.70)):
        neighbours.put(f"zh{n}", at(cosine, n), CJK)
    neighbours.put("answer", at(0.76, math.pi), CJK)

    found = neighbours.nearest(QUESTION, 5, LETTERS)

    assert next(iter(found)) == "answer"
    answer = found["answer"]
    assert answer.cosine == pytest.approx(0.76)
    assert answer.across
    nearest_english = neighbours.nearest(QUESTION, 700, LETTERS)["en299"]
    assert nearest_english.cosine > answer.cosine
    assert not nearest_english.across
    # Best first, by standing.
    standings = [near.standing for near in found.values()]
    assert standings == sorted(standings, reverse=True)


def test_a_few_memories_are_read_with_their_background_sentences() -> None:
    """One Chinese memory says nothing of where Chinese memories sit: the background
    sentences do (`background.py`)."""
    texts = [f"背景句子{n}" for n in range(40)]
    background = [at(cosine, n) for n, cosine in enumerate(spread(40, 0.60))]
    neighbours = Neighbours()
    for n, cosine in enumerate(spread(300, 0.80)):
        neighbours.put(f"en{n}", at(cosine, n), LETTERS)
    neighbours.put("alone", at(0.75, 1.0), CJK)
    assert neighbours.nearest(QUESTION, 301, LETTERS)["alone"].standing == 0.0

    neighbours.set_background(background, texts)

    assert next(iter(neighbours.nearest(QUESTION, 301, LETTERS))) == "alone"
    neighbours.set_background([[0.0, 1.0]], ["another model's size"])
    assert neighbours.nearest(QUESTION, 301, LETTERS)["alone"].standing == 0.0


def test_one_language_is_ranked_as_by_cosine() -> None:
    neighbours = Neighbours()
    cosines = spread(50, 0.80, width=0.1)
    for n, cosine in enumerate(cosines):
        neighbours.put(f"en{n}", at(cosine, n), LETTERS)

    found = neighbours.nearest(QUESTION, 10, CJK)  # even asked in Chinese

    assert list(found) == [f"en{n}" for n in range(49, 39, -1)]
    assert all(near.across for near in found.values())


def test_a_mixed_sentence_stands_where_it_stands_least() -> None:
    """Near English questions by its English words, it is not a Chinese outlier."""
    neighbours = Neighbours()
    for n, cosine in enumerate(spread(300, 0.80)):
        neighbours.put(f"en{n}", at(cosine, n), LETTERS)
    for n, cosine in enumerate(spread(300, 0.70)):
        neighbours.put(f"zh{n}", at(cosine, n), CJK)
    neighbours.put("mixed", at(0.78, 1.0), CJK | LETTERS)
    neighbours.put("chinese", at(0.78, 2.0), CJK)

    found = neighbours.nearest(QUESTION, 700, LETTERS)

    assert found["mixed"].standing < 0 < found["chinese"].standing
    assert not found["mixed"].across  # it shares the question's writing system


def _centres(questions: list[list[float]], memories: list[list[float]]) -> Centres:
    return Centres(
        "model",
        np.asarray(questions, np.float32),
        np.asarray(memories, np.float32),
    )


def test_the_average_question_is_taken_off() -> None:
    """A memory near every question (the hub) no longer outranks the answer."""
    # Of length 1, and the average English question is its second coordinate.
    question = [2 / math.sqrt(5), 1 / math.sqrt(5), 0.0]
    centres = _centres([[0.0, 1 / math.sqrt(5), 0.0], [0, 0, 0.5]], [[0.0] * 3] * 2)
    memories = {"hub": [0.6, 0.8, 0.0], "answer": [1.0, 0.0, 0.3], "other": [0, 0, 1]}
    plain, centred = Neighbours(), Neighbours(centres)
    for memory_id, vector in memories.items():
        plain.put(memory_id, vector, LETTERS)
        centred.put(memory_id, vector, LETTERS)

    assert next(iter(plain.nearest(question, 3, LETTERS))) == "hub"
    found = centred.nearest(question, 3, LETTERS)
    assert next(iter(found)) == "answer"
    assert found["answer"].cosine == pytest.approx(1 / math.hypot(1.0, 0.3))
    # A Chinese question takes off the Chinese average: the hub stays first.
    assert next(iter(centred.nearest(question, 3, CJK))) == "hub"


def test_a_writing_systems_average_memory_is_taken_off() -> None:
    """Every Chinese memory leans one way: what is left decides, across languages."""
    centres = _centres([[0.0] * 3, [0.0] * 3], [[0.0] * 3, [0.0, 0.0, 0.9]])
    neighbours = Neighbours(centres)
    neighbours.put("english", [0.8, 0.6, 0.0], LETTERS)
    neighbours.put("chinese", [0.3, 0.0, math.sqrt(1 - 0.3**2)], CJK)
    neighbours.set_background([[0.1, 0.0, 1.0], [0.0, 1.0, 0.0]], ["背景", "ground"])

    found = neighbours.nearest([1.0, 0.0, 0.0], 2, LETTERS)

    assert found["chinese"].cosine > found["english"].cosine
    left = math.sqrt(1 - 0.3**2) - 0.9
    assert found["chinese"].cosine == pytest.approx(0.3 / math.hypot(0.3, left))
    # Another model's size is taken as it comes.
    neighbours.put("other size", [1.0, 0.0], LETTERS)
    assert neighbours.nearest([1.0, 0.0], 1, LETTERS)["other size"].cosine == 1.0


def test_rows_are_removed_replaced_and_of_one_size() -> None:
    neighbours = Neighbours()
    for n in range(100):  # past the first growth of the matrix
        neighbours.put(f"m{n}", [1.0, n / 100], LETTERS if n % 2 else CJK)
    neighbours.remove(["m3", "missing", "m99"])
    neighbours.put("m5", [0.0, 1.0], LETTERS)  # replaced in place
    found = neighbours.nearest([0.0, 1.0], 200, LETTERS)
    assert len(found) == 98
    assert "m3" not in found
    assert "m99" not in found
    assert found["m5"].cosine == pytest.approx(1.0)
    assert next(iter(found)) == "m5"
    assert neighbours.nearest([1.0, 0.0, 0.0], 5, LETTERS) == {}  # another size
    neighbours.put("new", [1.0, 0.0, 0.0], CJK)  # another model's size: starts again
    assert list(neighbours.nearest([1.0, 0.0, 0.0], 5, LETTERS)) == ["new"]
    assert Neighbours().nearest([1.0], 5, LETTERS) == {}


def test_a_question_after_a_change_reads_the_rows_as_they_are() -> None:
    """What the rows' writing systems give a question is kept until a row changes."""
    neighbours = Neighbours()
    for n, cosine in enumerate(spread(100, 0.80)):
        neighbours.put(f"en{n}", at(cosine, n), LETTERS)
    neighbours.put("zh", at(0.76, 1.0), CJK)
    assert neighbours.nearest(QUESTION, 101, LETTERS)["zh"].across

    neighbours.put("zh", at(0.76, 1.0), LETTERS)  # the same row, now in letters
    assert not neighbours.nearest(QUESTION, 101, LETTERS)["zh"].across
    neighbours.remove([f"en{n}" for n in range(100)])
    assert neighbours.nearest(QUESTION, 1, CJK)["zh"].standing == 0.0  # alone


# -- fusion ---------------------------------------------------------------------


def near(standing: float, *, across: bool = False) -> Nearness:
    return Nearness(cosine=0.8, standing=standing, across=across)


def test_fusion_trusts_words_that_cover_the_question() -> None:
    scores = fused_keyword_scores(
        {"words": 1.0, "meaning": 0.0}, {"words": near(2.0), "meaning": near(4.0)}
    )
    assert scores["words"] == pytest.approx(1 - MEANING_WHEN_WORDS_MATCH)
    assert scores["meaning"] == pytest.approx(MEANING_WHEN_WORDS_MATCH)
    assert scores["words"] > scores["meaning"]


def test_fusion_lets_meaning_decide_when_no_word_is_shared() -> None:
    scores = fused_keyword_scores(
        {"a": 0.0, "b": 0.0, "c": 0.0}, {"a": near(1.0), "b": near(3.0), "c": near(2.0)}
    )
    assert scores == pytest.approx(
        {"a": 0.0, "b": MEANING_WHEN_NO_WORD, "c": MEANING_WHEN_NO_WORD / 2}
    )


def test_fusion_gives_another_language_most_of_the_average_word_match() -> None:
    """It could not share a word: its words are unknown, not absent."""
    lexical = {"partial": 0.6, "weak": 0.2, "other": 0.0, "unmatched": 0.0}
    nearest = {
        "partial": near(1.0),
        "weak": near(2.0),
        "other": near(3.0, across=True),
        "unmatched": near(3.0),
    }
    scores = fused_keyword_scores(lexical, nearest)
    weight = _weight(best_word_match=0.6)
    # Both stand highest (meaning 1); nine tenths of the question's language's
    # average word match (partial, weak, unmatched) is given to the other only.
    assert scores["unmatched"] == pytest.approx(weight)
    average = ACROSS_WORDS * 0.8 / 3
    assert scores["other"] == pytest.approx(weight + (1 - weight) * average)


def _weight(best_word_match: float) -> float:
    missed = min(max(2 * (1 - best_word_match), 0.0), 1.0)
    return (
        MEANING_WHEN_WORDS_MATCH
        + (MEANING_WHEN_NO_WORD - MEANING_WHEN_WORDS_MATCH) * missed
    )


def test_fusion_without_vectors_is_the_word_match() -> None:
    assert fused_keyword_scores({"a": 0.4}, {}) == {"a": 0.4}
    # One vector candidate: no spread to rescale, meaning adds nothing.
    assert fused_keyword_scores({"a": 0.0}, {"a": near(3.0)}) == {"a": 0.0}


def test_the_same_fact_in_two_languages_stands_out_above_the_background() -> None:
    """A translation stands far above the other language's background sentences,
    seen from either side; a memory merely on the same subject does not."""
    neighbours = Neighbours()
    background = [at(c, n) for n, c in enumerate(spread(40, 0.70, 0.05))]
    neighbours.set_background(
        background * 2, ["An everyday sentence"] * 40 + ["一句日常的话"] * 40
    )
    neighbours.put("key", QUESTION, LETTERS)
    neighbours.put("钥匙", at(0.995), CJK)  # the same fact, in Chinese
    neighbours.put("信箱", at(0.76), CJK)  # another fact on the subject
    neighbours.put("also key", at(0.99), LETTERS)  # the same language: not asked
    assert neighbours.same_fact("key", "钥匙")
    assert neighbours.same_fact("钥匙", "key")
    assert not neighbours.same_fact("key", "信箱")
    assert not neighbours.same_fact("key", "also key")
    assert not neighbours.same_fact("key", "gone")


def test_the_standings_from_kept_sums_are_those_of_every_cosine() -> None:
    rng = np.random.default_rng(5)
    neighbours = Neighbours()
    neighbours.set_background(
        rng.standard_normal((6, 8)).tolist(),
        ["a b", "c d", "e f", "甲乙", "丙丁", "戊己"],
    )
    systems = [LETTERS, CJK, LETTERS | CJK]
    for n in range(40):
        neighbours.put(f"m{n}", rng.standard_normal(8), systems[n % 3])
    question = rng.standard_normal(8).tolist()
    neighbours.nearest(question, 5, LETTERS)  # the sums are made here
    # Then kept as rows change: replaced (into another system), removed, added.
    for n in range(0, 40, 4):
        neighbours.put(f"m{n}", rng.standard_normal(8), systems[(n + 1) % 3])
    neighbours.remove([f"m{n}" for n in range(1, 40, 5)])
    for n in range(40, 50):
        neighbours.put(f"m{n}", rng.standard_normal(8), systems[n % 3])
    for spoken in (LETTERS, CJK):
        kept = neighbours.nearest(question, 50, spoken)
        neighbours._sums = None  # summed again from the rows as they are
        summed = neighbours.nearest(question, 50, spoken)
        assert kept.keys() == summed.keys()
        for memory_id, near in summed.items():
            assert kept[memory_id].standing == pytest.approx(near.standing, abs=1e-5)
    # And both are the mean and spread of every cosine of the system with its
    # background's (the memories of letters only, for an English question).
    rows = neighbours._matrix[: len(neighbours._ids)]
    query = np.asarray(question) / np.linalg.norm(question)
    letters = ~(neighbours._systems[: len(rows)] & CJK).astype(bool)
    background = neighbours._background[:3] @ query
    cosines = np.concatenate([rows[letters] @ query, background])
    found = neighbours.nearest(question, 50, LETTERS)
    some = next(i for i, ok in enumerate(letters) if ok)
    expected = (rows[some] @ query - cosines.mean()) / cosines.std()
    assert found[neighbours._ids[some]].standing == pytest.approx(expected, abs=1e-5)
