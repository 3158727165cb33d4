"""What the engines last wrote to MEMORY.md: the base every edit is merged against.

Kept durably in `.MEMORY.md.base` beside MEMORY.md (JSON, replaced atomically), so
every engine (Home Assistant, the server, the CLI, a restart after a crash) merges an
edit against the same text, never against whatever the store holds by then. It holds:

- `lineage` (random, made with the first record) and `version`, counted up whenever
  the lines shown change. MEMORY.md ends with `<!-- assist-memory <lineage>/<version>
  -->`, so an edit says which text it was made on, however old.
- `changed`: the last version that removed or changed a line. Before it, versions only
  added lines, so an older text can be rebuilt from the lines shown now.
- `file`: the signature of the MEMORY.md written for this version: a file that still
  has it is no edit. Recorded before the file is put in place, so no file ever names
  a version without its record (a crash leaves a record of a file never shown).
- `lines`: the bullets shown, each with the first version that showed it exactly so.

Only lines shown now are kept (no history of removed lines): a memory deleted from
the store leaves no text here once MEMORY.md is written again.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import tzinfo
import json
import logging
from pathlib import Path
import re
import secrets
from typing import Any, Final

from ..storage.durable import write_atomically
from ..storage.models import Memory
from ..storage.untrusted_file import Signature
from ..storage.yielding import yielding
from .markdown import memory_line, render_lines
from .sections import section_of

_LOGGER = logging.getLogger(__name__)

FORMAT: Final = "assist_memory_markdown_base"
_MARKER: Final = re.compile(
    r"^<!-- assist-memory ([0-9a-f]{8})/(\d{1,18}) -->[ \t]*$", re.MULTILINE
)
_LINES_PER_PIECE: Final = 2000
_MARKER_LINE: Final = re.compile(
    r"\n<!-- assist-memory [0-9a-f]{8}/\d{1,18} -->[ \t]*\n?\Z"
)


# One bullet as MEMORY.md shows it, and since which version exactly so: (memory id,
# section key (`sections.py`: the category, and whose), text, since). A plain tuple, not a class: one is kept per memory for as
# long as the store is open, and Python's garbage collector stops tracking a tuple of
# strings and numbers, while it walks every instance of a class at each full pass (a
# start at 100 000 memories paid two passes of about 100 ms in its first seconds).
type ShownLine = tuple[str, str, str, int]


def bullet_of(line: ShownLine) -> tuple[str, str]:
    """(section key, text), as `parse_markdown` reads the bullet back."""
    return (line[1], line[2])


@dataclass(frozen=True, slots=True)
class WrittenBase:
    """One written state of MEMORY.md (see the module's description)."""

    lineage: str
    version: int
    changed: int
    file: Signature | None
    lines: tuple[ShownLine, ...]

    def body(self) -> str:
        """The bullets under their headers, as a person reads them."""
        return render_lines(bullet_of(line) for line in self.lines)

    def text(self) -> str:
        """MEMORY.md as written for this version: the body, then the version line."""
        return f"{self.body()}\n<!-- assist-memory {self.lineage}/{self.version} -->\n"

    def showing(self, ordered: Sequence[Memory], zone: tzinfo) -> WrittenBase:
        """The base after writing these memories (in rendered order).

        Ends are said in the home's time zone `zone`.
        """
        bullets = [
            (m.id, section_of(m), memory_line(m, zone)) for m in yielding(ordered)
        ]
        old = {line[:3]: line[3] for line in yielding(self.lines)}
        if list(old) == bullets:
            return self  # the same lines: the same version
        version = self.version + 1
        removed = not set(old).issubset(bullets)
        return WrittenBase(
            lineage=self.lineage,
            version=version,
            changed=version if removed else self.changed,
            file=None,
            lines=tuple(
                (i, category, text, old.get((i, category, text), version))
                for i, category, text in yielding(bullets)
            ),
        )

    def edit_version(self, text: str) -> int | None:
        """The version an edit says it was made on, if it is one of this lineage."""
        for match in _MARKER.finditer(text):
            lineage, version = match.group(1), int(match.group(2))
            if lineage == self.lineage and version <= self.version:
                return version
        return None


def without_version(text: str) -> str:
    """An edit's text without the version line (what a person reads)."""
    return _MARKER_LINE.sub("", text)


def first_base() -> WrittenBase:
    """The base before anything was written: a new lineage, nothing shown."""
    return WrittenBase(secrets.token_hex(4), 0, 0, None, ())


def load_base(path: Path) -> WrittenBase | None:
    """The recorded base; None when there is none or it cannot be read."""
    try:
        document = json.loads(path.read_bytes())
        return WrittenBase(
            lineage=_text(document["lineage"]),
            version=_number(document["version"]),
            changed=_number(document["changed"]),
            file=None if document["file"] is None else _signature(document["file"]),
            lines=tuple(
                (_text(i), _text(category), _text(text), _number(since))
                for i, category, text, since in yielding(document["lines"])
            ),
        )
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as err:
        # Without a base, edits are merged as if made on nothing: bullets are added,
        # none is removed. Never a reason to stop.
        _LOGGER.warning(
            "Ignored %s, which cannot be read (%s)", path, type(err).__name__
        )
        return None


def save_base(path: Path, base: WrittenBase) -> None:
    """Replace the recorded base (atomically and durably)."""
    write_atomically(path, [encode_base(base)])


def encode_base(base: WrittenBase) -> str:
    """The recorded base as its file holds it (JSON)."""
    lines = base.lines
    return "".join(
        encode_base_blocks(
            base,
            [
                encode_lines(lines[start : start + _LINES_PER_PIECE])
                for start in range(0, len(lines), _LINES_PER_PIECE)
            ],
        )
    )


def encode_base_blocks(base: WrittenBase, blocks: Sequence[str]) -> Iterator[str]:
    """`encode_base` in pieces, from `base.lines` encoded in blocks (`encode_lines`).

    The same JSON as `json.dumps` of the whole document; blocks are never empty.
    """
    head: dict[str, Any] = {
        "format": FORMAT,
        "lineage": base.lineage,
        "version": base.version,
        "changed": base.changed,
        "file": None if base.file is None else list(base.file),
    }
    yield json.dumps(head, ensure_ascii=False)[:-1] + ', "lines": ['
    for number, block in enumerate(blocks):
        if number:
            yield ", "
        yield block
    yield "]}"


def encode_lines(lines: Sequence[ShownLine]) -> str:
    """Consecutive shown lines as the base's JSON list holds them (one call to JSON)."""
    return json.dumps(list(lines), ensure_ascii=False)[1:-1]


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(value)
    return value


def _number(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise TypeError(value)
    return value


def _signature(value: object) -> Signature:
    if not isinstance(value, list) or len(value) != 3:
        raise TypeError(value)
    ino, size, mtime = (_number(v) for v in value)
    return (ino, size, mtime)
