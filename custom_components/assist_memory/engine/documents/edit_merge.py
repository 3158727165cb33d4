"""What an edit of MEMORY.md asks of the store: a three-way merge, or why it is refused.

The edit is compared with the text it was made on (its base: the version named in its
last line, rebuilt from what the engines recorded) and the differences are applied to
the store as it is now: a bullet gone from the base deletes its memory, a changed one
updates it, a new one adds a memory. Whatever was added or changed after the base was
written is left alone, so a stale editor save never costs a memory learned meanwhile.

An edit is refused whole (nothing changes; the caller keeps it aside) when it
- has no bullet at all, or names no version and shares no line with the base: it is
  not a list of these memories (prose, noise, another file);
- would remove more than `MAX_REMOVED` memories and more than `MAX_REMOVED_SHARE` of
  them (clearing the memory, or deleting one by one, does that knowingly);
- was made on an older text and changes a memory that was changed or deleted since;
- was made on an older text that cannot be rebuilt (lines were removed or changed
  since) and adds or rewrites a line: that line may be a memory deleted meanwhile.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from datetime import tzinfo
from typing import Final

from ..storage.models import Memory, ReconcilePlan
from .markdown import memory_line, one_line, parse_markdown, plan_reconcile
from .sections import section_of
from .written_base import WrittenBase, bullet_of

MAX_REMOVED: Final = 5
MAX_REMOVED_SHARE: Final = 0.2

NO_BULLETS: Final = "it has no bullets"
UNRELATED: Final = "it names no version of this MEMORY.md and shares no line with it"
CHANGED_SINCE: Final = (
    "it was made on an older MEMORY.md and changes memories that were changed or "
    "deleted since"
)
CANNOT_TELL: Final = (
    "it was made on an older MEMORY.md and adds or rewrites lines, while lines were "
    "removed or changed since (a memory deleted meanwhile cannot be told from a new one)"
)


class EditRefusedError(Exception):
    """The edit cannot be applied safely; `reason` names no content."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def removal_limit(count: int) -> int:
    """How many of `count` memories one edit may remove."""
    return max(MAX_REMOVED, int(count * MAX_REMOVED_SHARE))


def merge_edit(
    text: str, base: WrittenBase, current: Mapping[str, Memory], zone: tzinfo
) -> ReconcilePlan:
    """The store changes `text` asks for; EditRefusedError when it cannot be applied.

    The memories are shown with their ends in the home's time zone `zone`.
    """
    bullets = parse_markdown(text)
    if not bullets:
        raise EditRefusedError(NO_BULLETS)
    made_on = base.edit_version(text)
    if made_on is None:
        made_on = _newest_shared_version(base, bullets)
    # Before `changed`, versions only added lines: the older text is known in full.
    complete = base.changed <= made_on
    edited = set(bullets)
    known: dict[str, tuple[str, str]] = {}
    for line in base.lines:
        memory_id, _, _, since = line
        if since <= made_on:
            memory = current.get(memory_id)
            # An edit made on an earlier edit (saved twice) already shows the change.
            newer = None if memory is None else _bullet(memory, zone)
            same = newer is not None and newer in edited
            known[memory_id] = newer if same and newer else bullet_of(line)
    # Each as the base showed it: the section key in the category (household scope).
    shown = [
        Memory(id=memory_id, content=text, category=category)
        for memory_id, (category, text) in known.items()
    ]
    plan = plan_reconcile(shown, bullets, zone)

    def unchanged_since(memory_id: str) -> bool:
        memory = current.get(memory_id)
        return memory is not None and _bullet(memory, zone) == known[memory_id]

    deletes = []
    for memory_id in plan.deletes:
        if memory_id not in current:
            continue  # deleted meanwhile too
        if not unchanged_since(memory_id):
            raise EditRefusedError(CHANGED_SINCE)
        deletes.append(memory_id)
    updates = []
    for memory_id, new_text, category in plan.updates:
        old_category, old_text = known[memory_id]
        wanted = (category or old_category, one_line(new_text or old_text))
        memory = current.get(memory_id)
        if memory is not None and _bullet(memory, zone) == wanted:
            continue  # already so
        if not unchanged_since(memory_id):
            raise EditRefusedError(CHANGED_SINCE)
        if new_text is not None and not complete:
            raise EditRefusedError(CANNOT_TELL)
        updates.append((memory_id, new_text, category))
    # Memories the base did not show: an added line they already hold is no new one.
    fresh = Counter(_bullet(m, zone) for i, m in current.items() if i not in known)
    adds = []
    for category, new_text in plan.adds:
        bullet = (category, one_line(new_text))
        if fresh[bullet]:
            fresh[bullet] -= 1
            continue
        if not complete:
            raise EditRefusedError(CANNOT_TELL)
        adds.append((category, new_text))
    if len(deletes) > (limit := removal_limit(len(current))):
        raise EditRefusedError(
            f"it would remove {len(deletes)} of {len(current)} memories (one edit "
            f"may remove at most {limit}; clear the memory to remove them all)"
        )
    return ReconcilePlan(adds=adds, updates=updates, deletes=deletes)


def _newest_shared_version(base: WrittenBase, bullets: list[tuple[str, str]]) -> int:
    """For an edit naming no version: the newest version it surely was made on.

    The newest line it shares with the base was shown from that version on; lines
    shown only later are left alone (they may be newer than the edit).
    """
    wanted = set(bullets)
    shared = [line[3] for line in base.lines if bullet_of(line) in wanted]
    if shared:
        return max(shared)
    if base.lines:
        raise EditRefusedError(UNRELATED)
    return 0


def _bullet(memory: Memory, zone: tzinfo) -> tuple[str, str]:
    return (section_of(memory), memory_line(memory, zone))
