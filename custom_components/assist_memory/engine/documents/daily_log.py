"""Daily logs: time-stamped notes, one append-only Markdown file per day.

`daily/2025-03-14.md`:

    # 2025-03-14

    - 08:02:11 Started the robot vacuum before breakfast
    - 21:40:05 The guests from Taipei arrive on Saturday

An entry is one line, appended with fsync before it is acknowledged. Search matches
keywords (English stems, Chinese characters and pairs) and needs no index: a day's log
is small.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
import os
from pathlib import Path
import re
import threading
from typing import Final

from ..errors import InvalidMemoryError
from ..language.keywords import (
    Keywords,
    cjk_grams,
    cjk_pairs,
    extract_keywords,
    light_stem,
)
from ..storage.durable import (
    append_durably,
    fsync_directory,
    make_private_folder,
    open_private,
    storage_error,
    write_atomically,
)

MAX_ENTRY_LENGTH: Final = 2000
# A forgotten text this short only takes away entries that are exactly it.
_SHORTEST_QUOTED: Final = 8
DEFAULT_SEARCH_LIMIT: Final = 10
_FILE_NAME: Final = re.compile(r"^(\d{4}-\d{2}-\d{2})\.md$")
_DATE: Final = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
# "- 08:02:11 text"; a bullet written by hand may have no time (or HH:MM).
_ENTRY: Final = re.compile(
    r"^[ \t]*[-*+][ \t]+(?:(\d{1,2}:\d{2}(?::\d{2})?)[ \t]+)?(.*\S)[ \t]*$"
)


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One line of a daily log; `time` is empty for a hand-written line without one."""

    date: str
    time: str
    text: str


def validate_entry(entry: object) -> str:
    """A log entry is non-empty text of at most 2000 characters, kept on one line."""
    if not isinstance(entry, str):
        raise InvalidMemoryError(
            "invalid_log_entry", "a log entry must be text", field="entry"
        )
    text = " ".join(entry.replace("\x00", " ").split())
    if not text:
        raise InvalidMemoryError(
            "empty_log_entry", "a log entry must not be empty", field="entry"
        )
    if len(entry) > MAX_ENTRY_LENGTH:
        raise InvalidMemoryError.too_long(
            "log_entry_too_long", "a log entry", len(entry), MAX_ENTRY_LENGTH
        )
    return text


def validate_date(value: object) -> str:
    """A day as YYYY-MM-DD (InvalidMemoryError, a ValueError, otherwise)."""
    if isinstance(value, date):
        return value.isoformat()[:10]
    if isinstance(value, str) and _DATE.match(value.strip()):
        try:
            return date.fromisoformat(value.strip()).isoformat()
        except ValueError:
            pass
    raise InvalidMemoryError(
        "invalid_date", f"{value!r} is not a date like 2025-03-14", date=value
    )


class DailyLog:
    """The daily log files in one folder (`prompts/memory/daily/`)."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self._lock = threading.Lock()

    def path_for(self, day: str | date) -> Path:
        """The file of one day."""
        return self.folder / f"{validate_date(day)}.md"

    def append(self, entry: str, now: datetime) -> LogEntry:
        """Append `- HH:MM:SS entry` to the log of `now`'s day, durably.

        `now` is taken as local time (as given: its own time zone, if any).
        """
        text = validate_entry(entry)
        logged = LogEntry(now.date().isoformat(), now.strftime("%H:%M:%S"), text)
        path = self.folder / f"{logged.date}.md"
        line = f"- {logged.time} {logged.text}\n".encode()
        with self._lock:
            make_private_folder(self.folder)
            try:
                try:
                    fd = open_private(
                        path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_EXCL
                    )
                except FileExistsError:
                    fd = os.open(path, os.O_RDWR | os.O_APPEND)
                    created = False
                else:
                    created = True
            except OSError as err:
                raise storage_error(err, path) from err
            try:
                try:
                    size = os.fstat(fd).st_size
                    last = os.pread(fd, 1, size - 1) if size else b""
                except OSError as err:
                    raise storage_error(err, path) from err
                if not size:
                    line = f"# {logged.date}\n\n".encode() + line
                elif last != b"\n":
                    line = b"\n" + line  # a torn or hand-written last line
                append_durably(fd, line, path)  # StorageError when it fails
            finally:
                os.close(fd)
            if created:
                try:
                    fsync_directory(self.folder)
                except OSError as err:
                    raise storage_error(err, self.folder) from err
        return logged

    def read(self, day: str | date) -> str:
        """The log of one day as written ("" when there is none)."""
        path = self.path_for(day)
        try:
            return path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return ""
        except OSError as err:
            raise storage_error(err, path) from err

    def dates(self) -> list[str]:
        """The days that have a log, newest first."""
        try:
            names = [child.name for child in self.folder.iterdir()]
        except FileNotFoundError:
            return []
        except OSError as err:
            raise storage_error(err, self.folder) from err
        days = [m.group(1) for name in names if (m := _FILE_NAME.match(name))]
        return sorted(days, reverse=True)

    def prune(self, before: date) -> int:
        """Retention: delete the logs of the days before `before`; returns how many."""
        removed = 0
        with self._lock:
            for day in self.dates():
                if date.fromisoformat(day) >= before:
                    continue
                path = self.path_for(day)
                try:
                    path.unlink(missing_ok=True)
                except OSError as err:
                    raise storage_error(err, path) from err
                removed += 1
            if removed:
                try:
                    fsync_directory(self.folder)
                except OSError as err:
                    raise storage_error(err, self.folder) from err
        return removed

    def entries(self, day: str) -> list[LogEntry]:
        """The entries of one day, in the order written."""
        return [
            LogEntry(day, match.group(1) or "", match.group(2))
            for line in self.read(day).splitlines()
            if (match := _ENTRY.match(line))
        ]

    def forget(self, texts: Iterable[str]) -> int:
        """Take out every entry that repeats one of the texts; how many went.

        An entry repeats a text when it contains it (ignoring case and spacing).
        Each day that changes is written again atomically.
        """
        needles = _Needles({_folded(text) for text in texts if text.strip()})
        if not needles.exact:
            return 0
        removed = 0
        with self._lock:
            for day in self.dates():
                lines = self.read(day).splitlines(keepends=True)
                kept = [line for line in lines if not needles.in_entry(line)]
                if len(kept) != len(lines):
                    write_atomically(self.path_for(day), kept)
                    removed += len(lines) - len(kept)
        return removed

    def search(self, query: str, limit: int = DEFAULT_SEARCH_LIMIT) -> list[LogEntry]:
        """Entries sharing keywords with `query`, best first (newest first on ties).

        Ranked by the share of the query's keywords an entry has.
        """
        if not isinstance(query, str) or not query.strip():
            raise InvalidMemoryError("empty_query", "the search text must not be empty")
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise InvalidMemoryError("invalid_limit", "limit must be at least 1")
        keywords = extract_keywords(query)
        wanted = _query_terms(keywords)
        if not wanted and not keywords.prefixes:
            return []
        total = len(wanted) + len(keywords.prefixes)
        scored: list[tuple[float, int, LogEntry]] = []
        position = 0
        for day in reversed(self.dates()):
            for entry in self.entries(day):
                position += 1
                found = extract_keywords(entry.text)
                terms = _entry_terms(found)
                matched = len(wanted & terms) + sum(
                    any(word.startswith(prefix) for word in found.words)
                    for prefix in keywords.prefixes
                )
                if matched:
                    scored.append((matched / total, position, entry))
        # Later in the files is newer: days oldest first, lines in the order written.
        scored.sort(key=lambda item: (item[0], item[1]), reverse=True)
        return [entry for _, _, entry in scored[:limit]]


def _folded(text: str) -> str:
    return " ".join(text.casefold().split())


class _Needles:
    """Forgotten texts, found in a log entry in one pass over it (even 100 000)."""

    def __init__(self, texts: set[str]) -> None:
        self.exact = texts
        # Texts long enough to be looked for inside an entry, by their first characters.
        self._by_start: dict[str, list[str]] = {}
        for text in texts:
            if len(text) >= _SHORTEST_QUOTED:
                self._by_start.setdefault(text[:_SHORTEST_QUOTED], []).append(text)

    def in_entry(self, line: str) -> bool:
        """Whether a log line is an entry that is, or contains, one of the texts."""
        if (match := _ENTRY.match(line)) is None:
            return False
        entry = _folded(match.group(2))
        if entry in self.exact:
            return True
        return any(
            entry.startswith(text, start)
            for start in range(len(entry) - _SHORTEST_QUOTED + 1)
            for text in self._by_start.get(entry[start : start + _SHORTEST_QUOTED], ())
        )


def _query_terms(keywords: Keywords) -> set[str]:
    terms = {light_stem(word) for word in keywords.words}
    for piece in keywords.chinese:
        terms.update(cjk_pairs(piece))
    return terms


def _entry_terms(keywords: Keywords) -> set[str]:
    terms = {light_stem(word) for word in keywords.words}
    for piece in keywords.chinese:
        terms.update(cjk_grams(piece))
    return terms
