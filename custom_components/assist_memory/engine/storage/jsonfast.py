"""Reading JSON: files (fast, and nothing refused that Python can read) and requests.

Loading a large store is mostly parsing; orjson (Home Assistant ships it) does it about
twice as fast. What orjson refuses but Python's json reads (integers beyond 64 bits) is
read by Python's json, so one odd record is checked and set aside like any other
instead of making the whole file unreadable.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
import json
from typing import Any, Final

_fast_loads: Callable[[bytes | str], Any] | None
try:
    import orjson
except ImportError:  # pragma: no cover - orjson comes with Home Assistant
    _fast_loads = None
else:
    _fast_loads = orjson.loads

# How deeply objects and lists may nest in a request body.
MAX_REQUEST_DEPTH: Final = 64


def json_loads(data: bytes | str) -> Any:
    """Parse a JSON file's content; ValueError when it is not JSON (or nests too deep)."""
    if _fast_loads is not None:
        try:
            return _fast_loads(data)
        except ValueError:
            pass  # perhaps something only Python's json reads: try it
    try:
        return json.loads(data)
    except RecursionError:
        raise ValueError("the JSON nests too deeply") from None


class JsonTooDeepError(ValueError):
    """JSON nested too deeply for Python's parser to read."""


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def parse_request_json(data: bytes | str) -> Any:
    """Parse a request body strictly: standard JSON only (no NaN or Infinity).

    ValueError when it is not JSON; JsonTooDeepError when it nests too deeply to
    parse at all (callers limit the depth of what parses: MAX_REQUEST_DEPTH).
    """
    try:
        return json.loads(data, parse_constant=_refuse_constant)
    except RecursionError:
        raise JsonTooDeepError("the JSON nests too deeply") from None


def nesting_depth(value: object, stop_above: int) -> int:
    """How deeply objects and lists nest in `value` (a scalar is 0).

    Counts without recursion, and stops once the depth passes `stop_above`.
    """
    deepest = 0
    pending: list[tuple[object, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, Mapping):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        depth += 1
        if depth > deepest:
            deepest = depth
            if deepest > stop_above:
                break
        pending.extend((child, depth) for child in children)
    return deepest
