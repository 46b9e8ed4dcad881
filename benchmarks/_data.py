"""Locating ../shared/data from the benchmarks (the repository's sibling folder)."""

from __future__ import annotations

import atexit
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO.parent / "shared" / "data"


def shared(*parts: str) -> Path:
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        sys.exit(f"{path} not found: the benchmarks read the pages in ../shared/data")
    return path


def isolated_state() -> dict[str, str]:
    """Settings that keep a benchmark crawl's saved state (drift looks, site models, discovered
    types, wrappers) in a folder of its own, removed at exit.

    Without them a crawl started in the checkout saves into the project's ``.scrapy/``, and the
    next run loads what every earlier run left there: slower starts and closes, and a result
    that depends on the runs before it.
    """
    folder = Path(tempfile.mkdtemp(prefix="pagesim-bench-state-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return {
        "PAGESIM_DRIFT_FILE": str(folder / "drift.json"),
        "PAGESIM_SITE_MODELS_FILE": str(folder / "sites.json"),
        "PAGESIM_DISCOVERY_FILE": str(folder / "discovery.json"),
        "PAGESIM_INDUCTION_DIR": str(folder / "wrappers"),
    }
