"""The body naming does not depend on the order pages come in (issue 31, item 5): the
pipeline learns it from a label's kept pages in canonical order when the label settles, and
then only fills records from it. Before, each page taught it as its record was composed, so
pages without metadata met first got fewer body values than the same pages met last."""

from __future__ import annotations

from typing import Any

from pagesim_scrapy.core.record.bodyfields import body_fields
from pagesim_scrapy.core.record.build import read_page
from pagesim_scrapy.core.record.naming import BodyNaming
from pagesim_scrapy.pipelines.induction.learning import Learner
from pagesim_scrapy.pipelines.induction.records import (
    body_naming,
    compose_record,
    labelled_rows,
    page_tree,
)
from pagesim_scrapy.settings import InductionConfig

from .test_recbody_naming import _products, _stripped


class _NoStats:
    def inc_value(self, *args: Any, **kwargs: Any) -> None: ...
    def max_value(self, *args: Any, **kwargs: Any) -> None: ...
    def set_value(self, *args: Any, **kwargs: Any) -> None: ...


def _crawl(pages: list[tuple[str, bytes]]) -> dict[str, tuple[dict, dict]]:
    """The pipeline's steps for held items: every page taken, the label settled, then each
    item's record composed in arrival order with the label's body naming."""
    learner = Learner(InductionConfig(min_pages=5, max_pages=50), _NoStats(), None)  # type: ignore[arg-type]
    state = learner.label("product")
    assert state is not None
    for url, html in pages:
        learner.take(state, html.decode("utf-8"), url)
    learner.relearn_locked(state)
    out = {}
    for url, html in pages:
        root = page_tree(html, url, state.wrapper.structured)
        result = Learner.extract(state, html if root is None else root, url)
        rows = labelled_rows(root, url)
        item = compose_record(html, result.record, url, rows, body_naming(state, url))
        out[url] = (item.record, dict(item.sources))
    return out


def test_pages_without_metadata_get_the_same_records_first_or_last():
    pages = _products(16)
    bare = [(url, _stripped(html)) for url, html in pages[::4]]
    rest = [page for k, page in enumerate(pages) if k % 4]
    first = _crawl(bare + rest)
    last = _crawl(rest[::-1] + bare[::-1])
    assert first == last
    for url, _ in bare:  # and they are whole: the body gave what the metadata lacked
        record, sources = first[url]
        for name in ("name", "price", "brand", "sku"):
            assert record.get(name) and sources[name] == "body", (url, name)


def test_a_stopped_naming_only_fills():
    pages = _products(4)
    naming = BodyNaming()
    for url, html in pages[1:]:
        core, root = read_page(html, url)
        naming.observe(core, body_fields(root, url))
    learned = naming.names()
    assert naming.learning and learned.get("price")
    naming.stop_learning()
    assert not naming.learning
    assert naming.wanted() is not None  # only the learned keys are read from a page
    url, html = pages[0]
    core, root = read_page(html, url)
    naming.observe(core, body_fields(root, url))
    assert naming.pages == 3 and naming.names() == learned
