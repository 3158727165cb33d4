"""The REST API's compaction preview: what compacting would change, then applying it.

`POST /api/auto-memory/compact/preview` answers the plan without writing anything;
`POST /api/auto-memory/compact/apply` with its `revision` applies exactly that plan,
or answers a fresh preview (`applied: false`) when the memories changed since.
"""

from __future__ import annotations

from typing import Final

from ..memory.compaction import CompactionResult
from .memory_routes import COMPACTION_OFF, SKIPPED, check_compaction_enabled
from .routing import ApiHost, ApiRequest, Route, body_object, body_text


async def preview(host: ApiHost, request: ApiRequest) -> object:
    """What compacting now would remove, rewrite and add (nothing is written)."""
    await check_compaction_enabled(host)
    planned = await host.backend.preview_compaction()
    return {"message": SKIPPED} if planned is None else planned.to_dict()


async def apply(host: ApiHost, request: ApiRequest) -> object:
    """Apply the preview of a revision, or answer a fresh one."""
    revision = body_text(body_object(request), "revision")
    await check_compaction_enabled(host)
    answer = await host.backend.apply_compaction(revision)
    if answer is None:
        return {"message": SKIPPED}
    if isinstance(answer, CompactionResult):
        return {"applied": True, **answer.to_dict()}
    return {"applied": False, "preview": answer.to_dict()}


COMPACTION_ROUTES: Final[tuple[Route, ...]] = (
    Route("POST", "/api/auto-memory/compact/preview", "previewCompaction",
          "What compacting now would change", preview,
          answer="CompactionPreviewAnswer", conflict=COMPACTION_OFF),
    Route("POST", "/api/auto-memory/compact/apply", "applyCompaction",
          "Apply a previewed compaction", apply, body="CompactionApply",
          answer="CompactionApplyAnswer", conflict=COMPACTION_OFF),
)  # fmt: skip
