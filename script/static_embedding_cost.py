"""What a static-embedding model (model2vec style) would cost here, without one.

A static model is a table of one vector per token and a mean over a text's tokens: numpy
only, no server. Its costs do not depend on what the table holds, so a random table of
the size a multilingual vocabulary needs stands in for it: the memory of the table and of
the vectors of 100 000 memories, the time to embed them, and one search (the product with
every vector and the best 50). Usage: .venv/bin/python script/static_embedding_cost.py
[--dimensions 256] [--tokens 250000] [--memories 100000].
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
import re
import statistics
import sys
import time
from typing import Final
import zlib

from bench_corpus import scaled_texts
import numpy as np
from numpy.typing import NDArray

_TOKEN: Final = re.compile(r"[a-z0-9]+|[\u3400-\u9fff]")
_SEARCHES: Final = 200
_CANDIDATES: Final = 50


def embed(text: str, table: NDArray[np.float32]) -> NDArray[np.float32]:
    """The mean of the text's token vectors (tokens hashed into the table), unit length."""
    rows = [zlib.crc32(token.encode()) % len(table) for token in _TOKEN.findall(text)]
    vector: NDArray[np.float32] = table[rows or [0]].mean(axis=0)
    norm = float(np.linalg.norm(vector))
    return vector / np.float32(norm) if norm else vector


def main(argv: Sequence[str] | None = None) -> int:
    """Print the table's and the vectors' memory, the time to embed and to search."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dimensions", type=int, default=256)
    parser.add_argument("--tokens", type=int, default=250_000)
    parser.add_argument("--memories", type=int, default=100_000)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    table = rng.standard_normal((args.tokens, args.dimensions), dtype=np.float32)
    texts = [text.lower() for text in scaled_texts(args.memories, seed=args.memories)]
    started = time.perf_counter()
    vectors = np.stack([embed(text, table) for text in texts])
    embedding = time.perf_counter() - started
    searches: list[float] = []
    for text in texts[:: max(len(texts) // _SEARCHES, 1)]:
        started = time.perf_counter()
        similarity = vectors @ embed(text[:40], table)
        np.argpartition(-similarity, _CANDIDATES)[:_CANDIDATES]
        searches.append((time.perf_counter() - started) * 1000)
    searches.sort()
    print(
        f"table {args.tokens:,} x {args.dimensions}: {table.nbytes / 1e6:.0f} MB;"
        f" vectors of {len(texts):,} memories: {vectors.nbytes / 1e6:.0f} MB (float32)\n"
        f"embedding them: {embedding:.1f} s; one search: p50"
        f" {statistics.median(searches):.2f} ms, p99"
        f" {searches[int(len(searches) * 0.99)]:.2f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
