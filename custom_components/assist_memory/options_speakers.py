"""The options' "Who is speaking": whose voice devices, guest devices, presence.

One page per person, named by name ("Bob's voice devices"): a form field's label is a
translation by key, so a field per person could only be labelled with its key. The
pages go through the people by name, then the guest devices and presence; nothing is
saved before the last page. A device speaks for one person: given to someone on a
page, it is taken from whoever had it (a guest's too), and the last page offers as
guest devices only those nobody has. With no voice device to offer (none has talked
to Assist yet), one page says so and offers presence only.

The options keep the same shape (`devices_person.<person>`, `guest_devices`,
`presence`: see `speaker.py`).
"""

from __future__ import annotations

from typing import Any, Final

from homeassistant.config_entries import ConfigFlowResult, OptionsFlow
from homeassistant.helpers.selector import (
    BooleanSelector,
    SelectOptionDict,
    SelectSelector,
    SelectSelectorConfig,
    SelectSelectorMode,
)
import probatio

from .speaker import (
    CONF_GUEST_DEVICES,
    CONF_PRESENCE,
    DEVICES_PERSON_PREFIX,
    PERSON_DOMAIN,
    devices_option_key,
)
from .voice_devices import async_voice_devices

CONF_DEVICES: Final = "devices"


class SpeakersOptionsSteps(OptionsFlow):
    """The options flow's "Who is speaking" pages."""

    # The choices made on the pages so far, saved together on the last page.
    _speakers: dict[str, Any]
    # The people still to ask about: (person entity, name), by name.
    _people: list[tuple[str, str]]
    _people_count: int
    # Device id -> its name, for the pages' fields.
    _offered: dict[str, str]

    async def async_step_speakers(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Start: the people by name, and the devices to offer them."""
        options = self.config_entry.options
        self._speakers = {
            key: list(value)
            for key, value in options.items()
            if key.startswith(DEVICES_PERSON_PREFIX) and isinstance(value, list)
        }
        self._speakers[CONF_GUEST_DEVICES] = list(options.get(CONF_GUEST_DEVICES) or ())
        self._speakers[CONF_PRESENCE] = bool(options.get(CONF_PRESENCE))
        self._offered = await async_voice_devices(self.hass)
        # A device given before and gone since stays choosable (to remove it).
        for key, devices in self._speakers.items():
            if key == CONF_PRESENCE:
                continue
            for device_id in devices:
                self._offered.setdefault(device_id, device_id)
        self._people = sorted(
            (
                (state.entity_id, state.name)
                for state in self.hass.states.async_all(PERSON_DOMAIN)
            ),
            key=lambda person: person[1].casefold(),
        )
        self._people_count = len(self._people)
        if not self._offered:
            return await self.async_step_no_voice_devices()
        return await self._async_next_page()

    async def async_step_person_devices(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """One person's voice devices."""
        person, name = self._people[0]
        key = devices_option_key(person)
        if user_input is not None:
            chosen = list(user_input.get(CONF_DEVICES) or ())
            for other, devices in self._speakers.items():
                if other not in (key, CONF_PRESENCE):
                    devices[:] = [d for d in devices if d not in chosen]
            self._speakers[key] = chosen
            self._people.pop(0)
            return await self._async_next_page()
        number = self._people_count - len(self._people) + 1
        return self.async_show_form(
            step_id="person_devices",
            data_schema=probatio.Schema(
                {
                    probatio.Optional(
                        CONF_DEVICES,
                        description={"suggested_value": self._speakers.get(key, [])},
                    ): self._device_field(self._offered)
                }
            ),
            description_placeholders={
                "person": name,
                "number": str(number),
                "count": str(self._people_count),
            },
            last_step=False,
        )

    async def async_step_guests(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """The last page: guest devices and presence; then everything is saved."""
        if user_input is not None:
            self._speakers[CONF_GUEST_DEVICES] = list(
                user_input.get(CONF_GUEST_DEVICES) or ()
            )
            self._speakers[CONF_PRESENCE] = bool(user_input.get(CONF_PRESENCE))
            return self._async_save()
        given = {
            device_id
            for key, devices in self._speakers.items()
            if key.startswith(DEVICES_PERSON_PREFIX)
            for device_id in devices
        }
        # A person's device cannot be a guest's: only the others are offered.
        offered = {
            device_id: label
            for device_id, label in self._offered.items()
            if device_id not in given or device_id in self._speakers[CONF_GUEST_DEVICES]
        }
        fields: dict[Any, Any] = {}
        if offered:
            fields[
                probatio.Optional(
                    CONF_GUEST_DEVICES,
                    description={"suggested_value": self._speakers[CONF_GUEST_DEVICES]},
                )
            ] = self._device_field(offered)
        fields[
            probatio.Required(CONF_PRESENCE, default=self._speakers[CONF_PRESENCE])
        ] = BooleanSelector()
        return self.async_show_form(
            step_id="guests", data_schema=probatio.Schema(fields)
        )

    async def async_step_no_voice_devices(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """No voice device has talked to Assist yet: presence only."""
        if user_input is not None:
            self._speakers[CONF_PRESENCE] = bool(user_input.get(CONF_PRESENCE))
            return self._async_save()
        return self.async_show_form(
            step_id="no_voice_devices",
            data_schema=probatio.Schema(
                {
                    probatio.Required(
                        CONF_PRESENCE, default=self._speakers[CONF_PRESENCE]
                    ): BooleanSelector()
                }
            ),
        )

    async def _async_next_page(self) -> ConfigFlowResult:
        if self._people:
            return await self.async_step_person_devices()
        return await self.async_step_guests()

    def _async_save(self) -> ConfigFlowResult:
        """The entry's other options, and these (a person with none is left out)."""
        options = {
            key: value
            for key, value in self.config_entry.options.items()
            if not key.startswith(DEVICES_PERSON_PREFIX)
        }
        options.update(
            (key, value)
            for key, value in self._speakers.items()
            if not key.startswith(DEVICES_PERSON_PREFIX) or value
        )
        return self.async_create_entry(data=options)

    @staticmethod
    def _device_field(offered: dict[str, str]) -> SelectSelector:
        return SelectSelector(
            SelectSelectorConfig(
                options=[
                    SelectOptionDict(value=device_id, label=label)
                    for device_id, label in offered.items()
                ],
                multiple=True,
                mode=SelectSelectorMode.DROPDOWN,
            )
        )
