"""The compiled feature strings made once (``_walk.c``'s pair cache) give exactly the sets, the
site counts and the page keys the code without it gives, on real pages."""

from __future__ import annotations

from operator import add

import pytest

from pagesim_scrapy.core import site, summary
from pagesim_scrapy.core.pageio import PAGE_SUFFIXES, iter_page_paths, read_page_bytes
from pagesim_scrapy.core.site import SiteModel, _unpack_in_python, _without_views
from pagesim_scrapy.core.summary import SummaryOptions, parse_html, summarize_tree

from .conftest import FIXTURES, shared_data

needs_walk = pytest.mark.skipif(not summary.HAVE_COMPILED_WALK, reason="_walk not built")

OPTIONS = SummaryOptions(max_nodes=300)  # the crawl's node budget


def real_summaries(limit: int = 120) -> list[summary.PageSummary]:
    paths = list(iter_page_paths([FIXTURES, shared_data()], (*PAGE_SUFFIXES, ".testhtml")))
    assert paths
    step = max(1, len(paths) // limit)
    return [summarize_tree(parse_html(read_page_bytes(p)), OPTIONS) for p in paths[::step]]


def python_pairs(codes: str, parents: list[int]) -> set[str]:
    """node_pairs' Python loop (summary.py), one string per node."""
    return set(map(add, map(codes.__getitem__, parents[1:]), codes[1:]))


@needs_walk
def test_pairs_are_the_python_sets_in_the_same_order_walked_twice():
    pages = real_summaries()
    for _ in range(2):  # the second pass takes every string from the cache
        for page in pages:
            codes, parents = page.bfs["csr"], page.parent_bfs
            expected = python_pairs(codes, parents)
            made = summary.node_pairs(codes, parents)
            assert made == expected
            assert list(made) == list(expected)  # iteration order: the site counts' order
            frozen = summary.frozen_node_pairs(codes, parents)
            assert list(frozen) == list(
                frozenset(map(add, map(codes.__getitem__, parents[1:]), codes[1:]))
            )


@needs_walk
def test_a_pair_met_again_is_the_same_string():
    page = max(real_summaries(20), key=len)
    first = summary.node_pairs(page.bfs["csr"], page.parent_bfs)
    again = {pair: pair for pair in summary.node_pairs(page.bfs["csr"], page.parent_bfs)}
    assert len(first) > 10
    assert all(again[pair] is pair for pair in first)


@needs_walk
def test_unpacked_pages_are_the_python_ones():
    for page in real_summaries():
        features = site.structural_features(page)
        packed = site.pack_features(features)
        unpacked = site.unpack_features(packed)
        expected = _unpack_in_python(packed)
        assert unpacked == expected == frozenset(features)
        assert list(unpacked) == list(expected)


@needs_walk
def test_site_counts_in_the_same_order_as_counted_from_python_sets():
    pages = real_summaries()
    compiled, python = SiteModel(), SiteModel()
    for page in pages:
        codes, parents = page.bfs["csr"], page.parent_bfs
        compiled.add(frozenset({*summary.node_pairs(codes, parents), codes[0]}))
        python.add(frozenset({*python_pairs(codes, parents), codes[0]}))
    assert list(compiled.df.items()) == list(python.df.items())
    assert list(compiled.recent) == list(python.recent)


@needs_walk
def test_the_cache_is_bounded_and_stays_exact_past_its_bound():
    # more distinct pairs than the cache holds: codes from a run of CJK characters
    codes = "".join(chr(0x4E00 + i) for i in range(400))
    for shift in range(0, 400, 40):
        parents = [-1] + [(i * 7 + shift) % 400 for i in range(1, 400)]
        assert summary.node_pairs(codes, parents) == python_pairs(codes, parents)
        assert summary._walk_c.pair_cache_size() <= 65536
    many = "".join(chr(0x3400 + i) for i in range(300))
    for start in range(300):  # 300 * 299 pairs: past the bound at least once
        parents = [-1] + [start] * 299
        rolled = many[start:] + many[:start]
        assert summary.node_pairs(rolled, parents) == python_pairs(rolled, parents)
    assert summary._walk_c.pair_cache_size() <= 65536


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000/page/7",
        "https://example.org/q/1?",
        "https://example.org/q/1?sort=votes&id=3",
        "https://example.org/q/1?utm_source=x",
        "https://www.example.org/a%20b;p#frag",
    ],
)
def test_page_keys_are_the_keys_of_the_whole_query_reading(url: str):
    page = real_summaries(3)[0]
    page.source = url
    parts = site.urlsplit(url)
    expected = hash((parts.netloc, parts.path, _without_views(parts.query), page.title))
    assert site.page_keys(page) == (expected,)
