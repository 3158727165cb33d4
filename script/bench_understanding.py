"""The corpora written apart, in script/bench: learning, search and answers.

    learning(split)          utterances of tests/data/corpus/extraction.json: what
                             learning keeps, by language, the learned extractor next
                             to the rules (the lesser mode without the model)
    household_search(split)  the households' questions, Recall@5 by wording: words
                             alone, the model alone, ours
    household_answers(split) the same questions asked in Home Assistant, the memory
                             agent wrapping its own intent agent, every default

Each reports the split it is given; script/bench gives the test split (never tuned
on: the heads are trained on train and chosen on development, script/train_heads.py).
"""

from __future__ import annotations

from collections import defaultdict
import statistics

from bench_tables import table
from household_answers import HEADER as ANSWERS_HEADER, measure as measure_answers, rows
from household_quality import (
    WORDINGS,
    household_engine,
    households,
    model_alone,
    ours,
    recall_at,
    scopes_of,
    words_alone,
)
from learning_quality import LANGUAGES, items, measure

from assist_memory_engine.language.extractors import extractor_here
from assist_memory_engine.language.rule_extraction import RuleBasedExtractor


def learning(split: str) -> None:
    """What learning keeps from each utterance, by language: ours and the rules."""
    found = items(split)
    rules = RuleBasedExtractor()
    learned = extractor_here()
    systems = {
        "rules": measure(lambda text, lang: rules.extract(text, language=lang), found),
        "learned": measure(
            lambda text, lang: learned.extract(text, language=lang), found
        ),
    }
    title = (
        f"Learning without an LLM: {split} split of the corpus "
        f"({len(found)} utterances; {type(learned).__name__})"
    )
    header = ["language", "labels"]
    for name in systems:
        header += [f"{name} recall", f"{name} precision", f"{name} secrets kept"]
    body = []
    for language in LANGUAGES:
        row: list[object] = [language, systems["rules"][language].labels]
        for tallies in systems.values():
            tally = tallies[language]
            row += [f"{tally.recall:.3f}", f"{tally.precision:.3f}", tally.secrets]
        body.append(row)
    table(title, header, body)


def household_search(split: str) -> None:
    """Recall@5 on the households' answerable questions, by wording and language."""
    scores: dict[tuple[str, str], list[float]] = defaultdict(list)
    for house in households(split):
        with household_engine(house) as engine:
            systems = {
                "words": words_alone(house),
                "model": model_alone(house),
                "ours": ours(engine),
            }
            for question in house.questions:
                if not question["answer"]:
                    continue
                for name, search in systems.items():
                    found = search(question["say"], scopes_of(question))
                    score = recall_at(found, question["answer"], 5)
                    for group in ("all", question["wording"], question["lang"]):
                        scores[(name, group)].append(score)
    groups = ["all", *WORDINGS, *LANGUAGES]
    table(
        f"Search on the households: {split} split, Recall@5",
        ["questions", "n", "words (BM25)", "the model alone", "ours"],
        [
            [
                group,
                len(scores[("ours", group)]),
                *(
                    f"{statistics.fmean(scores[(n, group)]):.3f}"
                    for n in ("words", "model", "ours")
                ),
            ]
            for group in groups
            if scores[("ours", group)]
        ],
    )


def household_answers(split: str) -> None:
    """Answers without an LLM on the households, in Home Assistant."""
    table(
        f"Answers without an LLM on the households: {split} split",
        ANSWERS_HEADER,
        rows(measure_answers(split)),
    )
