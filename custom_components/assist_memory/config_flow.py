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
    TextSelector,
    TextSelectorConfig,
    TextSelectorType,
)
import probatio

from .const import (
    CONF_EMBEDDING_API_KEY,
    CONF_EMBEDDING_MODEL,
    CONF_EMBEDDING_URL,
    CONF_EVICTION_THRESHOLD,
    CONF_MAX_CONTENT_LENGTH,
    CONF_MAX_ITEMS,
    CONF_RAG_TOP_N,
    CONF_STORAGE,
    DOMAIN,
    LOGGER,
    STORAGE_EMBEDDED,
)
from .engine.embeddings import EmbeddingClient, EmbeddingError
from .options import DEFAULT_OPTIONS, embedding_config, store_path

# Whole-number options and their ranges.
NUMBER_OPTIONS: dict[str, tuple[int, int]] = {
    CONF_MAX_ITEMS: (0, 1_000_000),
    CONF_MAX_CONTENT_LENGTH: (1, 100_000),
    CONF_RAG_TOP_N: (1, 50),
    CONF_EVICTION_THRESHOLD: (0, 1_000_000),
}
# Optional text options and how they are typed in.
TEXT_OPTIONS: dict[str, TextSelectorType] = {
    CONF_EMBEDDING_URL: TextSelectorType.URL,
    CONF_EMBEDDING_MODEL: TextSelectorType.TEXT,
    CONF_EMBEDDING_API_KEY: TextSelectorType.PASSWORD,
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
    """Change the store's limits, retrieval and embeddings; the entry reloads."""

    async def async_step_init(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Show and save the options; an embedding endpoint is tried first."""
        errors: dict[str, str] = {}
        if user_input is not None:
            options = {**self.config_entry.options}
            options.update({key: int(user_input[key]) for key in NUMBER_OPTIONS})
            for key in TEXT_OPTIONS:  # a cleared field removes the option
                if value := str(user_input.get(key) or "").strip():
                    options[key] = value
                else:
                    options.pop(key, None)
            if error := await self._embedding_error(options):
                errors["base"] = error
            else:
                return self.async_create_entry(data=options)
        current = {**DEFAULT_OPTIONS, **self.config_entry.options, **(user_input or {})}
        schema = probatio.Schema(
            {
                **{
                    probatio.Required(key, default=current[key]): NumberSelector(
                        NumberSelectorConfig(
                            min=low, max=high, step=1, mode=NumberSelectorMode.BOX
                        )
                    )
                    for key, (low, high) in NUMBER_OPTIONS.items()
                },
                **{
                    probatio.Optional(
                        key, description={"suggested_value": current.get(key)}
                    ): TextSelector(TextSelectorConfig(type=kind))
                    for key, kind in TEXT_OPTIONS.items()
                },
            }
        )
        return self.async_show_form(step_id="init", data_schema=schema, errors=errors)

    async def _embedding_error(self, options: dict[str, Any]) -> str | None:
        """A translation key when the embedding settings do not work, else None."""
        if not options.get(CONF_EMBEDDING_URL) and not options.get(
            CONF_EMBEDDING_MODEL
        ):
            return None
        config = embedding_config(options)
        if config is None:
            return "embedding_incomplete"
        try:
            await self.hass.async_add_executor_job(
                EmbeddingClient(config).embed, ["Assist Memory connection test"]
            )
        except EmbeddingError as err:
            LOGGER.warning("The embedding endpoint did not work: %s", err.message)
            return "embedding_failed"
        return None
