"""quality_scale.yaml tells where the integration stands on each of Home Assistant's rules.

Every rule Home Assistant's core integrations list is listed, and each is done or exempt
with its reason (hassfest requires the reason); none is left to do.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import homeassistant.components
import yaml

ROOT = Path(__file__).resolve().parents[2]
QUALITY_SCALE = ROOT / "custom_components" / "assist_memory" / "quality_scale.yaml"


def rules(path: Path) -> dict[str, Any]:
    loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
    return dict(loaded["rules"])


def core_rule_names() -> frozenset[str]:
    """The rule list most of Home Assistant's own integrations use."""
    components = Path(homeassistant.components.__file__).parent
    lists = Counter(
        frozenset(rules(path)) for path in components.glob("*/quality_scale.yaml")
    )
    return lists.most_common(1)[0][0]


def test_every_rule_is_listed() -> None:
    assert set(rules(QUALITY_SCALE)) == core_rule_names()


def test_every_rule_is_done_or_exempt_with_a_reason() -> None:
    for name, rule in rules(QUALITY_SCALE).items():
        status = rule if isinstance(rule, str) else rule["status"]
        assert status in {"done", "exempt"}, name
        if status == "exempt":
            assert isinstance(rule, dict), name
            assert str(rule.get("comment", "")).strip(), name
