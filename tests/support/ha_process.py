"""Home Assistant as a real process on 127.0.0.1, for tests, and script/ha_instance.py.

    process = HomeAssistantProcess(config_dir, url)
    process.start()     `hass --config config_dir --skip-pip`, until its HTTP answers
    process.stop()      SIGTERM, as a service manager would; a clean exit

`ha_instance` is script/ha_instance.py, the helpers script/develop prepares and sets up
its dev instance with (a script, not a package: loaded from its file).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
import subprocess
import sys
import time
from types import ModuleType
import urllib.error
import urllib.request

ROOT = Path(__file__).parents[2]
HASS = Path(sys.executable).parent / "hass"
# Guards against a hang only; nothing is asserted about how long anything takes.
START_TIMEOUT = 180.0
STOP_TIMEOUT = 60.0


def _load_ha_instance() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "ha_instance", ROOT / "script" / "ha_instance.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # Registered first, as an import does (its dataclasses look their module up).
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


ha_instance = _load_ha_instance()


class HomeAssistantProcess:
    """One Home Assistant over one config folder; start it again after a stop."""

    def __init__(self, config: Path, url: str) -> None:
        self.config = config
        self.url = url
        self.log = config / "test-run.log"
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start `hass` and wait until its HTTP server answers."""
        with self.log.open("ab") as log:
            self._process = subprocess.Popen(
                [str(HASS), "--config", str(self.config), "--skip-pip"],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if (code := self._process.poll()) is not None:
                raise RuntimeError(
                    f"Home Assistant exited with status {code}:\n{self.log_tail()}"
                )
            try:
                # Any HTTP answer will do: this one is 400 until onboarding is done.
                with urllib.request.urlopen(f"{self.url}/auth/providers", timeout=5):  # noqa: S310
                    return
            except urllib.error.HTTPError:
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)

    def stop(self) -> None:
        """SIGTERM; wait for Home Assistant to finish (its storage is written)."""
        if self._process is None:
            return
        self._process.terminate()
        try:
            self._process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        self._process = None

    def log_tail(self, lines: int = 60) -> str:
        """The end of Home Assistant's output, to explain a failure."""
        text = self.log.read_text(encoding="utf-8", errors="replace")
        return "\n".join(text.splitlines()[-lines:])
