"""The Markdown view of memory: MEMORY.md from memories, and back.

`MEMORY.md` is rendered from the store; a hand-edited copy is turned back into
changes. Pure functions, no I/O. The format:

    # Memory

    ## Preferences

    - Likes black coffee in the morning

    ## Facts

    - The spare key is under the blue flowerpot

One `## <Category>` section per category that has memories (in `CATEGORIES` order), one
`- bullet` per memory (oldest first, on one line, its first letter capitalised as the
memory manager shows it): the household's first, then each
person's under a header of their own (`sections.py`: whose a section is). Reading
accepts more than it writes: headers in any case, plural or singular, in English or
Chinese; `-`, `*` or `+` bullets; indented continuation lines. A bullet before any
header, or under a header that names no category, is a note; a first-level header
that names no person goes back to the household.

`plan_reconcile` compares the bullets with the memories they were rendered from and
says what changed, keeping ids (and so access statistics) wherever a line survives.
Bullets are (section key, text): a key is the category for the household's, and names
the person too for a person's (`sections.section_key`).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import tzinfo
import heapq
from itertools import groupby
from operator import itemgetter
import re
import time
from typing import Final
import unicodedata

from ..language.date_phrases import until_phrase
from ..language.time_phrases import last_day_of
from ..storage.models import (
    CATEGORIES,
    HOUSEHOLD_SCOPE,
    Memory,
    ReconcilePlan,
    parse_time,
)
from ..storage.yielding import yielding
from .sections import (
    header_person,
    person_header,
    section_key,
    section_of,
    split_section,
)

TITLE: Final = "# Memory"
EMPTY_HINT: Final = (
    "_No memories yet. Add one as a bullet (`- ...`) under a heading such as "
    "`## Preferences` or `## Facts`._"
)
CATEGORY_TITLES: Final[Mapping[str, str]] = {
    "preference": "Preferences",
    "fact": "Facts",
    "pattern": "Patterns",
    "event": "Events",
    "person": "People",
    "routine": "Routines",
    "note": "Notes",
}
_HEADER_NAMES: Final[Mapping[str, tuple[str, ...]]] = {
    "preference": ("preference", "preferences", "偏好", "喜好"),
    "fact": ("fact", "facts", "事实", "事實"),
    "pattern": ("pattern", "patterns", "习惯", "習慣", "模式"),
    "event": ("event", "events", "事件"),
    "person": ("person", "persons", "people", "人物"),
    "routine": ("routine", "routines", "日常", "例行"),
    "note": ("note", "notes", "笔记", "筆記", "备注", "備註"),
}
HEADER_CATEGORIES: Final[Mapping[str, str]] = {
    name: category
    for category, names in _HEADER_NAMES.items()
    for name in (*names, CATEGORY_TITLES[category].casefold())
}
NOTE: Final = "note"
_ORDER: Final = {category: index for index, category in enumerate(CATEGORIES)}
# Memories sorted at once before the lock is given away (about half a millisecond).
_SORT_SLICE: Final = 2000

_HEADER: Final = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
_CLOSING_HASHES: Final = re.compile(r"(?:^|[ \t]+)#+$")
_BULLET: Final = re.compile(r"^[ \t]*[-*+](?:[ \t]+(.*))?$")
# Above this many line pairs, a block of changed lines is paired in order instead of by
# similarity (the pairing compares every old line with every new one).
_MAX_SIMILARITY_PAIRS: Final = 2500
_LINES_PER_PIECE: Final = 2000


# The end a line shows after the memory: "(until 6 Dec)", "(至12月6日)".
_UNTIL_SHOWN: Final = re.compile(
    r"\s*\((?:until \d{1,2} [A-Z][a-z]{2}(?: \d{4})?|至(?:\d{4}年)?\d{1,2}月\d{1,2}日)\)$"
)
_HAN: Final = re.compile(r"[\u4e00-\u9fff]")


def one_line(text: str) -> str:
    """Whitespace (newlines included) collapsed to single spaces, ends trimmed."""
    return " ".join(text.split())


def as_shown(text: str) -> str:
    """A memory as people read it: "my bike is red" reads "My bike is red".

    Its first letter capitalised, as the memory manager shows it; stored as said.
    """
    return text[:1].upper() + text[1:] if text[:1].islower() else text


def memory_line(memory: Memory, zone: tzinfo) -> str:
    """A memory's bullet text: its content on one line, as shown, and its end.

    The end (when it has one) is the last day it holds in the home's time zone `zone`, its year said
    when it is not the year the memory was made.
    """
    text = as_shown(one_line(memory.content))
    if memory.expires_at is None:
        return text
    last = last_day_of(parse_time(memory.expires_at, "expires_at"), zone)
    language = "zh" if _HAN.search(text) else "en"
    made = parse_time(memory.created_at, "created_at").date()
    return f"{text} ({until_phrase(last, language, today=made)})"


def bullet_content(text: str) -> str:
    """A bullet's text without the end its line shows (that is not content)."""
    return _UNTIL_SHOWN.sub("", text)


def rendered_order(memories: Iterable[Memory]) -> list[Memory]:
    """Memories in the order MEMORY.md shows them: by category, then oldest first.

    Sorted in slices, then merged, giving other threads the interpreter's lock as it
    goes: one sort of 100 000 memories held it for 25 to 35 ms, which a search on
    another thread waited out (the order is the same: both sorts are stable).
    """
    items = list(memories)
    if len(items) <= _SORT_SLICE:
        return sorted(items, key=_shown_order)
    slices = []
    for start in range(0, len(items), _SORT_SLICE):
        slices.append(sorted(items[start : start + _SORT_SLICE], key=_shown_order))
        time.sleep(0)  # gives the interpreter's lock to a waiting thread
    return list(yielding(heapq.merge(*slices, key=_shown_order)))


def _shown_order(memory: Memory) -> tuple[bool, str, int, str]:
    """The household's first, then each person's (`sections.section_rank`)."""
    scope = memory.scope
    person = scope != HOUSEHOLD_SCOPE
    return (
        person,
        scope if person else "",
        _ORDER.get(memory.category, len(_ORDER)),
        memory.created_at,
    )


def render_markdown(memories: Iterable[Memory], zone: tzinfo) -> str:
    """MEMORY.md for these memories (one string join, fine for 100 000 of them).

    Ends are said in the home's time zone `zone`.
    """
    return render_ordered(rendered_order(memories), zone)


def render_ordered(ordered: Iterable[Memory], zone: tzinfo) -> str:
    """MEMORY.md for memories already in `rendered_order`."""
    return render_lines(
        (section_of(memory), memory_line(memory, zone)) for memory in ordered
    )


def render_lines(bullets: Iterable[tuple[str, str]]) -> str:
    """MEMORY.md for (section key, text) bullets already in rendered order."""
    sections = (
        (category, [f"- {one_line(text)}" for _, text in group])
        for category, group in groupby(bullets, key=itemgetter(0))
    )
    return "".join(render_sections(sections))


def render_sections(sections: Iterable[tuple[str, Sequence[str]]]) -> Iterator[str]:
    """MEMORY.md in pieces, from its bullet lines ("- text") under their sections.

    The pieces are a few thousand lines each: a large file is written without one
    long join holding the interpreter's lock.
    """
    return render_blocks(
        (
            category,
            [
                "\n".join(lines[start : start + _LINES_PER_PIECE])
                for start in range(0, len(lines), _LINES_PER_PIECE)
            ],
        )
        for category, lines in sections
    )


def render_blocks(sections: Iterable[tuple[str, Sequence[str]]]) -> Iterator[str]:
    """MEMORY.md in pieces, from each section's bullet lines already joined in blocks.

    Sections come in rendered order (the household's, then each person's, whose
    first section opens with the person's header). A block is consecutive bullet
    lines joined by newlines, never empty.
    """
    yield f"{TITLE}\n"
    empty = True
    whose = HOUSEHOLD_SCOPE
    for key, blocks in sections:
        if not blocks:
            continue
        category, scope = split_section(key)
        gap = "\n" if empty else "\n\n"
        if scope != whose:
            whose = scope
            yield f"{gap}{person_header(scope)}\n"
            gap = "\n"
        title = CATEGORY_TITLES.get(category, category.title())
        yield f"{gap}## {title}\n\n"
        empty = False
        for number, block in enumerate(blocks):
            if number:
                yield "\n"
            yield block
    if empty:
        yield f"\n{EMPTY_HINT}"
    yield "\n"


def header_category(title: str) -> str | None:
    """The category a header names ("Preferences", "facts:", "人物"), or None."""
    name = unicodedata.normalize("NFKC", title).strip().rstrip(":").strip().casefold()
    return HEADER_CATEGORIES.get(name)


def parse_markdown(text: str) -> list[tuple[str, str]]:
    """The bullets of a MEMORY.md as (section key, text), in document order.

    Continuation lines (indented, after a bullet) are joined to it, blank lines
    between them included; any other line ends the bullet and is ignored. A header
    naming a person starts that person's sections; a first-level header naming none
    goes back to the household's.
    """
    bullets: list[tuple[str, str]] = []
    category = NOTE
    scope = HOUSEHOLD_SCOPE
    parts: list[str] | None = None

    def finish() -> None:
        if parts is not None and (bullet := one_line(" ".join(parts))):
            bullets.append((section_key(category, scope), bullet))

    for line in text.splitlines():
        if (header := _HEADER.match(line)) is not None:
            finish()
            parts = None
            title = _CLOSING_HASHES.sub("", header.group(2) or "")
            if (person := header_person(title)) is not None:
                scope, category = person, NOTE
                continue
            if len(header.group(1)) == 1:
                scope = HOUSEHOLD_SCOPE
            category = header_category(title) or NOTE
        elif (bullet := _BULLET.match(line)) is not None:
            finish()
            parts = [bullet.group(1) or ""]
        elif not line.strip():
            continue
        elif parts is not None and line[0] in " \t":
            parts.append(line)
        else:
            finish()
            parts = None
    finish()
    return bullets


def plan_reconcile(
    current: Sequence[Memory], parsed: Sequence[tuple[str, str]], zone: tzinfo
) -> ReconcilePlan:
    """The changes that turn `current` into the `parsed` bullets.

    `current` is compared as MEMORY.md shows it in the home's time zone `zone`.

    1. A bullet identical (whitespace aside) to a memory keeps it; under another
       header only its category changes. Identical bullets take distinct memories
       while there are some, the same header first.
    2. Per category, the other memories and bullets are aligned with
       `difflib.SequenceMatcher` in rendered order, the kept lines as anchors. In each
       changed block old and new lines pair up one to one as content updates (by
       similarity when the counts differ); the surplus are deletes or adds.
    """
    from difflib import SequenceMatcher  # only when a file is edited: a lean start

    ordered = rendered_order(current)
    old_texts = {m.id: memory_line(m, zone) for m in ordered}
    sections = {m.id: section_of(m) for m in ordered}
    texts = [one_line(text) for _, text in parsed]
    plan = ReconcilePlan()
    kept: dict[int, Memory] = {}  # bullet index -> the memory it keeps
    kept_ids: set[str] = set()

    def keep(index: int, candidates: list[Memory]) -> Memory:
        memory = candidates.pop()
        kept[index] = memory
        kept_ids.add(memory.id)
        return memory

    # Candidate lists are built back to front: pop() takes the first in rendered order.
    same_header: dict[tuple[str, str], list[Memory]] = {}
    for memory in reversed(ordered):
        key = (sections[memory.id], old_texts[memory.id])
        same_header.setdefault(key, []).append(memory)
    for index, (category, _) in enumerate(parsed):
        if candidates := same_header.get((category, texts[index])):
            keep(index, candidates)
    if unmatched := [index for index in range(len(parsed)) if index not in kept]:
        elsewhere: dict[str, list[Memory]] = {}
        for memory in reversed(ordered):
            if memory.id not in kept_ids:
                elsewhere.setdefault(old_texts[memory.id], []).append(memory)
        for index in unmatched:
            if candidates := elsewhere.get(texts[index]):
                memory = keep(index, candidates)
                plan.updates.append((memory.id, None, parsed[index][0]))

    # Step 2, per category, with the kept lines as anchors: they compare by id, the
    # others by text (a kept line never equals another line).
    old_lines: dict[str, list[Memory]] = defaultdict(list)
    for memory in ordered:
        old_lines[sections[memory.id]].append(memory)
    new_lines: dict[str, list[int]] = defaultdict(list)
    for index, (category, _) in enumerate(parsed):
        if index not in kept or sections[kept[index].id] == category:
            new_lines[category].append(index)

    def old_key(memory: Memory) -> tuple[bool, str]:
        if memory.id in kept_ids:
            return True, memory.id
        return False, old_texts[memory.id]

    def new_key(index: int) -> tuple[bool, str]:
        if index in kept:
            return True, kept[index].id
        return False, texts[index]

    for category in dict.fromkeys((*old_lines, *new_lines)):
        old = old_lines.get(category, [])
        new = new_lines.get(category, [])
        if all(m.id in kept_ids for m in old) and all(i in kept for i in new):
            continue  # nothing changed under this header
        matcher = SequenceMatcher(
            None, [old_key(m) for m in old], [new_key(i) for i in new], autojunk=False
        )
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag != "equal":
                _pair_block(
                    plan,
                    category,
                    [m for m in old[i1:i2] if m.id not in kept_ids],
                    [i for i in new[j1:j2] if i not in kept],
                    texts,
                    zone=zone,
                )
    return plan


def _pair_block(
    plan: ReconcilePlan,
    category: str,
    old: list[Memory],
    new: list[int],
    texts: Sequence[str],
    *,
    zone: tzinfo,
) -> None:
    """Pair changed old and new lines one to one; the rest are deletes or adds."""
    pairs = _best_pairs(
        [memory_line(m, zone) for m in old], [texts[index] for index in new]
    )
    paired_old = {i for i, _ in pairs}
    paired_new = {j for _, j in pairs}
    for i, j in pairs:
        plan.updates.append((old[i].id, bullet_content(texts[new[j]]), None))
    plan.deletes.extend(m.id for i, m in enumerate(old) if i not in paired_old)
    plan.adds.extend(
        (category, bullet_content(texts[index]))
        for j, index in enumerate(new)
        if j not in paired_new
    )


def _best_pairs(old: Sequence[str], new: Sequence[str]) -> list[tuple[int, int]]:
    """min(len) order-preserving pairs (old index, new index), the most alike ones.

    Equal counts (lines edited in place) pair in order; otherwise the pairs with the
    highest total similarity win, earlier lines first on ties.
    """
    from difflib import SequenceMatcher  # see `plan_reconcile`

    count = min(len(old), len(new))
    if len(old) == len(new) or not count or len(old) * len(new) > _MAX_SIMILARITY_PAIRS:
        return [(i, i) for i in range(count)]
    swapped = len(old) < len(new)
    long, short = (new, old) if swapped else (old, new)
    similarity = [
        [SequenceMatcher(None, a, b, autojunk=False).ratio() for b in short]
        for a in long
    ]
    # best[i][j]: highest total pairing all of short[:j] within long[:i] (j <= i).
    best = [[0.0] * (len(short) + 1) for _ in range(len(long) + 1)]
    for i in range(1, len(long) + 1):
        for j in range(1, min(i, len(short)) + 1):
            paired = best[i - 1][j - 1] + similarity[i - 1][j - 1]
            best[i][j] = paired if j == i else max(paired, best[i - 1][j])
    pairs: list[tuple[int, int]] = []
    i, j = len(long), len(short)
    while j:
        if i > j and best[i - 1][j] >= best[i][j]:
            i -= 1  # long[i - 1] stays unpaired: later lines give way first
            continue
        pairs.append((j - 1, i - 1) if swapped else (i - 1, j - 1))
        i, j = i - 1, j - 1
    pairs.reverse()
    return pairs


def rebase_plan(
    plan: ReconcilePlan,
    base: Sequence[Memory],
    current: Mapping[str, Memory],
    zone: tzinfo,
) -> ReconcilePlan:
    """A plan made against `base` (what the file showed), for the store as it is now.

    Changes made since (by this program or another) survive: deleting a memory that
    is gone already is skipped, editing one brings it back (the edit wins), and an
    added line that a newer memory already holds (under the same header) is not
    added twice.
    """
    base_by_id = {m.id: m for m in base}
    fresh = Counter(
        (section_of(m), memory_line(m, zone))
        for m in current.values()
        if m.id not in base_by_id
    )
    updates: list[tuple[str, str | None, str | None]] = []
    wanted = list(plan.adds)
    for memory_id, text, category in plan.updates:
        if memory_id in current:
            updates.append((memory_id, text, category))
        elif (old := base_by_id.get(memory_id)) is not None:
            wanted.append((category or section_of(old), text or old.content))
    adds: list[tuple[str, str]] = []
    for category, text in wanted:
        key = (category, one_line(text))
        if fresh[key]:
            fresh[key] -= 1
        else:
            adds.append((category, text))
    return ReconcilePlan(
        adds=adds,
        updates=updates,
        deletes=[d for d in plan.deletes if d in current],
    )
