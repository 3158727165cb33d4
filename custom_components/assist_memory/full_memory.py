"""A full memory says so: a repair issue while it has stopped learning, and its fix.

The store tells when its limit refused something (`Fullness.learning_stopped`), and
the coordinator reads it with the counts. While that holds, Home Assistant shows a
repair issue whose fix flow offers the ways out; the issue goes away by itself when
there is room again (the next count without a stop).
"""

from __future__ import annotations

from typing import Any

from homeassistant.components.repairs import RepairsFlow, RepairsFlowResult
from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers import issue_registry as ir
from homeassistant.helpers.selector import (
    NumberSelector,
    NumberSelectorConfig,
    NumberSelectorMode,
)
import probatio

from .const import (
    CONF_EVICTION_THRESHOLD,
    CONF_MAX_ITEMS,
    CONF_STORAGE,
    DOMAIN,
    STORAGE_REMOTE,
)
from .engine import MemoryEngineError, StoreStats
from .engine.config import MAX_ITEMS
from .engine.storage.settings import StoreSettings
from .options import async_apply_options
from .panel import PANEL_URL_PATH
from .runtime_data import AssistMemoryConfigEntry

ISSUE_MEMORY_FULL = "memory_full"
# The highest limit the settings allow.
_MOST = MAX_ITEMS.maximum or 1_000_000


def memory_full_issue_id(entry: AssistMemoryConfigEntry) -> str:
    """The repair issue of one entry's full memory."""
    return f"{ISSUE_MEMORY_FULL}_{entry.entry_id}"


@callback
def async_watch_fullness(hass: HomeAssistant, entry: AssistMemoryConfigEntry) -> None:
    """Raise the repair issue while the memory has stopped learning, clear it after."""
    coordinator = entry.runtime_data.coordinator
    issue_id = memory_full_issue_id(entry)

    @callback
    def _async_update() -> None:
        if not coordinator.last_update_success:
            return  # a memory server away: nothing is known
        stats = coordinator.data
        if stats.fullness.learning_stopped:
            ir.async_create_issue(
                hass,
                DOMAIN,
                issue_id,
                data={"entry_id": entry.entry_id},
                is_fixable=True,
                is_persistent=False,
                severity=ir.IssueSeverity.WARNING,
                translation_key=ISSUE_MEMORY_FULL,
                translation_placeholders={
                    "title": entry.title,
                    "max_items": str(stats.max_items),
                },
            )
        else:
            ir.async_delete_issue(hass, DOMAIN, issue_id)

    entry.async_on_unload(coordinator.async_add_listener(_async_update))
    _async_update()


class MemoryFullRepairFlow(RepairsFlow):
    """The ways out of a full memory, each explained, chosen from a menu."""

    def __init__(self, entry: AssistMemoryConfigEntry) -> None:
        self.entry = entry

    @property
    def _stats(self) -> StoreStats:
        return self.entry.runtime_data.coordinator.data

    async def async_step_init(
        self, user_input: dict[str, Any] | None = None
    ) -> RepairsFlowResult:
        """The choices; compacting only when an LLM is set to compact."""
        choices = ["raise_limit", "evict"]
        if self.entry.runtime_data.backend.compaction_enabled:
            choices.append("compact")
        choices.append("manage")
        return self.async_show_menu(
            step_id="init",
            menu_options=choices,
            description_placeholders=self._placeholders(),
        )

    async def async_step_raise_limit(
        self, user_input: dict[str, Any] | None = None
    ) -> RepairsFlowResult:
        """Keep more memories: a higher `max_items`."""
        stats = self._stats
        if user_input is not None:
            return await self._async_change(max_items=int(user_input[CONF_MAX_ITEMS]))
        suggested = min(_MOST, max(stats.max_items * 2, stats.count + 1))
        return self.async_show_form(
            step_id="raise_limit",
            data_schema=probatio.Schema(
                {
                    probatio.Required(
                        CONF_MAX_ITEMS, default=suggested
                    ): _count_selector(stats.count + 1)
                }
            ),
            description_placeholders=self._placeholders(),
        )

    async def async_step_evict(
        self, user_input: dict[str, Any] | None = None
    ) -> RepairsFlowResult:
        """Make room by forgetting the least useful memories above a threshold."""
        stats = self._stats
        if user_input is not None:
            return await self._async_change(
                eviction_threshold=int(user_input[CONF_EVICTION_THRESHOLD])
            )
        return self.async_show_form(
            step_id="evict",
            data_schema=probatio.Schema(
                {
                    probatio.Required(
                        CONF_EVICTION_THRESHOLD, default=stats.max_items
                    ): _count_selector(1)
                }
            ),
            description_placeholders=self._placeholders(),
        )

    async def async_step_compact(
        self, user_input: dict[str, Any] | None = None
    ) -> RepairsFlowResult:
        """Merge duplicates and near-duplicates with the LLM now."""
        if user_input is None:
            return self.async_show_form(
                step_id="compact", description_placeholders=self._placeholders()
            )
        try:
            result = await self.entry.runtime_data.backend.compact()
        except MemoryEngineError:
            result = None
        if result is None:
            return self.async_abort(reason="compaction_failed")
        return await self._async_done()

    async def async_step_manage(
        self, user_input: dict[str, Any] | None = None
    ) -> RepairsFlowResult:
        """Delete memories by hand: the issue stays until there is room."""
        return self.async_abort(
            reason="open_manager", description_placeholders=self._placeholders()
        )

    async def _async_change(self, **limits: int) -> RepairsFlowResult:
        """Apply new limits: the options of an embedded memory, a server's settings."""
        entry = self.entry
        if entry.data.get(CONF_STORAGE) == STORAGE_REMOTE:
            stats = self._stats
            current = {
                CONF_MAX_ITEMS: stats.max_items,
                CONF_EVICTION_THRESHOLD: stats.eviction_threshold,
            }
            current.update(limits)
            await entry.runtime_data.backend.set_settings(
                StoreSettings(
                    max_items=current[CONF_MAX_ITEMS],
                    max_content_length=stats.max_content_length,
                    eviction_threshold=current[CONF_EVICTION_THRESHOLD],
                    retrieval_limit=stats.retrieval_limit,
                )
            )
        else:
            # The update listener applies them to the running memory at once.
            self.hass.config_entries.async_update_entry(
                entry, options={**entry.options, **limits}
            )
            await async_apply_options(self.hass, entry)
        return await self._async_done()

    async def _async_done(self) -> RepairsFlowResult:
        """Count again (clearing the issue when there is room) and finish."""
        await self.entry.runtime_data.coordinator.async_refresh()
        return self.async_create_entry(data={})

    def _placeholders(self) -> dict[str, str]:
        stats = self._stats
        return {
            "count": str(stats.count),
            "max_items": str(stats.max_items),
            "manager": f"/{PANEL_URL_PATH}",
        }


def _count_selector(minimum: int) -> NumberSelector:
    return NumberSelector(
        NumberSelectorConfig(
            min=minimum,
            max=_MOST,
            step=1,
            mode=NumberSelectorMode.BOX,
            unit_of_measurement="memories",
        )
    )


async def async_create_memory_full_flow(
    hass: HomeAssistant, data: dict[str, Any] | None
) -> RepairsFlow | None:
    """The fix flow of an entry's full memory, or None when the entry is gone."""
    entry_id = (data or {}).get("entry_id")
    entry = hass.config_entries.async_get_entry(str(entry_id)) if entry_id else None
    if entry is None or entry.domain != DOMAIN or not hasattr(entry, "runtime_data"):
        return None
    return MemoryFullRepairFlow(entry)
