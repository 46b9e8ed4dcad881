"""The shortcuts extraction and learning take for speed (issue 14, item 3) give what the full
paths give: sections read only for the headings a wrapper wants, chrome found up a row's
ancestors, absolute paths resolved once per site.

Real pages of ../shared/data; each shortcut is compared with the full computation (written
out here where the code no longer has it) on the same pages.
"""

from __future__ import annotations

import gzip
from pathlib import Path

from lxml import etree

from pagesim_scrapy.core.induce import induce, parse_html
from pagesim_scrapy.core.induce.dom import absolutise_links, forget_page, page_memo_peek
from pagesim_scrapy.core.induce.labels import (
    _CHROME_NAME,
    _CHROME_ROLES,
    _CHROME_TAGS,
    _NEVER_CHROME,
    _in_chrome,
    find_rows,
)
from pagesim_scrapy.core.induce.sections import _page_sections, _read_sections
from tests.conftest import shared_data


def recipe_pages() -> list[Path]:
    folder = shared_data("recipe_scrapers_testdata", "tests", "test_data")
    return sorted(folder.glob("*/*.testhtml"))


def product_pages(count: int) -> list[bytes]:
    folder = shared_data("zyte_product_extraction_benchmark", "dataset", "html")
    return [gzip.decompress(p.read_bytes()) for p in sorted(folder.glob("*.html.gz"))[:count]]


def test_sections_read_for_some_headings_are_those_of_the_full_read():
    compared = 0
    for path in recipe_pages()[:60]:
        full = _read_sections(parse_html(path.read_bytes()))
        keys = set(list(full)[::2])  # every other heading of the page
        if not keys:
            continue
        some = _read_sections(parse_html(path.read_bytes()), keys)
        assert some == {k: v for k, v in full.items() if k in keys}, path
        compared += 1
    assert compared >= 10


def test_extraction_with_and_without_the_pages_sections_read_gives_one_record():
    folder = shared_data("recipe_scrapers_testdata", "tests", "test_data", "keukenliefde.nl")
    pages = sorted(folder.glob("*.testhtml"))
    wrapper = induce([p.read_bytes() for p in pages[:2]], label="recipe")
    sections = {f.name for f in wrapper.fields if f.path.startswith("section ")}
    assert sections
    forget_page()
    fresh = parse_html(pages[2].read_bytes())
    alone = wrapper.extract(fresh)  # only the wanted sections read
    learned = parse_html(pages[2].read_bytes())
    _page_sections(learned)  # as when the pipeline learned the page just before
    assert page_memo_peek(learned, "sections") is not None
    after_learning = wrapper.extract(learned)
    forget_page()
    assert alone.record == after_learning.record
    assert all(alone.record[name] for name in sections)


def _chrome_by_full_scan(body: etree._Element) -> set[etree._Element]:
    """Every element inside a chrome container of the body: the scan the rows' flag stands
    for (a navigation, footer or aside, or a banner/navigation/footer by role, id, class)."""
    inside: set[etree._Element] = set()
    for el in body.iter():
        if not isinstance(el.tag, str) or el.tag in _NEVER_CHROME:
            continue
        if (
            el.tag in _CHROME_TAGS
            or (el.get("role") or "") in _CHROME_ROLES
            or _CHROME_NAME.search(el.get("id") or "")
            or _CHROME_NAME.search(el.get("class") or "")
        ):
            inside.update(x for x in el.iter() if isinstance(x.tag, str))
    return inside


def test_an_element_is_in_chrome_by_its_ancestors_as_by_a_scan_of_the_body():
    inside = outside = 0
    for html in product_pages(25):
        body = parse_html(html).find("body")
        assert body is not None
        chrome = _chrome_by_full_scan(body)
        elements = [el for el in body.iter() if isinstance(el.tag, str)]
        memo: dict[etree._Element, bool] = {}
        # deepest first, then the rest: the memo is met both ways
        for el in elements[::-1][::2] + elements[::2]:
            assert _in_chrome(el, body, memo) == (el in chrome)
        inside += len(chrome)
        outside += len(elements) - len(chrome)
        forget_page()
    assert inside >= 100 and outside >= 1000, (inside, outside)


def test_rows_inside_chrome_are_flagged():
    rows = [r for html in product_pages(25) for r in find_rows(parse_html(html))]
    forget_page()
    assert any(r.chrome for r in rows) and any(not r.chrome for r in rows)


def _page(links: str, head: str = "") -> etree._Element:
    return etree.fromstring(
        f"<html><head>{head}</head><body>{links}</body></html>", etree.HTMLParser()
    )


def test_absolute_paths_resolve_against_each_pages_own_site():
    links = '<a href="/c/shoes?x=1#top">a</a><a href="/a/../b">b</a><a href="//cdn.example/i">c</a>'
    seen: dict[str, list[str | None]] = {}
    for url in (
        "https://shop.example/p/1",
        "http://shop.example/p/2",  # another scheme: another site
        "https://shop.example:8443/p/3",  # another port: another site
        "https://other.example/deep/path/4",
        "https://shop.example/q/5",  # the first site again (its links resolved already)
    ):
        root = _page(links)
        absolutise_links(root, url)
        seen[url] = [a.get("href") for a in root.iter("a")]
    assert seen["https://shop.example/p/1"] == [
        "https://shop.example/c/shoes?x=1#top",
        "https://shop.example/b",
        "https://cdn.example/i",
    ]
    assert seen["https://shop.example/q/5"] == seen["https://shop.example/p/1"]
    assert seen["http://shop.example/p/2"][0] == "http://shop.example/c/shoes?x=1#top"
    assert seen["https://shop.example:8443/p/3"][0] == "https://shop.example:8443/c/shoes?x=1#top"
    assert seen["https://other.example/deep/path/4"][:2] == [
        "https://other.example/c/shoes?x=1#top",
        "https://other.example/b",
    ]
    # a <base href> on another host wins over the page's address
    root = _page(links, '<base href="https://mirror.example/x/">')
    absolutise_links(root, "https://shop.example/p/6")
    assert next(root.iter("a")).get("href") == "https://mirror.example/c/shoes?x=1#top"
