"""A small OpenAI-compatible embedding server on 127.0.0.1, for tests.

It speaks the real protocol (POST /v1/embeddings) and answers deterministic vectors:
words of the same household concept ("coffee", "beverage", "咖啡") share a dimension, so
texts that share no word can still be close, as with a real embedding model.
"""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
import json
import re
import threading
from typing import Self
import zlib

DIMENSIONS = 48
CONCEPTS: dict[str, tuple[str, ...]] = {
    "drink": (
        "coffee",
        "tea",
        "espresso",
        "latte",
        "beverage",
        "drink",
        "咖啡",
        "茶",
        "饮料",
    ),
    "pet": ("cat", "dog", "pet", "kitten", "puppy", "猫", "狗", "宠物"),
    "allergy": ("allergy", "allergic", "nuts", "peanut", "avoid", "过敏", "花生"),
    "music": ("music", "jazz", "song", "songs", "playlist", "音乐", "歌"),
}
_CONCEPT_OF = {word: i for i, words in enumerate(CONCEPTS.values()) for word in words}
_TOKEN = re.compile(r"[a-z]+|[\u4e00-\u9fff]{1,2}")


def embed(text: str) -> list[float]:
    """Concept dimensions first, then hashed buckets for every other word."""
    vector = [0.0] * DIMENSIONS
    lowered = text.lower()
    tokens = _TOKEN.findall(lowered) + [
        w for w in _CONCEPT_OF if not w.isascii() and w in lowered
    ]
    for token in tokens:
        if token in _CONCEPT_OF:
            vector[_CONCEPT_OF[token]] += 1.0
        else:
            vector[
                len(CONCEPTS)
                + zlib.crc32(token.encode()) % (DIMENSIONS - len(CONCEPTS))
            ] += 0.2
    if not any(vector):
        vector[-1] = 1.0
    return vector


class EmbeddingServer:
    """Run with `with EmbeddingServer() as server:`; `server.base_url` to configure."""

    def __init__(self) -> None:
        self.requests: list[dict[str, object]] = []
        self.headers: list[dict[str, str]] = []
        self.fail_with: int | None = None
        self.answer_override: object | None = None
        self.gate = threading.Event()
        self.gate.set()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append(body)
                server.headers.append(dict(self.headers))
                server.gate.wait(timeout=30)
                if self.path != "/v1/embeddings":
                    self._reply(404, {"error": "not found"})
                elif server.fail_with is not None:
                    self._reply(server.fail_with, {"error": "unavailable"})
                elif server.answer_override is not None:
                    self._reply(200, server.answer_override)
                else:
                    data = [
                        {"object": "embedding", "index": i, "embedding": embed(text)}
                        for i, text in enumerate(body["input"])
                    ]
                    self._reply(
                        200, {"object": "list", "data": data, "model": body["model"]}
                    )

            def _reply(self, status: int, payload: object) -> None:
                raw = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *args: object) -> None:
                """Quiet."""

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.02},
            daemon=True,
        )

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def texts_embedded(self) -> list[str]:
        return [text for body in self.requests for text in body["input"]]  # type: ignore[attr-defined]

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.gate.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join()
