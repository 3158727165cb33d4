"""Words and meaning in one keyword score, calibrated per question.

A model's cosine similarities sit in a narrow band (multilingual-e5-small: about 0.75
for any text, 0.9 for the best), so adding raw cosines to the word match hardly
separates the candidates and the words decide alone. Here the meaning part is each
candidate's standing (`neighbours.py`: its similarity against the memories of its own
writing system), rescaled over the question's own candidates: the nearest memory gets
1, the farthest one the vector search returned 0, and a memory it did not return
counts as the farthest. Both parts are then on the 0-1 scale of the word match (BM25
share and coverage, `scoring.lexical_score`).

How much the meaning part weighs depends on how well the words did: when the best
word match holds every keyword of the question, words are trusted (names, exact
words, Chinese pairs keep their strength) and meaning only reorders; when no memory
shares a word with the question, meaning decides. A memory in another language than
the question's cannot share a word with it, so its missing word match says nothing:
it is given nine tenths of the average word match of the candidates in the question's
language, as if its words were unknown rather than absent (a little less, so a fact
in the question's own words stays ahead of its translation). Calibrated on the labelled
retrieval set and the long-conversation set (docs/how-it-works.md,
docs/benchmarks.md), and measured on a held-out set written apart.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from .nearness import Nearness

# The meaning part's weight when the best word match covers the whole question ...
MEANING_WHEN_WORDS_MATCH: Final = 0.3
# ... and when no candidate shares a word with it; in between, in proportion.
MEANING_WHEN_NO_WORD: Final = 0.9
# The share of the average word match a memory in another language is given: a fact
# in the question's own words stays ahead of its translation, which is as near by
# meaning once the model's averages are taken off (`model/centres.py`). Recall@5 on
# the labelled, held-out and development household sets is the same at 1 and at 0.9.
ACROSS_WORDS: Final = 0.9


def fused_keyword_scores(
    lexical: Mapping[str, float], nearest: Mapping[str, Nearness]
) -> dict[str, float]:
    """Each candidate's keyword score from its word match and its nearness.

    `lexical`: 0-1 word match of every candidate (0 for one found by meaning only);
    `nearest`: the candidates the vector search returned.
    """
    if not nearest:
        return dict(lexical)
    standings = [near.standing for near in nearest.values()]
    high, low = max(standings), min(standings)
    spread = high - low
    weight = _meaning_weight(max(lexical.values(), default=0.0))
    across = {memory_id for memory_id, near in nearest.items() if near.across}
    spoken = [match for memory_id, match in lexical.items() if memory_id not in across]
    unknown = ACROSS_WORDS * sum(spoken) / len(spoken) if spoken else 0.0
    fused: dict[str, float] = {}
    for memory_id, word_match in lexical.items():
        near = nearest.get(memory_id)
        meaning = (near.standing - low) / spread if near is not None and spread else 0.0
        words = unknown if memory_id in across else word_match
        fused[memory_id] = (1 - weight) * words + weight * meaning
    return fused


def _meaning_weight(best_word_match: float) -> float:
    """The meaning part's weight, from the best candidate's word match.

    That candidate has the whole BM25 share (0.5), so twice what it lacks of 1 is the
    share of the question's keywords it misses.
    """
    missed = min(max(2 * (1 - best_word_match), 0.0), 1.0) if best_word_match else 1.0
    return (
        MEANING_WHEN_WORDS_MATCH
        + (MEANING_WHEN_NO_WORD - MEANING_WHEN_WORDS_MATCH) * missed
    )
