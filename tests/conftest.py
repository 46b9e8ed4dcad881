"""Shared test helpers: where ../shared/data is, and skipping when it is absent."""

from __future__ import annotations

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


@pytest.fixture
def stackoverflow() -> Path:
    return shared_data("stackoverflow_page_types")
