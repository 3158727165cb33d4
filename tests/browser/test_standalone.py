"""The memory manager against the standalone server (a real process, token via #token=)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
import json
from pathlib import Path
import subprocess
import sys
import urllib.request

from playwright.sync_api import Browser, Locator, Page, expect
import pytest

from tests.support.server_process import clean_env, serve_command

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

STORED_TOKENS = """() => [
    localStorage.getItem("assist-memory-token"),
    sessionStorage.getItem("assist-memory-token"),
]"""


class Server:
    """`assist-memory serve` as a process that can be stopped and started again (same
    port, same data): an outage the page lives through."""

    def __init__(self, command: list[str], port: int, data_dir: Path) -> None:
        self.command = command
        self.url = f"http://127.0.0.1:{port}"
        self.data_dir = data_dir
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def token(self) -> str:
        return (self.data_dir / "token").read_text(encoding="utf-8").strip()

    def up(self) -> None:
        self.process = subprocess.Popen(
            self.command,
            env=clean_env({"MEMORY_COMPACTION_ENABLED": "true"}),
            stdout=subprocess.DEVNULL,
        )
        wait_for_http(f"{self.url}/health", self.process, timeout=60)

    def down(self) -> None:
        if self.process is not None:
            stop(self.process)
            self.process = None

    def set_down(self, down: bool) -> None:
        if down:
            self.down()
        else:
            self.up()


@pytest.fixture(scope="module")
def chat_url() -> Iterator[str]:
    """The chat stand-in that compacts, as its own process."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.support.compaction_llm", str(port)], cwd=ROOT
    )
    try:
        url = f"http://127.0.0.1:{port}/v1"
        wait_for_http(url, process, timeout=60)
        yield url
    finally:
        stop(process)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, chat_url: str) -> Iterator[Server]:
    """`assist-memory serve` with LLM compaction on, using the chat stand-in."""
    data_dir = tmp_path_factory.mktemp("standalone")
    port = free_port()
    command = serve_command(data_dir, "--llm-url", chat_url, "--llm-model", "stand-in")
    command[command.index("--port") + 1] = str(port)
    server = Server(command, port, data_dir)
    try:
        server.up()
        yield server
    finally:
        server.down()


def open_manager(page: Page, server: Server) -> Locator:
    """The manager, signed in through the link with the token."""
    page.goto(f"{server.url}/#token={server.token}")
    app = page.locator("assist-memory-app")
    expect(app.get_by_role("heading", level=1)).to_be_visible()
    return app


def converse(server: Server, session_id: str, text: str) -> None:
    """One exchange through the REST routes a Home Assistant's memory agent uses."""
    turn = {"session_id": session_id, "text": text}
    post_json(f"{server.url}/api/turns/begin", turn, server.token)
    reply = {"session_id": session_id, "user_text": text, "reply": "Green tea."}
    post_json(f"{server.url}/api/turns/end", reply, server.token)


def converse_and_log(server: Server, session_id: str, words: Labels) -> None:
    """A conversation of one exchange (its summary and working memory) and a log entry,
    through the REST routes the memory agent of a Home Assistant uses."""
    turn = {"session_id": session_id, "text": words.said}
    post_json(f"{server.url}/api/turns/begin", turn, server.token)
    reply = {"session_id": session_id, "user_text": words.said, "reply": "Yes, it is."}
    post_json(f"{server.url}/api/turns/end", reply, server.token)
    entry = {"entry": words.logged, "now": datetime.now(UTC).isoformat()}
    post_json(f"{server.url}/api/turns/daily-log", entry, server.token)


@pytest.mark.parametrize(
    ("locale", "words", "token_words"),
    [
        ("en-US", ENGLISH, ("API token", "That token was not accepted.")),
        ("zh-CN", CHINESE, ("API 令牌", "这个令牌未被接受")),
    ],
    ids=["en", "zh"],
)
def test_memory_manager(
    *,
    browser: Browser,
    server: Server,
    screenshots: Path,
    axe: Path,
    tmp_path: Path,
    locale: str,
    words: Labels,
    token_words: tuple[str, str],
) -> None:
    token_label, token_refused = token_words
    context = browser.new_context(locale=locale, accept_downloads=True)
    page = context.new_page()
    # The longest walk of the suite, beside the other browser tests on a 2-core CI.
    page.set_default_timeout(30_000)
    try:
        # Without a token the manager asks for one; a wrong one is said to be wrong.
        page.goto(server.url + "/")
        app = page.locator("assist-memory-app")
        screens = Screens(page, screenshots, axe)
        app.get_by_label(token_label).fill("wrong")
        app.get_by_role("button").last.click()
        expect(app.get_by_role("alert")).to_contain_text(token_refused)
        expect(app.get_by_label(token_label)).to_be_visible()
        screens.shot("token-prompt")
        converse_and_log(server, f"browser-{locale}", words)
        # The link the server's owner shares: the token in the fragment.
        page.goto(f"{server.url}/#token={server.token}")
        routes = MemoryRoutes(f"{server.url}/memory/long-term", server.token)
        walk_through(
            page,
            app,
            words,
            screens,
            tmp_path,
            routes=routes,
            converse=lambda text: converse(server, f"why-{locale}", text),
            compaction=True,
        )
        survive_offline(page, app, words, server.set_down)
        # Kept for this tab only, never in localStorage (which outlives the tab).
        assert page.evaluate(STORED_TOKENS) == [None, server.token]
        # On a phone, in light and dark.
        on_a_phone(page, app, words, screens)
    finally:
        context.close()


def test_5000_memories_round_trip(
    *,
    browser: Browser,
    server: Server,
    screenshots: Path,
    axe: Path,
    tmp_path: Path,
) -> None:
    context = browser.new_context(locale="en-US", accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(30_000)
    try:
        app = open_manager(page, server)
        round_trip(page, app, Screens(page, screenshots, axe), tmp_path)
    finally:
        context.close()


def test_ended_memories_and_until(browser: Browser, server: Server) -> None:
    now = datetime.now(UTC)
    memories = f"{server.url}/memory/long-term"
    post_json(
        memories,
        {
            "content": "The guests stayed in the spare room",
            "expires_at": (now - timedelta(hours=1)).isoformat(),
        },
        server.token,
    )
    post_json(
        memories,
        {
            "content": "The boiler is off",
            "expires_at": (now + timedelta(days=2)).isoformat(),
        },
        server.token,
    )
    context = browser.new_context(locale="en-US")
    page = context.new_page()
    page.set_default_timeout(15_000)
    try:
        app = open_manager(page, server)
        cards = app.locator("li.card")
        expect(cards.filter(has_text="The boiler is off")).to_contain_text("Until ")
        expect(cards.filter(has_text="spare room")).to_have_count(0)

        app.get_by_role("group", name="Shown").get_by_role(
            "button", name="Ended"
        ).click()
        ended = cards.filter(has_text="The guests stayed in the spare room")
        expect(ended).to_contain_text("Ended ")
        expect(cards.filter(has_text="The boiler is off")).to_have_count(0)

        # "Until …" on add: the memory holds through that day.
        app.get_by_role("button", name="Current").click()
        app.get_by_role("button", name="Add memory").click()
        dialog = app.get_by_role("dialog")
        dialog.get_by_label("Memory").fill("The car is at the garage")
        dialog.get_by_label("Until").fill("2031-05-06")
        dialog.get_by_role("button", name="Save").click()
        expect(cards.filter(has_text="The car is at the garage")).to_contain_text(
            "Until "
        )
    finally:
        context.close()
    request = urllib.request.Request(  # noqa: S310 - 127.0.0.1
        f"{memories}?limit=100", headers={"Authorization": f"Bearer {server.token}"}
    )
    with urllib.request.urlopen(request, timeout=60) as response:  # noqa: S310
        listed = json.loads(response.read())
    added = {m["content"]: m["expires_at"] for m in listed["items"]}
    ends = datetime.fromisoformat(added["The car is at the garage"])
    assert ends.astimezone().date().isoformat() == "2031-05-07"
