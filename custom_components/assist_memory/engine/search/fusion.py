"""Words and meaning in one keyword score, calibrated per question.

A model's cosine similarities sit in a narrow band (multilingual-e5-small: about 0.75
for any text, 0.9 for the best), so adding raw cosines to the keyword match hardly
separates the candidates and the words decide alone. Here the similarities are
rescaled over the question's own candidates: the nearest memory gets 1, the farthest
candidate 0, and a memory the vector search did not return counts as the farthest.
Both parts are then on the same 0-1 scale as the keyword match (BM25 share and
coverage, `scoring.lexical_score`) and are mixed with fixed weights.

When the candidates' similarities are all about equal, the question is about nothing
the model tells apart: the rescaled part would only be noise, so it is damped by how
far the best stands from the rest (`SPREAD_FULL`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

# Weight of the meaning part in the keyword score; the words keep the rest.
MEANING_WEIGHT: Final = 0.5
# A best-to-worst cosine range this wide (or wider) counts in full.
SPREAD_FULL: Final = 0.08


def fused_keyword_scores(
    lexical: Mapping[str, float], similarity: Mapping[str, float]
) -> dict[str, float]:
    """Each candidate's keyword score from its word match and its similarity.

    `lexical`: 0-1 word match of every candidate (0 for one found by meaning only);
    `similarity`: cosine of the candidates the vector search returned.
    """
    if not similarity:
        return dict(lexical)
    high = max(similarity.values())
    low = min(similarity.values())
    spread = high - low
    confidence = min(spread / SPREAD_FULL, 1.0)
    meaning = {
        memory_id: (similarity.get(memory_id, low) - low) / spread if spread else 0.0
        for memory_id in lexical
    }
    weight = MEANING_WEIGHT * confidence
    return {
        memory_id: (1 - weight) * lexical[memory_id] + weight * meaning[memory_id]
        for memory_id in lexical
    }
