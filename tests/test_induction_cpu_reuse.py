"""What the record path reads once gives what reading it again gives (issue 31: the CPU of a
crawl with induction): a held page's rows and sections, read while its label learned it, for
its item parsed again; the structured-data checks that look at the page's source first."""

from __future__ import annotations

import pytest

from pagesim_scrapy.core.induce import dom
from pagesim_scrapy.core.record import markup
from pagesim_scrapy.core.record.read import as_utf8, parse_html
from tests.demo_items import item_pages, product_pipeline, take_all


def _pages(count: int) -> list[tuple[str, str]]:
    return item_pages(count, seed=3)


def _records(reuse: bool) -> tuple[list[object], int]:
    """Each held page's record after the label settled, and how many items took what
    learning read of their page."""
    pipeline, state = product_pipeline()
    pages = _pages(12)
    take_all(pipeline, state, pages)
    pipeline._relearn_locked(state)
    read = len(state.read_pages)
    if not reuse:
        pipeline.learner._drop_handed(state)
    out: list[object] = []
    for html, url in pages:
        result, composed = pipeline._extract_record(state, html, html, url)
        out.append([composed.record, result.records, result.fit, result.reason])
    assert not state.read_pages  # each item took its page's reading
    return out, read


def test_a_held_page_is_read_once_and_gives_the_same_record() -> None:
    reused, read = _records(reuse=True)
    again, _ = _records(reuse=False)
    assert read == 12
    assert reused == again


def test_seeded_memo_serves_the_new_tree_only() -> None:
    first = dom.parse_html("<html><body><p>Brand: Acme</p></body></html>")
    calls: list[int] = []

    def compute(root: object) -> str:
        calls.append(1)
        return "rows"

    assert dom.page_memo(first, "x", compute, keep=True) == "rows"
    kept = dom.kept_page_memo(first)
    assert kept == {"x": "rows"}
    second = dom.parse_html("<html><body><p>Brand: Acme</p></body></html>")
    dom.seed_page_memo(second, kept)
    assert dom.page_memo(second, "x", compute, keep=True) == "rows"
    assert dom.kept_page_memo(first) == {}  # the thread's page is the new tree
    assert len(calls) == 1
    dom.forget_page()


SOURCES = [
    "<html><body><p>plain</p></body></html>",
    "<html><body><div itemscope itemtype='https://schema.org/Product'>x</div></body></html>",
    "<html><body><div ITEMSCOPE>x</div></body></html>",
    "<html itemscope><body><p>root</p></body></html>",
    "<html><body><p>the word itemscope in a text</p></body></html>",
    "<html><body><p vocab='https://schema.org/' typeof='Product'>x</p></body></html>",
    "<html><body><p TYPEOF='Product'>x</p></body></html>",
    "<html><body><!-- vocab typeof --><p>x</p></body></html>",
    "<p itemscope>a fragment</p>",
]


@pytest.mark.parametrize("source", SOURCES)
def test_markup_checks_agree_with_the_tree_search(source: str) -> None:
    data = as_utf8(source)
    root = parse_html(data)
    assert root is not None
    microdata = bool(root.xpath("//*[@itemscope][1]"))
    rdfa = bool(root.xpath("//*[@vocab or @typeof][1]"))
    for given in (None, data, source):
        assert markup.has_microdata(root, given) is microdata
        assert markup.has_rdfa(root, given) is rdfa
