"""The records a user gets from the README's main job, ``scrapy crawl shop -O items.jsonl``
(issue 31, items 2 and 3): no empty slots, no layout or numbered names, the breadcrumb trail
as the core ``breadcrumbs`` and the related product cards as one ``related_products`` list,
each region once, and not the site's header or footer.

Shares the crawl of ``test_induce_demo`` (its fixture, one crawl per module).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from lxml import html as lxml_html

from sample_project.demo_shop import DEMO_LABELS_FILE, DEMO_SITE_DIR
from sample_project.demo_shop.extensions import page_key
from tests.test_induce_demo import demo_crawl, demo_run  # noqa: F401  (the shared crawl)

pytestmark = pytest.mark.skipif(
    not DEMO_LABELS_FILE.is_file(), reason="the demo site is not generated"
)

_NUMBERED = re.compile(r"_\d+$")
_LAYOUT_NAMES = {"list", "field", "text", "span", "link", "link_url"}


def _records(crawl: tuple[list[dict[str, Any]], str]) -> list[tuple[str, dict[str, Any]]]:
    items, _ = crawl
    return [(item["url"], item["record"]) for item in items if item.get("record")]


def _nulls(value: Any, path: str = "") -> list[str]:
    """The paths of the empty slots inside a record's value."""
    if value is None or value in ("", [], {}):
        return [path]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _nulls(v, f"{path}.{k}")]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _nulls(v, f"{path}[{i}]")]
    return []


def _leaves(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    return [t for v in value for t in _leaves(v)] if isinstance(value, list) else []


def _page(url: str) -> Any:
    import json

    labels = json.loads(DEMO_LABELS_FILE.read_text(encoding="utf-8"))
    return lxml_html.parse(str(Path(DEMO_SITE_DIR) / (page_key(url, labels) or ""))).getroot()


def test_records_have_no_empty_slots(demo_crawl) -> None:  # noqa: F811
    records = _records(demo_crawl)
    assert records
    for url, record in records:
        assert not _nulls(record), (url, _nulls(record))


def test_records_have_no_layout_or_numbered_names(demo_crawl) -> None:  # noqa: F811
    for url, record in _records(demo_crawl):
        bad = [n for n in record if n in _LAYOUT_NAMES or _NUMBERED.search(n)]
        assert not bad, (url, bad)


def test_breadcrumbs_are_the_core_trail_and_not_repeated(demo_crawl) -> None:  # noqa: F811
    for url, record in _records(demo_crawl):
        trail = _page(url).xpath("//nav[@aria-label='Breadcrumb']//li")
        if not trail:
            continue
        crumbs = record.get("breadcrumbs")
        assert crumbs, url
        assert [c["name"] for c in crumbs] == [li.text_content().strip() for li in trail]
        assert all(set(c) <= {"name", "url"} for c in crumbs)
        home = crumbs[0]["name"]
        others = [n for n, v in record.items() if n != "breadcrumbs" and home in str(v)]
        assert not [n for n in others if isinstance(record[n], list)], (url, others)


def test_related_products_are_one_list_where_the_page_shows_cards(demo_crawl) -> None:  # noqa: F811
    shown = found = 0
    for url, record in _records(demo_crawl):
        cards = _page(url).xpath("//*[contains(@class, 'product-card')]")
        if not cards:
            continue
        names = {c.xpath("string(.//*[contains(@class, 'card-title')])").strip() for c in cards}
        related = record.get("related_products")
        assert related, url
        assert {c["name"] for c in related} <= names, url
        assert all(set(c) <= {"name", "url", "price", "image"} for c in related)
        glued = [n for n, v in record.items() if n != "related_products" and "$" in str(v)]
        assert not [n for n in glued if isinstance(record[n], list)], (url, glued)
        shown, found = shown + len(names), found + len(related)
    # the wrapper's reading of the region misses a card on a few pages
    assert found >= 0.9 * shown, (found, shown)


def test_one_region_once_and_no_header_or_footer(demo_crawl) -> None:  # noqa: F811
    for url, record in _records(demo_crawl):
        root = _page(url)
        banner = root.xpath("string(//header[contains(@class, 'site-header')])")
        footer = root.xpath("string(//footer)")
        main = root.xpath("string(//main)")
        for name, value in record.items():
            for text in (t for t in _leaves(value) if len(t) > 3):
                only_chrome = (text in banner or text in footer) and text not in main
                assert not only_chrome, (url, name, text)
