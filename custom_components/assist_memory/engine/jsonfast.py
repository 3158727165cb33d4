"""JSON parsing with orjson when it is installed (Home Assistant ships it), else json.

Loading a large store is mostly parsing; orjson does it about twice as fast.
"""

from __future__ import annotations

from collections.abc import Callable
import json
from typing import Any

json_loads: Callable[[bytes | str], Any]
try:
    import orjson
except ImportError:  # pragma: no cover - orjson comes with Home Assistant
    json_loads = json.loads
else:
    json_loads = orjson.loads
