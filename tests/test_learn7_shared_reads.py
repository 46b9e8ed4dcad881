"""What the body naming's learning read of a kept page (its core record, tree and body
fields) serves that page's item record, which is then the record a fresh read gives (issue
31: the CPU of a crawl with induction)."""

from __future__ import annotations

import random
from pathlib import Path

from scrapy.utils.test import get_crawler

from pagesim_scrapy.pipelines.induction import TemplateInductionPipeline
from pagesim_scrapy.pipelines.induction.records import _body

ITEMS = Path(__file__).resolve().parent.parent / "sample_project" / "demo_site" / "item"


def _pages(count: int) -> list[tuple[str, str]]:
    pages = [(p.read_text(encoding="utf-8"), p.as_uri()) for p in sorted(ITEMS.glob("*.html"))]
    random.Random(5).shuffle(pages)
    return pages[:count]


def _records(share: bool, held_bytes: int | None = None) -> tuple[list[object], int]:
    """Each held page's record after its label settled, and how many reads were kept."""
    crawler = get_crawler(settings_dict={"PAGESIM_INDUCTION_ENABLED": True})
    pipeline = TemplateInductionPipeline.from_crawler(crawler)
    if held_bytes is not None:
        pipeline.learner.tree_budget = held_bytes
    state = pipeline._label("product")
    pages = _pages(20)
    for html, url in pages:
        pipeline._take(state, html, url)
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
