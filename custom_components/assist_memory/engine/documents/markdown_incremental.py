"""MEMORY.md kept line by line: a change costs its own line, never the whole store.

`ShownDocument` holds the lines MEMORY.md shows, per section (a category of the
household's or of one person's: `sections.py`) in rendered order
(oldest first; memories of the same instant in the store's order), each line with its
rendered bullet and its encoding for the written base. It is built once from every
memory; after that a change of one memory moves, adds or removes only its own line
(a binary search and a list insert in a block of lines), and writing the file joins
again only the blocks that changed: the others' text is kept, and the file is written
block by block, never holding the interpreter's lock for long. The text and the base
it gives are exactly what rendering every memory again (`render_markdown`,
`WrittenBase.showing`) gives.

Not thread-safe: the mirror calls it under a lock of its own.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import tzinfo
from itertools import chain

from ..storage.models import Memory
from ..storage.yielding import yielding
from .markdown import memory_line, render_blocks, rendered_order
from .sections import section_of, section_rank
from .written_base import ShownLine, WrittenBase, bullet_of, encode_lines

# created_at, then the memory's place in the store (its order among equal times).
type _SortKey = tuple[str, int]
# Lines per block: a change joins this many again when the file is written, and the
# file is written in as many pieces as there are blocks.
BLOCK_LINES = 500


@dataclass(slots=True)
class _Block:
    """Consecutive lines of a section, and their text once joined."""

    keys: list[_SortKey] = field(default_factory=list)
    lines: list[ShownLine] = field(default_factory=list)
    # The bullets joined by newlines and the lines as the base encodes them; None
    # once a line changed.
    joined: tuple[str, str] | None = None

    def texts(self) -> tuple[str, str]:
        """The bullets ("- text") joined by newlines, and `encode_lines`."""
        if self.joined is None:
            bullets = "- " + "\n- ".join([text for _, _, text, _ in self.lines])
            self.joined = (bullets, encode_lines(self.lines))
        return self.joined

    def insert(self, at: int, key: _SortKey, line: ShownLine) -> None:
        self.keys.insert(at, key)
        self.lines.insert(at, line)
        self.joined = None

    def split(self) -> _Block:
        """Keep the first half; the second half as a new block."""
        half = len(self.keys) // 2
        rest = _Block(self.keys[half:], self.lines[half:])
        del self.keys[half:], self.lines[half:]
        self.joined = None
        return rest


@dataclass(slots=True)
class _Section:
    """The lines under one section's header, in rendered order, in blocks of lines.

    A change re-joins only its own block when the file is written; the other
    blocks' text is kept.
    """

    blocks: list[_Block] = field(default_factory=list)
    # Each block's first key, to find a key's block by binary search.
    firsts: list[_SortKey] = field(default_factory=list)

    def insert(self, key: _SortKey, line: ShownLine) -> None:
        if not self.blocks or (
            key > self.blocks[-1].keys[-1] and len(self.blocks[-1].keys) >= BLOCK_LINES
        ):
            # The newest (most changes, and every line of a build): a new last block.
            self.blocks.append(_Block())
            self.firsts.append(key)
        number = max(bisect_right(self.firsts, key) - 1, 0)
        block = self.blocks[number]
        block.insert(bisect_left(block.keys, key), key, line)
        self.firsts[number] = block.keys[0]
        if len(block.keys) > 2 * BLOCK_LINES:
            rest = block.split()
            self.blocks.insert(number + 1, rest)
            self.firsts.insert(number + 1, rest.keys[0])

    def remove(self, key: _SortKey) -> None:
        number, at = self._find(key)
        block = self.blocks[number]
        del block.keys[at], block.lines[at]
        block.joined = None
        if block.keys:
            self.firsts[number] = block.keys[0]
        else:
            del self.blocks[number], self.firsts[number]

    def line(self, key: _SortKey) -> ShownLine:
        number, at = self._find(key)
        return self.blocks[number].lines[at]

    def lines(self) -> Iterator[ShownLine]:
        return chain.from_iterable(block.lines for block in self.blocks)

    def _find(self, key: _SortKey) -> tuple[int, int]:
        number = bisect_right(self.firsts, key) - 1
        return number, bisect_left(self.blocks[number].keys, key)


class ShownDocument:
    """MEMORY.md's lines for the store as it is, and the base they were last written as."""

    def __init__(
        self, base: WrittenBase, memories: Sequence[Memory], zone: tzinfo
    ) -> None:
        """Every memory (in the store's order), as shown after `base` was written.

        Ends are said in the home's time zone `zone`.
        """
        self.published = base
        self.zone = zone
        # Counted up whenever a line changes (what a cached text depends on).
        self.revision = 0
        self._sections: dict[str, _Section] = {}
        self._places: dict[str, tuple[str, _SortKey]] = {}
        # The line as `published` showed it, for each memory changed since (None: none).
        self._before: dict[str, ShownLine | None] = {}
        place = {memory.id: n for n, memory in yielding(enumerate(memories))}
        self._next_place = len(memories)
        ordered = rendered_order(memories)
        shown = base.showing(ordered, zone)
        # Lines only reordered still make a new version, as a full render would.
        self._reordered = shown is not base
        for memory, line in yielding(zip(ordered, shown.lines, strict=True)):
            self._put(line, (memory.created_at, place[memory.id]))
        if self._reordered:
            old = {line[0]: line for line in yielding(base.lines)}
            for line in yielding(shown.lines):
                if (before := old.pop(line[0], None)) != line:
                    self._before[line[0]] = before
            self._before.update(old)  # no longer shown (all of them after a clear)

    def change(self, memory_id: str, memory: Memory | None) -> None:
        """Show this memory as it is now (None: deleted)."""
        place = self._places.get(memory_id)
        current = None if place is None else self._line(memory_id)
        bullet = (
            None
            if memory is None
            else (section_of(memory), memory_line(memory, self.zone))
        )
        if current is not None and bullet_of(current) == bullet:
            return
        self.revision += 1
        before = self._before.setdefault(memory_id, current)
        if place is not None:
            section, key = self._places.pop(memory_id)
            self._sections[section].remove(key)
        if memory is None or bullet is None:
            return
        if place is None:
            key = (memory.created_at, self._next_place)
            self._next_place += 1
        else:
            key = (memory.created_at, place[1][1])
        since = (
            before[3]
            if before is not None and bullet_of(before) == bullet
            else self.published.version + 1
        )
        self._put((memory_id, bullet[0], bullet[1], since), key)

    def follow(self, changes: Mapping[str, Memory | None]) -> None:
        """`change` for each memory changed, in the order they were first changed."""
        for memory_id, memory in changes.items():
            self.change(memory_id, memory)

    def shown(self) -> WrittenBase:
        """The base for writing the lines now (`published` itself when nothing changed)."""
        changed = [
            before
            for memory_id, before in self._before.items()
            if before != self._line(memory_id)
        ]
        if not changed and not self._reordered:
            return self.published
        version = self.published.version + 1
        removed = any(before is not None for before in changed)
        return WrittenBase(
            lineage=self.published.lineage,
            version=version,
            changed=version if removed else self.published.changed,
            file=None,
            lines=tuple(chain.from_iterable(s.lines() for _, s in self._in_order())),
        )

    def written(self, base: WrittenBase) -> None:
        """`base` (from `shown`, with its file) was written: it is the new reference."""
        self.published = base
        self._before.clear()
        self._reordered = False

    def body_pieces(self) -> Iterator[str]:
        """The text a person reads (`WrittenBase.body`), in pieces (one per block)."""
        return render_blocks(
            (key, [block.texts()[0] for block in section.blocks])
            for key, section in self._in_order()
        )

    def text_pieces(self, shown: WrittenBase) -> list[str]:
        """MEMORY.md as written for `shown` (`WrittenBase.text`), in pieces."""
        marker = f"\n<!-- assist-memory {shown.lineage}/{shown.version} -->\n"
        return [*self.body_pieces(), marker]

    def encoded_blocks(self) -> list[str]:
        """The lines as the written base encodes them, in blocks (`encode_base_blocks`)."""
        return [
            block.texts()[1]
            for _, section in self._in_order()
            for block in section.blocks
        ]

    def _in_order(self) -> list[tuple[str, _Section]]:
        """The sections with lines, in rendered order (the household's first)."""
        return sorted(
            (
                (key, section)
                for key, section in self._sections.items()
                if section.blocks
            ),
            key=lambda item: section_rank(item[0]),
        )

    def _put(self, line: ShownLine, key: _SortKey) -> None:
        memory_id, section, _, _ = line
        self._sections.setdefault(section, _Section()).insert(key, line)
        self._places[memory_id] = (section, key)

    def _line(self, memory_id: str) -> ShownLine | None:
        place = self._places.get(memory_id)
        if place is None:
            return None
        section, key = place
        return self._sections[section].line(key)
