"""`LocalBackend`'s turn ends and learning: batches, facts, write-back, ended conversations.

`TurnMemory` decides what to learn from (the throttle, the ended conversations, the
messages a batch took); these run it on the backend's worker (`_Worker`).
"""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import Callable, Sequence
from typing import Any, Protocol, override

from ..conversation.learning_queue import EndedConversation
from ..conversation.turn_settings import LearnSettings
from ..conversation.turns import ExtractionBatch, LearnResult, TurnMemory
from ..language.facts import Fact
from .protocol import TurnOperations


class _Worker(Protocol):
    """What the learning calls need of `LocalBackend`."""

    turns: TurnMemory

    async def _run[T](
        self, func: Callable[..., T], /, *args: Any, **kwargs: Any
    ) -> T: ...

    async def _change[T](
        self, func: Callable[..., T], /, *args: Any, **kwargs: Any
    ) -> T: ...

    def _changed(self) -> None: ...


class LocalLearning(TurnOperations):
    """The learning operations of the `MemoryBackend` protocol."""

    @override
    async def end_turn(
        self: _Worker,
        *,
        session_id: str,
        user_text: str,
        reply: str,
        user_id: str | None = None,
        memory_ids: Sequence[str] | None = None,
    ) -> None:
        # After the job `begin_turn` queues once the loop turns over: the turn's
        # message is written before its end.
        await asyncio.sleep(0)
        await self._run(
            self.turns.end,
            session_id=session_id,
            user_text=user_text,
            reply=reply,
            user_id=user_id,
            memory_ids=memory_ids,
        )

    @override
    async def record_memory_sentence(
        self: _Worker,
        *,
        session_id: str,
        said: str,
        reply: str,
        user_id: str | None = None,
        memory_ids: Sequence[str] = (),
    ) -> None:
        await self._run(
            self.turns.record_memory_sentence,
            session_id=session_id,
            said=said,
            reply=reply,
            user_id=user_id,
            memory_ids=memory_ids,
        )

    @override
    async def extraction_batch(
        self: _Worker,
        session_id: str,
        settings: LearnSettings,
        *,
        used_tokens: int = 0,
        ended: bool = False,
    ) -> ExtractionBatch | None:
        return await self._run(
            self.turns.extraction_batch,
            session_id,
            settings,
            used_tokens=used_tokens,
            ended=ended,
        )

    @override
    async def ended_conversations(
        self: _Worker, *, every: bool = False
    ) -> builtins.list[EndedConversation]:
        if await self._run(self.turns.expire_sessions):
            self._changed()
        return await self._run(self.turns.ended_conversations, every=every)

    @override
    async def rule_facts(self: _Worker, batch: ExtractionBatch) -> builtins.list[Fact]:
        return await self._run(self.turns.rule_facts, batch)

    @override
    async def learn(
        self: _Worker,
        batch: ExtractionBatch,
        facts: builtins.list[Fact],
        *,
        scope: str,
        settings: LearnSettings,
        speaker_unknown: bool = False,
        device_id: str | None = None,
        name: str | None = None,
    ) -> LearnResult:
        return await self._change(
            self.turns.learn,
            batch,
            facts,
            scope=scope,
            settings=settings,
            speaker_unknown=speaker_unknown,
            device_id=device_id,
            name=name,
        )
