"""A page's discovered type is settled after ``settle_after`` regroupings in a row that left its
leader in its type (issue 32): one by default, as before; more hold a page longer."""

from __future__ import annotations

import pytest

from pagesim_scrapy.core.cluster import OnlineDiscovery
from pagesim_scrapy.core.cluster.discovery import SETTLE_AFTER
from pagesim_scrapy.core.summary import summarize
from pagesim_scrapy.settings import PageSimConfig
from tests.test_scrapy_crawl import TYPES, so_page

OPTIONS = PageSimConfig().summary_options()


def _discovery(settle_after: int) -> tuple[OnlineDiscovery, list[int | None]]:
    discovery = OnlineDiscovery(
        method="site", options=OPTIONS, closeness=0.65, settle_after=settle_after
    )
    leaders = [
        discovery.discover(summarize(so_page(kind, n), OPTIONS), site="so").leader
        for kind in TYPES
        for n in (1, 2)
    ]
    return discovery, leaders


def test_one_regrouping_settles_by_default() -> None:
    assert SETTLE_AFTER == 1
    discovery, leaders = _discovery(1)
    discovery.regroup()
    assert all(discovery.settled(leader) for leader in leaders)


def test_more_regroupings_in_a_row_hold_a_page_longer() -> None:
    discovery, leaders = _discovery(2)
    discovery.regroup()
    kept_once = [leader for leader in leaders if not discovery.settled(leader)]
    assert kept_once  # settled by one regrouping, not yet by two
    discovery.regroup()
    assert all(discovery.settled(leader) for leader in leaders)


def test_settle_after_must_be_positive() -> None:
    with pytest.raises(ValueError, match="settle_after"):
        OnlineDiscovery(method="site", options=OPTIONS, settle_after=0)
