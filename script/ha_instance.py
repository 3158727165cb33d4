#!/usr/bin/env python3
"""Prepare and set up a Home Assistant dev instance (standard library only).

Used by script/develop, and by the end-to-end and browser tests:

    prepare(config, url)                    the integration linked into the config
                                            folder, HTTP settings for url (before start)
    set_up(url)                             once Home Assistant answers: onboarded,
                                            Assist Memory added, Assist talking to
                                            the memory agent (first run and every later run)

set_up is made of: wait_until_up, onboard (owner "dev"/"dev"; logs in instead when
already onboarded), wait_until_running, add_integration (config flow run with each
step's defaults) and set_pipeline_agent (the `assist_memory.set_pipeline_agent` action).

As a program: `python script/ha_instance.py --prepare CONFIG [--url URL]` prepares and
exits; `python script/ha_instance.py [--url URL]` sets up the running instance and
prints what to try (script/develop runs it beside Home Assistant).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import dataclass
import json
import os
from pathlib import Path
import signal
import sys
import threading
import time
from typing import Any, cast
import urllib.error
import urllib.parse
import urllib.request

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_URL = "http://127.0.0.1:8123"
DOMAIN = "assist_memory"
DEV_NAME = "Dev"
DEV_USERNAME = "dev"
DEV_PASSWORD = "dev"  # noqa: S105 - the dev instance's documented login
ONBOARDING_STEPS = ("core_config", "analytics", "integration")
# Aborts that mean the integration is already set up.
ALREADY_SET_UP = frozenset({"single_instance_allowed", "already_configured"})


class HomeAssistantApiError(Exception):
    """Home Assistant answered with an error, or something unexpected."""


def _client_id(url: str) -> str:
    return url.rstrip("/") + "/"


def _redirect_uri(url: str) -> str:
    return _client_id(url) + "?auth_callback=1"


def request(
    method: str,
    url: str,
    *,
    json_body: Mapping[str, Any] | None = None,
    form: Mapping[str, str] | None = None,
    token: str | None = None,
    timeout: float = 30.0,
) -> tuple[int, Any]:
    """Send one request; return the status and the decoded JSON body (or text).

    HTTP error statuses are returned, not raised; connection errors raise OSError.
    """
    headers = {"Accept": "application/json"}
    data: bytes | None = None
    if json_body is not None:
        data = json.dumps(json_body).encode()
        headers["Content-Type"] = "application/json"
    elif form is not None:
        data = urllib.parse.urlencode(form).encode()
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    if not url.startswith(("http://", "https://")):
        raise ValueError(f"not an http(s) URL: {url}")
    req = urllib.request.Request(url, data=data, headers=headers, method=method)  # noqa: S310
    try:
        with urllib.request.urlopen(req, timeout=timeout) as response:  # noqa: S310
            status: int = response.status
            body = response.read()
    except urllib.error.HTTPError as err:
        status = err.code
        body = err.read()
    text = body.decode(errors="replace")
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text


def _expect(status: int, body: Any, what: str) -> dict[str, Any]:
    if status != 200 or not isinstance(body, dict):
        raise HomeAssistantApiError(f"{what}: HTTP {status}: {body}")
    return cast(dict[str, Any], body)


def wait_until_up(url: str = DEFAULT_URL, timeout: float = 180.0) -> None:
    """Wait until Home Assistant's HTTP server answers."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            # Any HTTP answer will do: this one is 400 until onboarding is done.
            request("GET", f"{url}/auth/providers", timeout=5)
        except OSError:
            pass
        else:
            return
        if time.monotonic() > deadline:
            raise TimeoutError(
                f"Home Assistant did not answer on {url} in {timeout:.0f} s"
            )
        time.sleep(0.5)


def wait_until_running(url: str, token: str, timeout: float = 180.0) -> None:
    """Wait until Home Assistant has finished starting (core state RUNNING)."""
    deadline = time.monotonic() + timeout
    while True:
        status, body = request("GET", f"{url}/api/core/state", token=token)
        if status == 200 and isinstance(body, dict) and body.get("state") == "RUNNING":
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"Home Assistant on {url} is not running: {body}")
        time.sleep(0.5)


def exchange_code(url: str, code: str) -> str:
    """Exchange an authorization code for an access token."""
    status, body = request(
        "POST",
        f"{url}/auth/token",
        form={
            "grant_type": "authorization_code",
            "code": code,
            "client_id": _client_id(url),
        },
    )
    return str(_expect(status, body, "token exchange")["access_token"])


def login(url: str, username: str = DEV_USERNAME, password: str = DEV_PASSWORD) -> str:
    """Log in with Home Assistant's own auth provider; return an access token."""
    status, body = request(
        "POST",
        f"{url}/auth/login_flow",
        json_body={
            "client_id": _client_id(url),
            "handler": ["homeassistant", None],
            "redirect_uri": _redirect_uri(url),
        },
    )
    flow = _expect(status, body, "login flow")
    status, body = request(
        "POST",
        f"{url}/auth/login_flow/{flow['flow_id']}",
        json_body={
            "client_id": _client_id(url),
            "username": username,
            "password": password,
        },
    )
    result = _expect(status, body, "login")
    if result.get("type") != "create_entry":
        raise HomeAssistantApiError(f"login as {username!r} failed: {result}")
    return exchange_code(url, str(result["result"]))


def onboarding_status(url: str) -> dict[str, bool] | None:
    """Return {step: done} while onboarding is active, None once it is finished."""
    status, body = request("GET", f"{url}/api/onboarding")
    if status == 404:  # the onboarding views are gone once every step is done
        return None
    if status != 200 or not isinstance(body, list):
        raise HomeAssistantApiError(f"onboarding status: HTTP {status}: {body}")
    steps = cast(list[dict[str, Any]], body)
    return {str(step["step"]): bool(step["done"]) for step in steps}


def onboard(
    url: str = DEFAULT_URL,
    username: str = DEV_USERNAME,
    password: str = DEV_PASSWORD,
    name: str = DEV_NAME,
    language: str = "en",
) -> str:
    """Finish onboarding (creating the owner) if needed; return an access token."""
    steps = onboarding_status(url)
    if steps is not None and not steps.get("user", False):
        status, body = request(
            "POST",
            f"{url}/api/onboarding/users",
            json_body={
                "client_id": _client_id(url),
                "name": name,
                "username": username,
                "password": password,
                "language": language,
            },
        )
        token = exchange_code(
            url, str(_expect(status, body, "onboarding user")["auth_code"])
        )
    else:
        token = login(url, username, password)
    if steps is None:
        return token
    for step in ONBOARDING_STEPS:
        if steps.get(step, False):
            continue
        payload: dict[str, Any] = {}
        if step == "integration":
            payload = {"client_id": _client_id(url), "redirect_uri": _redirect_uri(url)}
        status, body = request(
            "POST", f"{url}/api/onboarding/{step}", json_body=payload, token=token
        )
        _expect(status, body, f"onboarding step {step}")
    return token


def config_entries(url: str, token: str, domain: str) -> list[dict[str, Any]]:
    """Return the config entries of one integration."""
    status, body = request(
        "GET", f"{url}/api/config/config_entries/entry?domain={domain}", token=token
    )
    if status != 200 or not isinstance(body, list):
        raise HomeAssistantApiError(f"config entries: HTTP {status}: {body}")
    return [entry for entry in body if entry.get("domain") == domain]


def _form_input(result: Mapping[str, Any]) -> dict[str, Any]:
    """Answer a config flow form with each field's default; fail on required fields."""
    answer: dict[str, Any] = {}
    for field in result.get("data_schema") or []:
        if "default" in field:
            answer[field["name"]] = field["default"]
        elif field.get("required"):
            raise HomeAssistantApiError(
                f"config flow step {result.get('step_id')!r} needs a value for "
                f"{field['name']!r}, which has no default"
            )
    return answer


def add_integration(
    url: str, token: str, domain: str, max_steps: int = 10
) -> dict[str, Any]:
    """Run the config flow of `domain` until an entry exists; return the entry.

    Form steps are submitted with their defaults, menus with their first choice. When
    the integration is already set up (the flow aborts as single instance / already
    configured), returns that entry.
    """
    status, body = request(
        "POST",
        f"{url}/api/config/config_entries/flow",
        json_body={"handler": domain, "show_advanced_options": False},
        token=token,
    )
    result = _expect(status, body, f"config flow for {domain}")
    for _ in range(max_steps):
        kind = result.get("type")
        if kind == "create_entry":
            return cast(dict[str, Any], result["result"])
        if kind == "abort":
            entries = config_entries(url, token, domain)
            if result.get("reason") in ALREADY_SET_UP and entries:
                return entries[0]
            raise HomeAssistantApiError(f"config flow for {domain} aborted: {result}")
        if kind == "menu":
            # The first choice is the default (Assist Memory: the embedded store).
            status, body = request(
                "POST",
                f"{url}/api/config/config_entries/flow/{result['flow_id']}",
                json_body={"next_step_id": result["menu_options"][0]},
                token=token,
            )
            result = _expect(status, body, f"config flow for {domain}")
            continue
        if kind != "form":
            raise HomeAssistantApiError(f"config flow for {domain}: {result}")
        if result.get("errors"):
            raise HomeAssistantApiError(
                f"config flow for {domain} step {result.get('step_id')!r}: "
                f"{result['errors']}"
            )
        status, body = request(
            "POST",
            f"{url}/api/config/config_entries/flow/{result['flow_id']}",
            json_body=_form_input(result),
            token=token,
        )
        result = _expect(status, body, f"config flow for {domain}")
    raise HomeAssistantApiError(f"config flow for {domain} did not finish: {result}")


def _exit_with_parent() -> None:
    """Exit at once when the parent process is gone (we are then re-parented)."""
    # A background job of a script ignores Ctrl-C: let Ctrl-C end it quietly instead.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def write_http_settings(config: Path, url: str) -> None:
    """Home Assistant's HTTP settings (`.storage/http`): listen on url's host and port.

    Home Assistant keeps them in storage. An `http:` section in configuration.yaml is
    moved there once as a trial, which Home Assistant reverts five minutes later by
    restarting unless someone confirms it in the UI (a dev instance then stops). A
    stored document of the first format is taken as confirmed settings.
    """
    parsed = urllib.parse.urlsplit(url)
    if parsed.hostname is None or parsed.port is None:
        raise ValueError(f"the URL needs a host and a port: {url}")
    document = {
        "version": 1,
        "key": "http",
        "data": {"server_host": [parsed.hostname], "server_port": parsed.port},
    }
    storage = config / ".storage"
    storage.mkdir(mode=0o700, parents=True, exist_ok=True)
    # Readable by the owner only, as Home Assistant keeps its storage.
    fd = os.open(storage / "http", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        json.dump(document, file)


def skip_onboarding_integrations(config: Path) -> None:
    """Mark onboarding's location step done in a config folder never started.

    Finishing that step adds Met.no, Radio Browser, Google Translate and the shopping
    list: the first three need packages (and the network) a dev instance does not have,
    and their tracebacks would open its log. The location is in configuration.yaml;
    the owner, analytics and integration steps are still done through the API.
    """
    storage = config / ".storage"
    onboarding = storage / "onboarding"
    if onboarding.exists() or (storage / "auth").exists():
        return  # started before: onboarding is Home Assistant's now
    storage.mkdir(mode=0o700, parents=True, exist_ok=True)
    document = {"version": 4, "key": "onboarding", "data": {"done": ["core_config"]}}
    fd = os.open(onboarding, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        json.dump(document, file)


def prepare(config: Path, url: str = DEFAULT_URL) -> None:
    """Make `config` a config folder with Assist Memory, served on `url`.

    Links `custom_components` to the repository's (a relative link), writes the
    HTTP settings and, on a first run, leaves out the integrations onboarding would
    add. Run it while that Home Assistant is stopped.
    """
    link = config / "custom_components"
    if link.exists() and not link.is_symlink():
        raise HomeAssistantApiError(f"{link} exists and is not a symlink; move it away")
    link.unlink(missing_ok=True)
    link.symlink_to(os.path.relpath(ROOT / "custom_components", config))
    write_http_settings(config, url)
    skip_onboarding_integrations(config)


def set_pipeline_agent(url: str, token: str) -> dict[str, Any]:
    """Let Assist talk to the memory agent (`assist_memory.set_pipeline_agent`).

    Returns the action's response: the pipeline and the agent the memory agent wraps.
    """
    status, body = request(
        "POST",
        f"{url}/api/services/{DOMAIN}/set_pipeline_agent?return_response",
        json_body={},
        token=token,
    )
    return cast(
        dict[str, Any], _expect(status, body, "set_pipeline_agent")["service_response"]
    )


@dataclass(frozen=True)
class DevInstance:
    """A Home Assistant set up by `set_up`."""

    url: str
    token: str
    entry: dict[str, Any]
    pipeline: dict[str, Any]


def set_up(url: str = DEFAULT_URL, timeout: float = 180.0) -> DevInstance:
    """Onboard, add Assist Memory, and let Assist talk to the memory agent.

    Safe on every run: an onboarded instance is logged in to, an existing entry is
    kept, and a pipeline whose agent is already the memory agent is left as it is.
    """
    wait_until_up(url, timeout)
    token = onboard(url)
    wait_until_running(url, token, timeout)
    entry = add_integration(url, token, DOMAIN)
    return DevInstance(url, token, entry, set_pipeline_agent(url, token))


def what_to_try(instance: DevInstance) -> str:
    """What script/develop prints once Home Assistant is ready."""
    url, pipeline = instance.url, instance.pipeline
    return f"""
==> Home Assistant is running at {url}
    Assist Memory: config entry {instance.entry.get("entry_id")} ({instance.entry.get("state", "created")})
    Assist: the voice assistant "{pipeline["pipeline_name"]}" talks to the memory agent,
    which passes other sentences to {pipeline["wrapped_agent_id"]}.

    Try it: open {url}, log in {DEV_USERNAME} / {DEV_PASSWORD}, open Assist (the
    Assist button at the top right of the Overview, or press "a") and type:
        Remember that the spare key is under the flowerpot
        What do you remember about the spare key?
        Forget the spare key
        记住备用钥匙在花盆下面 / 你记得备用钥匙吗 / 忘记备用钥匙
        Turn on the kitchen light
    The memories: "Memory" in the sidebar; the files are in config/data/.
"""


def main(argv: list[str] | None = None) -> int:
    """Prepare a config folder, or set up the running instance and say what to try."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default=DEFAULT_URL)
    parser.add_argument(
        "--prepare",
        metavar="CONFIG",
        type=Path,
        help="prepare this config folder for the URL (before starting) and exit",
    )
    parser.add_argument("--timeout", type=float, default=180.0)
    parser.add_argument(
        "--exit-with-parent",
        action="store_true",
        help="stop when the parent process (Home Assistant, for script/develop) exits",
    )
    args = parser.parse_args(argv)
    if args.exit_with_parent:
        _exit_with_parent()
    url: str = args.url.rstrip("/")
    try:
        if args.prepare is not None:
            prepare(args.prepare, url)
            return 0
        instance = set_up(url, args.timeout)
    except (HomeAssistantApiError, TimeoutError, OSError, ValueError) as err:
        print(f"ha_instance: {err}", file=sys.stderr)
        return 1
    print(what_to_try(instance), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
