"""`RemoteBackend`'s learning: batches, facts, write-back, ended conversations.

The memory server decides what to learn from (the throttle, the ended conversations,
the messages a batch took) and keeps the facts; these calls ask it. `RemoteBackend`
gives the transport (`_Transport`).
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, override

from ..backend.protocol import TurnOperations
from ..conversation.learning_queue import EndedConversation
from ..conversation.turn_settings import LearnSettings
from ..conversation.turns import ExtractionBatch, LearnResult
from ..language.facts import Fact
from .turn_wire import (
    batch_from_json,
    batch_json,
    ended_from_json,
    fact_from_json,
    learn_result_from_json,
    learn_settings_json,
)


class _Transport(Protocol):
    """What the learning calls need of `RemoteBackend`."""

    async def _call(
        self,
        method: str,
        path: str,
        *,
        query: Mapping[str, str] | None = None,
        body: object = None,
        missing_ok: bool = False,
        seconds: float | None = None,
    ) -> Any: ...

    async def _read[T](
        self, parse: Callable[[Any], T], method: str, path: str, **kwargs: Any
    ) -> T: ...

    def _notify(self) -> None: ...


class RemoteLearning(TurnOperations):
    """The learning operations of the `MemoryBackend` protocol."""

    @override
    async def record_memory_sentence(
        self: _Transport,
        *,
        session_id: str,
        said: str,
        reply: str,
        user_id: str | None = None,
        memory_ids: Sequence[str] = (),
    ) -> None:
        body = {
            "session_id": session_id,
            "said": said,
            "reply": reply,
            "user_id": user_id,
            "memory_ids": list(memory_ids),
        }
        await self._call("POST", "/api/turns/memory-sentence", body=body)

    @override
    async def extraction_batch(
        self: _Transport,
        session_id: str,
        settings: LearnSettings,
        *,
        used_tokens: int = 0,
        ended: bool = False,
    ) -> ExtractionBatch | None:
        body = {
            "session_id": session_id,
            "settings": learn_settings_json(settings),
            "used_tokens": used_tokens,
            "ended": ended,
        }
        return await self._read(
            lambda a: None if a["batch"] is None else batch_from_json(a["batch"]),
            "POST",
            "/api/turns/batch",
            body=body,
        )

    @override
    async def ended_conversations(
        self: _Transport, *, every: bool = False
    ) -> builtins.list[EndedConversation]:
        return await self._read(
            lambda a: [ended_from_json(item) for item in a["conversations"]],
            "POST",
            "/api/turns/ended",
            body={"every": every},
        )

    @override
    async def rule_facts(
        self: _Transport, batch: ExtractionBatch
    ) -> builtins.list[Fact]:
        return await self._read(
            lambda a: [fact_from_json(fact) for fact in a["facts"]],
            "POST",
            "/api/turns/rule-facts",
            body={"batch": batch_json(batch)},
        )

    @override
    async def learn(
        self: _Transport,
        batch: ExtractionBatch,
        facts: builtins.list[Fact],
        *,
        scope: str,
        settings: LearnSettings,
        speaker_unknown: bool = False,
        device_id: str | None = None,
        name: str | None = None,
    ) -> LearnResult:
        body = {
            "batch": batch_json(batch),
            "facts": [fact.to_dict() for fact in facts],
            "scope": scope,
            "settings": learn_settings_json(settings),
            "speaker_unknown": speaker_unknown,
            "device_id": device_id,
            "name": name,
        }
        result = await self._read(
            learn_result_from_json, "POST", "/api/turns/learn", body=body
        )
        self._notify()
        return result
