"""Repair issues: files kept aside instead of lost.

Files the store could not read, and hand edits of MEMORY.md that could not be applied
safely.
"""

from __future__ import annotations

from pathlib import Path

from homeassistant.components.repairs import ConfirmRepairFlow, RepairsFlow
from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers import issue_registry as ir

from .const import DOMAIN
from .engine import LoadReport

ISSUE_SET_ASIDE = "store_set_aside"
ISSUE_EDIT_REJECTED = "markdown_edit_rejected"
ISSUE_LOCAL_MODEL = "local_model_unavailable"


@callback
def async_report_local_model(hass: HomeAssistant, problem: str | None) -> None:
    """Say once that the local model cannot run here (None: it can, or is not asked)."""
    if problem is None:
        ir.async_delete_issue(hass, DOMAIN, ISSUE_LOCAL_MODEL)
        return
    ir.async_create_issue(
        hass,
        DOMAIN,
        ISSUE_LOCAL_MODEL,
        is_fixable=False,
        severity=ir.IssueSeverity.WARNING,
        translation_key=ISSUE_LOCAL_MODEL,
        translation_placeholders={"problem": problem},
    )


@callback
def async_report_set_aside_files(
    hass: HomeAssistant, store_path: Path, report: LoadReport
) -> None:
    """Raise one repair issue per file the store could not read and moved aside."""
    for moved in report.set_aside:
        ir.async_create_issue(
            hass,
            DOMAIN,
            f"{ISSUE_SET_ASIDE}_{moved.name}",
            is_fixable=True,
            is_persistent=True,
            severity=ir.IssueSeverity.WARNING,
            translation_key=ISSUE_SET_ASIDE,
            translation_placeholders={
                "store": str(store_path),
                "moved_to": str(moved),
            },
        )
    for kept_as in report.rejected_edits:
        async_report_rejected_edit(hass, kept_as)


@callback
def async_report_rejected_edit(hass: HomeAssistant, kept_as: Path) -> None:
    """Raise a repair issue for a hand edit of MEMORY.md that changed nothing."""
    ir.async_create_issue(
        hass,
        DOMAIN,
        f"{ISSUE_EDIT_REJECTED}_{kept_as.name}",
        is_fixable=True,
        is_persistent=True,
        severity=ir.IssueSeverity.WARNING,
        translation_key=ISSUE_EDIT_REJECTED,
        translation_placeholders={"kept_as": str(kept_as)},
    )


async def async_create_fix_flow(
    hass: HomeAssistant, issue_id: str, data: dict[str, str | int | float | None] | None
) -> RepairsFlow:
    """The full memory's ways out; else the person confirms they looked at the file."""
    # Here, not at the top: the fix changes options, whose module reports repairs.
    from .full_memory import ISSUE_MEMORY_FULL, async_create_memory_full_flow

    if issue_id.startswith(ISSUE_MEMORY_FULL):
        flow = await async_create_memory_full_flow(hass, data)
        if flow is not None:
            return flow
    return ConfirmRepairFlow()
