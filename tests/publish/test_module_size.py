"""No Python module of the integration (glue or engine) is longer than a reader can hold.

A module that grows past the limit holds more than one job: split it by job.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_MODULE_LINES = 800


def too_long(folder: Path) -> list[str]:
    """The modules under `folder` over the limit, with their length."""
    return [
        f"{path.relative_to(folder)}: {lines} lines"
        for path in sorted(folder.rglob("*.py"))
        if (lines := len(path.read_text(encoding="utf-8").splitlines()))
        > MAX_MODULE_LINES
    ]


def test_no_module_is_over_the_limit() -> None:
    assert too_long(ROOT / "custom_components") == []


def test_a_long_module_is_reported(tmp_path: Path) -> None:
    (tmp_path / "fits.py").write_text("x = 1\n" * MAX_MODULE_LINES, encoding="utf-8")
    (tmp_path / "package").mkdir()
    (tmp_path / "package" / "long.py").write_text(
        "x = 1\n" * (MAX_MODULE_LINES + 1), encoding="utf-8"
    )
    assert too_long(tmp_path) == [f"package/long.py: {MAX_MODULE_LINES + 1} lines"]
