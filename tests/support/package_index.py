"""A package index on 127.0.0.1, and a package hidden from this Python, for tests.

`PackageIndex` serves the simple repository API (PEP 503) that uv reads, listing for
each project the wheels it was given (links only: the files are never fetched when no
wheel fits the platform). `HiddenPackage` makes an installed package look absent, as on
a system where it was never installed: importing it fails, and its metadata (what Home
Assistant asks to decide whether to install it) says an older version or none.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.abc import MetaPathFinder
from importlib.machinery import ModuleSpec
import importlib.metadata
import sys
import threading
from types import ModuleType
from typing import Any, Self


class PackageIndex:
    """Run with `with PackageIndex({"name": ["file.whl"]}) as index:`; `index.url`."""

    def __init__(self, wheels: dict[str, list[str]]) -> None:
        self.wheels = wheels
        self.requests: list[str] = []
        index = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                index.requests.append(self.path)
                name = self.path.strip("/").removeprefix("simple/")
                if name not in index.wheels:
                    self.send_error(404)
                    return
                links = "".join(
                    f'<a href="/files/{file}#sha256={"0" * 64}">{file}</a>'
                    for file in index.wheels[name]
                )
                body = f"<html><body>{links}</body></html>".encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_port}/simple"

    def __enter__(self) -> Self:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


class _OlderVersion(importlib.metadata.Distribution):
    """The metadata of an older install of the package."""

    def __init__(self, name: str, version: str) -> None:
        self._metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"

    def read_text(self, filename: str) -> str | None:
        return self._metadata if filename == "METADATA" else None

    def locate_file(self, path: Any) -> Any:
        raise FileNotFoundError(path)


class HiddenPackage(MetaPathFinder):
    """Hides a package from imports (and from its metadata, given `version`).

    `until_installed`: it appears when Python is told that packages were installed
    (`importlib.invalidate_caches()`, as after an install).
    """

    def __init__(
        self, name: str, *, version: str | None = None, until_installed: bool = False
    ) -> None:
        self.name = name
        self.version = version
        self.until_installed = until_installed
        self.hidden = True

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> ModuleSpec | None:
        if self.hidden and fullname.partition(".")[0] == self.name:
            raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)
        return None

    def find_distributions(
        self, context: Any = None
    ) -> Iterator[importlib.metadata.Distribution]:
        if self.hidden and self.version and getattr(context, "name", None) == self.name:
            yield _OlderVersion(self.name, self.version)

    def invalidate_caches(self) -> None:
        if self.until_installed:
            self.hidden = False

    def __enter__(self) -> Self:
        # Modules imported before are forgotten (restored on exit).
        self._imported = {
            name: module
            for name, module in sys.modules.items()
            if name.partition(".")[0] == self.name
        }
        for name in self._imported:
            del sys.modules[name]
        sys.meta_path.insert(0, self)
        return self

    def __exit__(self, *exc: object) -> None:
        sys.meta_path.remove(self)
        for name in [n for n in sys.modules if n.partition(".")[0] == self.name]:
            del sys.modules[name]
        sys.modules.update(self._imported)
