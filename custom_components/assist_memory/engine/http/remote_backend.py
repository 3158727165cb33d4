"""`RemoteBackend`: the `MemoryBackend` protocol over HTTP to the memory server (add-on).

Every call is one request with the bearer token and a timeout; the aiohttp session is
the caller's (Home Assistant's shared one). Answers map back to the protocol:

- 400 is an InvalidMemoryError with the server's code and message; 404 is None or
  False where the protocol says so;
- 401 is an AuthenticationError, and `on_auth_failed` is called (Home Assistant starts
  reauthentication);
- no connection, a timeout, a 5xx or an answer that is not JSON is a
  BackendUnavailableError.

Availability is the host's to track: a call that finds the server away calls
`on_unavailable` with the error (Home Assistant's coordinator marks the sensor
unavailable and logs it once, then polls `stats` until the server is back).

Listeners are told after this backend's own writes; changes made on the server are
invisible here (a host polls `stats` to see them).
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Mapping, Sequence
from datetime import date, datetime
import logging
from typing import Any, Final, Unpack, cast, override
from urllib.parse import quote

import aiohttp

from ..backend.protocol import MemoryBackend, MemoryFields, StoreStats
from ..config import RAG_TOP_N
from ..conversation.conversation_records import (
    Conversation,
    ConversationPage,
    SessionSummary,
)
from ..conversation.speaker import Speaker as TurnSpeaker
from ..conversation.turn_settings import TurnSettings
from ..conversation.turns import TurnContext
from ..conversation.working import WorkingMemory
from ..documents.daily_log import DEFAULT_SEARCH_LIMIT, LogEntry
from ..errors import (
    AuthenticationError,
    BackendUnavailableError,
    InvalidMemoryError,
    MemoryEngineError,
)
from ..memory.compaction import BackupInfo, CompactionResult
from ..memory.compaction_preview import (
    CompactionPreview,
    applied_answer,
    preview_answer,
    result_answer,
)
from ..search.scoring import ScoredMemory
from ..storage.fullness import Fullness
from ..storage.list_filters import LastUsed, Origin
from ..storage.models import HOUSEHOLD_SCOPE, Memory, parse_time
from ..storage.settings import StoreSettings
from ..storage.store import (
    ImportMode,
    ImportResult,
    MemoryPage,
    ReconcileResult,
    SortOrder,
)
from .memory_routes import MAX_PAGE_SIZE
from .remote_held import RemoteHeldFacts
from .remote_learning import RemoteLearning
from .turn_wire import (
    conversation_from_json,
    conversation_page_from_json,
    memory_from_json,
    scored_memory_from_json,
    turn_context_from_json,
    turn_settings_json,
)

_LOGGER = logging.getLogger(__name__)

DEFAULT_TIMEOUT: Final = 10.0
# Compaction asks the server's LLM, which may take a minute (its own timeout is 60 s).
COMPACTION_TIMEOUT: Final = 180.0


class RemoteBackend(RemoteHeldFacts, RemoteLearning, MemoryBackend):
    """A memory server's store, used from asyncio."""

    def __init__(
        self,
        session: aiohttp.ClientSession,
        url: str,
        token: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        on_auth_failed: Callable[[], None] | None = None,
        on_unavailable: Callable[[BackendUnavailableError], None] | None = None,
    ) -> None:
        self.url = url.rstrip("/")
        self.on_unavailable = on_unavailable
        self._session = session
        self._headers = {"Authorization": f"Bearer {token}"}
        self._timeout = timeout
        self._on_auth_failed = on_auth_failed
        self._listeners: builtins.list[Callable[[], None]] = []
        self._compaction_enabled = False

    # -- HTTP -------------------------------------------------------------------------

    async def _call(
        self,
        method: str,
        path: str,
        *,
        query: Mapping[str, str] | None = None,
        body: object = None,
        missing_ok: bool = False,
        seconds: float | None = None,
    ) -> Any:
        """The JSON answer; None for a 404 when `missing_ok`."""
        seconds = seconds or self._timeout
        try:
            async with self._session.request(
                method,
                self.url + path,
                params=query,
                json=body,
                headers=self._headers,
                timeout=aiohttp.ClientTimeout(total=seconds),
            ) as response:
                status = response.status
                try:
                    answer = await response.json(content_type=None)
                except ValueError:
                    answer = None
        except TimeoutError:
            raise self._unavailable(f"no answer within {seconds:g} s") from None
        except aiohttp.ClientError as err:
            raise self._unavailable(str(err) or type(err).__name__) from err
        if status == 401:
            if self._on_auth_failed is not None:
                self._on_auth_failed()
            raise AuthenticationError(self.url)
        if status >= 500 or (status < 300 and answer is None):
            raise self._unavailable(_message(answer, f"HTTP {status}"))
        if status == 404 and missing_ok:
            return None
        if status >= 400:
            error = answer if isinstance(answer, dict) else {}
            # `placeholders` fill the translated message (a server may not send them).
            placeholders = error.get("placeholders")
            raise InvalidMemoryError(
                str(error.get("code") or "bad_request"),
                _message(answer, f"HTTP {status}"),
                **(placeholders if isinstance(placeholders, dict) else {}),
            )
        return answer

    async def _read[T](
        self, parse: Callable[[Any], T], method: str, path: str, **kwargs: Any
    ) -> T:
        """Call and parse the answer; an answer of another shape is a clear error."""
        answer = await self._call(method, path, **kwargs)
        try:
            return parse(answer)
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            if isinstance(err, MemoryEngineError):
                raise
            raise InvalidMemoryError(
                "bad_answer", f"the memory server's answer to {path} is not understood"
            ) from err

    def _unavailable(self, reason: str) -> BackendUnavailableError:
        error = BackendUnavailableError(
            f"the memory server at {self.url} is unavailable: {reason}", self.url
        )
        if self.on_unavailable is not None:
            self.on_unavailable(error)
        return error

    # -- connection, listeners --------------------------------------------------------

    async def connect(self) -> None:
        """Check that the server answers (/health) and accepts the token.

        Raises BackendUnavailableError or AuthenticationError (without calling
        `on_auth_failed`: the caller decides).
        """
        health = await self._call("GET", "/health")
        if not isinstance(health, dict) or health.get("status") != "ok":
            raise self._unavailable("not an Assist Memory server")
        on_auth_failed, self._on_auth_failed = self._on_auth_failed, None
        try:
            await self.compaction_backups()
        finally:
            self._on_auth_failed = on_auth_failed

    def _notify(self) -> None:
        for listener in list(self._listeners):
            try:
                listener()
            except Exception:
                _LOGGER.exception("A memory change listener failed")

    @override
    def add_listener(self, listener: Callable[[], None]) -> Callable[[], None]:
        # Told of this backend's own writes only.
        self._listeners.append(listener)

        def remove() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return remove

    @override
    async def close(self) -> None:
        # Nothing to release: the session is the caller's.
        self._listeners.clear()

    # -- memories ---------------------------------------------------------------------

    @override
    async def add(self, content: str, **fields: Unpack[MemoryFields]) -> Memory:
        memory = await self._read(
            memory_from_json,
            "POST",
            "/memory/long-term",
            body={"content": content, **_plain_fields(fields)},
        )
        self._notify()
        return memory

    @override
    async def get(self, memory_id: str) -> Memory | None:
        return await self._read(
            _optional(memory_from_json),
            "GET",
            f"/memory/long-term/{_segment(memory_id)}",
            missing_ok=True,
        )

    @override
    async def list(
        self,
        *,
        offset: int = 0,
        limit: int = 50,
        category: str | None = None,
        scope: str | None = None,
        tags: Sequence[str] | str | None = None,
        sort: SortOrder = "newest",
        origin: Origin | None = None,
        last_used: LastUsed | None = None,
        ended: bool | None = False,
    ) -> MemoryPage:
        # Asked in parts of the server's page size.
        query: dict[str, str] = {"sort": sort}
        query["state"] = {False: "current", True: "ended", None: "all"}[ended]
        if origin is not None:
            query["origin"] = origin
        if last_used is not None:
            query["last_used"] = last_used
        if category:
            query["category"] = category
        if scope is not None:
            query["scope"] = scope
        if tags:
            query["tag"] = tags if isinstance(tags, str) else ",".join(tags)
        items: builtins.list[Memory] = []
        while True:
            size = min(MAX_PAGE_SIZE, limit - len(items))
            found, total = await self._read(
                lambda a: ([memory_from_json(m) for m in a["items"]], int(a["total"])),
                "GET",
                "/memory/long-term",
                query={**query, "offset": str(offset + len(items)), "limit": str(size)},
            )
            items += found
            if len(found) < size or len(items) >= limit:
                return MemoryPage(items, total, offset, limit)

    @override
    async def update(
        self, memory_id: str, content: str | None = None, **fields: Unpack[MemoryFields]
    ) -> Memory | None:
        body = _plain_fields(fields)
        if content is not None:
            body["content"] = content
        memory = await self._read(
            _optional(memory_from_json),
            "PATCH",
            f"/memory/long-term/{_segment(memory_id)}",
            body=body,
            missing_ok=True,
        )
        if memory is not None:
            self._notify()
        return memory

    @override
    async def delete(self, memory_id: str) -> bool:
        answer = await self._call(
            "DELETE", f"/memory/long-term/{_segment(memory_id)}", missing_ok=True
        )
        if answer is None:
            return False
        self._notify()
        return True

    @override
    async def clear(self) -> int:
        removed = await self._read(
            _field("deleted", int), "DELETE", "/memory/long-term"
        )
        self._notify()
        return removed

    @override
    async def search(
        self,
        query: str,
        *,
        limit: int | None = None,
        scopes: Sequence[str] | None = None,
        topic: str | None = None,
        record_access: bool = False,
    ) -> builtins.list[ScoredMemory]:
        body = {
            "query": query,
            "limit": limit,
            "scopes": None if scopes is None else list(scopes),
            "topic": topic,
            "record_access": record_access,
        }
        return await self._read(
            lambda answer: [scored_memory_from_json(r) for r in answer["results"]],
            "POST",
            "/api/turns/search",
            body=body,
        )

    @override
    async def same_facts(
        self, memory_ids: Sequence[str]
    ) -> builtins.list[tuple[str, str]]:
        return await self._read(
            lambda answer: [(str(a), str(b)) for a, b in answer["pairs"]],
            "POST",
            "/api/turns/same-facts",
            body={"memory_ids": list(memory_ids)},
        )

    @override
    async def build_prompt(
        self,
        prompt: str,
        *,
        query: str | None = None,
        limit: int | None = None,
        scopes: Sequence[str] | None = None,
    ) -> str:
        body = {
            "prompt": prompt,
            "query": query,
            "limit": limit,
            "scopes": None if scopes is None else list(scopes),
        }
        return await self._read(
            _field("prompt", str), "POST", "/api/turns/prompt", body=body
        )

    @override
    async def reindex(self) -> int:
        return await self._read(_field("indexed", int), "POST", "/api/memory/reindex")

    @override
    async def export(self) -> dict[str, Any]:
        return await self._read(_document, "GET", "/memory/export")

    @override
    async def import_(
        self, document: object, *, mode: ImportMode = "merge"
    ) -> ImportResult:
        result = await self._read(
            lambda a: ImportResult(int(a["added"]), int(a["updated"]), int(a["total"])),
            "POST",
            "/memory/import",
            body={"document": document, "mode": mode},
        )
        self._notify()
        return result

    @override
    async def stats(self) -> StoreStats:
        # The fields the server's /memory/stats gives.
        return await self._read(_stats_from_json, "GET", "/memory/stats")

    @override
    async def set_settings(self, settings: StoreSettings) -> None:
        # The server keeps them in its config.json.
        await self._call(
            "PUT",
            "/api/memory/config",
            body={
                "maxItems": settings.max_items,
                "maxContentLength": settings.max_content_length,
                "ragTopN": settings.retrieval_limit,
                "evictionThreshold": settings.eviction_threshold,
            },
        )

    # -- MEMORY.md and daily logs -----------------------------------------------------

    @override
    async def read_markdown(self) -> str:
        return await self._read(_field("content", str), "GET", "/api/memory/main")

    @override
    async def write_markdown(self, text: str) -> ReconcileResult:
        result = await self._read(
            lambda a: ReconcileResult(
                int(a["added"]), int(a["updated"]), int(a["removed"])
            ),
            "PUT",
            "/api/memory/main",
            body={"content": text},
        )
        if result.changed:
            self._notify()
        return result

    @override
    async def append_daily_log(
        self, entry: str, now: datetime | None = None
    ) -> LogEntry:
        body = {"entry": entry, "now": None if now is None else now.isoformat()}
        return await self._read(_log_entry, "POST", "/api/turns/daily-log", body=body)

    @override
    async def read_daily_log(self, day: str | date) -> str:
        text = day.isoformat() if isinstance(day, date) else day
        return await self._read(
            _field("content", str), "GET", f"/memory/daily/{_segment(text)}"
        )

    @override
    async def daily_log_dates(self) -> builtins.list[str]:
        return await self._read(
            lambda a: [str(day) for day in a["dates"]], "GET", "/memory/daily"
        )

    @override
    async def search_daily_logs(
        self, query: str, limit: int = DEFAULT_SEARCH_LIMIT
    ) -> builtins.list[LogEntry]:
        return await self._read(
            lambda a: [_log_entry(entry) for entry in a["entries"]],
            "POST",
            "/api/turns/daily-log/search",
            body={"query": query, "limit": limit},
        )

    # -- compaction: the server's LLM and settings ---------------------------

    @property
    @override
    def compaction_enabled(self) -> bool:
        # As the server said on the last connect or listing.
        return self._compaction_enabled

    @override
    async def compact(self) -> CompactionResult | None:
        result = await self._compaction_call(result_answer, "/api/auto-memory/compact")
        if result is not None:
            self._notify()
        return result

    @override
    async def maybe_compact(self) -> CompactionResult | None:
        try:
            result = await self._read(
                result_answer,
                "POST",
                "/api/auto-memory/compact-if-due",
                seconds=COMPACTION_TIMEOUT,
            )
        except BackendUnavailableError:
            return None  # logged once by the availability tracking
        except MemoryEngineError as err:
            _LOGGER.warning("Compaction on the memory server failed: %s", err.message)
            return None
        if result is not None:
            self._notify()
        return result

    @override
    async def preview_compaction(self) -> CompactionPreview | None:
        return await self._compaction_call(
            preview_answer, "/api/auto-memory/compact/preview"
        )

    @override
    async def apply_compaction(
        self, revision: str
    ) -> CompactionResult | CompactionPreview | None:
        answer = await self._compaction_call(
            applied_answer, "/api/auto-memory/compact/apply", {"revision": revision}
        )
        if isinstance(answer, CompactionResult):
            self._notify()
        return answer

    async def _compaction_call[T](
        self, parse: Callable[[Any], T], path: str, body: object = None
    ) -> T | None:
        """A compaction route's answer; None when the server does not compact."""
        try:
            return await self._read(
                parse, "POST", path, body=body, seconds=COMPACTION_TIMEOUT
            )
        except InvalidMemoryError as err:
            if err.code != "compaction_not_enabled":
                raise
            self._compaction_enabled = False
            return None

    @override
    async def undo_compaction(self) -> CompactionResult | None:
        result = await self._read(result_answer, "POST", "/api/auto-memory/undo")
        if result is not None:
            self._notify()
        return result

    @override
    async def compaction_backups(self) -> builtins.list[BackupInfo]:
        enabled, backups = await self._read(
            _backups, "GET", "/api/auto-memory/compactions"
        )
        self._compaction_enabled = enabled
        return backups

    # -- conversations ------------------------------------------------------------------

    @override
    async def begin_turn(
        self,
        *,
        session_id: str,
        text: str,
        user_id: str | None = None,
        settings: TurnSettings | None = None,
        live_since: datetime | None = None,
        speaker: TurnSpeaker | None = None,
    ) -> TurnContext:
        body = {
            "speaker": None if speaker is None else speaker.as_dict(),
            "session_id": session_id,
            "text": text,
            "user_id": user_id,
            "settings": turn_settings_json(settings or TurnSettings()),
            "live_since": None if live_since is None else live_since.isoformat(),
        }
        return await self._read(
            turn_context_from_json, "POST", "/api/turns/begin", body=body
        )

    @override
    async def end_turn(
        self,
        *,
        session_id: str,
        user_text: str,
        reply: str,
        user_id: str | None = None,
        memory_ids: Sequence[str] | None = None,
    ) -> None:
        body = {
            "session_id": session_id,
            "user_text": user_text,
            "reply": reply,
            "user_id": user_id,
            "memory_ids": None if memory_ids is None else list(memory_ids),
        }
        await self._call("POST", "/api/turns/end", body=body)

    @override
    async def note_message(self, session_id: str, role: str, text: str) -> None:
        body = {"session_id": session_id, "role": role, "text": text}
        await self._call("POST", "/api/turns/note", body=body)

    @override
    async def pause_session(self, session_id: str, *, user_id: str | None) -> None:
        body = {"session_id": session_id, "user_id": user_id}
        await self._call("POST", "/api/turns/pause", body=body)

    @override
    async def memory_overview(
        self, *, user_id: str | None, settings: TurnSettings | None = None
    ) -> str:
        body = {
            "user_id": user_id,
            "settings": turn_settings_json(settings or TurnSettings()),
        }
        return await self._read(
            _field("content", str), "POST", "/api/turns/overview", body=body
        )

    @override
    async def working_memory(self, session_id: str) -> WorkingMemory | None:
        return await self._read(
            _optional(WorkingMemory.from_dict),
            "GET",
            f"/memory/working/{_segment(session_id)}",
            missing_ok=True,
        )

    @override
    async def working_sessions(self) -> builtins.list[WorkingMemory]:
        return await self._read(
            lambda a: [WorkingMemory.from_dict(item) for item in a["items"]],
            "GET",
            "/memory/working",
        )

    @override
    async def recent_sessions(self, limit: int = 20) -> builtins.list[SessionSummary]:
        return await self._read(
            lambda a: [SessionSummary(**item) for item in a["items"]],
            "GET",
            "/memory/sessions",
            query={"limit": str(limit)},
        )

    @override
    async def conversations(
        self, *, limit: int = 20, offset: int = 0, owner: str | None = None
    ) -> ConversationPage:
        query = {"limit": str(limit), "offset": str(offset)}
        return await self._read(
            conversation_page_from_json,
            "GET",
            "/memory/conversations",
            query=_with_owner(query, owner),
        )

    @override
    async def conversation(
        self, session_id: str, *, owner: str | None = None
    ) -> Conversation | None:
        return await self._read(
            _optional(conversation_from_json),
            "GET",
            f"/memory/sessions/{_segment(session_id)}",
            query=_with_owner({}, owner),
            missing_ok=True,
        )

    @override
    async def delete_conversation(
        self, session_id: str, *, owner: str | None = None
    ) -> int:
        answer = await self._call(
            "DELETE",
            f"/memory/sessions/{_segment(session_id)}",
            query=_with_owner({}, owner),
            missing_ok=True,
        )
        return 0 if answer is None else int(answer["messages"])

    @override
    async def read_profile(self, scope: str = HOUSEHOLD_SCOPE) -> str:
        return await self._read(
            _field("content", str), "GET", "/memory/profile", query={"scope": scope}
        )

    @override
    async def write_profile(self, scope: str, text: str) -> None:
        await self._call(
            "PUT", "/memory/profile", body={"scope": scope, "content": text}
        )


def _segment(value: str) -> str:
    """A path segment: nothing in it can reach another route."""
    return quote(value, safe="")


def _with_owner(query: dict[str, str], owner: str | None) -> dict[str, str]:
    """The query with the owner of the conversations, when one is given."""
    return query if owner is None else {**query, "user": owner}


def _plain_fields(fields: MemoryFields) -> dict[str, Any]:
    """Memory fields as JSON (tags and metadata as plain lists and objects).

    Tags given as one text ("a, b") are sent as the list it stands for.
    """
    body: dict[str, Any] = dict(fields)
    if isinstance(tags := body.get("tags"), str):
        body["tags"] = tags.split(",")
    elif tags is not None:
        body["tags"] = list(tags)
    if "metadata" in body:
        body["metadata"] = dict(body["metadata"])
    return body


def _optional[T](parse: Callable[[Any], T]) -> Callable[[Any], T | None]:
    """A parser that lets through None (a 404 where the protocol answers None)."""
    return lambda answer: None if answer is None else parse(answer)


def _field[T](name: str, kind: Callable[[Any], T]) -> Callable[[Any], T]:
    """A parser of one field of the answer."""
    return lambda answer: kind(answer[name])


def _document(answer: Any) -> dict[str, Any]:
    if not isinstance(answer, dict):
        raise TypeError("an export document is a JSON object")
    return answer


def _backups(answer: Any) -> tuple[bool, builtins.list[BackupInfo]]:
    """Whether the server compacts, and its backups."""
    return bool(answer["enabled"]), [
        BackupInfo(
            str(item["id"]),
            parse_time(item["createdAt"], "createdAt"),
            None if item["count"] is None else int(item["count"]),
        )
        for item in answer["items"]
    ]


def _message(answer: object, default: str) -> str:
    if isinstance(answer, dict) and isinstance(answer.get("error"), str):
        return cast(str, answer["error"])
    return default


def _log_entry(answer: Any) -> LogEntry:
    return LogEntry(str(answer["date"]), str(answer["time"]), str(answer["text"]))


def _stats_from_json(answer: Any) -> StoreStats:
    return StoreStats(
        count=int(answer["count"]),
        max_items=int(answer["maxItems"]),
        max_content_length=int(answer["maxContentLength"]),
        last_changed=answer["lastChanged"],
        by_category=dict(answer["byCategory"]),
        by_source=dict(answer["bySource"]),
        scopes=int(answer["scopes"]),
        # Older servers do not say: the defaults then.
        retrieval_limit=int(answer.get("retrievalLimit", RAG_TOP_N.default)),
        eviction_threshold=int(answer.get("evictionThreshold", 0)),
        indexed=int(answer["indexed"]),
        full_text_search=bool(answer["fullTextSearch"]),
        vector_search=answer["vectorSearch"],
        embedded=int(answer.get("embedded", 0)),
        fullness=_fullness_from_json(answer.get("fullness")),
    )


def _fullness_from_json(answer: Any) -> Fullness:
    # An older server does not say: then nothing is known to be full.
    if not isinstance(answer, dict):
        return Fullness()
    return Fullness(
        full=bool(answer["full"]),
        nearly_full=bool(answer["nearlyFull"]),
        learning_stopped=bool(answer["learningStopped"]),
        stopped_since=answer["stoppedSince"],
        refused=int(answer["refused"]),
    )
