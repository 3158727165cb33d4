"""Config and options flows for Assist Memory."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from homeassistant.config_entries import ConfigFlow, ConfigFlowResult
from homeassistant.const import CONF_TOKEN, CONF_URL
from homeassistant.core import callback
from homeassistant.helpers.aiohttp_client import async_get_clientsession
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
from homeassistant.helpers.service_info.hassio import HassioServiceInfo
import probatio
from yarl import URL

from .const import (
    CONF_AGENT_ID,
    CONF_ATOMIC_CONTENT_MAX_LENGTH,
    CONF_AUTO_EXTRACT,
    CONF_COMPACTION_ENABLED,
    CONF_COMPACTION_THRESHOLD,
    CONF_CONTEXT_LIMIT,
    CONF_CONTEXT_SIZE,
    CONF_CONVERSATION_RETENTION_DAYS,
    CONF_DAILY_LOG_RETENTION_DAYS,
    CONF_EMBEDDING_API_KEY,
    CONF_EMBEDDING_LOCAL,
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
    CONF_MEMORY_ENABLED,
    CONF_PIPELINE_AGENT,
    CONF_PROMPT_MODE,
    CONF_RAG_TOP_N,
    CONF_SAY_LEARNT,
    CONF_SESSION_SUMMARY_LIMIT,
    CONF_STORAGE,
    CONF_VOICE_FORGET_HOUSEHOLD,
    DOMAIN,
    LOGGER,
    STORAGE_EMBEDDED,
    STORAGE_REMOTE,
    VOICE_FORGET_ADMINS,
    VOICE_FORGET_ANYONE,
)
from .engine.config import SETTINGS_BY_KEY, AnySetting
from .engine.model.embeddings import EmbeddingClient, EmbeddingError
from .options import DEFAULT_OPTIONS, HA_DEFAULTS, embedding_config, store_path
from .options_speakers import SpeakersOptionsSteps
from .pipeline import is_memory_agent, pipelines_loaded
from .runtime_data import AssistMemoryConfigEntry
from .server_connection import async_check_server


def _remote_data(url: str, token: str) -> dict[str, str]:
    """Entry data of a memory server."""
    return {CONF_STORAGE: STORAGE_REMOTE, CONF_URL: url, CONF_TOKEN: token}


def setting_selector(setting: AnySetting) -> Any:
    """The form field of a memory setting, from the engine's settings table.

    A number's unit is translated (`selector.<unit>.unit_of_measurement` in
    strings.json).
    """
    if isinstance(setting.default, bool):
        return BooleanSelector()
    if isinstance(setting.default, int):
        config = NumberSelectorConfig(
            min=setting.minimum or 0,
            max=setting.maximum or 0,
            step=1,
            mode=NumberSelectorMode.BOX,
        )
        if setting.unit:
            config["unit_of_measurement"] = setting.unit
            config["translation_key"] = setting.unit
        return NumberSelector(config)
    return SelectSelector(
        SelectSelectorConfig(options=list(setting.choices), translation_key=setting.key)
    )


# The options that are Home Assistant's own (not in the engine's settings table).
HA_SELECTORS: dict[str, Any] = {
    CONF_AGENT_ID: ConversationAgentSelector(ConversationAgentSelectorConfig()),
    CONF_EXTRACTOR_ENTITY: EntitySelector(
        EntitySelectorConfig(domain=["ai_task", "conversation"])
    ),
    CONF_EMBEDDING_URL: TextSelector(TextSelectorConfig(type=TextSelectorType.URL)),
    CONF_EMBEDDING_MODEL: TextSelector(),
    CONF_EMBEDDING_API_KEY: TextSelector(
        TextSelectorConfig(type=TextSelectorType.PASSWORD)
    ),
    CONF_VOICE_FORGET_HOUSEHOLD: SelectSelector(
        SelectSelectorConfig(
            options=[VOICE_FORGET_ADMINS, VOICE_FORGET_ANYONE],
            translation_key=CONF_VOICE_FORGET_HOUSEHOLD,
        )
    ),
    CONF_EMBEDDING_LOCAL: BooleanSelector(),
    CONF_SAY_LEARNT: BooleanSelector(),
}
# The options, one menu step each, in the order shown.
OPTION_KEYS: dict[str, list[str]] = {
    "memory": [CONF_MAX_ITEMS, CONF_MAX_CONTENT_LENGTH, CONF_EVICTION_THRESHOLD],
    "agent": [
        CONF_MEMORY_ENABLED,
        CONF_AGENT_ID,
        CONF_PROMPT_MODE,
        CONF_MEMORY_BUDGET,
        CONF_ENABLE_USER_PROFILE,
        CONF_SESSION_SUMMARY_LIMIT,
        CONF_ENABLE_AGENTIC_SEARCH,
        CONF_VOICE_FORGET_HOUSEHOLD,
        CONF_SAY_LEARNT,
    ],
    "learning": [
        CONF_AUTO_EXTRACT,
        CONF_EXTRACTOR_ENTITY,
        CONF_EXTRACT_MIN_INTERVAL,
        CONF_EXTRACT_MIN_MESSAGES,
        CONF_ATOMIC_CONTENT_MAX_LENGTH,
        CONF_CONTEXT_SIZE,
        CONF_FLUSH_THRESHOLD,
        CONF_CONTEXT_LIMIT,
        CONF_LEARN_FROM_OTHER_AGENTS,
        CONF_COMPACTION_ENABLED,
        CONF_COMPACTION_THRESHOLD,
    ],
    "search": [
        CONF_RAG_TOP_N,
        CONF_EMBEDDING_LOCAL,
        CONF_EMBEDDING_URL,
        CONF_EMBEDDING_MODEL,
        CONF_EMBEDDING_API_KEY,
    ],
    "privacy": [CONF_CONVERSATION_RETENTION_DAYS, CONF_DAILY_LOG_RETENTION_DAYS],
}
# Each step's (key, selector); numbers are stored as int.
OPTION_STEPS: dict[str, list[tuple[str, Any]]] = {
    step: [
        (
            key,
            setting_selector(SETTINGS_BY_KEY[key])
            if key in SETTINGS_BY_KEY
            else HA_SELECTORS[key],
        )
        for key in keys
    ]
    for step, keys in OPTION_KEYS.items()
}
# Options that may be empty: a cleared field removes them.
OPTIONAL_OPTIONS = {
    CONF_AGENT_ID,
    CONF_EXTRACTOR_ENTITY,
    CONF_EMBEDDING_URL,
    CONF_EMBEDDING_MODEL,
    CONF_EMBEDDING_API_KEY,
}


SERVER_SCHEMA = probatio.Schema(
    {
        probatio.Required(CONF_URL): TextSelector(
            TextSelectorConfig(type=TextSelectorType.URL)
        ),
        probatio.Required(CONF_TOKEN): TextSelector(
            TextSelectorConfig(type=TextSelectorType.PASSWORD)
        ),
    }
)
TOKEN_SCHEMA = probatio.Schema(
    {
        probatio.Required(CONF_TOKEN): TextSelector(
            TextSelectorConfig(type=TextSelectorType.PASSWORD)
        )
    }
)
# Reconfiguring: an empty token keeps the current one.
RECONFIGURE_SCHEMA = probatio.Schema(
    {
        probatio.Required(CONF_URL): TextSelector(
            TextSelectorConfig(type=TextSelectorType.URL)
        ),
        probatio.Optional(CONF_TOKEN): TextSelector(
            TextSelectorConfig(type=TextSelectorType.PASSWORD)
        ),
    }
)
TITLE = "Assist Memory"
# Example addresses shown under the URL fields; placeholders, so translations never
# carry an address.
SERVER_PLACEHOLDERS = {"server_example": "http://192.168.1.20:8099"}
OPTION_PLACEHOLDERS = {
    "search": {"embedding_example": "http://homeassistant.local:11434"}
}


def _url_error(url: str) -> str | None:
    """The error key of a URL that cannot be a memory server's, else None."""
    try:
        parsed = URL(url)
    except ValueError:
        return "invalid_url"
    return None if parsed.scheme in ("http", "https") and parsed.host else "invalid_url"


class AssistMemoryConfigFlow(ConfigFlow, domain=DOMAIN):
    """Set up Assist Memory: the store in Home Assistant's config folder, or a server.

    One entry only: the memory agent, the services and the panel use "the" memory.
    The add-on announces its server by Supervisor discovery (host, port, token).
    The flow refuses a second entry itself: the manifest's `single_config_entry`
    would make Home Assistant abort every discovery while an entry exists, so a
    reinstalled add-on (a new token) could no longer update its entry.
    """

    VERSION = 1

    def __init__(self) -> None:
        self._server: dict[str, str] = {}
        self._addon = ""

    async def async_step_user(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Choose where the memories are kept."""
        if self._async_current_entries():
            return self.async_abort(reason="single_instance_allowed")
        return self.async_show_menu(step_id="user", menu_options=["embedded", "server"])

    async def async_step_embedded(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Confirm, showing where the memories will be kept."""
        if user_input is not None:
            return self._async_create({CONF_STORAGE: STORAGE_EMBEDDED}, user_input)
        return self.async_show_form(
            step_id="embedded",
            data_schema=probatio.Schema(self._pipeline_field()),
            description_placeholders={"path": str(store_path(self.hass))},
        )

    async def async_step_server(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Connect to a memory server by URL and token (tried first)."""
        errors: dict[str, str] = {}
        if user_input is not None:
            url = user_input[CONF_URL].strip().rstrip("/")
            token = user_input[CONF_TOKEN].strip()
            if error := _url_error(url) or await async_check_server(
                self.hass, url, token
            ):
                errors["base"] = error
            else:
                return self._async_create(_remote_data(url, token), user_input)
        return self.async_show_form(
            step_id="server",
            data_schema=self.add_suggested_values_to_schema(
                SERVER_SCHEMA.extend(self._pipeline_field()),
                {
                    key: value
                    for key, value in (user_input or {}).items()
                    if key != CONF_TOKEN
                },
            ),
            errors=errors,
            description_placeholders=SERVER_PLACEHOLDERS,
        )

    async def async_step_hassio(
        self, discovery_info: HassioServiceInfo
    ) -> ConfigFlowResult:
        """The add-on's server, announced by the Supervisor."""
        config = discovery_info.config
        host, port, token = config.get("host"), config.get("port"), config.get("token")
        if isinstance(port, str) and port.isdigit():
            port = int(port)
        if not (
            isinstance(host, str)
            and host
            and type(port) is int
            and 0 < port < 65536
            and isinstance(token, str)
            and token
        ):
            return self.async_abort(reason="invalid_discovery_info")
        url = f"http://{host}:{port}"
        await self.async_set_unique_id(discovery_info.slug)
        # A known add-on may come back on another host, port or token: follow it.
        self._abort_if_unique_id_configured(updates=_remote_data(url, token))
        if self._async_current_entries(include_ignore=False):
            return self.async_abort(reason="single_instance_allowed")
        if error := await async_check_server(self.hass, url, token):
            return self.async_abort(reason=error)
        self._server = _remote_data(url, token)
        self._addon = discovery_info.name
        return await self.async_step_hassio_confirm()

    async def async_step_hassio_confirm(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Confirm using the add-on's server."""
        if user_input is not None:
            return self._async_create(self._server, user_input)
        if not (field := self._pipeline_field()):
            self._set_confirm_only()
        return self.async_show_form(
            step_id="hassio_confirm",
            data_schema=probatio.Schema(field),
            description_placeholders={"addon": self._addon},
        )

    async def async_step_reauth(
        self, entry_data: Mapping[str, Any]
    ) -> ConfigFlowResult:
        """The server refused the token."""
        return await self.async_step_reauth_confirm()

    async def async_step_reauth_confirm(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Ask for the server's current token."""
        entry = self._get_reauth_entry()
        url = entry.data[CONF_URL]
        errors: dict[str, str] = {}
        if user_input is not None:
            token = user_input[CONF_TOKEN].strip()
            if error := await async_check_server(self.hass, url, token):
                errors["base"] = error
            else:
                return self.async_update_reload_and_abort(
                    entry, data_updates={CONF_TOKEN: token}
                )
        return self.async_show_form(
            step_id="reauth_confirm",
            data_schema=TOKEN_SCHEMA,
            errors=errors,
            description_placeholders={"url": url},
        )

    async def async_step_reconfigure(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Change the server's URL or token."""
        entry = self._get_reconfigure_entry()
        if entry.data.get(CONF_STORAGE) != STORAGE_REMOTE:
            return self.async_abort(reason="reconfigure_embedded")
        errors: dict[str, str] = {}
        if user_input is not None:
            url = user_input[CONF_URL].strip().rstrip("/")
            token = (user_input.get(CONF_TOKEN) or "").strip() or entry.data[CONF_TOKEN]
            if error := _url_error(url) or await async_check_server(
                self.hass, url, token
            ):
                errors["base"] = error
            else:
                return self.async_update_reload_and_abort(
                    entry, data_updates=_remote_data(url, token)
                )
        return self.async_show_form(
            step_id="reconfigure",
            data_schema=self.add_suggested_values_to_schema(
                RECONFIGURE_SCHEMA,
                {CONF_URL: (user_input or {}).get(CONF_URL, entry.data[CONF_URL])},
            ),
            errors=errors,
            description_placeholders=SERVER_PLACEHOLDERS,
        )

    def _pipeline_field(self) -> dict[Any, BooleanSelector]:
        """The last step's offer to put the memory agent in Assist (on by default).

        Only offered when Home Assistant has Assist pipelines.
        """
        if not pipelines_loaded(self.hass):
            return {}
        return {probatio.Optional(CONF_PIPELINE_AGENT, default=True): BooleanSelector()}

    def _async_create(
        self, data: dict[str, Any], last_step: dict[str, Any]
    ) -> ConfigFlowResult:
        """The entry; the first setup makes the memory agent the pipeline's if asked."""
        # Another flow may have finished while this one waited for the person.
        if self._async_current_entries(include_ignore=False):
            return self.async_abort(reason="single_instance_allowed")
        if last_step.get(CONF_PIPELINE_AGENT):
            data = {**data, CONF_PIPELINE_AGENT: True}
        return self.async_create_entry(
            title=TITLE, data=data, options=dict(DEFAULT_OPTIONS)
        )

    @staticmethod
    @callback
    def async_get_options_flow(
        config_entry: AssistMemoryConfigEntry,
    ) -> AssistMemoryOptionsFlow:
        """The options: what the memory keeps, gives and learns."""
        return AssistMemoryOptionsFlow()


class AssistMemoryOptionsFlow(SpeakersOptionsSteps):
    """The options, in six parts; saving a part applies it to the running memory.

    "Who is speaking" is `options_speakers.py`.

    `options.async_apply_options` (the entry's update listener) applies them, or
    reloads the entry for the few the store is opened with.
    """

    async def async_step_init(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Choose which options to change."""
        steps = [*OPTION_STEPS, "speakers"]
        if self.config_entry.data.get(CONF_STORAGE) == STORAGE_REMOTE:
            # A memory server's limits and retention are its own (its settings).
            steps.remove("memory")
            steps.remove("privacy")
        return self.async_show_menu(step_id="init", menu_options=steps)

    async def async_step_memory(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Limits of the store."""
        return await self._async_options_step("memory", user_input)

    async def async_step_privacy(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """How long conversations and daily logs are kept."""
        return await self._async_options_step("privacy", user_input)

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
        current = {
            **DEFAULT_OPTIONS,
            **HA_DEFAULTS,
            **self.config_entry.options,
            **(user_input or {}),
        }
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
        return self.async_show_form(
            step_id=step,
            data_schema=schema,
            errors=errors,
            description_placeholders=OPTION_PLACEHOLDERS.get(step),
        )

    async def _option_error(self, options: dict[str, Any]) -> str | None:
        """A translation key when the options cannot work, else None."""
        for key in (CONF_AGENT_ID, CONF_EXTRACTOR_ENTITY):
            if (agent_id := options.get(key)) and is_memory_agent(self.hass, agent_id):
                return "agent_is_memory_agent"
        if options.get(CONF_COMPACTION_ENABLED) and not options.get(
            CONF_EXTRACTOR_ENTITY
        ):
            return "compaction_needs_llm"
        return await self._embedding_error(options)

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
            client = EmbeddingClient(config, session=async_get_clientsession(self.hass))
            await client.async_embed(["Assist Memory connection test"])
        except EmbeddingError as err:
            LOGGER.warning("The embedding endpoint did not work: %s", err.message)
            return "embedding_failed"
        return None
