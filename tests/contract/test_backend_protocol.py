"""The backend protocol: four parts by job, each operation documented once.

The operations are documented on their protocol; `LocalBackend` and `RemoteBackend`
implement every one (marked `@override`) without repeating the documentation.
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from custom_components.assist_memory.engine.backend.local import LocalBackend
from custom_components.assist_memory.engine.backend.protocol import (
    CompactionOperations,
    DocumentOperations,
    MemoryBackend,
    MemoryOperations,
    TurnOperations,
)
from custom_components.assist_memory.engine.http.remote_backend import RemoteBackend

PARTS = (MemoryOperations, DocumentOperations, CompactionOperations, TurnOperations)


def operations(protocol: type) -> dict[str, Any]:
    """The operations a protocol class declares itself (not inherited ones)."""
    return {
        name: member.fget if isinstance(member, property) else member
        for name, member in vars(protocol).items()
        if not name.startswith("_") and callable(getattr(member, "fget", member))
    }


def test_the_backend_is_the_union_of_its_parts() -> None:
    names = [name for part in PARTS for name in operations(part)]
    assert len(names) == len(set(names)), "an operation is in two parts"
    assert operations(MemoryBackend) == {}
    assert {
        name
        for name in dir(MemoryBackend)
        if not name.startswith("_") and name in names
    } == set(names)


@pytest.mark.parametrize("part", PARTS, ids=lambda part: part.__name__)
def test_every_operation_is_documented_on_its_protocol(part: type) -> None:
    undocumented = [
        name for name, function in operations(part).items() if not function.__doc__
    ]
    assert undocumented == []


@pytest.mark.parametrize("backend", [LocalBackend, RemoteBackend])
def test_implementations_do_not_repeat_the_documentation(backend: type) -> None:
    repeated: list[str] = []
    for part in PARTS:
        for name in operations(part):
            member = inspect.getattr_static(backend, name)
            function = member.fget if isinstance(member, property) else member
            assert getattr(function, "__override__", False), f"{name} is not @override"
            if function.__doc__:
                repeated.append(name)
    assert repeated == []
