"""The memory manager's settings are named as the options name them, from one source.

`engine/web/setting_words.js` must be what script/setting_words.py makes now from the
options' words (strings.json, translations/) for the settings of `engine/config.py`.
"""

from __future__ import annotations

import json
from pathlib import Path
import re

import pytest

from custom_components.assist_memory.engine.config import SETTINGS
from script import setting_words
from script.setting_words import LANGUAGES, TARGET, main

WEB = TARGET.parent


def test_the_file_is_current() -> None:
    assert TARGET.read_text(encoding="utf-8") == setting_words.setting_words(), (
        "engine/web/setting_words.js is stale: run script/docs"
    )


def test_every_setting_has_a_name_help_and_unit_in_every_language() -> None:
    text = setting_words.setting_words()
    words = json.loads(text.split("export const SETTING_WORDS = ", 1)[1].rstrip(";\n"))
    assert set(words) == set(LANGUAGES)
    for table in words.values():
        for setting in SETTINGS:
            assert table[f"setting.{setting.name}"]
            assert table[f"help.{setting.name}"]
            if setting.unit:
                assert table[f"unit.{setting.unit}"]


def test_the_web_pages_own_words_name_no_setting() -> None:
    """No second name: the page's own table holds no word for a setting."""
    own = (WEB / "i18n.js").read_text(encoding="utf-8")
    for setting in SETTINGS:
        for prefix in ("setting", "help", "settings"):
            assert not re.search(rf'"{prefix}\.{setting.name}"\s*:', own), (
                f"{prefix}.{setting.name} is named in i18n.js too"
            )


def test_a_stale_file_fails_the_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stale = tmp_path / "setting_words.js"
    stale.write_text("// old\n", encoding="utf-8")
    monkeypatch.setattr(setting_words, "TARGET", stale)
    monkeypatch.setattr(setting_words, "ROOT", tmp_path)
    assert main(["--check"]) == 1
    assert main([]) == 0
    assert main(["--check"]) == 0
