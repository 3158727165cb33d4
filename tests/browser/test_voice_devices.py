"""Who is speaking, in a real Home Assistant and its frontend.

Home Assistant runs as a process with people (the owner, and Bob and Leo from YAML),
two voice devices (the test integration of ha_config/custom_components/browser_voice)
and Assist Memory. Turns come through the REST API with a `device_id`, as a
satellite's do. The test opens the options' "Who is speaking" step and the memory
manager's Review ("Who said this?"), and saves both screenshots for the user
documentation (docs/images/).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import Browser, Locator, Page, expect
import pytest

from tests.support.ha_process import ha_instance as ha

from .flow import Screens
from .test_home_assistant import (
    MEMORY_AGENT,
    login_link,
    open_manager,
    running_home_assistant,
)

CONFIGURATION = """
homeassistant:
  name: Assist Memory voice devices
  unit_system: metric
  time_zone: UTC
  country: US
  currency: USD
api:
frontend:
conversation:
person:
  - id: bob
    name: Bob
  - id: leo
    name: Leo
logger:
  default: warning
"""
TEST_INTEGRATIONS = Path(__file__).parent / "ha_config" / "custom_components"


@dataclass(frozen=True)
class Instance:
    url: str
    token: str
    entry_id: str
    kitchen: str
    bedroom: str


def device_id(url: str, token: str, name: str) -> str:
    """A device's id by its name (Home Assistant's template function)."""
    status, answer = ha.request(
        "POST",
        f"{url}/api/template",
        json_body={"template": f"{{{{ device_id('{name}') }}}}"},
        token=token,
    )
    assert status == 200, answer
    assert isinstance(answer, str), answer
    assert len(answer) == 32, answer
    return answer


@pytest.fixture(scope="module")
def instance(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Instance]:
    """Home Assistant with people, two voice devices and Assist Memory."""
    config = tmp_path_factory.mktemp("voice-devices")
    with running_home_assistant(config, CONFIGURATION, "browser_voice") as (url, token):
        ha.add_integration(url, token, "browser_voice")
        entry = ha.add_integration(url, token, "assist_memory")
        yield Instance(
            url,
            token,
            entry["entry_id"],
            device_id(url, token, "Kitchen voice"),
            device_id(url, token, "Bedroom voice"),
        )


def say(instance: Instance, text: str, device: str) -> str:
    """A turn at a voice device (no user: as a satellite sends it); the answer."""
    status, answer = ha.request(
        "POST",
        f"{instance.url}/api/services/browser_voice/say?return_response",
        json_body={"text": text, "agent_id": MEMORY_AGENT, "device_id": device},
        token=instance.token,
    )
    assert status == 200, answer
    return str(answer["service_response"]["speech"])


def give_devices(
    instance: Instance, people: dict[str, list[str]], **last: object
) -> None:
    """Save the options' "Who is speaking" through the REST API: each person's page
    (by name), then the last page's `last` values."""
    flows = f"{instance.url}/api/config/config_entries/options/flow"
    _, menu = ha.request(
        "POST", flows, json_body={"handler": instance.entry_id}, token=instance.token
    )
    assert "speakers" in menu["menu_options"], menu
    _, page = ha.request(
        "POST",
        f"{flows}/{menu['flow_id']}",
        json_body={"next_step_id": "speakers"},
        token=instance.token,
    )
    while page.get("step_id") == "person_devices":
        name = page["description_placeholders"]["person"]
        _, page = ha.request(
            "POST",
            f"{flows}/{page['flow_id']}",
            json_body={"devices": people.get(name, [])},
            token=instance.token,
        )
    assert page.get("step_id") == "guests", page
    _, done = ha.request(
        "POST", f"{flows}/{page['flow_id']}", json_body=last, token=instance.token
    )
    assert done.get("type") == "create_entry", done


def navigate(page: Page, path: str, shown: Locator) -> None:
    """Moves inside the frontend to `path` (a new page load would log out) until
    `shown` is visible.

    On a busy machine the frontend's router may not listen yet when the sidebar
    shows, and the move is lost: it is asked again. The page's parts load lazily.
    """
    for _ in range(3):
        page.evaluate(
            """(path) => {
              history.pushState(null, "", path);
              window.dispatchEvent(new CustomEvent("location-changed"));
            }""",
            path,
        )
        try:
            expect(shown).to_be_visible(timeout=40_000)
        except AssertionError:
            continue
        return
    expect(shown).to_be_visible()


def test_who_is_speaking(
    *, browser: Browser, instance: Instance, screenshots: Path, axe: Path
) -> None:
    # Nobody is given a device yet: a fact about the speaker waits for Review.
    answer = say(instance, "Remember that my dentist is Dr. Quill.", instance.kitchen)
    assert "kept that for review" in answer
    say(instance, "Remember that my bike is in the shed", instance.bedroom)
    # Bob's device from now on.
    give_devices(instance, {"Bob": [instance.bedroom]})
    assert say(instance, "Remember that my bike is the red one", instance.bedroom) == (
        "OK, I'll remember that."
    )

    context = browser.new_context(
        locale="en-US", viewport={"width": 1100, "height": 900}
    )
    page = context.new_page()
    page.set_default_timeout(30_000)
    try:
        screens = Screens(page, screenshots, axe)
        page.goto(login_link(instance.url))
        expect(page.locator('a[href="/assist-memory"]')).to_be_visible(timeout=60_000)
        configure = page.get_by_role("button", name="Configure").first
        navigate(page, "/config/integrations/integration/assist_memory", configure)
        configure.click()
        page.get_by_text("Who is speaking", exact=True).click()
        # A page per person, by name: Bob's first, with the device he was given.
        expect(page.get_by_text("Who is speaking: Bob")).to_be_visible()
        expect(page.get_by_text("Bob's voice devices").first).to_be_visible()
        expect(page.get_by_text("Bedroom voice (Bedroom)")).to_be_visible()
        expect(page.get_by_text("as if Bob were signed in and typing")).to_be_visible()
        expect(page.get_by_text("devices_person", exact=False)).to_have_count(0)
        screens.shot("options-who-is-speaking", docs="voice-devices-options")
        # Dev's page (the owner): nothing chosen, and no key anywhere.
        page.get_by_role("button", name="Next").click()
        expect(page.get_by_text("Who is speaking: Dev")).to_be_visible()
        expect(page.get_by_text("Dev's voice devices").first).to_be_visible()
        expect(page.get_by_text("Bedroom voice (Bedroom)")).to_have_count(0)
        page.get_by_role("button", name="Next").click()
        expect(page.get_by_text("Who is speaking: Leo")).to_be_visible()
        page.get_by_role("button", name="Next").click()
        # The last page: guests (Bob's device is not offered) and presence.
        expect(page.get_by_text("Use presence").first).to_be_visible()
        expect(page.get_by_text("Guest devices").first).to_be_visible()
        screens.shot("options-guests")
        page.get_by_role("button", name="Close").first.click()
        expect(page.get_by_role("dialog")).to_have_count(0)
        # The same setting has the same name here as in the memory manager.
        page.get_by_role("button", name="Configure").first.click()
        page.get_by_text("Learning from conversations", exact=True).click()
        expect(page.get_by_text("Wait between two learning runs").first).to_be_visible()
        expect(
            page.get_by_text("(the extraction interval)", exact=False)
        ).not_to_have_count(0)
        page.keyboard.press("Escape")

        app = open_manager(page, _home(instance))
        app.get_by_role("tab", name="Review", exact=True).click()
        held = app.get_by_role("list", name="Facts waiting to be given to someone")
        quill = held.get_by_role("listitem").filter(has_text="my dentist is Dr. Quill")
        expect(quill).to_contain_text("At Kitchen voice")
        expect(quill).to_contain_text("Speaker unknown")
        expect(held.get_by_role("listitem")).to_have_count(2)
        expect(app.get_by_role("heading", name="Who is speaking")).to_be_visible()
        expect(app.get_by_text("Bob: Bedroom voice")).to_be_visible()
        screens.shot("who-said-this", scan=True, docs="voice-devices-review")

        # Bob says it was his; Undo puts it back; then forgotten.
        quill.get_by_role("button", name="Bob", exact=True).click()
        status = app.locator("p.status")
        expect(status).to_contain_text("Kept for Bob.")
        expect(held.get_by_role("listitem")).to_have_count(1)
        status.get_by_role("button", name="Undo", exact=True).click()
        expect(status).to_have_text("Back in Review.")
        expect(quill).to_be_visible()
        quill.get_by_role("button", name="Forget", exact=True).click()
        expect(status).to_contain_text("Forgotten.")
        expect(quill).to_have_count(0)
        screens.shot("after-review", scan=True)

        # No LLM here: no daily log, and the page says who writes them.
        app.get_by_role("tab", name="Daily logs", exact=True).click()
        expect(app.get_by_text("Only an LLM agent writes them")).to_be_visible()
        # Settings in the options' words, with their units; nothing to undo yet.
        app.get_by_role("tab", name="Settings", exact=True).click()
        learn = app.get_by_role("switch", name="Learn from conversations", exact=True)
        expect(learn).to_be_checked()
        app.get_by_text("Advanced", exact=True).click()
        wait = app.locator("label.field").filter(
            has_text="Wait between two learning runs"
        )
        expect(wait).to_contain_text("seconds")
        expect(wait).to_contain_text("(the extraction interval)")
        for jargon in ("Seconds between extractions", "Prompt mode", "Working memory"):
            expect(app.get_by_text(jargon)).to_have_count(0)
        undo = app.get_by_role("button", name="Undo the last tidy-up")
        expect(undo).to_be_disabled()
        expect(
            app.get_by_text("Nothing to undo: no tidy-up has been done yet.")
        ).to_be_visible()
        screens.shot("settings", scan=True)
    finally:
        context.close()


@dataclass(frozen=True)
class _Home:
    url: str


def _home(instance: Instance) -> _Home:
    """What `open_manager` needs of the instance."""
    return _Home(instance.url)
