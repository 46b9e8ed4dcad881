"""Shared test helpers: where ../shared/data is, and skipping when it is absent."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO.parent / "shared" / "data"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def shared_data(*parts: str) -> Path:
    """A path under ../shared/data, skipping the test when it is not there."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} not available")
    return path


_BODY_CLASS = re.compile(rb"(<body\b[^>]*?)\sclass=(\"[^\"]*\"|'[^']*')", re.IGNORECASE)


def without_body_class(data: bytes) -> bytes:
    """A page with its <body> class removed: the wiki's names the page type (``ns-10``,
    ``mw-special-...``), so its pages test structure only without it."""
    return _BODY_CLASS.sub(rb"\1", data, count=1)


@pytest.fixture
def stackoverflow() -> Path:
    return shared_data("stackoverflow_page_types")


@pytest.fixture(autouse=True)
def _own_working_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Every test runs in a folder of its own: a crawl outside a Scrapy project keeps its state
    (wrappers, discovered types, site models) under ``.scrapy`` in the working directory, and
    one test's saved state must not reach the next test, nor the repository."""
    monkeypatch.chdir(tmp_path_factory.mktemp("cwd"))
