"""State files of its own for a crawl a test runs from the repository's Scrapy project.

The project keeps a crawl's state (site models, wrappers, the layout-change history,
discovered types) under ``.scrapy/pagesim`` of the checkout; a test crawl that saved there
would hand its state to the next test's crawl and to the user's own crawl after the tests."""

from __future__ import annotations

from pathlib import Path


def own_state(folder: Path) -> list[str]:
    """``-s`` options putting every state file of a crawl under ``folder`` (options given
    after them still win: Scrapy keeps the last value of a setting)."""
    files = {
        "PAGESIM_SITE_MODELS_FILE": folder / "sites.json",
        "PAGESIM_INDUCTION_DIR": folder / "wrappers",
        "PAGESIM_DRIFT_FILE": folder / "drift.json",
        "PAGESIM_DISCOVERY_FILE": folder / "discovered.json",
    }
    return [option for name, path in files.items() for option in ("-s", f"{name}={path}")]
