"""Reading every file of a data folder as bytes: what "leaves no trace" is checked with."""

from __future__ import annotations

from pathlib import Path


def files_containing(folder: Path, *words: str) -> list[str]:
    """The files under `folder` (any depth) holding one of the words, as bytes.

    Each word is looked for as UTF-8, in any case (the search index lowercases).
    """
    needles = {
        variant.encode()
        for word in words
        for variant in (word, word.lower(), word.upper(), word.title())
    }
    found = []
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            data = path.read_bytes()
            if any(needle in data for needle in needles):
                found.append(str(path.relative_to(folder)))
    return found
