"""What the body naming's learning read of a kept page (its core record, tree and body
fields) serves that page's item record, which is then the record a fresh read gives (issue
31: the CPU of a crawl with induction)."""

from __future__ import annotations

from pagesim_scrapy.pipelines.induction.records import _body
from tests.demo_items import item_pages, product_pipeline, take_all


def _pages(count: int) -> list[tuple[str, str]]:
    return item_pages(count, seed=5)


def _records(share: bool, held_bytes: int | None = None) -> tuple[list[object], int]:
    """Each held page's record after its label settled, and how many reads were kept."""
    pipeline, state = product_pipeline()
    if held_bytes is not None:
        pipeline.learner.tree_budget = held_bytes
    pages = _pages(20)
    take_all(pipeline, state, pages)
    pipeline._relearn_locked(state)
    kept = len(state.record_reads)
    if not share:
        pipeline.learner._drop_reads(state)
    out: list[object] = []
    for html, url in pages:
        result, composed = pipeline._extract_record(state, html, html, url)
        out.append([composed.record, composed.sources, result.records, result.fit])
    assert not state.record_reads  # each item took its page's read
    assert pipeline.learner.read_bytes == 0
    return out, kept


def test_a_kept_page_is_read_once_and_gives_the_same_record() -> None:
    shared, kept = _records(share=True)
    fresh, _ = _records(share=False)
    assert kept > 0
    assert shared == fresh


def test_reads_are_kept_within_the_tree_budget() -> None:
    _, kept = _records(share=True, held_bytes=0)
    assert kept == 0


def test_the_wanted_body_fields_are_filtered_from_every_field() -> None:
    every = {"a[0]": "x", "b[0]": "y", "c[0]": "z"}
    assert _body(None, "", frozenset({"c[0]", "a[0]", "q"}), every) == {"a[0]": "x", "c[0]": "z"}
    assert _body(None, "", None, every) is every
