"""A page item's record on real pages: the core record first, then the induced fields that
add to it, each value once, no layout names, the same whatever order the pages came in."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from pagesim_scrapy.core.induce import Wrapper
from pagesim_scrapy.core.record import ItemRecord, item_record, read_record
from pagesim_scrapy.core.record.tidy import is_chrome, is_layout_name, value_keys

REPO = Path(__file__).resolve().parent.parent
DEMO_ITEMS = REPO / "sample_project" / "demo_site" / "item"
BASE = "https://shop.example/item/"


def _demo_pages(count: int) -> list[tuple[str, bytes]]:
    files = sorted(DEMO_ITEMS.glob("*.html"))[:count]
    if len(files) < count:
        pytest.skip("the demo site is not generated")
    return [(BASE + f.name, f.read_bytes()) for f in files]


def wrapper_page(url: str, html: bytes):
    from pagesim_scrapy.core.induce import parse_html

    return parse_html(html, base_url=url)


def _records(pages: list[tuple[str, bytes]], learn: list[tuple[str, bytes]]) -> list[ItemRecord]:
    # learned as the pipeline's relearning learns them (canonical order, whatever the input's)
    wrapper = Wrapper(label="product")
    wrapper.add_pages([wrapper_page(url, html) for url, html in learn])
    out = []
    for url, html in pages:
        induced = wrapper.extract(html, url=url).record
        out.append(item_record(read_record(html, url), induced, url))
    return out


def test_the_record_leads_with_the_core_record_and_says_where_each_value_came_from():
    pages = _demo_pages(6)
    for (url, html), item in zip(pages, _records(pages, pages[:4])):
        core = read_record(html, url)
        assert core.page_type == item.page_type == "product"
        names = list(item.record)
        assert names[: len(core.fields)] == list(core.fields)  # standard names first, in order
        assert {"name", "price", "currency", "sku"} <= set(core.fields)
        assert item.sources == {name: v.source for name, v in core.fields.items()}
        assert len(item.record) > len(core.fields)  # the body's fields follow


def test_no_value_twice_and_no_chrome():
    pages = _demo_pages(6)
    for (url, _), item in zip(pages, _records(pages, pages[:4])):
        seen: set[str] = set()
        for name, value in item.record.items():
            keys = value_keys(value)
            assert not keys & seen, (url, name, value)
            seen |= keys
            if name not in item.sources:
                assert not is_chrome(name, value, url), (url, name)
        assert item.dropped.get("repeat", 0) >= 3  # the name and price the body repeats


def test_no_url_scheme_layout_or_value_names():
    pages = _demo_pages(6)
    wrapper = Wrapper(label="product")
    wrapper.add_pages([wrapper_page(url, html) for url, html in pages[:4]])
    induced_layout = 0
    for url, html in pages:
        induced = wrapper.extract(html, url=url).record
        induced_layout += sum(is_layout_name(name) for name in induced)
        item = item_record(read_record(html, url), induced, url)
        assert not [name for name in item.record if is_layout_name(name)], item.record.keys()
    assert induced_layout > 0  # the wrapper's own names had some (`list_li`)


@pytest.mark.parametrize(
    ("name", "layout"),
    [
        ("https", True),
        ("list_li", True),
        ("spacing_style_4", True),
        ("visually_hidden", True),
        ("f_0_0mg", True),
        ("of", True),
        ("price", False),
        ("related_products", False),
        ("by_url", False),
    ],
)
def test_layout_names(name: str, layout: bool):
    assert is_layout_name(name) is layout


def test_chrome_values():
    url = "https://shop.example/item/a.html"
    assert is_chrome("counter", "3 of 13", url)
    assert is_chrome("of", "13", url)
    assert is_chrome("visually_hidden", "Decrease quantity for Tee", url)
    assert is_chrome("price", "<span class=money>$10</span>", url)
    assert is_chrome("script", "var x = 1; window.dataLayer.push(x);", url)
    assert is_chrome("link_url", url + "#reviews", url)
    assert is_chrome("facebook_url", "https://www.facebook.com/sharer/sharer.php?u=x", url)
    assert is_chrome("login", "Log in", url)
    assert is_chrome("features", [], url) and is_chrome("span", None, url)
    assert not is_chrome("price", "$10.00", url)
    assert not is_chrome("author", "Sven", url)


def test_the_same_pages_in_two_orders_give_the_same_records():
    pages = _demo_pages(8)
    shuffled = list(pages)
    random.Random(5).shuffle(shuffled)
    first = _records(pages, pages[:5])
    second = _records(pages, [p for p in shuffled if p in pages[:5]])
    dump = [json.dumps(item.record) for item in first]
    assert dump == [json.dumps(item.record) for item in second]
    # the core part does not depend on the wrapper at all: the same with another one
    third = _records(pages, pages[3:7])
    for a, b in zip(first, third):
        assert {k: a.record[k] for k in a.sources} == {k: b.record[k] for k in b.sources}


def test_an_article_site_leads_with_its_article_record():
    from tests.conftest import shared_data

    folder = shared_data("site_page_types", "flink_site")
    rows = [
        line.split(",")
        for line in (folder / "labels.csv").read_text(encoding="utf-8").splitlines()[1:]
    ]
    posts = sorted((path, url) for path, kind, _, url in rows if kind == "blog_post")[:4]
    pages = [(url, (folder / path).read_bytes()) for path, url in posts]
    for item in _records(pages, pages):
        if not item.page_type:
            continue
        assert item.page_type == "article"
        assert next(iter(item.record)) in ("headline", "description")
        assert not [name for name in item.record if is_layout_name(name)]


# --- the page's own labelled rows (issue 31, items 4 and 5) ----------------------------------


def test_labelled_rows_are_fields_whatever_the_wrapper_learned() -> None:
    """A spec table's rows are named by their labels on the page itself: two wrappers learned
    from different pages give the same rows, and a row whose value is the same on every page
    stays a field."""
    from pagesim_scrapy.core.record.rows import page_rows

    pages = _demo_pages(12)
    url, html = pages[-1]
    root = wrapper_page(url, html)
    rows = page_rows(root)
    assert rows, "the demo's spec table gives rows"
    records = []
    for learn in (pages[:5], pages[5:10]):
        wrapper = Wrapper(label="product")
        wrapper.add_pages([wrapper_page(u, h) for u, h in learn])
        induced = wrapper.extract(wrapper_page(url, html), url=url).record
        records.append(item_record(read_record(html, url), induced, url, rows).record)
    for name, value in rows.items():
        held = [r for r in records if any(v == value for v in r.values())]
        assert len(held) == 2, name
    # the rows have the same names in both records
    assert [k for k in records[0] if k in rows] == [k for k in records[1] if k in rows]


def test_page_rows_keep_a_constant_labelled_value() -> None:
    from pagesim_scrapy.core.induce import parse_html
    from pagesim_scrapy.core.record.rows import page_rows

    page = (
        "<html><body><h1>Lamp</h1><table><tr><th>Brand</th><td>Acme</td></tr>"
        "<tr><th>Weight</th><td>2 kg</td></tr></table>"
        "<footer><p>Phone: 555 1234</p></footer></body></html>"
    )
    rows = page_rows(parse_html(page))
    assert rows == {"brand": "Acme", "weight": "2 kg"}
