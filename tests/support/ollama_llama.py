"""Ollama's HTTP API over llama.cpp (llama-cpp-python), on 127.0.0.1: a real small LLM.

    python -m tests.support.ollama_llama --model FILE.gguf [--port 0] [--name NAME]

prints "ollama api on http://127.0.0.1:PORT" once it listens. It implements what Home
Assistant's `ollama` integration and the `ollama` Python client call:

- GET /api/tags, POST /api/show: the one model, named `--name`;
- POST /api/chat: messages (system, user, assistant with tool calls, tool results),
  `tools`, structured `format` (a JSON schema, or "json"), streamed as NDJSON lines as
  Ollama streams them (content pieces, then tool calls, then a last line with `done`);
- GET /api/version, and HEAD / GET / ("Ollama is running").

The prompt is the model's own chat template (from the GGUF's metadata) rendered with
the messages and tools; tool calls are read back from `<tool_call>{...}</tool_call>`
as Qwen2.5 writes them, as Ollama does. A schema becomes a llama.cpp grammar, so the
answer is JSON of that shape. Sampling is greedy (temperature 0) with a fixed seed,
whatever the request asks: the tests need the same answer to the same prompt. One
generation runs at a time (llama.cpp's context is not shared between threads).
`requests.jsonl` beside the model's log (`--record FILE`) gets each chat request and
its answer, for a test to look at what the model was given and said.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
import json
import os
from pathlib import Path
import re
import sys
import threading
from typing import Any

from aiohttp import web
import jinja2.sandbox

SEED = 1234
MAX_TOKENS = 512
# Home Assistant's prompts with the Assist API's tools and the memory block stay
# under 3 000 tokens; a small context keeps llama.cpp's memory and time small.
CONTEXT = 4096
# Threads for llama.cpp: ASSIST_MEMORY_LLM_THREADS, else 1 (a shared CPU).
THREADS_VARIABLE = "ASSIST_MEMORY_LLM_THREADS"


_TOOL_CALL = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)
_FENCE = re.compile(r"^\s*```(?:json)?\s*|\s*```\s*$")
_END = "<|im_end|>"


def default_threads() -> int:
    """The threads llama.cpp is given unless told otherwise."""
    return max(1, int(os.environ.get(THREADS_VARIABLE) or 1))


@dataclass
class Answer:
    """What the model said: text outside tool calls, and the calls."""

    content: str
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    prompt_tokens: int = 0
    answer_tokens: int = 0


def read_tool_calls(text: str, names: Collection[str] = ()) -> Answer:
    """The answer's tool calls as Ollama's, and the rest as text.

    A call is a `<tool_call>{"name": ..., "arguments": {...}}</tool_call>` block, as
    Qwen2.5's template asks, or, when the whole answer is one such JSON object (bare or
    in a ```json fence) naming one of the offered tools (`names`), that object: small
    Qwen2.5 models often leave the tags out, and Ollama's parser then finds the call by
    the tool's name in the JSON. A block that is not JSON with a name stays in the text.
    """
    calls: list[dict[str, Any]] = []
    kept = text
    for match in _TOOL_CALL.finditer(text):
        if call := _call(match.group(1)):
            calls.append(call)
            kept = kept.replace(match.group(0), "")
    if not calls and names:
        bare = _FENCE.sub("", text).strip()
        call = _call(bare) if bare.startswith("{") else None
        if call and call["function"]["name"] in names:
            return Answer("", [call])
    return Answer(kept.strip() if calls else text.strip(), calls)


def _call(text: str) -> dict[str, Any] | None:
    """One tool call written as JSON with a name and arguments, or None."""
    try:
        call = json.loads(text)
    except ValueError:
        return None
    if not isinstance(call, dict) or not isinstance(call.get("name"), str):
        return None
    arguments = call.get("arguments") or call.get("parameters") or {}
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            arguments = {}
    if not isinstance(arguments, dict):
        arguments = {}
    return {"function": {"name": call["name"], "arguments": dict(arguments)}}


class LlamaChat:
    """One GGUF model, its chat template, greedy generation under a lock."""

    def __init__(self, model: Path, *, threads: int | None = None) -> None:
        from llama_cpp import Llama  # type: ignore[import-not-found,unused-ignore]

        self.path = model
        self.threads = threads or default_threads()
        self._llama = Llama(
            model_path=str(model),
            n_ctx=CONTEXT,
            n_threads=self.threads,
            n_threads_batch=self.threads,
            seed=SEED,
            verbose=False,
        )
        metadata: dict[str, str] = self._llama.metadata
        self.metadata = metadata
        environment = jinja2.sandbox.ImmutableSandboxedEnvironment(
            trim_blocks=True, lstrip_blocks=True
        )
        environment.filters["tojson"] = lambda value: json.dumps(
            value, ensure_ascii=False
        )
        self._template = environment.from_string(metadata["tokenizer.chat_template"])
        self._lock = threading.Lock()

    def prompt(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
    ) -> str:
        """The chat template rendered with the messages and tools."""
        return self._template.render(
            messages=[_template_message(m) for m in messages],
            tools=[tool.get("function", tool) for tool in tools] if tools else None,
            add_generation_prompt=True,
        )

    def answer(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        schema: object | None,
    ) -> Answer:
        """The model's greedy answer (blocking: run it in a thread)."""
        from llama_cpp.llama_grammar import LlamaGrammar  # type: ignore[import-not-found,unused-ignore]

        prompt = self.prompt(messages, tools)
        grammar = None
        if schema == "json":
            grammar = LlamaGrammar.from_json_schema(json.dumps({"type": "object"}))
        elif isinstance(schema, dict):
            grammar = LlamaGrammar.from_json_schema(json.dumps(schema))
        with self._lock:
            self._llama.set_seed(SEED)
            result: Any = self._llama.create_completion(
                prompt,
                max_tokens=MAX_TOKENS,
                temperature=0.0,
                top_k=1,
                seed=SEED,
                stop=[_END],
                grammar=grammar,
            )
        text: str = result["choices"][0]["text"]
        usage = result.get("usage", {})
        names = [tool.get("function", tool).get("name") for tool in tools or []]
        answer = Answer(text.strip()) if grammar else read_tool_calls(text, names)
        answer.prompt_tokens = int(usage.get("prompt_tokens", 0))
        answer.answer_tokens = int(usage.get("completion_tokens", 0))
        return answer


def _template_message(message: dict[str, Any]) -> dict[str, Any]:
    """A message as the chat template reads it (content always text)."""
    shown = {
        "role": message.get("role", "user"),
        "content": message.get("content") or "",
    }
    if calls := message.get("tool_calls"):
        shown["tool_calls"] = calls
    return shown


def _chunks(text: str, size: int = 24) -> Iterator[str]:
    """The text in pieces, as a streaming server sends it."""
    for start in range(0, len(text), size):
        yield text[start : start + size]


class OllamaApi:
    """The Ollama endpoints over one `LlamaChat`."""

    def __init__(self, chat: LlamaChat, name: str, record: Path | None) -> None:
        self.chat = chat
        self.name = name
        self.record = record

    def app(self) -> web.Application:
        """The aiohttp application."""
        app = web.Application(client_max_size=16 * 1024 * 1024)
        app.router.add_get("/", self.running)
        app.router.add_get("/api/version", self.version)
        app.router.add_get("/api/tags", self.tags)
        app.router.add_post("/api/show", self.show)
        app.router.add_post("/api/chat", self.chat_endpoint)
        return app

    async def running(self, request: web.Request) -> web.Response:
        """What Ollama answers at its root."""
        return web.Response(text="Ollama is running")

    async def version(self, request: web.Request) -> web.Response:
        """A version string."""
        return web.json_response({"version": "0.6.2"})

    def _details(self) -> dict[str, Any]:
        meta = self.chat.metadata
        return {
            "format": "gguf",
            "family": meta.get("general.architecture", ""),
            "families": [meta.get("general.architecture", "")],
            "parameter_size": meta.get("general.size_label", ""),
            "quantization_level": "Q4_K_M",
        }

    async def tags(self, request: web.Request) -> web.Response:
        """The one model."""
        return web.json_response(
            {
                "models": [
                    {
                        "name": self.name,
                        "model": self.name,
                        "modified_at": datetime.now(UTC).isoformat(),
                        "size": self.chat.path.stat().st_size,
                        "digest": "0" * 64,
                        "details": self._details(),
                    }
                ]
            }
        )

    async def show(self, request: web.Request) -> web.Response:
        """The model's template, details and capabilities."""
        return web.json_response(
            {
                "template": self.chat.metadata.get("tokenizer.chat_template", ""),
                "modelfile": "",
                "parameters": f"temperature 0\nseed {SEED}",
                "details": self._details(),
                "model_info": {
                    key: value
                    for key, value in self.chat.metadata.items()
                    if not key.startswith("tokenizer.")
                },
                "capabilities": ["completion", "tools"],
            }
        )

    async def chat_endpoint(self, request: web.Request) -> web.StreamResponse:
        """A chat answer, streamed as NDJSON or whole."""
        body = await request.json()
        messages = body.get("messages") or []
        answer = await asyncio.get_running_loop().run_in_executor(
            None,
            self.chat.answer,
            messages,
            body.get("tools"),
            body.get("format") or None,
        )
        self._record(body, answer)
        now = datetime.now(UTC).isoformat()
        base = {"model": body.get("model", self.name), "created_at": now}
        last = {
            **base,
            "message": {"role": "assistant", "content": ""},
            "done": True,
            "done_reason": "stop",
            "prompt_eval_count": answer.prompt_tokens,
            "eval_count": answer.answer_tokens,
        }
        if not body.get("stream", True):
            message: dict[str, Any] = {"role": "assistant", "content": answer.content}
            if answer.tool_calls:
                message["tool_calls"] = answer.tool_calls
            return web.json_response({**last, "message": message})
        response = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
        await response.prepare(request)
        lines = [
            {**base, "message": {"role": "assistant", "content": piece}, "done": False}
            for piece in _chunks(answer.content)
        ]
        if answer.tool_calls:
            lines.append(
                {
                    **base,
                    "message": {
                        "role": "assistant",
                        "content": "",
                        "tool_calls": answer.tool_calls,
                    },
                    "done": False,
                }
            )
        for line in [*lines, last]:
            await response.write(json.dumps(line, ensure_ascii=False).encode() + b"\n")
        await response.write_eof()
        return response

    def _record(self, body: dict[str, Any], answer: Answer) -> None:
        if self.record is None:
            return
        entry = {
            "messages": body.get("messages"),
            "tools": [
                t.get("function", t).get("name") for t in body.get("tools") or []
            ],
            "format": body.get("format"),
            "content": answer.content,
            "tool_calls": answer.tool_calls,
            "prompt_tokens": answer.prompt_tokens,
        }
        with self.record.open("a", encoding="utf-8") as file:
            file.write(json.dumps(entry, ensure_ascii=False) + "\n")


async def _serve(api: OllamaApi, port: int) -> None:
    runner = web.AppRunner(api.app(), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", port)
    await site.start()
    bound = runner.addresses[0][1]
    print(f"ollama api on http://127.0.0.1:{bound}", flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()


def main(argv: list[str] | None = None) -> None:
    """Serve the model until interrupted."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, required=True)
    parser.add_argument("--name", default="qwen2.5:0.5b")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--record", type=Path, default=None)
    args = parser.parse_args(argv)
    chat = LlamaChat(args.model, threads=args.threads)
    try:
        asyncio.run(_serve(OllamaApi(chat, args.name, args.record), args.port))
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == "__main__":
    main()
