"""Browser tests: Playwright driving Debian's Chromium against real servers.

One browser per test module; servers are started once per module as real processes
on 127.0.0.1. Screenshots go to build/screenshots/<test name>/.
"""

from __future__ import annotations

from collections.abc import Iterator
import json
from pathlib import Path
import re
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request

import pytest
import pytest_socket

playwright_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (script/setup does it)"
)

CHROMIUM = Path("/usr/bin/chromium")
# Headless, and nothing that reaches out to the network (closed here, and in CI).
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ROOT = Path(__file__).parents[2]
SCREENSHOTS = ROOT / "build" / "screenshots"
# Assertions wait as long as actions do: a loaded CI machine can take seconds to
# load a panel's modules (Playwright's default for expect() is 5 s).
ASSERTION_TIMEOUT_MS = 15_000


@pytest.fixture(scope="module", autouse=True)
def module_sockets() -> None:
    """Let the module-wide servers use the network on 127.0.0.1.

    Home Assistant's test plugin blocks sockets before each test, before fixtures are
    set up; this autouse fixture is set up before the other module fixtures.
    """
    pytest_socket.enable_socket()


@pytest.fixture(autouse=True)
def test_sockets(module_sockets: None) -> None:
    """And the test itself."""
    pytest_socket.enable_socket()


# No test Home Assistant and no asyncio here: these tests drive real servers through
# Playwright's sync API, whose event loop counts as running while a test runs. The
# plugin's per-test event loop fixtures would fail on it; they have nothing to check.
@pytest.fixture(autouse=True)
def auto_enable_custom_integrations() -> None:
    """Not needed: the integration runs in a real Home Assistant process."""


@pytest.fixture(autouse=True)
def configure_event_loop() -> None:
    """Not needed: no test event loop."""


@pytest.fixture(autouse=True)
def enable_event_loop_debug() -> None:
    """Not needed: no test event loop."""


@pytest.fixture(autouse=True)
def verify_cleanup() -> None:
    """Not needed: no test event loop, tasks or threads to leave behind."""


@pytest.fixture(scope="module")
def browser() -> Iterator[playwright_api.Browser]:
    """Chromium, once per module."""
    if not CHROMIUM.exists():
        pytest.skip(f"Debian's chromium is not installed at {CHROMIUM} (script/setup)")
    playwright_api.expect.set_options(timeout=ASSERTION_TIMEOUT_MS)
    with playwright_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS
        )
        yield launched
        launched.close()


AXE = Path(__file__).parent / "axe" / "node_modules" / "axe-core" / "axe.min.js"


@pytest.fixture(scope="session")
def axe() -> Path:
    """axe-core's script, which script/setup installs from npm."""
    if not AXE.exists():
        if shutil.which("npm") is None:
            pytest.skip("npm is not installed: no axe-core for the accessibility scan")
        pytest.fail(
            f"{AXE} is missing: run script/setup (it installs axe-core with npm)"
        )
    return AXE


@pytest.fixture
def screenshots(request: pytest.FixtureRequest) -> Path:
    """This test's screenshot folder, emptied."""
    folder = SCREENSHOTS / re.sub(r"[^\w.-]+", "_", request.node.name).strip("_")
    for old in folder.glob("*.png"):
        old.unlink()
    return folder


def free_port() -> int:
    """A TCP port nobody listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_for_http(url: str, process: subprocess.Popen[bytes], timeout: float) -> None:
    """Wait until `url` answers (any status), failing early if `process` ended."""
    deadline = time.monotonic() + timeout
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with status {process.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=5):  # noqa: S310 - 127.0.0.1
                return
        except urllib.error.HTTPError:
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM, as a service manager would; wait for a clean exit."""
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def post_json(url: str, body: object, token: str) -> object:
    """POST a JSON body with a bearer token; the JSON answer (HTTP errors raise)."""
    request = urllib.request.Request(  # noqa: S310 - 127.0.0.1
        url,
        data=json.dumps(body).encode(),
        headers={
            "Authorization": f"Bearer {token}",
            "Content-Type": "application/json",
        },
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=60) as response:  # noqa: S310
        answer: object = json.loads(response.read() or b"null")
        return answer
