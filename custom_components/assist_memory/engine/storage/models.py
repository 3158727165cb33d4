"""The memory record and the rules every field must satisfy."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
import json
import math
import re
import secrets
import sys
from types import MappingProxyType
from typing import Any, Final

from ..config import LONGEST_CONTENT, MAX_CONTENT_LENGTH
from ..errors import ContentOverLimitError, InvalidMemoryError
from .jsonfast import nesting_depth

CATEGORIES: Final = (
    "preference",
    "fact",
    "pattern",
    "event",
    "person",
    "routine",
    "note",
)
DEFAULT_CATEGORY: Final = "fact"
SOURCES: Final = ("user_stated", "inferred", "system")
DEFAULT_SOURCE: Final = "user_stated"
HOUSEHOLD_SCOPE: Final = "household"

DEFAULT_MAX_CONTENT_LENGTH: Final = MAX_CONTENT_LENGTH.default
MAX_KEY_LENGTH: Final = 200
MAX_SCOPE_LENGTH: Final = 200
MAX_TAG_LENGTH: Final = 50
MAX_TAGS: Final = 20
MAX_METADATA_CHARS: Final = 8192
MAX_METADATA_DEPTH: Final = 32
# The largest whole number every reader of our JSON holds exactly (JavaScript too).
MAX_WHOLE_NUMBER: Final = 2**53 - 1
_ID_PATTERN: Final = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_WHITESPACE: Final = re.compile(r"\s")
_NO_METADATA: Final[Mapping[str, Any]] = MappingProxyType({})
# A time as `datetime.isoformat` writes one in UTC, the only form stored: its text
# sorts in time order. ISO 8601 has others ("20261128T120000+00:00", a week date, a
# space for the T) that sort elsewhere, so an end in one of them would pass unseen.
_STORED_TIME: Final = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{6})?\+00:00"
)
# "2025-01-31T12:34:56.123456+05:30" is 32 characters; room for spacing.
MAX_TIME_LENGTH: Final = 40


def utc_now() -> str:
    """Return the current time as the ISO 8601 string every record uses."""
    return datetime.now(UTC).isoformat()


def new_id() -> str:
    """Return a fresh random id (16 hex characters)."""
    return secrets.token_hex(8)


@dataclass(frozen=True, slots=True)
class Memory:
    """One long-term memory. Immutable: changes produce a new record."""

    id: str
    content: str
    category: str = DEFAULT_CATEGORY
    key: str | None = None
    tags: tuple[str, ...] = ()
    confidence: float = 1.0
    source: str = DEFAULT_SOURCE
    scope: str = HOUSEHOLD_SCOPE
    session_id: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    created_at: str = ""
    updated_at: str = ""
    last_accessed: str | None = None
    access_count: int = 0
    # When the fact stops being true (UTC, like every time here); None: never.
    expires_at: str | None = None

    def has_ended(self, now: str) -> bool:
        """Whether the memory's end has come by `now` (an ISO time in UTC)."""
        return self.expires_at is not None and self.expires_at <= now

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form (a fresh, mutable copy)."""
        return {
            "id": self.id,
            "content": self.content,
            "category": self.category,
            "key": self.key,
            "tags": list(self.tags),
            "confidence": self.confidence,
            "source": self.source,
            "scope": self.scope,
            "session_id": self.session_id,
            "metadata": dict(self.metadata),
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "last_accessed": self.last_accessed,
            "access_count": self.access_count,
            "expires_at": self.expires_at,
        }

    def with_changes(self, **changes: Any) -> Memory:
        """Return a copy with the given fields replaced."""
        return replace(self, **changes)


# Names other implementations (such as a TypeScript one) use for the same fields.
FIELD_ALIASES: Final = {
    "createdAt": "created_at",
    "updatedAt": "updated_at",
    "lastAccessed": "last_accessed",
    "accessCount": "access_count",
    "sessionId": "session_id",
    "expiresAt": "expires_at",
    "value": "content",
}


def memory_from_dict(data: object, *, max_content_length: int) -> Memory:
    """Validate a stored or imported record and return it.

    Ids and timestamps are kept exactly, so an export restores exactly.
    Raises InvalidMemoryError naming the first bad field.
    """
    if not isinstance(data, Mapping):
        raise InvalidMemoryError(
            "invalid_record", "a memory must be a JSON object", field="record"
        )
    record = {str(k): v for k, v in data.items()}
    shadowed: dict[str, object] = {}
    for alias, name in FIELD_ALIASES.items():
        if alias in record:
            value = record.pop(alias)
            (shadowed if name in record else record)[name] = value
    if shadowed:
        # Our name wins over another's; what the other holds must still be valid.
        memory_from_dict({**record, **shadowed}, max_content_length=max_content_length)
    if not isinstance(record.get("tags", ()), list | tuple | None):
        # A record keeps a list; one text of several tags is for people typing them.
        raise InvalidMemoryError(
            "invalid_tags", "tags must be a list of text", field="tags"
        )
    created_at = validate_timestamp(
        _given(record.get("created_at"), utc_now()), "created_at"
    )
    last_accessed = record.get("last_accessed")
    return Memory(
        id=validate_id(record.get("id")),
        content=validate_content(
            record.get("content"), max_content_length, setting=True
        ),
        category=validate_category(record.get("category", DEFAULT_CATEGORY)),
        key=validate_key(record.get("key")),
        tags=validate_tags(record.get("tags", ())),
        confidence=validate_confidence(record.get("confidence", 1.0)),
        source=validate_source(record.get("source", DEFAULT_SOURCE)),
        scope=validate_scope(record.get("scope", HOUSEHOLD_SCOPE)),
        session_id=validate_optional_text(record.get("session_id"), "session_id"),
        metadata=validate_metadata(record.get("metadata", {})),
        created_at=created_at,
        updated_at=validate_timestamp(
            _given(record.get("updated_at"), created_at), "updated_at"
        ),
        last_accessed=None
        if last_accessed is None
        else validate_timestamp(last_accessed, "last_accessed"),
        access_count=validate_access_count(record.get("access_count", 0)),
        expires_at=validate_expires_at(record.get("expires_at")),
    )


def validate_expires_at(value: object) -> str | None:
    """An optional end: an ISO 8601 time in UTC; none, null or "" means it never ends."""
    return (
        None
        if value is None or value == ""
        else validate_timestamp(value, "expires_at")
    )


def _given(value: object, default: str) -> object:
    """A time as given, or `default` for none (missing, null or "")."""
    return default if value is None or value == "" else value


def memory_from_trusted(record: Mapping[str, Any]) -> Memory:
    """A record this engine wrote itself (the file's checksum matched): no checks.

    Raises KeyError or TypeError when the record is not in the engine's own shape.
    """
    metadata = record["metadata"]
    created, updated = record["created_at"], record["updated_at"]
    # Lighter at 100 000 memories: the few categories, sources and scopes are one
    # string each, and a time equal to another is that one.
    return Memory(
        id=record["id"],
        content=record["content"],
        category=sys.intern(record["category"]),
        key=record["key"],
        tags=tuple(record["tags"]),
        confidence=record["confidence"],
        source=sys.intern(record["source"]),
        scope=sys.intern(record["scope"]),
        session_id=record["session_id"],
        metadata=MappingProxyType(metadata) if metadata else _NO_METADATA,
        created_at=created,
        updated_at=created if updated == created else updated,
        last_accessed=record["last_accessed"],
        access_count=record["access_count"],
        # Files of format 1 have no end: their memories never end. Few memories
        # have one: each is brought to the stored form (an earlier version's file).
        expires_at=None
        if (end := record.get("expires_at")) is None
        else stored_time(end),
    )


def validate_id(value: object) -> str:
    """Ids are 1-64 characters of letters, digits, '_' and '-'."""
    if not isinstance(value, str) or not _ID_PATTERN.match(value):
        raise InvalidMemoryError(
            "invalid_id",
            "id must be 1-64 letters, digits, '_' or '-'",
            field="id",
        )
    return value


def is_storable_text(text: str) -> bool:
    """Whether the files can hold the text: no NUL, valid UTF-8 (no lone surrogates)."""
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return "\x00" not in text


def validate_content(value: object, max_length: int, *, setting: bool = False) -> str:
    """Content is non-blank text of at most `max_length` characters, trimmed.

    The length is that of the text as given (what the API document states). With
    `setting`, `max_length` is the store's `max_content_length`: content over it that
    another setting would allow raises ContentOverLimitError.
    """
    if not isinstance(value, str):
        raise InvalidMemoryError(
            "invalid_content", "content must be text", field="content"
        )
    text = value.strip()
    if not text:
        raise InvalidMemoryError(
            "empty_content", "content must not be empty", field="content"
        )
    if not is_storable_text(text):
        raise InvalidMemoryError(
            "invalid_content",
            "content must not contain NUL characters or unpaired surrogates",
            field="content",
        )
    if len(value) > max_length:
        over_a_setting = setting and len(value) <= LONGEST_CONTENT
        error = ContentOverLimitError if over_a_setting else InvalidMemoryError
        raise error.too_long("content_too_long", "content", len(value), max_length)
    return text


def validate_category(value: object) -> str:
    """The category is one of CATEGORIES (case-insensitive)."""
    category = value.strip().lower() if isinstance(value, str) else value
    if category not in CATEGORIES:
        raise InvalidMemoryError(
            "unknown_category",
            f"unknown category {value!r}; use one of: {', '.join(CATEGORIES)}",
            category=value,
            categories=", ".join(CATEGORIES),
        )
    return str(category)


def validate_source(value: object) -> str:
    """The source is one of SOURCES."""
    if value not in SOURCES:
        raise InvalidMemoryError(
            "unknown_source",
            f"unknown source {value!r}; use one of: {', '.join(SOURCES)}",
            source=value,
            sources=", ".join(SOURCES),
        )
    return str(value)


def validate_confidence(value: object) -> float:
    """Confidence is a number from 0 to 1."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or not 0.0 <= value <= 1.0
    ):
        raise InvalidMemoryError(
            "invalid_confidence",
            f"confidence must be a number from 0 to 1, not {value!r}",
            confidence=value,
        )
    return float(value)


def validate_scope(value: object) -> str:
    """A scope is `household` or a user id: short text without whitespace."""
    if value == HOUSEHOLD_SCOPE:
        return HOUSEHOLD_SCOPE
    if (
        not isinstance(value, str)
        or not value
        or len(value) > MAX_SCOPE_LENGTH
        or _WHITESPACE.search(value)
        or not is_storable_text(value)
    ):
        raise InvalidMemoryError(
            "invalid_scope",
            "scope must be 'household' or a user id",
            scope=value,
        )
    return value


def validate_key(value: object) -> str | None:
    """A key is optional short text; blank means none."""
    return validate_optional_text(value, "key")


def validate_optional_text(value: object, name: str) -> str | None:
    """Optional short text (keys, session ids): blank means none."""
    if value is None:
        return None
    if (
        not isinstance(value, str)
        or len(value) > MAX_KEY_LENGTH
        or not is_storable_text(value)
    ):
        raise InvalidMemoryError(
            f"invalid_{name}",
            f"{name} must be text of at most {MAX_KEY_LENGTH} characters",
            field=name,
        )
    return value.strip() or None


def validate_tags(value: object) -> tuple[str, ...]:
    """Tags: a list of short words or one comma-separated string.

    At most MAX_TAGS given, each at most MAX_TAG_LENGTH characters as given; stored
    lowercase, trimmed and without duplicates or empty ones, in the order given.
    """
    if not value:
        return ()
    if isinstance(value, str):
        raw: Iterable[object] = value.split(",")
    elif isinstance(value, list | tuple):
        raw = value
    else:
        raise InvalidMemoryError(
            "invalid_tags", "tags must be a list of text", field="tags"
        )
    given = list(raw)
    if len(given) > MAX_TAGS:
        raise InvalidMemoryError(
            "invalid_tags", f"at most {MAX_TAGS} tags", field="tags"
        )
    tags: list[str] = []
    for item in given:
        if not isinstance(item, str):
            raise InvalidMemoryError(
                "invalid_tags", "tags must be a list of text", field="tags"
            )
        if len(item) > MAX_TAG_LENGTH or "," in item or not is_storable_text(item):
            raise InvalidMemoryError(
                "invalid_tags",
                f"a tag has at most {MAX_TAG_LENGTH} characters and no commas",
                field="tags",
            )
        tag = item.strip().lower()
        if tag and tag not in tags:
            tags.append(tag)
    return tuple(tags)


def validate_metadata(value: object) -> Mapping[str, Any]:
    """Metadata is a JSON object of limited size."""
    if not isinstance(value, Mapping):
        raise InvalidMemoryError(
            "invalid_metadata", "metadata must be a JSON object", field="metadata"
        )
    if not value:
        return _NO_METADATA
    if nesting_depth(value, MAX_METADATA_DEPTH) > MAX_METADATA_DEPTH:
        raise InvalidMemoryError(
            "invalid_metadata",
            f"metadata nests deeper than {MAX_METADATA_DEPTH} levels",
            field="metadata",
        )
    try:
        encoded = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as err:
        raise InvalidMemoryError(
            "invalid_metadata",
            f"metadata must be plain JSON: {err}",
            field="metadata",
        ) from err
    if len(encoded) > MAX_METADATA_CHARS:
        raise InvalidMemoryError(
            "invalid_metadata",
            f"metadata is larger than {MAX_METADATA_CHARS} characters",
            field="metadata",
        )
    if not is_storable_text(encoded):
        raise InvalidMemoryError(
            "invalid_metadata",
            "metadata must not contain unpaired surrogates",
            field="metadata",
        )
    # Read-only, so a caller holding a record cannot change what is stored.
    return MappingProxyType(json.loads(encoded))


def parse_time(value: object, name: str) -> datetime:
    """An ISO 8601 time as given (its own zone kept; none means UTC when converted).

    Every time read from a file or a request goes through here: text of bounded
    length, ASCII digits only, and a moment UTC can hold (year 1 at +14:00 cannot).
    Raises InvalidMemoryError (`invalid_timestamp`) naming the field otherwise.
    """
    if isinstance(value, str) and len(value) <= MAX_TIME_LENGTH and value.isascii():
        try:
            parsed = datetime.fromisoformat(value.strip())
            _as_utc(parsed)
        except ValueError, OverflowError:
            pass
        else:
            return parsed
    raise InvalidMemoryError(
        "invalid_timestamp", f"{name} must be an ISO 8601 time", field=name
    )


def utc_time(moment: datetime, name: str = "time") -> datetime:
    """The moment in UTC (a moment without zone is taken as UTC).

    InvalidMemoryError when UTC cannot hold it (year 1 at +14:00).
    """
    try:
        return _as_utc(moment)
    except OverflowError:
        raise InvalidMemoryError(
            "invalid_timestamp", f"{name} is out of range", field=name
        ) from None


def _as_utc(moment: datetime) -> datetime:
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def validate_timestamp(value: object, name: str) -> str:
    """An ISO 8601 time, returned in UTC; a time without zone is taken as UTC.

    UTC everywhere keeps the stored strings in time order when compared as text.
    """
    parsed = parse_time(value, name)
    if isinstance(value, str) and _STORED_TIME.fullmatch(value):
        return value  # already as every stored time is
    return _as_utc(parsed).isoformat()


def stored_time(value: str) -> str:
    """A time read from a file this engine wrote, in the stored form.

    Earlier versions kept some ISO 8601 forms as given (see `_STORED_TIME`).
    """
    if _STORED_TIME.fullmatch(value):
        return value
    return validate_timestamp(value, "time")


def whole_number(value: object) -> int | None:
    """A JSON whole number as an int (2.0 is one, as JSON Schema says; true is not).

    None for anything else, and for numbers beyond MAX_WHOLE_NUMBER given as floats.
    """
    if isinstance(value, float):
        if value.is_integer() and abs(value) <= MAX_WHOLE_NUMBER:
            return int(value)
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return None


def validate_access_count(value: object) -> int:
    """A whole number from 0 to MAX_WHOLE_NUMBER."""
    count = whole_number(value)
    if count is None or not 0 <= count <= MAX_WHOLE_NUMBER:
        raise InvalidMemoryError(
            "invalid_access_count",
            f"access_count must be a whole number from 0 to {MAX_WHOLE_NUMBER}",
            field="access_count",
        )
    return count


# A section of MEMORY.md: a category of the household's memories ("fact"), or of one
# person's ("fact@<scope>"). Categories never hold the separator.
_SECTION_SEPARATOR: Final = "@"


def section_key(category: str, scope: str) -> str:
    """The key of a category's section of one scope."""
    if scope == HOUSEHOLD_SCOPE:
        return category
    return f"{category}{_SECTION_SEPARATOR}{scope}"


def split_section(key: str) -> tuple[str, str]:
    """A section key's (category, scope)."""
    category, _, scope = key.partition(_SECTION_SEPARATOR)
    return category, scope or HOUSEHOLD_SCOPE


@dataclass(frozen=True, slots=True)
class ReconcilePlan:
    """What to change in the store so that it holds the bullets of an edited file.

    `adds` are (section key, content); `updates` are (memory id, new content or
    None, new section key or None). A section key (`section_key`) is the category,
    and names the scope too when it is a person's: a memory moved to another
    person's section moves to them.
    """

    adds: list[tuple[str, str]] = field(default_factory=list)
    updates: list[tuple[str, str | None, str | None]] = field(default_factory=list)
    deletes: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        """True when the plan changes anything."""
        return bool(self.adds or self.updates or self.deletes)
