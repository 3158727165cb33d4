"""A stand-in for an OpenAI-compatible chat model that compacts memories, as a process.

Usage: python -m tests.support.compaction_llm PORT   (from the repository root)

POST /v1/chat/completions answers like a careful model asked to compact: the facts it
was shown, each duplicate (same words, ignoring case, dates and punctuation) kept once.
GET /v1/calls answers how many completions were asked for (a preview and its apply
ask once). Single-threaded; runs until SIGTERM. `compact` also answers for the AI Task entity of
the Home Assistant test (ha_config/custom_components/browser_llm).
"""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler, HTTPServer
import json
import re
import sys

_BULLET = re.compile(r"^- (?:\[[^\]]*\] )?(.*)$")


def compact(prompt: str) -> str:
    """The facts' Markdown without duplicate bullets.

    The facts start at the first `## ` header: what comes before (the instructions,
    when they are sent with the facts in one text) is not part of the answer.
    """
    facts = prompt.splitlines()
    start = next((i for i, line in enumerate(facts) if line.startswith("## ")), 0)
    seen: set[str] = set()
    lines: list[str] = []
    for line in facts[start:]:
        if (bullet := _BULLET.match(line)) is not None:
            words = " ".join(re.findall(r"\w+", bullet.group(1).casefold()))
            if words in seen:
                continue
            seen.add(words)
            lines.append(f"- {bullet.group(1)}")
        else:
            lines.append(line)
    return "\n".join(lines)


class Handler(BaseHTTPRequestHandler):
    """The chat completions endpoint, and how often it was called."""

    calls = 0

    def do_GET(self) -> None:
        if self.path != "/v1/calls":
            self._reply(404, {"error": "not found"})
            return
        self._reply(200, {"calls": Handler.calls})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path != "/v1/chat/completions":
            self._reply(404, {"error": "not found"})
            return
        Handler.calls += 1
        answer = compact(str(body["messages"][-1]["content"]))
        choice = {
            "index": 0,
            "message": {"role": "assistant", "content": answer},
            "finish_reason": "stop",
        }
        self._reply(
            200,
            {"object": "chat.completion", "model": body["model"], "choices": [choice]},
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


if __name__ == "__main__":
    HTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
