"""The memories nearest to a question's vector, fair to each writing system.

A multilingual model puts a question closer to every memory in its own language than
to any in another: with multilingual-e5-small an English question's similarity to
Chinese memories averages about 0.71 and to English ones 0.74, so "Who is allergic to
mango?" ranks its answer, 妈妈对芒果过敏, 25th by cosine although it is the nearest
of the Chinese memories. So each memory's similarity is read against the memories
of its own writing system (Chinese and Japanese characters, or the others): how many
standard deviations it stands above their mean for this question (its standing). The
best answer in either language then stands out as far as the other's.

A writing system with few memories borrows the statistics of all of them (its own
weigh as `PRIOR_ROWS` rows more): a handful of Chinese memories says little about
where Chinese memories sit for a question.

The vectors are the rows of one float32 matrix, searched with one product. A removed
row is filled with the last one, and the matrix grows by an eighth, so 100 000
memories of 384 dimensions take about 160 MB, never twice that.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
import re
from typing import Final

import numpy as np

_CJK_RANGES: Final = (
    "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f"
)
# Chinese characters and kana (keywords.py's set: the same text is "CJK" there) ...
_CJK: Final = re.compile(f"[{_CJK_RANGES}]")
# ... and a word of two letters or more of any other script.
_OTHER_WORD: Final = re.compile(f"[^\\W\\d_{_CJK_RANGES}]{{2,}}")
# A text's writing systems, as bits.
LETTERS: Final = 1
CJK: Final = 2
# How many rows of all the memories' statistics a writing system's own are mixed with.
PRIOR_ROWS: Final = 32


def writing_systems(text: str) -> int:
    """`CJK`, `LETTERS` or both (a Chinese sentence with English words), as bits."""
    systems = CJK if _CJK.search(text) else 0
    if not systems or _OTHER_WORD.search(text):
        systems |= LETTERS
    return systems


@dataclass(frozen=True, slots=True)
class Nearness:
    """How near a memory is to a question."""

    cosine: float
    # Standard deviations above the mean similarity of its writing system's memories.
    standing: float


class Neighbours:
    """Every memory's vector and writing system, in process."""

    name = "in-process"

    def __init__(self) -> None:
        self._slots: dict[str, int] = {}
        self._ids: list[str] = []
        self._matrix = np.zeros((0, 0), dtype=np.float32)
        self._systems = np.zeros(0, dtype=np.uint8)

    @property
    def capacity(self) -> int:
        """Rows the matrix holds before it must grow."""
        return len(self._matrix)

    def reserve(self, rows: int, size: int) -> None:
        """Make room for `rows` vectors of `size` at once.

        A start loads them all: growing step by step would copy the matrix many times.
        """
        if not self._ids:
            self._matrix = np.zeros((rows, size), dtype=np.float32)
            self._systems = np.zeros(rows, dtype=np.uint8)

    def put(self, memory_id: str, vector: list[float], systems: int) -> None:
        """Add or replace a memory's vector (`systems`: its text's `writing_systems`)."""
        row = np.asarray(vector, dtype=np.float32)
        row /= float(np.linalg.norm(row)) or 1.0
        if self._matrix.shape[1] != row.size:  # another model's size: start again
            self._slots.clear()
            self._ids.clear()
            self._matrix = np.zeros((0, row.size), dtype=np.float32)
            self._systems = np.zeros(0, dtype=np.uint8)
        slot = self._slots.get(memory_id)
        if slot is None:
            slot = len(self._ids)
            if slot == len(self._matrix):
                rows = slot + max(64, slot // 8)
                grown = np.zeros((rows, row.size), np.float32)
                grown[:slot] = self._matrix[:slot]
                grown_systems = np.zeros(rows, np.uint8)
                grown_systems[:slot] = self._systems[:slot]
                self._matrix, self._systems = grown, grown_systems
            self._slots[memory_id] = slot
            self._ids.append(memory_id)
        self._matrix[slot] = row
        self._systems[slot] = systems

    def remove(self, memory_ids: Iterable[str]) -> None:
        """Forget vectors."""
        for memory_id in memory_ids:
            slot = self._slots.pop(memory_id, None)
            if slot is None:
                continue
            last_id = self._ids.pop()
            if last_id != memory_id:
                last = len(self._ids)
                self._matrix[slot] = self._matrix[last]
                self._systems[slot] = self._systems[last]
                self._ids[slot] = last_id
                self._slots[last_id] = slot

    def nearest(self, vector: list[float], k: int) -> dict[str, Nearness]:
        """The k memories of highest standing, best first."""
        count = len(self._ids)
        if not count or len(vector) != self._matrix.shape[1]:
            return {}
        query = np.asarray(vector, dtype=np.float32)
        query /= float(np.linalg.norm(query)) or 1.0
        cosines = self._matrix[:count] @ query
        standing = self._standing(cosines, self._systems[:count])
        best = np.arange(count)
        if count > k:
            best = np.argpartition(-standing, k)[:k]
        best = best[np.argsort(-standing[best])]
        return {
            self._ids[i]: Nearness(float(cosines[i]), float(standing[i]))
            for i in best[:k]
        }

    @staticmethod
    def _standing(cosines: np.ndarray, systems: np.ndarray) -> np.ndarray:
        """Each cosine in standard deviations above its writing system's mean.

        A Chinese sentence with English words is near English questions by those
        words and near Chinese ones by the rest: it stands where it stands least.
        """
        chinese = (systems & CJK).astype(bool)
        letters = cosines[~chinese]
        standing: np.ndarray = np.minimum(
            np.where(systems & LETTERS, _above(cosines, letters), np.inf),
            np.where(chinese, _above(cosines, cosines[chinese]), np.inf),
        )
        return standing


def _above(cosines: np.ndarray, own: np.ndarray) -> np.ndarray:
    """`cosines` in standard deviations above the mean of `own`.

    `own` weighs as many rows as it has; all the cosines add `PRIOR_ROWS` more.
    """
    weight = PRIOR_ROWS / (len(own) + PRIOR_ROWS)
    mean = weight * float(cosines.mean())
    variance = weight * float(cosines.var())
    if len(own):
        mean += (1 - weight) * float(own.mean())
        variance += (1 - weight) * float(own.var())
    result: np.ndarray = (cosines - mean) / max(variance**0.5, 1e-6)
    return result
