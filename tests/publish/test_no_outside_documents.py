"""No tracked file points at requirement documents this repository does not hold.

Comments, docstrings, tests and docs name the behaviour itself (the scoring formula,
the extraction throttle, the `<long_term_memory>` block, ...), never a numbered
outside document. Random-number seeds (`--seed N`, `random.Random(seed)`,
`ASSIST_MEMORY_FUZZ_SEED`) are fine, and so are the labelled corpora
(tests/data/corpus/): people's words about their gardens, written by their writers.
"""

from __future__ import annotations

from pathlib import Path
import re
import shutil
import subprocess

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Built from parts so that this file does not match itself.
WORD = "se" + "ed"
OUTSIDE_DOCUMENT = re.compile(
    rf"(?<![a-z]){WORD}s?[\s_-]*(?<!\d)\d{{3}}(?!\d)"  # a numbered document, "...004", "..._002"
    rf"|\b{WORD}s'"  # "the ...s' paths"
    rf"|\bthe\s+{WORD}s\b",  # "the ...s"
    re.IGNORECASE,
)


def tracked_files() -> list[Path]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    listing = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    return [ROOT / name for name in listing.split("\0") if name]


def mentions(path: Path) -> list[str]:
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError, UnicodeDecodeError:  # gone from the tree, or binary
        return []
    return [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for number, line in enumerate(text.splitlines(), 1)
        if OUTSIDE_DOCUMENT.search(line)
    ]


CORPORA = ROOT / "tests" / "data" / "corpus"


def test_no_tracked_file_mentions_outside_requirement_documents() -> None:
    found = [
        hit
        for path in tracked_files()
        if path.is_file() and CORPORA not in path.parents
        for hit in mentions(path)
    ]
    assert not found, "\n".join(found)


@pytest.mark.parametrize(
    "line",
    [
        f"Ranked search ({WORD} 002): a SQLite index",
        f"{WORD.title()} 000's throttle",
        f"the {WORD}-004 API",
        f"def test_{WORD}_004_prefix_stays_closed",
        f"at the {WORD}s' paths",
        f"routes the {WORD}s do not name",
        f"Conversations ({WORD}s 000, 002, 003).",
    ],
)
def test_the_pattern_finds_outside_documents(line: str) -> None:
    assert OUTSIDE_DOCUMENT.search(line)


@pytest.mark.parametrize(
    "line",
    [
        f"script/chaos [--kills 100] [--{WORD} N]",
        f"rng = random.Random({WORD})",
        f'FUZZ_{WORD.upper()} = int(os.environ.get("ASSIST_MEMORY_FUZZ_{WORD.upper()}", "1313"))',
        f'CRASH_{WORD.upper()} = int(os.environ.get("X", "4004"))',
        f"crash iteration {{iteration}}, {WORD} {{{WORD}}}",
        f"{WORD} 8",
        f"{WORD} 20250611",
        f"`server_load(url, headers)` {WORD}s memories",
        f"The bird {WORD} is now in the garage.",
        f"My snorkelwort {WORD}lings need water",
    ],
)
def test_random_seeds_are_fine(line: str) -> None:
    assert not OUTSIDE_DOCUMENT.search(line)
