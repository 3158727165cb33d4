"""Where a model's questions and memories sit on average, per writing system.

A multilingual model's vectors share a direction by language and by role: every
Chinese text is near every other Chinese text, and every question ("query: ") near
the memories that many questions are near (the hubs of cross-lingual retrieval). Taken
off before comparing, what is left is what the text says: a question meets the
memory that answers it in either language, and a memory near every question loses
that pull. The average vectors (a question's and a memory's, for text with Chinese
characters and for the rest) were measured on the training households' questions and
memories by `script/train_heads.py centres` and are kept beside the heads
(`weights/centres.json`); an embedding endpoint's model has none, and its vectors are
compared as they come.
"""

from __future__ import annotations

from dataclasses import dataclass
import functools
import json
from typing import Final

import numpy as np
import numpy.typing as npt

from .heads import WEIGHTS, HeadFileError

CENTRES: Final = "centres"

type Rows = npt.NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class Centres:
    """A model's average vectors: rows for [other scripts, Chinese characters]."""

    model: str
    questions: Rows  # (2, dimensions), "query: " vectors
    memories: Rows  # (2, dimensions), "passage: " vectors

    @property
    def size(self) -> int:
        """The vectors' dimensions."""
        return int(self.questions.shape[1])

    def question(self, vector: Rows, chinese: bool) -> Rows:
        """A question's vector with its average taken off, of length 1."""
        row: Rows = _unit_rows(vector[None, :] - self.questions[int(chinese)])[0]
        return row

    def memories_of(self, rows: Rows, chinese: npt.NDArray[np.bool_]) -> Rows:
        """Memories' vectors (rows) with their averages taken off, each of length 1."""
        return _unit_rows(rows - self.memories[chinese.astype(np.intp)])


def _unit_rows(rows: Rows) -> Rows:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    result: Rows = (rows / np.maximum(norms, 1e-12)).astype(np.float32)
    return result


@functools.cache
def load_centres(model: str) -> Centres | None:
    """The average vectors of `model` ("name" or "name@version"), None without.

    A model they were not measured on (an endpoint's) gets none.
    """
    path = WEIGHTS / f"{CENTRES}.json"
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    if raw.get("model") != model.partition("@")[0]:
        return None
    try:
        questions = np.asarray(raw["questions"], dtype=np.float32)
        memories = np.asarray(raw["memories"], dtype=np.float32)
    except (KeyError, TypeError, ValueError) as err:
        raise HeadFileError(f"{CENTRES}: {err}") from err
    if questions.ndim != 2 or questions.shape != memories.shape or len(questions) != 2:
        raise HeadFileError(f"{CENTRES}: needs two rows each of questions and memories")
    return Centres(raw["model"], questions, memories)
