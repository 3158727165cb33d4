"""How near a memory is to a question by meaning: what retrieval and fusion read.

Kept apart from `neighbours.py`, which computes it with numpy: a search by keywords
alone (the command line, a host without the model) never imports numpy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

# A memory found by meaning alone must stand this far above its writing system's
# memories and background sentences to be found at all.
MIN_STANDING: Final = 1.75


@dataclass(frozen=True, slots=True)
class Nearness:
    """How near a memory is to a question."""

    cosine: float
    # Standard deviations above the mean similarity of its writing system's memories.
    standing: float
    # The memory shares no writing system with the question: it cannot share a word.
    across: bool = False
