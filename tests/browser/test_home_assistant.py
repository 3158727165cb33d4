"""The memory manager as Home Assistant's sidebar panel, in a real Home Assistant.

The test starts `hass` as a process on 127.0.0.1 with the integration loaded (as
script/develop does: onboarded, owner dev/dev, entry added through the config flow),
logs the browser in through Home Assistant's own auth flow, and walks through the panel.
Compaction needs an LLM: the instance also has the test integration of
ha_config/custom_components/browser_llm (an AI Task entity that compacts), chosen in
Assist Memory's options with compaction on. One test adds the integration through
Home Assistant's own pages instead (the config flow in the browser).

The documentation's pictures are screenshots of these tests: run them with
ASSIST_MEMORY_DOC_IMAGES=1 to write docs/images again.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
import json
from pathlib import Path
import re
import subprocess
import sys
import time

from playwright.sync_api import Browser, Locator, Page, expect
import pytest

from tests.support.ha_process import HomeAssistantProcess, ha_instance as ha
from tests.support.memory_server import MemoryServer

from .conftest import ROOT, free_port, post_json, stop, wait_for_http
from .flow import (
    CHINESE,
    ENGLISH,
    Labels,
    MemoryRoutes,
    Screens,
    on_a_phone,
    round_trip,
    survive_offline,
    walk_through,
)

CONFIGURATION = """
homeassistant:
  name: Assist Memory browser test
  unit_system: metric
  time_zone: UTC
  country: US
  currency: USD
api:
frontend:
conversation:
logger:
  default: warning
"""


TEST_INTEGRATIONS = Path(__file__).parent / "ha_config" / "custom_components"
LLM_ENTITY = "ai_task.browser_llm"
MEMORY_AGENT = "conversation.assist_memory"


@dataclass(frozen=True)
class HomeAssistant:
    url: str
    token: str
    config: Path


def use_llm_for_compaction(url: str, token: str, entry_id: str) -> None:
    """The options' learning step: the test LLM as extractor, compaction on."""
    flows = f"{url}/api/config/config_entries/options/flow"
    status, menu = ha.request(
        "POST", flows, json_body={"handler": entry_id}, token=token
    )
    assert status == 200, menu
    assert menu["type"] == "menu", menu
    status, form = ha.request(
        "POST",
        f"{flows}/{menu['flow_id']}",
        json_body={"next_step_id": "learning"},
        token=token,
    )
    assert status == 200, form
    answer = ha._form_input(form)
    answer.update(extractor_entity=LLM_ENTITY, compaction_enabled=True)
    status, result = ha.request(
        "POST", f"{flows}/{form['flow_id']}", json_body=answer, token=token
    )
    assert result.get("type") == "create_entry", result


@contextmanager
def running_home_assistant(
    config: Path, configuration: str, test_integration: str
) -> Iterator[tuple[str, str]]:
    """Home Assistant as a process with Assist Memory and a test integration linked
    in, onboarded: its URL and the owner's token."""
    url = f"http://127.0.0.1:{free_port()}"
    (config / "configuration.yaml").write_text(configuration)
    ha.write_http_settings(config, url)
    (config / "custom_components").mkdir()
    for integration in (
        ROOT / "custom_components" / "assist_memory",
        TEST_INTEGRATIONS / test_integration,
    ):
        (config / "custom_components" / integration.name).symlink_to(integration)
    log = (config / "test-run.log").open("wb")
    process = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "hass"),
            "--config",
            str(config),
            "--skip-pip",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        wait_for_http(f"{url}/auth/providers", process, timeout=180)
        token = ha.onboard(url)
        ha.wait_until_running(url, token)
        yield url, token
    finally:
        stop(process)
        log.close()


@pytest.fixture(scope="module")
def home_assistant(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HomeAssistant]:
    """A Home Assistant process with Assist Memory and the test LLM set up."""
    config = tmp_path_factory.mktemp("home-assistant")
    with running_home_assistant(config, CONFIGURATION, "browser_llm") as (url, token):
        llm = ha.add_integration(url, token, "browser_llm")
        assert llm.get("state", "loaded") == "loaded", llm
        entry = ha.add_integration(url, token, "assist_memory")
        assert entry.get("state", "loaded") == "loaded", entry
        use_llm_for_compaction(url, token, entry["entry_id"])
        yield HomeAssistant(url, token, config)


def login_link(
    url: str, username: str = ha.DEV_USERNAME, password: str = ha.DEV_PASSWORD
) -> str:
    """A link that logs the browser in (as dev by default): the auth callback with a
    fresh code.

    The frontend exchanges the code itself and keeps the tokens, as after its login
    form; `state` says which Home Assistant and client the code is for.
    """
    client_id = f"{url}/"
    status, flow = ha.request(
        "POST",
        f"{url}/auth/login_flow",
        json_body={
            "client_id": client_id,
            "handler": ["homeassistant", None],
            "redirect_uri": f"{client_id}?auth_callback=1",
        },
    )
    assert status == 200, flow
    status, result = ha.request(
        "POST",
        f"{url}/auth/login_flow/{flow['flow_id']}",
        json_body={
            "client_id": client_id,
            "username": username,
            "password": password,
        },
    )
    assert result.get("type") == "create_entry", result
    state = base64.b64encode(
        json.dumps({"hassUrl": url, "clientId": client_id}).encode()
    ).decode()
    return f"{url}/?auth_callback=1&code={result['result']}&state={state}"


def open_manager(page: Page, home_assistant: HomeAssistant) -> Locator:
    """Logged in as the administrator, the panel opened from the sidebar."""
    page.goto(login_link(home_assistant.url))
    link = page.locator('a[href="/assist-memory"]')
    expect(link).to_be_visible()
    link.click()
    expect(page).to_have_url(f"{home_assistant.url}/assist-memory")
    app = page.locator("assist-memory-app")
    # The first load fetches the panel's modules: allow a slow machine its time.
    expect(app.get_by_role("heading", level=1)).to_be_visible(timeout=60_000)
    return app


def converse(home_assistant: HomeAssistant, text: str, token: str = "") -> None:
    """One exchange with the memory agent, as dev or the user of `token` (waiting
    while an options reload has it away: at most two minutes)."""
    deadline = time.monotonic() + 120
    while True:
        status, answer = ha.request(
            "POST",
            f"{home_assistant.url}/api/conversation/process",
            json_body={"text": text, "agent_id": MEMORY_AGENT, "language": "en"},
            token=token or home_assistant.token,
        )
        if status != 400 or time.monotonic() > deadline:
            assert status == 200, answer
            return
        time.sleep(0.2)


def converse_and_log(home_assistant: HomeAssistant, words: Labels) -> None:
    """A conversation with the memory agent (its summary), and today's log entry.

    The entry is written to the day's file, as the memory agent's log tool would: Home
    Assistant has no route for it.
    """
    answer = post_json(
        f"{home_assistant.url}/api/conversation/process",
        {"text": words.said, "agent_id": MEMORY_AGENT, "language": "en"},
        home_assistant.token,
    )
    assert isinstance(answer, dict), answer
    assert answer.get("conversation_id"), answer
    today = datetime.now(UTC)
    daily = home_assistant.config / "data" / "prompts" / "memory" / "daily"
    daily.mkdir(parents=True, exist_ok=True)
    log = daily / f"{today.date().isoformat()}.md"
    if not log.exists():
        log.write_text(f"# {today.date().isoformat()}\n\n", encoding="utf-8")
    with log.open("a", encoding="utf-8") as file:
        file.write(f"- {today:%H:%M:%S} {words.logged}\n")


# The documentation's pictures these runs take (see flow.DOC_IMAGES_ENV).
PANEL_DOC_IMAGES = {
    "en-US": {
        "search-results": "memory-manager",
        "why-did-assist-say-that": "why-did-assist-say-that",
    },
    "zh-CN": {"phone-dark": "memory-manager-phone-dark-zh"},
}


@pytest.mark.parametrize(
    ("locale", "words"), [("en-US", ENGLISH), ("zh-CN", CHINESE)], ids=["en", "zh"]
)
def test_memory_panel(
    *,
    browser: Browser,
    home_assistant: HomeAssistant,
    screenshots: Path,
    axe: Path,
    tmp_path: Path,
    locale: str,
    words: Labels,
) -> None:
    context = browser.new_context(locale=locale, accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(30_000)
    converse_and_log(home_assistant, words)
    try:
        app = open_manager(page, home_assistant)
        page.set_default_timeout(15_000)
        screens = Screens(page, screenshots, axe, PANEL_DOC_IMAGES[locale])
        routes = MemoryRoutes(
            f"{home_assistant.url}/api/assist_memory/memory/long-term",
            home_assistant.token,
        )
        walk_through(
            page,
            app,
            words,
            screens,
            tmp_path,
            routes=routes,
            converse=lambda text: converse(home_assistant, text),
            compaction=True,
        )
        on_a_phone(
            page,
            app,
            words,
            screens,
            docs="memory-manager-phone" if locale == "en-US" else None,
        )
    finally:
        context.close()


def test_5000_memories_round_trip(
    *,
    browser: Browser,
    home_assistant: HomeAssistant,
    screenshots: Path,
    axe: Path,
    tmp_path: Path,
) -> None:
    context = browser.new_context(locale="en-US", accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(30_000)
    try:
        app = open_manager(page, home_assistant)
        round_trip(page, app, Screens(page, screenshots, axe), tmp_path, person="Dev")
    finally:
        context.close()


def test_about_me(
    *,
    browser: Browser,
    home_assistant: HomeAssistant,
    screenshots: Path,
    axe: Path,
) -> None:
    """Every user's own view (here the owner's): their memories, where each came
    from, correct and delete them, their conversations."""
    converse(home_assistant, "Remember that my bike is the green one")
    converse(home_assistant, "My daughter Lily loves dinosaurs")
    converse(home_assistant, "Is the back door locked")
    context = browser.new_context(locale="en-US")
    page = context.new_page()
    page.set_default_timeout(30_000)
    try:
        page.goto(login_link(home_assistant.url))
        link = page.locator('a[href="/assist-memory-me"]')
        expect(link).to_be_visible()
        link.click()
        app = page.locator("assist-memory-app")
        expect(app.get_by_role("heading", level=1)).to_have_text(
            "About me", timeout=60_000
        )
        screens = Screens(page, screenshots, axe)
        expect(app.get_by_role("tab")).to_have_text(["Memories", "Sessions"])
        bike = app.get_by_role("listitem").filter(has_text="bike is the green one")
        # The chips (no person to pick: these are one's own).
        expect(app.get_by_role("group", name="Who it is about")).to_have_count(0)
        origin = app.get_by_role("group", name="Where it came from")
        origin.get_by_role("button", name="Inferred by Assist", exact=True).click()
        expect(bike).to_have_count(0)
        origin.get_by_role("button", name="Stated", exact=True).click()
        expect(bike).to_be_visible()
        origin.get_by_role("button", name="Any", exact=True).click()
        # Where each came from, once, naming who said it.
        expect(bike.locator(".provenance")).to_have_text("Asked to remember by Dev")
        lily = app.get_by_role("listitem").filter(has_text="Lily loves dinosaurs")
        expect(lily.locator(".provenance")).to_have_text(
            "Said by Dev in a conversation"
        )
        expect(app.get_by_text("Someone", exact=False)).to_have_count(0)
        expect(app.get_by_text("Learned by Assist", exact=True)).to_have_count(0)
        # Learnt wording names the person, never "the user".
        expect(
            lily.get_by_text("Dev's daughter Lily loves dinosaurs", exact=True)
        ).to_be_visible()
        expect(app.get_by_text("The user", exact=False)).to_have_count(0)
        bike.get_by_text("Where this came from").click()
        expect(bike.locator(".quote")).to_have_text(
            "Remember that my bike is the green one"
        )
        screens.shot("about-me", scan=True)
        bike.get_by_role("button", name="Edit").click()
        dialog = app.get_by_role("dialog")
        dialog.get_by_label("Memory").fill("My bike is the red one")
        dialog.get_by_role("button", name="Save").click()
        edited = app.get_by_role("listitem").filter(has_text="My bike is the red one")
        expect(edited).to_be_visible()
        edited.get_by_role("button", name="Delete").click()
        status = app.locator("p.status")
        expect(status).to_contain_text("Memory deleted.")
        expect(edited).to_have_count(0)
        # Undo: the same memory back.
        status.get_by_role("button", name="Undo", exact=True).click()
        expect(status).to_have_text("Memory restored.")
        expect(edited).to_be_visible()
        # A memory of one's own, added here (never the household's).
        app.get_by_role("button", name="Add memory").click()
        dialog = app.get_by_role("dialog")
        expect(dialog.get_by_label("Who it is about")).to_have_count(0)
        dialog.get_by_label("Memory").fill("I park on the left side")
        dialog.get_by_role("button", name="Save").click()
        expect(
            app.get_by_role("listitem").filter(has_text="I park on the left side")
        ).to_be_visible()
        status_code, page_ = ha.request(
            "GET",
            f"{home_assistant.url}/api/assist_memory/memory/long-term?limit=100",
            token=home_assistant.token,
        )
        assert status_code == 200, page_
        (parked,) = [
            m for m in page_["items"] if m["content"] == "I park on the left side"
        ]
        assert parked["scope"] not in ("", "household"), parked
        screens.shot("about-me-added", scan=True)
        app.get_by_role("tab", name="Sessions", exact=True).click()
        mine = app.get_by_role("list", name="Recent conversations").get_by_role(
            "listitem"
        )
        expect(mine.filter(has_text="Is the back door locked")).to_be_visible()
        screens.shot("about-me-sessions", scan=True)
    finally:
        context.close()


# Home Assistant's own websocket commands, in the administrator's logged-in page: a
# user who is not an administrator, with a login and no person entity.
ADD_USER = """async ([name, username, password]) => {
  const hass = document.querySelector("home-assistant").hass;
  const { user } = await hass.callWS({
    type: "config/auth/create", name, group_ids: ["system-users"],
  });
  await hass.callWS({
    type: "config/auth_provider/homeassistant/create",
    user_id: user.id, username, password,
  });
  return user.id;
}"""


def open_about_me(page: Page, link: str) -> Locator:
    """Logged in through `link`, About me opened from the sidebar."""
    page.goto(link)
    page.locator('a[href="/assist-memory-me"]').click()
    app = page.locator("assist-memory-app")
    expect(app.get_by_role("heading", level=1)).to_have_text("About me", timeout=60_000)
    return app


def test_about_me_is_the_viewers_own(
    *,
    browser: Browser,
    home_assistant: HomeAssistant,
    screenshots: Path,
    axe: Path,
) -> None:
    """Anna (not an administrator, no person entity) and Dev (the owner): About me
    is each one's own, named by name; the Memory panel shows Dev everyone's, with
    whose each is, the conversations in progress, and the profile picked by person."""
    url = home_assistant.url
    dev_context = browser.new_context(locale="en-US", accept_downloads=True)
    anna_context = browser.new_context(locale="en-US")
    try:
        page = dev_context.new_page()
        page.set_default_timeout(30_000)
        # A household of one memory: Anna's answer is given it, and she may read it.
        only_the_spare_key(home_assistant, url)
        app = open_about_me(page, login_link(url))
        anna_id = page.evaluate(ADD_USER, ["Anna", "anna", "anna-password"])
        anna_token = ha.login(url, "anna", "anna-password")
        converse(
            home_assistant, "Remember that my favourite colour is blue", anna_token
        )
        converse(home_assistant, "Where is the spare key", anna_token)
        converse(home_assistant, "Is the cellar light off", anna_token)
        converse(home_assistant, "Remember that my desk is by the window")
        converse(home_assistant, "Where is the spare key")

        # Dev's About me: Dev's own, never Anna's (memories or conversations).
        app.get_by_role("tab", name="Sessions", exact=True).click()
        app.get_by_role("tab", name="Memories", exact=True).click()
        expect(app.get_by_text("My desk is by the window", exact=True)).to_be_visible()
        expect(app.get_by_text("favourite colour", exact=False)).to_have_count(0)
        app.get_by_role("tab", name="Sessions", exact=True).click()
        working = app.get_by_role("list", name="Conversations in progress")
        expect(working.get_by_text("Where is the spare key")).not_to_have_count(0)
        expect(app.get_by_text("Is the cellar light off")).to_have_count(0)
        screens = Screens(page, screenshots, axe)
        screens.shot("about-me-administrator", scan=True)

        # Anna's About me: hers, capitalised as shown (stored as said).
        anna_page = anna_context.new_page()
        anna_page.set_default_timeout(30_000)
        anna_app = open_about_me(anna_page, login_link(url, "anna", "anna-password"))
        anna_screens = Screens(anna_page, screenshots / "anna", axe)
        expect(
            anna_app.get_by_text("My favourite colour is blue", exact=True)
        ).to_be_visible()
        expect(anna_app.get_by_text("My desk is by the window")).to_have_count(0)
        anna_screens.shot("about-me", scan=True, docs="about-me")
        # Her conversations: the one in progress (read, not "none"), Assist's answer
        # on the recent one, and a new turn appears by itself.
        anna_app.get_by_role("tab", name="Sessions", exact=True).click()
        anna_working = anna_app.get_by_role("list", name="Conversations in progress")
        expect(anna_working.get_by_text("Is the cellar light off")).to_be_visible()
        expect(anna_working.get_by_text("Where is the spare key")).to_have_count(1)
        expect(anna_app.get_by_text("No conversation is active.")).to_have_count(0)
        recent = anna_app.get_by_role("list", name="Recent conversations")
        spare_key = recent.get_by_role("listitem").filter(
            has_text="Where is the spare key"
        )
        expect(spare_key.locator("p").nth(1)).not_to_be_empty()
        converse(home_assistant, "Is the back door locked", anna_token)
        expect(
            recent.get_by_role("listitem").filter(has_text="Is the back door locked")
        ).to_be_visible()
        spare_key.get_by_role("button", name="Open").click()
        expect(spare_key.get_by_role("list", name="Messages")).to_contain_text(
            "Anna: Where is the spare key"
        )
        # Why did Assist say that: the household memory her answer was given.
        spare_key.get_by_text("Why did Assist say that?").click()
        why = spare_key.locator("details.why")
        expect(why).to_contain_text("The spare key is under the blue flowerpot")
        expect(why).not_to_contain_text("(a memory since deleted)")
        anna_screens.shot("about-me-sessions", scan=True, docs="about-me-sessions")

        # The Memory panel: everyone's, each with whose it is, by name.
        page.locator('a[href="/assist-memory"]').click()
        expect(app.get_by_role("heading", level=1)).to_have_text(
            "Memory", timeout=60_000
        )
        people = app.get_by_role("group", name="Who it is about")
        expect(people.get_by_role("button", name="Anna", exact=True)).to_be_visible()
        expect(app.get_by_text(re.compile(r"Person \d"))).to_have_count(0)
        colour = app.get_by_role("listitem").filter(
            has=page.get_by_text("My favourite colour is blue", exact=True)
        )
        expect(colour.locator(".person")).to_have_text("Anna")
        app.get_by_role("tab", name="Sessions", exact=True).click()
        cards = app.get_by_role("list", name="Conversations in progress").get_by_role(
            "listitem"
        )
        annas = cards.filter(has=page.locator(".person", has_text="Anna"))
        devs = cards.filter(has=page.locator(".person", has_text="Dev"))
        # Anna's are hers: Dev sees that they are there, whose, when and how many
        # turns, never what she said, and cannot open them.
        expect(annas).not_to_have_count(0)
        for card in annas.all():
            expect(card).to_contain_text("Only Anna can read this conversation.")
            expect(card).to_contain_text("1 turn")
        expect(annas.get_by_role("button", name="Open")).to_have_count(0)
        expect(app.get_by_text("Is the cellar light off")).to_have_count(0)
        recent = app.get_by_role("list", name="Recent conversations").get_by_role(
            "listitem"
        )
        hers = recent.filter(has=page.locator(".person", has_text="Anna"))
        expect(hers.first).to_contain_text("Only Anna can read this conversation.")
        expect(hers.get_by_role("button", name="Open")).to_have_count(0)
        expect(hers.get_by_role("button", name="Delete").first).to_be_visible()
        # Dev's own open as before.
        mine = devs.filter(has_text="Where is the spare key")
        mine.get_by_role("button", name="Open").click()
        expect(mine.get_by_role("list", name="Messages")).to_contain_text(
            "Dev: Where is the spare key"
        )
        screens.shot("working-memory", scan=True, docs="working-memory")

        # MEMORY.md: the household's, then a section per person, by name alone (no
        # id in sight), each memory as the panel shows it; saved as it is it
        # changes nothing, and a line added under Anna is hers.
        app.get_by_role("tab", name="MEMORY.md & profile", exact=True).click()
        main = app.get_by_role("textbox", name="MEMORY.md", exact=True)
        expect(main).to_have_value(
            re.compile(
                r"^# Memory\n.*\n# Anna\n\n## Facts\n\n- My favourite colour is blue\n",
                re.DOTALL,
            )
        )
        expect(main).to_have_value(re.compile(r"\n# Dev\n"))
        expect(main).to_have_value(re.compile(r"- My desk is by the window"))
        expect(main).not_to_have_value(re.compile(r"<!--|person [0-9a-f]|\n- [a-z]"))
        screens.shot("memory-md-people", scan=True, docs="memory-md-people")
        app.get_by_role("button", name="Save MEMORY.md").click()
        expect(app.locator("p.status")).to_have_text(
            "MEMORY.md saved: 0 added, 0 changed, 0 removed."
        )
        expect(main).not_to_have_value(re.compile(r"<!--"))
        main.fill(
            main.input_value().replace(
                "- My favourite colour is blue\n",
                "- My favourite colour is blue\n- Anna rows on Sundays\n",
            )
        )
        app.get_by_role("button", name="Save MEMORY.md").click()
        expect(app.locator("p.status")).to_have_text(
            "MEMORY.md saved: 1 added, 0 changed, 0 removed."
        )
        status, listed = ha.request(
            "GET",
            f"{url}/api/assist_memory/memory/long-term?limit=100",
            token=home_assistant.token,
        )
        assert status == 200, listed
        scopes = {m["content"]: m["scope"] for m in listed["items"]}
        assert scopes["Anna rows on Sundays"] == anna_id
        # Stored as said.
        assert scopes["my favourite colour is blue"] == anna_id

        # The profile: Household, then each person, by name.
        whose = app.get_by_label("Whose profile")
        expect(whose.locator("option").first).to_have_text("Household")
        whose.select_option(label="Anna")
        # Anna's profile is read (the view is drawn again) before it is typed in.
        expect(app).not_to_have_attribute("aria-busy", "true")
        app.get_by_label("Profile", exact=True).fill("# Anna\n\n- Likes short answers")
        app.get_by_role("button", name="Save profile").click()
        expect(app.locator("p.status")).to_have_text("Profile saved.")
        status, profile = ha.request(
            "GET",
            f"{url}/api/assist_memory/memory/profile?scope={anna_id}",
            token=home_assistant.token,
        )
        assert status == 200, profile
        assert "Likes short answers" in profile["content"]
        screens.shot("profile-picker", scan=True)

        # The Markdown export: each memory as shown, with whose it is by name.
        app.get_by_role("tab", name="Export & import", exact=True).click()
        app.get_by_label("Format").select_option(label="Markdown (to read)")
        with page.expect_download() as info:
            app.get_by_role("button", name="Export to a file").click()
        exported = Path(info.value.path()).read_text(encoding="utf-8")
        assert "- My favourite colour is blue (Anna)" in exported
        assert anna_id not in exported
    finally:
        anna_context.close()
        dev_context.close()


def use_memory_server(url: str, token: str, server: MemoryServer) -> None:
    """Assist Memory set up on a memory server (the config flow's server step)."""
    flows = f"{url}/api/config/config_entries/flow"
    _, menu = ha.request(
        "POST", flows, json_body={"handler": "assist_memory"}, token=token
    )
    assert menu.get("type") == "menu", menu
    _, form = ha.request(
        "POST",
        f"{flows}/{menu['flow_id']}",
        json_body={"next_step_id": "server"},
        token=token,
    )
    assert form.get("step_id") == "server", form
    answer = {"url": server.url, "token": server.token}
    _, result = ha.request(
        "POST", f"{flows}/{form['flow_id']}", json_body=answer, token=token
    )
    assert result.get("type") == "create_entry", result


def test_retry_when_the_memory_server_stops(
    *, browser: Browser, tmp_path: Path, screenshots: Path, axe: Path
) -> None:
    """Home Assistant on a memory server that stops under the open panel: what
    failed is said in the reader's language with Retry, typed text is kept, and
    Retry works once the server is back."""
    server = MemoryServer(tmp_path / "server")
    server.start()
    config = tmp_path / "home-assistant"
    (config / "custom_components").mkdir(parents=True)
    url = f"http://127.0.0.1:{free_port()}"
    (config / "configuration.yaml").write_text(CONFIGURATION)
    ha.write_http_settings(config, url)
    (config / "custom_components" / "assist_memory").symlink_to(
        ROOT / "custom_components" / "assist_memory"
    )
    process = HomeAssistantProcess(config, url)
    process.start()
    context = browser.new_context(locale="en-US")
    try:
        token = ha.onboard(url)
        ha.wait_until_running(url, token)
        use_memory_server(url, token, server)
        page = context.new_page()
        page.set_default_timeout(30_000)
        app = open_manager(page, HomeAssistant(url, token, config))
        page.set_default_timeout(15_000)

        def server_down(down: bool) -> None:
            if down:
                server.stop()
            else:
                server.start()

        survive_offline(
            page,
            app,
            ENGLISH,
            server_down,
            message="Cannot reach the memory server.",
            screens=Screens(page, screenshots, axe),
        )
    finally:
        context.close()
        process.stop()
        server.stop()


def test_the_config_flow_puts_the_memory_agent_in_assist(
    *, browser: Browser, tmp_path: Path, screenshots: Path
) -> None:
    """Adding the integration from Home Assistant's own pages: where the memories live,
    then the last step's offer to use the memory agent in Assist, on by default; kept
    on, the preferred voice assistant talks to the memory agent."""
    config = tmp_path / "home-assistant"
    (config / "custom_components").mkdir(parents=True)
    url = f"http://127.0.0.1:{free_port()}"
    # Assist pipelines: the last step offers the memory agent only where they are.
    (config / "configuration.yaml").write_text(CONFIGURATION + "assist_pipeline:\n")
    ha.write_http_settings(config, url)
    (config / "custom_components" / "assist_memory").symlink_to(
        ROOT / "custom_components" / "assist_memory"
    )
    process = HomeAssistantProcess(config, url)
    process.start()
    context = browser.new_context(locale="en-US")
    try:
        token = ha.onboard(url)
        ha.wait_until_running(url, token)
        page = context.new_page()
        page.set_default_timeout(60_000)
        screens = Screens(
            page, screenshots, doc_images={"config-flow-assist": "config-flow-assist"}
        )
        # The address the "add integration" button of the documentation opens; Home
        # Assistant asks who is there first, and goes on to it.
        page.goto(f"{url}/config/integrations/dashboard/add?domain=assist_memory")
        page.get_by_role("textbox", name="Username").fill(ha.DEV_USERNAME)
        page.get_by_role("textbox", name="Password").fill(ha.DEV_PASSWORD)
        page.get_by_role("button", name="Log in").click()
        page.get_by_role("button", name="OK").click()  # "set up Assist Memory?"
        page.get_by_text("In Home Assistant's config folder").click()
        dialog = page.get_by_role("dialog")
        # The form is slotted into the dialog: found from the page.
        expect(page.get_by_text("Use the memory agent in Assist").first).to_be_visible()
        expect(page.get_by_role("switch")).to_be_checked()  # on by default
        # The dialog alone: the page behind it shows integrations of the test machine.
        screens.shot("config-flow-assist", of=dialog)
        page.get_by_role("button", name="Submit").click()
        # Created: Home Assistant offers to name the new device.
        page.get_by_role("button", name="Skip and finish").click()
        expect(page.get_by_role("dialog")).to_have_count(0)

        (entry,) = ha.config_entries(url, token, "assist_memory")
        assert entry["state"] == "loaded", entry
        # The flow already made the memory agent the preferred pipeline's agent.
        assert ha.set_pipeline_agent(url, token)["changed"] is False
    finally:
        context.close()
        process.stop()


def test_forgetting_by_voice_asks_first(
    *,
    browser: Browser,
    home_assistant: HomeAssistant,
    screenshots: Path,
    axe: Path,
) -> None:
    """In Home Assistant's Assist dialog (the memory agent in the preferred pipeline):
    "Forget the spare key" says what it would forget and asks; "no" keeps it, "yes"
    forgets it."""
    url = home_assistant.url
    added = only_the_spare_key(home_assistant, url)
    context = browser.new_context(locale="en-US")
    try:
        page = context.new_page()
        page.set_default_timeout(30_000)
        screens = Screens(page, screenshots / "forget-by-voice", axe)
        page.goto(login_link(url))
        expect(page.locator("home-assistant")).to_be_attached()
        page.wait_for_load_state("networkidle")

        def say(text: str) -> None:
            box = page.get_by_role("textbox", name=re.compile("request", re.IGNORECASE))
            box.fill(text)
            box.press("Enter")

        page.keyboard.press("a")
        # The memory agent controls the home as the agent it wraps does: no banner.
        expect(
            page.get_by_role("textbox", name=re.compile("request", re.IGNORECASE))
        ).to_be_visible()
        expect(
            page.get_by_text("This assistant cannot control your home.")
        ).to_have_count(0)
        question = "Should I forget this: The spare key is under the blue flowerpot?"
        say("Forget the spare key")
        expect(page.get_by_text(question)).to_have_count(1)
        say("no")
        expect(page.get_by_text("OK, I've kept it.")).to_be_visible()
        say("Forget the spare key")
        expect(page.get_by_text(question)).to_have_count(2)
        say("yes")
        expect(page.get_by_text("Done, I've forgotten that.")).to_be_visible()
        screens.shot("forgotten", docs="forget-by-voice")
        status, page_of = ha.request(
            "GET",
            f"{url}/api/assist_memory/memory/long-term",
            token=home_assistant.token,
        )
        assert status == 200, page_of
        assert isinstance(page_of, dict)
        assert added["id"] not in {item["id"] for item in page_of["items"]}
    finally:
        context.close()


def only_the_spare_key(home_assistant: HomeAssistant, url: str) -> dict[str, object]:
    """The household's memories: the spare key's alone (earlier tests left thousands).

    The memory added, as the REST API gives it.
    """
    status, cleared = ha.request(
        "DELETE",
        f"{url}/api/assist_memory/memory/long-term",
        token=home_assistant.token,
    )
    assert status == 200, cleared
    status, added = ha.request(
        "POST",
        f"{url}/api/assist_memory/memory/long-term",
        json_body={"content": "The spare key is under the blue flowerpot"},
        token=home_assistant.token,
    )
    assert status == 201, added
    assert isinstance(added, dict)
    return added
