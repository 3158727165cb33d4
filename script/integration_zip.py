#!/usr/bin/env python3
"""Build the zip that HACS installs: the integration's files at the zip's root.

Usage: python3 script/integration_zip.py [OUT_DIR]    (default: dist)

The zip is named as hacs.json's `filename` says (HACS downloads that release asset
and unpacks it into custom_components/assist_memory/). Compiled files are left out.
Prints the zip's path. Standard library only, for the release workflow.
"""

from __future__ import annotations

import json
from pathlib import Path
import sys
import zipfile

ROOT = Path(__file__).resolve().parent.parent
INTEGRATION = ROOT / "custom_components" / "assist_memory"


def integration_files() -> list[Path]:
    """The files HACS installs, in a stable order."""
    return sorted(
        path
        for path in INTEGRATION.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    )


def build_zip(out_dir: Path) -> Path:
    """Write the zip into `out_dir`; its path."""
    hacs = json.loads((ROOT / "hacs.json").read_text(encoding="utf-8"))
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / str(hacs["filename"])
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path in integration_files():
            archive.write(path, path.relative_to(INTEGRATION).as_posix())
    return target


def main(argv: list[str]) -> int:
    """Build the zip into the folder given (dist by default)."""
    if len(argv) > 1:
        print("usage: script/integration_zip.py [OUT_DIR]", file=sys.stderr)
        return 2
    print(build_zip(Path(argv[0]) if argv else ROOT / "dist"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
