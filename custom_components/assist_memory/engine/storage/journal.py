"""The append-only journal of store changes.

Each line is one JSON operation, written and fsynced before the change is acknowledged:
`{"op": "put", "memory": {...}}`, `{"op": "delete", "id": "..."}`, and for memories
used in a prompt only their ids and the time, `{"op": "access", "at": "...", "ids":
[...]}` (it counts one more use of each). The first line,
`{"op": "begin", "generation": N}`, ties the journal to the snapshot of generation N.
Every snapshot write raises the generation and starts a new journal, so a journal left
behind by a crash between the two steps is recognised as superseded, never replayed.

A crash mid-append leaves a last line without its newline: it was never acknowledged
and is dropped. A damaged line elsewhere is reported, never silently skipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
import json
from pathlib import Path
from typing import Any

from ..errors import StorageError


@dataclass(slots=True)
class JournalContents:
    """What reading the journal found."""

    generation: int | None = None
    ops: list[dict[str, Any]] = field(default_factory=list)
    # Bytes up to the end of the last complete line; anything after is a torn write.
    valid_size: int = 0
    size: int = 0
    damaged_lines: list[int] = field(default_factory=list)


def read_journal(path: Path) -> JournalContents:
    """Read every complete operation from the journal (missing file: none)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return JournalContents()
    except OSError as err:
        raise StorageError(f"cannot read {path}: {err.strerror}", path) from err
    contents = JournalContents(size=len(data))
    end = data.rfind(b"\n") + 1
    contents.valid_size = end
    for number, line in enumerate(data[:end].splitlines(), start=1):
        if not line.strip():
            continue
        try:
            op = json.loads(line)
        except ValueError:
            contents.damaged_lines.append(number)
            continue
        if isinstance(op, dict) and op.get("op") in ("put", "delete", "access"):
            contents.ops.append(op)
        elif (
            number == 1
            and isinstance(op, dict)
            and op.get("op") == "begin"
            and isinstance(op.get("generation"), int)
        ):
            contents.generation = op["generation"]
        else:
            contents.damaged_lines.append(number)
    return contents


def encode_begin(generation: int) -> bytes:
    """The first line of a journal that follows the snapshot of `generation`."""
    return _encode({"op": "begin", "generation": generation})


def encode_put(memory: dict[str, Any]) -> bytes:
    """One journal line storing a full record."""
    return _encode({"op": "put", "memory": memory})


def encode_delete(memory_id: str) -> bytes:
    """One journal line removing a record."""
    return _encode({"op": "delete", "id": memory_id})


def encode_access(memory_ids: Sequence[str], at: str) -> bytes:
    """One journal line: these memories were used in a prompt at `at` (ids only)."""
    return _encode({"op": "access", "at": at, "ids": list(memory_ids)})


def ops_without(ops: list[dict[str, Any]], memory_id: str) -> list[bytes]:
    """The journal lines of `ops` again, leaving out every one about `memory_id`.

    A line of uses keeps the other memories' ids.
    """
    lines = []
    for op in ops:
        ids = op.get("ids")
        if op.get("op") == "access" and isinstance(ids, list):
            if kept := [i for i in ids if i != memory_id]:
                lines.append(_encode({**op, "ids": kept}))
        elif not _about(op, memory_id):
            lines.append(_encode(op))
    return lines


def _about(op: dict[str, Any], memory_id: str) -> bool:
    memory = op.get("memory")
    return op.get("id") == memory_id or (
        isinstance(memory, dict) and memory.get("id") == memory_id
    )


def _encode(op: dict[str, Any]) -> bytes:
    return (json.dumps(op, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
