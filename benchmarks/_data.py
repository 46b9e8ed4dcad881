"""Locating ../shared/data from the benchmarks (the repository's sibling folder)."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO.parent / "shared" / "data"


def shared(*parts: str) -> Path:
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        sys.exit(f"{path} not found: the benchmarks read the pages in ../shared/data")
    return path
