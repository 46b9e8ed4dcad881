"""The same pages give the same records whatever the order and timing of the crawl (issue 31,
item 5).

Two real crawls of the demo shop's product pages (the sample project's offline site), served
on 127.0.0.1, requested in opposite orders with different concurrency: every page item gets
the same record in both, because each label's items are held until its wrapper learns no more
pages and are then extracted with the wrapper learned afresh in canonical order.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sample_project.demo_shop import DEMO_LABELS_FILE, DEMO_SITE_DIR
from tests.test_induce_pipeline import _serve, crawl, page_items, stat

pytestmark = pytest.mark.skipif(
    not DEMO_LABELS_FILE.is_file(), reason="the demo site is not generated"
)

#: product pages crawled (fewer than the default PAGESIM_INDUCTION_MAX_PAGES: the label learns
#: them all; more than 10: the label learns a sample of them)
PAGES = 24


def _product_routes() -> dict[str, bytes]:
    labels = json.loads(DEMO_LABELS_FILE.read_text(encoding="utf-8"))
    paths = sorted(path for path, label in labels.items() if label == "product")[:PAGES]
    return {"/" + path: (DEMO_SITE_DIR / path).read_bytes() for path in paths}


def _records(result: dict[str, Any]) -> dict[str, Any]:
    return {
        item["url"]: (item["record"], item["verdict"]["induction"].get("sources"))
        for item in page_items(result)
    }


@pytest.mark.parametrize("max_pages", [50, 10])
def test_two_crawls_in_different_orders_give_identical_records(
    tmp_path: Path, max_pages: int
) -> None:
    """With ``max_pages`` 10 the label meets more pages than it learns: it learns its
    bottom-k sample, the same pages in both orders."""
    routes = _product_routes()
    assert len(routes) == PAGES
    results = []
    for base in _serve(routes):
        urls = [base + path for path in routes]
        for name, order, concurrency in (("forward", urls, 4), ("backward", urls[::-1], 1)):
            folder = tmp_path / name
            folder.mkdir()
            settings = {
                "PAGESIM_INDUCTION_MIN_PAGES": 5,
                "PAGESIM_INDUCTION_MAX_PAGES": max_pages,
                "CONCURRENT_REQUESTS": concurrency,
            }
            result = crawl(folder, order, settings)
            assert result["finish_reason"] == "finished"
            assert len(page_items(result)) == PAGES
            assert stat(result, "learned/recipe") == min(PAGES, max_pages)
            results.append(result)
    first, second = (_records(result) for result in results)
    assert first.keys() == second.keys()
    differing = [url for url in first if first[url] != second[url]]
    assert not differing, differing
    # the records are whole: the product's name under its standard name on every page
    assert all(record.get("name") for record, _ in first.values())
