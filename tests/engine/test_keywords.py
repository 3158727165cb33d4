"""Keyword extraction for mixed Chinese and English text, and what it finds."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from custom_components.assist_memory.engine.language.keywords import (
    Keywords,
    chinese_pieces,
    cjk_grams,
    expresses_preference,
    extract_keywords,
    index_terms,
    light_stem,
    normalize,
    secondary_terms,
)
from custom_components.assist_memory.engine.memory.memory_engine import MemoryEngine


@pytest.fixture(params=[True, False], ids=["fts5", "like"])
def engine(request: pytest.FixtureRequest, store_path: Path) -> Iterator[MemoryEngine]:
    """A real engine on real files, with FTS5 and with the LIKE fallback."""
    engine = MemoryEngine(store_path, use_fts=request.param)
    engine.init()
    yield engine
    engine.close()


def found(engine: MemoryEngine, query: str) -> list[str]:
    return [r.memory.content for r in engine.search(query)]


# -- extraction -----------------------------------------------------------------


def test_mixed_example_keeps_meaningful_words_and_drops_stop_words() -> None:
    keywords = extract_keywords("我喜欢用 Python 写代码")

    assert keywords.all() == ["python", "喜欢", "代码"]
    terms = index_terms(keywords)
    for stop in ("我", "用", "写"):
        assert all(stop not in keyword for keyword in keywords.all())
        assert stop not in terms


def test_mixed_scripts_without_spaces() -> None:
    keywords = extract_keywords("用python写代码")

    assert keywords.words == ("python",)
    assert keywords.chinese == ("代码",)


def test_full_width_characters_are_normalised() -> None:
    assert normalize("Ｐｙｔｈｏｎ　３") == "python 3"
    assert extract_keywords("ＰＹＴＨＯＮ　ｃｏｄｅ").words == ("python", "code")
    assert extract_keywords("我喜欢ＰＹＴＨＯＮ").all() == ["python", "喜欢"]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("What do you know about the weather?", ("weather",)),
        ("I'm sure it's the one I've got", ("sure", "one")),
        ("It\u2019s what I\u2019ve got", ()),  # curly apostrophes are stop words too
        ("a b c x 7", ("7",)),  # single letters carry nothing, digits do
        ("Coffee coffee COFFEE", ("coffee",)),  # no repeats
        ("O'Brien's dog", ("o'brien's", "dog")),
        ("the of and or not", ()),
        # Where things are: the place word is what a question about it asks.
        ("What's under the sink?", ("under", "sink")),
        (
            "the shelf above the washing machine",
            ("shelf", "above", "washing", "machine"),
        ),
        ("below, between or against the wall", ("below", "between", "against", "wall")),
    ],
)
def test_english_stop_words_and_short_tokens(text: str, words: tuple[str, ...]) -> None:
    assert extract_keywords(text).words == words


def test_prefix_search_terms() -> None:
    keywords = extract_keywords("Pyth* p* code")

    assert keywords.prefixes == ("pyth",)  # one letter is too short to be a prefix
    assert keywords.words == ("code",)
    assert keywords.all() == ["code", "pyth"]


def test_all_lists_english_then_prefixes_then_chinese() -> None:
    keywords = Keywords(words=("tea",), chinese=("咖啡",), prefixes=("gard",))

    assert keywords.all() == ["tea", "gard", "咖啡"]


@pytest.mark.parametrize(
    ("run", "pieces"),
    [
        ("猫和狗", ["猫", "狗"]),
        ("我们什么时候去北京", ["去北京"]),
        ("我的猫喜欢鱼", ["猫喜欢鱼"]),
        ("我你他", []),
        ("过敏", ["过敏"]),  # 过 begins words, it is not a stop character
    ],
)
def test_chinese_runs_are_cut_at_stop_words(run: str, pieces: list[str]) -> None:
    assert chinese_pieces(run) == pieces


def test_chinese_pieces_are_indexed_as_characters_and_pairs() -> None:
    assert cjk_grams("咖啡豆") == ["咖", "啡", "豆", "咖啡", "啡豆"]
    assert cjk_grams("猫") == ["猫"]
    keywords = extract_keywords("Tea 猫 咖啡")
    assert index_terms(keywords) == ["tea", "猫", "咖", "啡", "咖啡"]


@pytest.mark.parametrize(
    ("text", "terms"),
    [
        # The pairs a function character cuts: 了电 is what tells this memory apart.
        ("舅舅最受不了电子乐", ("不了", "了电")),
        ("妈妈的车", ("妈的", "的车")),
        # A stop word cut out (什么) leaves its pairs; two stop characters are none.
        ("我们什么时候去北京", ("们什", "什么", "么时", "时候", "候去")),
        ("Buy Grace anything in purple, she doesn't mind", ("anything", "doesn't")),
        ("Anna takes her coffee black", ()),
    ],
)
def test_secondary_terms_are_what_the_keywords_drop_that_still_tells_apart(
    text: str, terms: tuple[str, ...]
) -> None:
    assert secondary_terms(text) == terms
    # Never keywords: no secondary term is searched or counted as one.
    assert not set(terms) & set(index_terms(extract_keywords(text)))


def test_japanese_kana_is_treated_like_han() -> None:
    assert extract_keywords("コーヒーが好き").chinese == ("コーヒーが好き",)


@pytest.mark.parametrize(
    ("word", "stem"),
    [
        ("running", "run"),
        ("likes", "lik"),
        ("like", "lik"),  # the silent e goes, so "liked" and "liking" meet it
        ("liked", "lik"),
        ("liking", "lik"),
        ("makes", "mak"),
        ("move", "mov"),
        ("moving", "mov"),
        ("free", "free"),  # a double e stays
        ("mum's", "mum"),  # the possessive goes
        ("studies", "study"),
        ("carried", "carry"),
        ("boxes", "box"),
        ("wishes", "wish"),
        ("glasses", "glass"),
        ("stopped", "stop"),
        ("falling", "fall"),  # doubled l is part of the word
        ("quickly", "quick"),
        ("wanted", "want"),
        ("runs", "run"),
        ("class", "class"),
        ("pass", "pass"),
        ("bus", "bus"),  # too short to touch
        ("cafés", "cafés"),  # not ASCII: left alone
        ("ring", "ring"),  # the stem would be shorter than three letters
    ],
)
def test_light_stem(word: str, stem: str) -> None:
    assert light_stem(word) == stem


@pytest.mark.parametrize(
    "text",
    [
        "I prefer tea in the morning",
        "What do I like to drink?",
        "we really love hiking",
        "My favourite colour is green",
        "what's my favorite song",
        "I'd rather stay home",
        "Ｉ ｈａｔｅ ｍｕｓｈｒｏｏｍｓ",  # full width
        "我喜欢喝茶",
        "我不喜歡香菜",
        "我讨厌下雨",
        "我最爱吃火锅",
        "你知道我的口味吗",
    ],
)
def test_preference_is_recognised(text: str) -> None:
    assert expresses_preference(text)


@pytest.mark.parametrize(
    "text",
    [
        "The garage door code is 4321",
        "When is the dentist appointment?",
        "Turn on the kitchen lights",
        "我家在北京",
        "明天几点开会",
        "",
    ],
)
def test_neutral_text_is_not_a_preference(text: str) -> None:
    assert not expresses_preference(text)


# -- what the keywords find (both with FTS5 and with the LIKE fallback) --------------


def test_chinese_query_finds_chinese_memories(engine: MemoryEngine) -> None:
    engine.store.add("我喜欢喝咖啡，不加糖")
    engine.store.add("明天要去上海出差")
    engine.store.add("The dog's name is Biscuit")

    assert found(engine, "咖啡") == ["我喜欢喝咖啡，不加糖"]
    assert found(engine, "我什么时候去上海？") == ["明天要去上海出差"]
    assert found(engine, "我喜欢什么") == ["我喜欢喝咖啡，不加糖"]


def test_mixed_sentence_is_found_by_its_keywords(engine: MemoryEngine) -> None:
    memory = engine.store.add("我喜欢用 Python 写代码")
    engine.store.add("周末去爬山")

    for query in ("用python写代码", "Python", "代码", "ＰＹＴＨＯＮ"):
        assert [r.memory.id for r in engine.search(query)] == [memory.id], query


def test_english_inflections_match(engine: MemoryEngine) -> None:
    engine.store.add("I run every Sunday")
    engine.store.add("My wife does like jazz")
    engine.store.add("The car is blue")

    assert found(engine, "running") == ["I run every Sunday"]
    assert found(engine, "Who likes jazz?") == ["My wife does like jazz"]


def test_prefix_query_matches_longer_words(engine: MemoryEngine) -> None:
    engine.store.add("Writes Python at work")
    engine.store.add("Plays the piano")

    results = engine.search("Pyth*")

    assert [r.memory.content for r in results] == ["Writes Python at work"]
    assert results[0].matched == ("pyth*",)


def test_keys_and_tags_are_searchable(engine: MemoryEngine) -> None:
    engine.store.add("Opens at nine", key="bakery hours", tags=["errands"])

    assert found(engine, "bakery") == ["Opens at nine"]
    assert found(engine, "errands") == ["Opens at nine"]


def test_the_place_a_question_names_decides(engine: MemoryEngine) -> None:
    """ "What's under the sink?" is answered by what is under it, not by the sink."""
    engine.store.add("The kitchen sink is white")
    engine.store.add("The kitchen sink has a new tap")
    engine.store.add("The spare bleach is kept under the kitchen sink in a box")

    assert found(engine, "What's under the kitchen sink?")[0] == (
        "The spare bleach is kept under the kitchen sink in a box"
    )


def test_stop_words_only_finds_nothing(engine: MemoryEngine) -> None:
    engine.store.add("What is the answer? It is 42")

    assert engine.search("what is the") == []
    assert engine.search("我的") == []
