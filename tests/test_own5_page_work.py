"""Per-page work made cheaper without changing what it gives: the class set split when first
read, the page keys of a plain http(s) URL read without ``urlsplit``, a page packed once for
the site model and the drift watch, the start element found without a path."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from lxml import html

from pagesim_scrapy.core import site, summary
from pagesim_scrapy.core.pageio import PAGE_SUFFIXES, iter_page_paths, read_page_bytes
from pagesim_scrapy.core.site import (
    SiteModel,
    _without_views,
    pack_features,
    page_keys,
    structural_features,
)
from pagesim_scrapy.core.summary import (
    PageSummary,
    SummaryOptions,
    _PythonWalk,
    _start_element,
    parse_html,
    summarize_tree,
)

from .conftest import FIXTURES, shared_data

OPTIONS = SummaryOptions(max_nodes=300)  # the crawl's node budget


def real_roots(limit: int = 60) -> list[object]:
    paths = list(iter_page_paths([FIXTURES, shared_data()], (*PAGE_SUFFIXES, ".testhtml")))
    assert paths
    step = max(1, len(paths) // limit)
    return [parse_html(read_page_bytes(p)) for p in paths[::step]]


def class_tokens_of_the_tree(root: object) -> frozenset[str]:
    """Every class name on the walked elements, read with lxml (the walk's budget and skipped
    tags applied by the Python walk, which keeps each element's raw value)."""
    walk = _PythonWalk(OPTIONS)
    walk.run(_start_element(root))
    return frozenset(token for value in walk.raw_classes for token in value.split())


def test_the_class_set_read_late_is_the_pages_class_names():
    roots = real_roots()
    with_classes = 0
    for root in roots:
        page = summarize_tree(root, OPTIONS)
        assert "classes" not in vars(page)  # not split until read
        expected = class_tokens_of_the_tree(root)
        assert page.classes == expected
        assert page.classes is page.classes  # split once
        with_classes += bool(expected)
    assert with_classes > len(roots) // 2


def test_a_class_set_given_is_kept_as_given():
    given = frozenset({"a", "b"})
    page = PageSummary({"rsn": "", "rpsa": "", "csr": ""}, [], [], [], classes=given)
    assert page.classes is given
    assert PageSummary({}, [], [], []).classes == frozenset()
    assert PageSummary({}, [], [], [], class_values=[" x  y", "y z"]).classes == {"x", "y", "z"}


def split_keys(url: str, title: str | None) -> tuple[int, ...]:
    """The page keys as ``urlsplit`` reads every URL."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        return ()
    query = _without_views(parts.query) if parts.query else ""
    return (hash((parts.netloc, parts.path, query, title)),)


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000/page/7",
        "https://example.org",
        "https://example.org/",
        "http:///only/a/path",
        "https://user:pw@example.org:8443/a/b;params/c.html",
        "https://example.org/a%20b/c ",
        "https://example.org/a[1]/b",
        "http://[::1]:8080/x",
        "http://[::1/x",
        "https://example.org/q?",
        "https://example.org/q?sort=votes&id=3",
        "https://example.org/q#top",
        "https://exa\tmple.org/a\nb",
        "HTTP://Example.org/Case",
        "https://bücher.example/straße",
        "ftp://example.org/file",
        "mailto:someone@example.org",
        "pages/question/01.html",
        "archive.warc.gz#1234",
    ],
)
def test_page_keys_are_the_keys_urlsplit_gives(url: str):
    page = PageSummary({}, [], [], [], title="A title", source=url)
    try:
        expected: object = split_keys(url, "A title")
    except ValueError as exc:  # a broken bracketed host: the same error
        with pytest.raises(ValueError, match=str(exc)):
            page_keys(page)
        return
    assert page_keys(page) == expected


def test_page_keys_of_real_pages_under_plain_urls():
    roots = real_roots(20)
    for number, root in enumerate(roots):
        url = f"https://www.example.org/section/page-{number}"
        page = summarize_tree(root, OPTIONS, source=url)
        assert site._PLAIN_HTTP_URL.fullmatch(url)  # the reading without urlsplit
        assert page_keys(page) == split_keys(url, page.title)


@pytest.mark.skipif(not summary.HAVE_COMPILED_WALK, reason="_walk not built")
def test_the_compiled_and_python_walks_give_one_class_set():
    for root in real_roots(30):
        start = _start_element(root)
        compiled = summary._summarize_compiled(start, OPTIONS, None)
        python = summary._summarize_python(start, OPTIONS, None)
        assert compiled.classes == python.classes


def test_a_page_is_packed_once_for_the_site_model_and_the_drift_watch():
    from pagesim_scrapy.core.drift import DriftMonitor

    model, monitor = SiteModel(), DriftMonitor()
    for number, root in enumerate(real_roots(20)):
        url = f"https://example.org/p/{number}"
        page = summarize_tree(root, OPTIONS, source=url)
        features = structural_features(page)
        model.add_once(features)
        monitor.observe("example.org", "page", features, url)
        kept = monitor.now.site("example.org").look("page").kept[-1][0]
        assert model.recent[-1] is kept  # one string for both
        assert kept == site._pack(frozenset(features))  # as packed before
        assert pack_features(frozenset(features)) == kept


def test_the_start_element_is_the_one_lxml_finds():
    pages = [parse_html(b"<html><head></head><body><p>x</p></body></html>")]
    pages.append(html.fromstring(b"<div><section><body><p>inner</p></body></section></div>"))
    pages += [html.fromstring(read_page_bytes(p)) for p in sorted(FIXTURES.rglob("*.html"))[:10]]
    pages += real_roots(20)
    for root in pages:
        tag = root.tag.lower()
        found = root.find("body") if tag == "html" else root.find(".//body")
        expected = root if tag == "body" or found is None else found
        assert _start_element(root) is expected


def test_the_label_cache_of_equal_options_is_one_cache():
    first, equal, other = SummaryOptions(max_nodes=123), SummaryOptions(max_nodes=123), OPTIONS
    cache = summary._label_cache(first)
    assert summary._label_cache(equal) is cache  # equal options: the same labels
    assert summary._label_cache(other) is not cache
    assert summary._label_cache(other).options == other
    assert summary._label_cache(first) is cache and summary._label_cache(equal) is cache
