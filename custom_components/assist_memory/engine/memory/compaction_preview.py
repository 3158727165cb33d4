"""Compaction shown before it is applied: a dry run, then applying exactly that plan.

`preview()` asks the LLM as a compaction does and plans the changes with the same
code (`plan_compaction`), against the household's memories as they are, but writes
nothing: no store change, no backup, no MEMORY.md. It answers what would be removed,
rewritten and added, with a revision: a fingerprint of the memories it was planned on.

`apply(revision)` applies the plan of that preview without asking the LLM again. When
the memories changed since (or the preview is unknown: another one was made, the
server restarted), nothing is applied: a fresh preview is made and answered instead,
so nobody applies a plan they have not seen. Applied, it is a compaction like any
other: backed up first, undone by `MemoryCompactor.undo`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
import hashlib
import json
from typing import Any

from ..storage.models import HOUSEHOLD_SCOPE, Memory
from .compaction import CompactionResult, MemoryCompactor, plan_compaction


@dataclass(frozen=True, slots=True)
class CompactionPreview:
    """What a compaction would do, and the revision it was planned on."""

    revision: str
    original_count: int
    compacted_count: int
    removed: list[Memory]
    # (the memory as it is, its new text, its new category)
    rewritten: list[tuple[Memory, str, str]]
    # (category, text) of the new memories
    added: list[tuple[str, str]]
    # The plan itself, for `apply`: the facts the LLM was shown and its bullets.
    base: list[Memory] = field(repr=False, compare=False)
    bullets: list[tuple[str, str]] = field(repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form of the REST API."""
        return {
            "revision": self.revision,
            "originalCount": self.original_count,
            "compactedCount": self.compacted_count,
            "removed": [_fact(m) for m in self.removed],
            "rewritten": [
                {**_fact(memory), "newContent": text, "newCategory": category}
                for memory, text, category in self.rewritten
            ],
            "added": [
                {"category": category, "content": text} for category, text in self.added
            ],
        }


def preview_from_dict(answer: Mapping[str, Any]) -> CompactionPreview:
    """A preview as the REST API answers it (the server keeps the plan)."""

    def fact(item: Mapping[str, Any]) -> Memory:
        return Memory(
            id=str(item["id"]),
            content=str(item["content"]),
            category=str(item["category"]),
        )

    return CompactionPreview(
        revision=str(answer["revision"]),
        original_count=int(answer["originalCount"]),
        compacted_count=int(answer["compactedCount"]),
        removed=[fact(item) for item in answer["removed"]],
        rewritten=[
            (fact(item), str(item["newContent"]), str(item["newCategory"]))
            for item in answer["rewritten"]
        ],
        added=[(str(a["category"]), str(a["content"])) for a in answer["added"]],
        base=[],
        bullets=[],
    )


def preview_answer(answer: Mapping[str, Any]) -> CompactionPreview | None:
    """The REST API's preview answer: a preview, or None for a message."""
    return preview_from_dict(answer) if "revision" in answer else None


def applied_answer(
    answer: Mapping[str, Any],
) -> CompactionResult | CompactionPreview | None:
    """The REST API's apply answer: the counts, a fresh preview, or None."""
    if answer.get("applied") is False:
        return preview_from_dict(answer["preview"])
    return result_answer(answer)


def result_answer(answer: Mapping[str, Any]) -> CompactionResult | None:
    """The REST API's compaction answer: the counts, or None for a message."""
    if "originalCount" not in answer:
        return None
    return CompactionResult(int(answer["originalCount"]), int(answer["compactedCount"]))


def _fact(memory: Memory) -> dict[str, str]:
    return {"id": memory.id, "content": memory.content, "category": memory.category}


def revision_of(memories: Iterable[Memory]) -> str:
    """A fingerprint of the household's memories: any change to one changes it."""
    digest = hashlib.sha256()
    for memory in sorted(memories, key=lambda m: m.id):
        if memory.scope == HOUSEHOLD_SCOPE:
            fields = (memory.id, memory.updated_at, memory.category, memory.content)
            digest.update(json.dumps(fields, ensure_ascii=False).encode())
    return digest.hexdigest()[:32]


class CompactionPreviews:
    """Dry runs of a `MemoryCompactor`, and applying the newest one unchanged."""

    def __init__(self, compactor: MemoryCompactor) -> None:
        self.compactor = compactor
        self._latest: CompactionPreview | None = None

    async def preview(self) -> CompactionPreview | None:
        """What a compaction would do now; None without an LLM, facts or an answer."""
        compactor = self.compactor
        llm = compactor.llm
        if llm is None:
            return None
        base = await compactor.run(compactor.facts)  # read only: nothing written
        if not base:
            return None
        bullets = await compactor.ask(llm, base)
        if bullets is None:
            return None
        preview = _preview(base, bullets)
        self._latest = preview
        return preview

    async def apply(self, revision: str) -> CompactionResult | CompactionPreview | None:
        """Apply the preview of `revision` without asking the LLM again.

        Answers its result; a fresh preview when the memories changed since (nothing
        applied); or None (skipped or failed). A change made while it is applied is
        kept, as during any compaction (`plan_compaction`).
        """
        latest = self._latest
        # A hand edit of MEMORY.md is taken in first: it changes the revision too.
        await self.compactor.run(self.compactor.engine.reconcile_markdown)
        now = revision_of(await self.compactor.run(self.compactor.facts))
        if latest is None or latest.revision != revision or now != revision:
            return await self.preview()
        self._latest = None
        return await self.compactor.apply(latest.base, latest.bullets)


def _preview(base: list[Memory], bullets: list[tuple[str, str]]) -> CompactionPreview:
    """The changes `bullets` make to `base`, planned as the compaction plans them."""
    current = {m.id: m for m in base}
    plan = plan_compaction(base, bullets, current)
    rewritten = [
        (memory, text or memory.content, category or memory.category)
        for memory_id, text, category in plan.updates
        if (memory := current[memory_id])
    ]
    removed = [current[memory_id] for memory_id in plan.deletes]
    return CompactionPreview(
        revision=revision_of(base),
        original_count=len(base),
        compacted_count=len(base) - len(removed) + len(plan.adds),
        removed=removed,
        rewritten=rewritten,
        added=list(plan.adds),
        base=base,
        bullets=bullets,
    )
