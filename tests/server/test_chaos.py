"""script/chaos in its short mode: a few SIGKILLs of the real server under writes,
hand edits of MEMORY.md and command line runs on the same folder.

The full run (`script/chaos`, 100 kills) is reported in docs/benchmarks.md, "Reliability".
"""

from __future__ import annotations

from pathlib import Path

from script.chaos import run


async def test_sigkill_under_writes_loses_nothing(tmp_path: Path) -> None:
    totals = await run(kills=5, workers=4, seed=8, data_dir=tmp_path / "data")

    assert totals.kills == 5
    assert totals.acknowledged > 0
    assert totals.checked_records > 0
    assert totals.hand_saves > 0
    assert totals.cli_runs > 0
