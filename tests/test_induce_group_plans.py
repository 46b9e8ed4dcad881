"""A repeated region's groups of one structure are aligned once (the extraction's plan per
group key): on real pages, the records read with plans shared by the key are those read
with a plan made afresh for every group, and a card list whose every card has an id of its
own is aligned once, not once per card."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from pagesim_scrapy.core.induce import Wrapper, extract, parse_html
from tests.conftest import shared_data

REPO = Path(__file__).resolve().parent.parent
DEMO_ITEMS = REPO / "sample_project" / "demo_site" / "item"

#: site_page_types sites whose pages repeat regions: a forum, a blog, a wiki, docs
SITES = ("android_stackexchange", "cc_opensource_blog", "awesomewm_wiki", "cpython_docs")


def _demo_pages(count: int) -> list[tuple[str, bytes]]:
    files = sorted(DEMO_ITEMS.glob("*.html"))[:count]
    if len(files) < count:
        pytest.skip("the demo site is not generated")
    return [("https://shop.example/item/" + f.name, f.read_bytes()) for f in files]


def _site_pages(name: str, count: int) -> list[tuple[str, bytes]]:
    folder = shared_data("site_page_types", name)
    with open(folder / "labels.csv", newline="", encoding="utf-8") as handle:
        rows = [row for row in csv.DictReader(handle) if (folder / row["path"]).is_file()]
    by_type: dict[str, list[dict[str, str]]] = {}
    for row in rows:
        by_type.setdefault(row["page_type"], []).append(row)
    largest = max(by_type.values(), key=len)[:count]
    return [(row["url"], (folder / row["path"]).read_bytes()) for row in largest]


def _extracted(pages: list[tuple[str, bytes]]) -> tuple[list[object], int]:
    """Every page's extraction with a wrapper learned from the pages, and how many plans
    its regions made."""
    wrapper = Wrapper(label="type")
    wrapper.add_pages([parse_html(html, base_url=url) for url, html in pages])
    made = 0
    make = extract._make_plan

    def counted(c, group):  # type: ignore[no-untyped-def]
        nonlocal made
        made += 1
        return make(c, group)

    extract._make_plan = counted  # type: ignore[assignment]
    try:
        results = [wrapper.extract(html, url=url) for url, html in pages]
    finally:
        extract._make_plan = make  # type: ignore[assignment]
    return [(r.record, r.records, r.fit, r.reason, r.rows) for r in results], made


@pytest.mark.parametrize("site", ["demo", *SITES])
def test_shared_plans_read_what_a_plan_per_group_reads(
    site: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    pages = _demo_pages(10) if site == "demo" else _site_pages(site, 8)
    shared, _ = _extracted(pages)
    monkeypatch.setattr(extract, "MAX_PLANS", 0)  # no plan kept: each group aligned afresh
    fresh, _ = _extracted(pages)
    assert shared == fresh


def test_cards_with_ids_of_their_own_are_aligned_once() -> None:
    pages = _demo_pages(10)
    html = pages[0][1].decode("utf-8")
    assert 'id="pc-' in html  # the demo's related-product cards each have an id of its own
    _, made = _extracted(pages)
    _, per_group = _extracted_without_sharing(pages)
    assert made * 5 < per_group


def _extracted_without_sharing(pages: list[tuple[str, bytes]]) -> tuple[list[object], int]:
    limit = extract.MAX_PLANS
    extract.MAX_PLANS = 0
    try:
        return _extracted(pages)
    finally:
        extract.MAX_PLANS = limit
