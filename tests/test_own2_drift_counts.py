"""The drift monitor paces its collapse checks by the site's pages this crawl (its looks'
pages, the label's first pages kept as the baseline left out)."""

from __future__ import annotations

from pagesim_scrapy.core.drift import DriftMonitor
from pagesim_scrapy.core.drift.options import DriftOptions


def test_the_site_count_paces_the_collapse_checks() -> None:
    options = DriftOptions(collapse_pages=4)
    monitor = DriftMonitor(options=options, first_pages=2)
    labels = ["a", None, "b", None, "a", "c", None, "b", "a"] * 3
    due: list[int] = []
    for number, label in enumerate(labels):
        site = "one" if number % 3 else "two"
        monitor.observe(site, label, frozenset({f"x{number % 4}", "y"}), f"p{number}")
        due.append(monitor._next_site_check.get("one", 0))
    # checked as the site's pages (those not kept early as a label's first pages) double
    assert sorted(set(due)) == [0, 8, 16]
