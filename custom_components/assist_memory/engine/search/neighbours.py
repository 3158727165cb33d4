"""The memories nearest to a question's vector, fair to each writing system.

A multilingual model puts a question closer to every memory in its own language than
to any in another: with multilingual-e5-small a Chinese question's similarity to
English memories averages about 0.73 and to Chinese ones 0.82, so "急救箱在哪？"
ranks its answer, "The first aid kit is in the kitchen cupboard …", far down by cosine
although it is among the nearest of the English memories. So each memory's similarity
is read against the memories of its own writing system (Chinese and Japanese
characters, or the others): how many standard deviations it stands above their mean
for this question (its standing). The best answer in either language then stands out
as far as the other's. A Chinese sentence with English words is near English
questions by those words and near Chinese ones by the rest: it stands where it stands
least.

With the local model, the average question and the average memory of each writing
system are taken off the vectors first (`model/centres.py`): what is left is what a
text says rather than its language or its being a question, and a memory near the
other language as a whole ("過年要準備紅包和年貨" near any English question about
things put away) no longer stands high for every question in it.

A handful of memories says little about where a writing system's memories sit for a
question: one of three is always the nearest. So each system's memories are read
together with its background sentences (`background.py`: everyday sentences of
nobody's household), and a memory found by meaning alone must stand `MIN_STANDING`
above them (`retrieval.py`): a question about the boiler finds nothing in a household
that only told Assist where the spare key is.

The vectors are the rows of one float32 matrix, searched with one product. A removed
row is filled with the last one, and the matrix grows by an eighth, so 100 000
memories of 384 dimensions take about 160 MB, never twice that. What depends on the
rows alone (which are Chinese) is kept until a row changes, and each
writing system's mean and spread of cosines come from its vectors' sums, kept as rows
change (`moments.py`): a question reads the matrix once and its cosines a few times,
without copying them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
import re
from typing import Final

import numpy as np

from ..language.keywords import CJK_CHARACTERS
from ..model.centres import Centres
from .moments import SystemSums
from .nearness import Nearness
from .products import RowProducts

_CJK: Final = re.compile(f"[{CJK_CHARACTERS}]")
# A word of two letters or more of any other script.
_OTHER_WORD: Final = re.compile(f"[^\\W\\d_{CJK_CHARACTERS}]{{2,}}")
# A text's writing systems, as bits.
LETTERS: Final = 1
CJK: Final = 2
# Two memories in different writing systems are the same fact when each stands at
# least this far above the other system's background sentences as seen from the
# other. With multilingual-e5-small and its averages taken off, on ten translations
# and ten pairs on one subject that differ ("under the mat" / "in the mailbox", the
# penicillin / peanuts allergy): 6 translations of 10 reach it, 2 different pairs
# (with the vectors as they come the old 3.3 took 5 and 2). A guess more than a
# measure: those pairs are few, written here.
SAME_FACT_STANDING: Final = 4.0


def writing_systems(text: str) -> int:
    """`CJK`, `LETTERS` or both (a Chinese sentence with English words), as bits."""
    systems = CJK if _CJK.search(text) else 0
    if not systems or _OTHER_WORD.search(text):
        systems |= LETTERS
    return systems


def spoken_system(question: str) -> int:
    """The writing system a question is asked in: Chinese with an English word is CJK."""
    return CJK if _CJK.search(question) else LETTERS


class Neighbours:
    """Every memory's vector and writing system, in process."""

    name = "in-process"

    def __init__(self, centres: Centres | None = None) -> None:
        """`centres`: the model's average vectors, taken off every vector (or None)."""
        self._centres = centres
        self._slots: dict[str, int] = {}
        self._ids: list[str] = []
        self._matrix = np.zeros((0, 0), dtype=np.float32)
        self._systems = np.zeros(0, dtype=np.uint8)
        self._background = np.zeros((0, 0), dtype=np.float32)
        self._background_systems = np.zeros(0, dtype=np.uint8)
        self._groups: _Groups | None = None  # until a row changes
        # Each system's vectors summed ([letters only, chinese]; `moments.py`):
        # summed on the first question, then kept as rows change.
        self._sums: tuple[SystemSums, SystemSums] | None = None
        self._products = RowProducts()

    def close(self) -> None:
        """End the helper thread of the products (not while a search runs)."""
        self._products.close()

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
            self._groups = None
            self._sums = None

    def set_background(self, vectors: list[list[float]], texts: Iterable[str]) -> None:
        """The background sentences' vectors (`background.py`), in their order."""
        rows = np.asarray(vectors, dtype=np.float32).reshape(len(vectors), -1)
        rows /= np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)
        systems = np.array([writing_systems(text) for text in texts], dtype=np.uint8)
        self._background = self._centred(rows, systems)
        self._background_systems = systems

    def put(
        self, memory_id: str, vector: list[float] | np.ndarray, systems: int
    ) -> None:
        """Add or replace a memory's vector (`systems`: its text's `writing_systems`)."""
        row = np.array(vector, dtype=np.float32)
        row /= float(np.linalg.norm(row)) or 1.0
        row = self._centred(row[None, :], np.array([systems], np.uint8))[0]
        if self._matrix.shape[1] != row.size:  # another model's size: start again
            self._slots.clear()
            self._ids.clear()
            self._matrix = np.zeros((0, row.size), dtype=np.float32)
            self._systems = np.zeros(0, dtype=np.uint8)
            self._sums = None
        slot = self._slots.get(memory_id)
        if slot is not None:
            self._count(slot, -1)  # replaced
        else:
            slot = len(self._ids)
            if slot == len(self._matrix):
                rows = slot + max(64, slot // 8)
                grown = np.zeros((rows, row.size), np.float32)
                grown[:slot] = self._matrix[:slot]
                self._matrix = grown
                self._systems = _grown(self._systems, rows)
            self._slots[memory_id] = slot
            self._ids.append(memory_id)
        self._matrix[slot] = row
        self._systems[slot] = systems
        self._count(slot, 1)
        self._groups = None

    def _centred(self, rows: np.ndarray, systems: np.ndarray) -> np.ndarray:
        """Unit rows with their writing system's average memory taken off (`centres`)."""
        if self._centres is None or rows.shape[1:] != (self._centres.size,):
            return rows
        return self._centres.memories_of(rows, (systems & CJK).astype(bool))

    def remove(self, memory_ids: Iterable[str]) -> None:
        """Forget vectors."""
        for memory_id in memory_ids:
            slot = self._slots.pop(memory_id, None)
            if slot is None:
                continue
            self._count(slot, -1)
            self._groups = None
            last_id = self._ids.pop()
            if last_id != memory_id:
                last = len(self._ids)
                self._matrix[slot] = self._matrix[last]
                self._systems[slot] = self._systems[last]
                self._ids[slot] = last_id
                self._slots[last_id] = slot

    def nearest(
        self,
        vector: list[float],
        k: int,
        spoken: int,
        also: Iterable[str] = (),
    ) -> dict[str, Nearness]:
        """The k memories of highest standing, best first, then those of `also`.

        `spoken`: the question's writing system (`spoken_system`); `also`: memories
        the caller found otherwise (by words), whose nearness it needs as well.
        """
        count = len(self._ids)
        if not count or len(vector) != self._matrix.shape[1]:
            return {}
        query = np.asarray(vector, dtype=np.float32)
        query /= float(np.linalg.norm(query)) or 1.0
        if self._centres is not None and query.shape == (self._centres.size,):
            query = self._centres.question(query, bool(spoken & CJK))
        cosines = self._products.of(self._matrix[:count], query)
        background = (
            self._products.of(self._background, query)
            if self._background.shape[1:] == query.shape
            else np.zeros(0, dtype=np.float32)
        )
        groups = self._current_groups()
        standing = _standing(
            cosines,
            query,
            groups=groups,
            sums=self._current_sums(groups),
            background=background,
            background_systems=self._background_systems[: len(background)],
        )
        # Across: a memory without a word of the question's writing system.
        across = groups.only_letters if spoken & CJK else groups.only_chinese
        best = np.arange(count)
        if count > k:
            best = np.argpartition(-standing, k)[:k]
        best = best[np.argsort(-standing[best])][:k]
        wanted = [int(i) for i in best]
        wanted += [self._slots[m] for m in also if m in self._slots]
        return {
            self._ids[i]: Nearness(
                float(cosines[i]), float(standing[i]), across=bool(across[i])
            )
            for i in wanted
        }

    def _current_groups(self) -> _Groups:
        """Which rows are Chinese, in which ways."""
        if self._groups is None:
            systems = self._systems[: len(self._ids)]
            chinese = (systems & CJK).astype(bool)
            letters = (systems & LETTERS).astype(bool)
            self._groups = _Groups(
                chinese=chinese,
                only_letters=~chinese,
                only_chinese=~letters,
                both=chinese & letters,
                some_chinese=bool(chinese.any()),
            )
        return self._groups

    def _count(self, slot: int, sign: int) -> None:
        """Count a row in or out of its writing system's sums, once they are kept."""
        if self._sums is not None:
            chinese = bool(self._systems[slot] & CJK)
            self._sums[chinese].add(self._matrix[slot], sign)

    def _current_sums(self, groups: _Groups) -> tuple[SystemSums, SystemSums]:
        """Each writing system's sums, summed from the rows the first time."""
        if self._sums is None:
            rows = self._matrix[: len(self._ids)]
            self._sums = (
                SystemSums.of(rows, groups.only_letters),
                SystemSums.of(rows, groups.chinese),
            )
        return self._sums

    def same_fact(self, first: str, second: str) -> bool:
        """Whether two memories of different writing systems say the same thing.

        Each must stand `SAME_FACT_STANDING` above the background sentences of its
        writing system, seen from the other (products with the background only:
        cheap at any number of memories). False when a vector is missing.
        """
        one, other = self._slots.get(first), self._slots.get(second)
        if one is None or other is None:
            return False
        if bool(self._systems[one] & CJK) == bool(self._systems[other] & CJK):
            return False
        return (
            min(self._above_background(one, other), self._above_background(other, one))
            >= SAME_FACT_STANDING
        )

    def _above_background(self, seen_from: int, slot: int) -> float:
        """Row `slot`'s similarity to row `seen_from`, in standard deviations.

        Above that of the background sentences of `slot`'s writing system.
        """
        chinese = bool(self._systems[slot] & CJK)
        own = (self._background_systems & CJK).astype(bool) == chinese
        background = self._background[own]
        query = self._matrix[seen_from]
        if not len(background) or background.shape[1:] != query.shape:
            return -np.inf
        cosines = self._products.of(background, query)
        spread = max(float(cosines.std()), 1e-6)
        return (float(self._matrix[slot] @ query) - float(cosines.mean())) / spread


@dataclass(frozen=True, slots=True)
class _Groups:
    """What the rows' writing systems give every question, until a row changes."""

    chinese: np.ndarray  # Chinese (or Japanese) characters, other words or not
    only_letters: np.ndarray  # no Chinese characters
    only_chinese: np.ndarray  # no word of another script
    both: np.ndarray  # a Chinese sentence with English words
    some_chinese: bool


def _grown(column: np.ndarray, rows: int) -> np.ndarray:
    """A per-row array with room for `rows`."""
    grown = np.zeros(rows, dtype=column.dtype)
    grown[: len(column)] = column
    return grown


def _standing(
    cosines: np.ndarray,
    query: np.ndarray,
    *,
    groups: _Groups,
    sums: tuple[SystemSums, SystemSums],
    background: np.ndarray,
    background_systems: np.ndarray,
) -> np.ndarray:
    """Each cosine in standard deviations above its writing system's mean.

    The mean and spread are those of the system's memories (from their sums,
    `moments.py`) together with its background sentences (`background.py`); a text of
    both systems stands where it stands least.
    """
    letters, chinese = sums
    background_chinese = (background_systems & CJK).astype(bool)
    mean, spread = _moments(query, letters, sums, background[~background_chinese])
    standing: np.ndarray = (cosines - mean) / spread
    if groups.some_chinese:
        mean, spread = _moments(query, chinese, sums, background[background_chinese])
        in_chinese = (cosines - mean) / spread
        np.copyto(standing, in_chinese, where=groups.only_chinese)
        np.minimum(standing, in_chinese, out=standing, where=groups.both)
    return standing


def _moments(
    query: np.ndarray,
    own: SystemSums,
    every: tuple[SystemSums, SystemSums],
    background: np.ndarray,
) -> tuple[float, float]:
    """Mean and standard deviation of a system's cosines with its background's.

    Of every memory's cosine when the system has neither memories nor background.
    """
    if not own.count and not len(background):
        own = every[0].plus(every[1])
    total, total_squares, count = own.moments(query)
    count += len(background)
    total += float(np.sum(background, dtype=np.float64))
    total_squares += float(np.sum(np.square(background), dtype=np.float64))
    mean = total / count
    variance = max(total_squares / count - mean * mean, 0.0)
    return mean, max(variance**0.5, 1e-6)
