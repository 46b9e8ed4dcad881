"""The extraction's shortcuts give what the long way gives, on the demo shop's product pages:
the alignments a compiled wrapper remembers, the known-only run search, and a heading
candidate's shown text read only up to the heading length."""

from __future__ import annotations

from pathlib import Path

import pytest

from pagesim_scrapy.core.induce import Wrapper, parse_html
from pagesim_scrapy.core.induce.dom import find_runs, forget_page, page_items
from pagesim_scrapy.core.induce.sections import (
    MAX_HEADING_CHARS,
    _shown_text,
    _shown_within,
)

DEMO = Path(__file__).resolve().parent.parent / "sample_project" / "demo_site" / "item"


def _pages(count: int) -> list[tuple[str, str]]:
    paths = sorted(DEMO.glob("*.html"))[:count]
    if not paths:
        pytest.skip("the demo shop's pages are not in this checkout")
    return [(p.read_text(encoding="utf-8"), f"https://demo.example/item/{p.name}") for p in paths]


def _records(wrapper: Wrapper, pages: list[tuple[str, str]]) -> list[object]:
    out = []
    for html, url in pages:
        result = wrapper.extract(html, url=url)
        forget_page()
        out.append((result.record, result.records, result.fit, result.reason, result.rows))
    return out


def test_remembered_alignments_give_the_same_records() -> None:
    pages = _pages(24)
    wrapper = Wrapper(label="product")
    for html, url in pages[:8]:
        wrapper.add_page(parse_html(html, base_url=url))
        forget_page()
    first = _records(wrapper, pages)
    assert wrapper.compiled().alignments  # the pages' layouts were remembered
    again = _records(wrapper, pages)  # now from the remembered alignments
    fresh = Wrapper.from_dict(wrapper.to_dict())  # a compiled wrapper that remembers none
    assert again == first
    assert _records(fresh, pages) == first


def test_known_only_search_without_a_known_start_keeps_the_items() -> None:
    html, url = _pages(1)[0]
    root = parse_html(html, base_url=url)
    for el in root.iter():
        if not isinstance(el.tag, str) or len(el) < 2:
            continue
        items, sigs = page_items(el)
        assert find_runs(items, sigs, frozenset({("nowhere.on-the-page",)}), False) == items


def test_a_heading_candidate_is_read_only_as_far_as_needed() -> None:
    html, url = _pages(1)[0]
    root = parse_html(html, base_url=url)
    long_seen = short_seen = 0
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        whole = _shown_text(el)
        within = _shown_within(el, MAX_HEADING_CHARS)
        if len(whole) <= MAX_HEADING_CHARS:
            assert within == whole
            short_seen += 1
        else:
            assert within is None or within == whole
            long_seen += within is None
    assert short_seen and long_seen
