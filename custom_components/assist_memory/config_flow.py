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
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers.selector import (
    BooleanSelector,
    ConversationAgentSelector,
    ConversationAgentSelectorConfig,
    EntitySelector,
    EntitySelectorConfig,
    NumberSelector,
    NumberSelectorConfig,
    NumberSelectorMode,
    SelectSelector,
    SelectSelectorConfig,
    TextSelector,
    TextSelectorConfig,
    TextSelectorType,
)
import probatio

from .const import (
    CONF_AGENT_ID,
    CONF_ATOMIC_CONTENT_MAX_LENGTH,
    CONF_AUTO_EXTRACT,
    CONF_CONTEXT_LIMIT,
    CONF_CONTEXT_SIZE,
    CONF_EMBEDDING_API_KEY,
    CONF_EMBEDDING_MODEL,
    CONF_EMBEDDING_URL,
    CONF_ENABLE_AGENTIC_SEARCH,
    CONF_ENABLE_USER_PROFILE,
    CONF_EVICTION_THRESHOLD,
    CONF_EXTRACT_MIN_INTERVAL,
    CONF_EXTRACT_MIN_MESSAGES,
    CONF_EXTRACTOR_ENTITY,
    CONF_FLUSH_THRESHOLD,
    CONF_LEARN_FROM_OTHER_AGENTS,
    CONF_MAX_CONTENT_LENGTH,
    CONF_MAX_ITEMS,
    CONF_MEMORY_BUDGET,
    CONF_PROMPT_MODE,
    CONF_RAG_TOP_N,
    CONF_SESSION_SUMMARY_LIMIT,
    CONF_STORAGE,
    DOMAIN,
    LOGGER,
    PROMPT_MODE_PREFIX,
    PROMPT_MODE_SYSTEM,
    STORAGE_EMBEDDED,
)
from .engine.embeddings import EmbeddingClient, EmbeddingError
from .options import DEFAULT_OPTIONS, embedding_config, store_path


def _number(low: int, high: int) -> NumberSelector:
    return NumberSelector(
        NumberSelectorConfig(min=low, max=high, step=1, mode=NumberSelectorMode.BOX)
    )


# The options, one menu step each: (key, selector). Numbers are stored as int.
OPTION_STEPS: dict[str, list[tuple[str, Any]]] = {
    "memory": [
        (CONF_MAX_ITEMS, _number(0, 1_000_000)),
        (CONF_MAX_CONTENT_LENGTH, _number(1, 100_000)),
        (CONF_EVICTION_THRESHOLD, _number(0, 1_000_000)),
    ],
    "agent": [
        (CONF_AGENT_ID, ConversationAgentSelector(ConversationAgentSelectorConfig())),
        (
            CONF_PROMPT_MODE,
            SelectSelector(
                SelectSelectorConfig(
                    options=[PROMPT_MODE_SYSTEM, PROMPT_MODE_PREFIX],
                    translation_key=CONF_PROMPT_MODE,
                )
            ),
        ),
        (CONF_MEMORY_BUDGET, _number(200, 20_000)),
        (CONF_ENABLE_USER_PROFILE, BooleanSelector()),
        (CONF_SESSION_SUMMARY_LIMIT, _number(0, 20)),
        (CONF_ENABLE_AGENTIC_SEARCH, BooleanSelector()),
    ],
    "learning": [
        (CONF_AUTO_EXTRACT, BooleanSelector()),
        (
            CONF_EXTRACTOR_ENTITY,
            EntitySelector(EntitySelectorConfig(domain=["ai_task", "conversation"])),
        ),
        (CONF_EXTRACT_MIN_INTERVAL, _number(0, 3600)),
        (CONF_EXTRACT_MIN_MESSAGES, _number(1, 100)),
        (CONF_ATOMIC_CONTENT_MAX_LENGTH, _number(50, 2000)),
        (CONF_CONTEXT_SIZE, _number(500, 1_000_000)),
        (CONF_FLUSH_THRESHOLD, _number(10, 100)),
        (CONF_CONTEXT_LIMIT, _number(2, 200)),
        (CONF_LEARN_FROM_OTHER_AGENTS, BooleanSelector()),
    ],
    "search": [
        (CONF_RAG_TOP_N, _number(1, 50)),
        (
            CONF_EMBEDDING_URL,
            TextSelector(TextSelectorConfig(type=TextSelectorType.URL)),
        ),
        (CONF_EMBEDDING_MODEL, TextSelector()),
        (
            CONF_EMBEDDING_API_KEY,
            TextSelector(TextSelectorConfig(type=TextSelectorType.PASSWORD)),
        ),
    ],
}
# Options that may be empty: a cleared field removes them.
OPTIONAL_OPTIONS = {
    CONF_AGENT_ID,
    CONF_EXTRACTOR_ENTITY,
    CONF_EMBEDDING_URL,
    CONF_EMBEDDING_MODEL,
    CONF_EMBEDDING_API_KEY,
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
    """The options, in four parts; saving a part reloads the entry."""

    async def async_step_init(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Choose which options to change."""
        return self.async_show_menu(step_id="init", menu_options=list(OPTION_STEPS))

    async def async_step_memory(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Limits of the store."""
        return await self._async_options_step("memory", user_input)

    async def async_step_agent(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """The memory agent: which agent answers, and how memory reaches it."""
        return await self._async_options_step("agent", user_input)

    async def async_step_learning(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Learning from conversations."""
        return await self._async_options_step("learning", user_input)

    async def async_step_search(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Retrieval and the optional embedding endpoint."""
        return await self._async_options_step("search", user_input)

    async def _async_options_step(
        self, step: str, user_input: dict[str, Any] | None
    ) -> ConfigFlowResult:
        errors: dict[str, str] = {}
        fields = OPTION_STEPS[step]
        if user_input is not None:
            options = {**self.config_entry.options}
            for key, selector in fields:
                value = user_input.get(key)
                if isinstance(selector, NumberSelector):
                    options[key] = int(
                        value if value is not None else DEFAULT_OPTIONS[key]
                    )
                elif key in OPTIONAL_OPTIONS:
                    if text := str(value or "").strip():
                        options[key] = text
                    else:
                        options.pop(key, None)
                else:
                    options[key] = value
            if error := await self._option_error(options):
                errors["base"] = error
            else:
                return self.async_create_entry(data=options)
        current = {**DEFAULT_OPTIONS, **self.config_entry.options, **(user_input or {})}
        schema = probatio.Schema(
            {
                (
                    probatio.Optional(
                        key, description={"suggested_value": current.get(key)}
                    )
                    if key in OPTIONAL_OPTIONS
                    else probatio.Required(key, default=current[key])
                ): selector
                for key, selector in fields
            }
        )
        return self.async_show_form(step_id=step, data_schema=schema, errors=errors)

    async def _option_error(self, options: dict[str, Any]) -> str | None:
        """A translation key when the options cannot work, else None."""
        for key in (CONF_AGENT_ID, CONF_EXTRACTOR_ENTITY):
            if (agent_id := options.get(key)) and self._is_memory_agent(agent_id):
                return "agent_is_memory_agent"
        return await self._embedding_error(options)

    def _is_memory_agent(self, agent_id: str) -> bool:
        """The memory agent must not wrap itself or another memory agent."""
        entry = er.async_get(self.hass).async_get(agent_id)
        return entry is not None and entry.platform == DOMAIN

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
