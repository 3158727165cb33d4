"""The memory manager as Home Assistant's sidebar panel, in a real Home Assistant.

The test starts `hass` as a process on 127.0.0.1 with the integration loaded (as
script/develop does: onboarded, owner dev/dev, entry added through the config flow),
logs the browser in through Home Assistant's own auth flow, and walks through the panel.
Compaction needs an LLM: the instance also has the test integration of
ha_config/custom_components/browser_llm (an AI Task entity that compacts), chosen in
Assist Memory's options with compaction on.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
import json
from pathlib import Path
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
MEMORY_AGENT = "conversation.assist_memory_memory_agent"


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


def login_link(url: str) -> str:
    """A link that logs the browser in as dev: the auth callback with a fresh code.

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
            "username": ha.DEV_USERNAME,
            "password": ha.DEV_PASSWORD,
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


def converse(home_assistant: HomeAssistant, text: str) -> None:
    """One exchange with the memory agent (waiting while an options reload has it
    away: at most two minutes)."""
    deadline = time.monotonic() + 120
    while True:
        status, answer = ha.request(
            "POST",
            f"{home_assistant.url}/api/conversation/process",
            json_body={"text": text, "agent_id": MEMORY_AGENT, "language": "en"},
            token=home_assistant.token,
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
        screens = Screens(page, screenshots, axe)
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
        on_a_phone(page, app, words, screens)
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
        origin.get_by_role("button", name="Learned by Assist", exact=True).click()
        expect(bike).to_have_count(0)
        origin.get_by_role("button", name="Stated", exact=True).click()
        expect(bike).to_be_visible()
        origin.get_by_role("button", name="Any", exact=True).click()
        bike.get_by_text("Where this came from").click()
        expect(bike).to_contain_text("asked Assist to remember this.")
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
