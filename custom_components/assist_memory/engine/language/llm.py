"""The LLM the engine asks for text: `LlmCaller`, and a caller for OpenAI-style chats.

The engine only needs "instructions and a text in, an answer out, or None": Home
Assistant backs it with AI Task or a conversation agent, the server with an
OpenAI-compatible `/v1/chat/completions` endpoint (Ollama, OpenAI, LocalAI, ...).
A caller never raises: any failure is logged (one line, without secrets) and answered
with None, so a missing or broken LLM only means the work is skipped.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any, Final, Protocol
from urllib.parse import urlsplit

import aiohttp

_LOGGER = logging.getLogger(__name__)

DEFAULT_TIMEOUT: Final = 60.0


class LlmCaller(Protocol):
    """Something that answers a text under instructions (a system prompt)."""

    async def complete(self, instructions: str, text: str) -> str | None:
        """The model's answer, or None on any failure (never raises)."""


def chat_endpoint(base_url: str) -> str:
    """`{base}/v1/chat/completions`; `/v1` is added when the base URL lacks it."""
    base = base_url.rstrip("/")
    if not base.endswith("/v1"):
        base += "/v1"
    return f"{base}/chat/completions"


def _shown(url: str) -> str:
    """The URL for a log line: no user, password or query (they may hold secrets)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "the LLM endpoint"
    return f"{parts.scheme}://{host}{port}{parts.path}"


class OpenAiChatCaller:
    """An `LlmCaller` for OpenAI-compatible chat completion endpoints.

    Sends the instructions as the system message and the text as the user message,
    and answers the first choice's message content. Uses the given aiohttp session
    (Home Assistant's shared one), or one created and closed for each call.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        *,
        session: aiohttp.ClientSession | None = None,
    ) -> None:
        self.endpoint = chat_endpoint(base_url)
        self.model = model
        self.timeout = timeout
        self._api_key = api_key
        self._session = session

    def __repr__(self) -> str:
        """Without the API key."""
        return f"OpenAiChatCaller({_shown(self.endpoint)!r}, model={self.model!r})"

    async def complete(self, instructions: str, text: str) -> str | None:
        """The first choice's content, or None (logged) on any failure."""
        body = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": instructions},
                {"role": "user", "content": text},
            ],
            "stream": False,
        }
        headers = {"Content-Type": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        try:
            if self._session is not None:
                answer = await self._post(self._session, body, headers)
            else:
                async with aiohttp.ClientSession() as session:
                    answer = await self._post(session, body, headers)
        except _CallError as failure:
            reason = failure.reason
        except TimeoutError:
            reason = f"no answer within {self.timeout:g} s"
        except aiohttp.ClientError as err:
            reason = f"request failed ({type(err).__name__})"
        except ValueError as err:
            # A malformed URL, or a body that is not UTF-8 JSON.
            reason = f"unusable request or answer ({type(err).__name__})"
        else:
            return answer
        _LOGGER.warning("LLM call to %s failed: %s", _shown(self.endpoint), reason)
        return None

    async def _post(
        self,
        session: aiohttp.ClientSession,
        body: dict[str, Any],
        headers: dict[str, str],
    ) -> str:
        async with asyncio.timeout(self.timeout):
            async with session.post(
                self.endpoint,
                data=json.dumps(body, ensure_ascii=False).encode(),
                headers=headers,
            ) as response:
                if response.status != 200:
                    raise _CallError(f"HTTP {response.status}")
                raw = await response.read()
        try:
            document = json.loads(raw)
        except ValueError:
            raise _CallError("the answer is not JSON") from None
        return _first_content(document)


class _CallError(Exception):
    """A call that went wrong in a way worth one log line."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _first_content(document: object) -> str:
    """choices[0].message.content of a chat completion, or _CallError."""
    choices = document.get("choices") if isinstance(document, dict) else None
    first = choices[0] if isinstance(choices, list) and choices else None
    message = first.get("message") if isinstance(first, dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, str):
        raise _CallError("the answer has no message content")
    if not content.strip():
        raise _CallError("the answer is empty")
    return content
