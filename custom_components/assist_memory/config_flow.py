"""Config and options flows for Assist Memory."""

from __future__ import annotations

from typing import Any

from homeassistant.config_entries import (
    ConfigEntry,
    ConfigFlow,
    ConfigFlowResult,
    OptionsFlowWithReload,
)
from homeassistant.core import callback
from homeassistant.helpers.selector import (
    NumberSelector,
    NumberSelectorConfig,
    NumberSelectorMode,
)
import probatio

from .const import (
    CONF_EVICTION_THRESHOLD,
    CONF_MAX_CONTENT_LENGTH,
    CONF_MAX_ITEMS,
    CONF_RAG_TOP_N,
    CONF_STORAGE,
    DOMAIN,
    STORAGE_EMBEDDED,
)
from .options import DEFAULT_OPTIONS, store_path

# Whole-number options and their ranges.
NUMBER_OPTIONS: dict[str, tuple[int, int]] = {
    CONF_MAX_ITEMS: (0, 1_000_000),
    CONF_MAX_CONTENT_LENGTH: (1, 100_000),
    CONF_RAG_TOP_N: (1, 50),
    CONF_EVICTION_THRESHOLD: (0, 1_000_000),
}


class AssistMemoryConfigFlow(ConfigFlow, domain=DOMAIN):
    """Set up Assist Memory with its store in Home Assistant's config folder."""

    VERSION = 1

    async def async_step_user(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Confirm, showing where the memories will be kept."""
        if user_input is not None:
            return self.async_create_entry(
                title="Assist Memory",
                data={CONF_STORAGE: STORAGE_EMBEDDED},
                options=dict(DEFAULT_OPTIONS),
            )
        return self.async_show_form(
            step_id="user",
            description_placeholders={"path": str(store_path(self.hass))},
        )

    @staticmethod
    @callback
    def async_get_options_flow(config_entry: ConfigEntry) -> AssistMemoryOptionsFlow:
        """The options: limits of the store."""
        return AssistMemoryOptionsFlow()


class AssistMemoryOptionsFlow(OptionsFlowWithReload):
    """Change the store's limits and retrieval; the entry reloads with them."""

    async def async_step_init(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Show and save the options."""
        if user_input is not None:
            options = {**self.config_entry.options}
            options.update({key: int(user_input[key]) for key in NUMBER_OPTIONS})
            return self.async_create_entry(data=options)
        current = {**DEFAULT_OPTIONS, **self.config_entry.options}
        schema = probatio.Schema(
            {
                probatio.Required(key, default=current[key]): NumberSelector(
                    NumberSelectorConfig(
                        min=low, max=high, step=1, mode=NumberSelectorMode.BOX
                    )
                )
                for key, (low, high) in NUMBER_OPTIONS.items()
            }
        )
        return self.async_show_form(step_id="init", data_schema=schema)
