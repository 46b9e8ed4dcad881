"""A waiting page that leaves a full label's bottom-k sample keeps its tree for its held item,
as the pages the sample never took do (issue 31: the CPU of a crawl with induction): the
item is not parsed again and gets the same record."""

from __future__ import annotations

from typing import Any

from pagesim_scrapy.pipelines.induction import records
from tests.demo_items import item_pages, product_pipeline


def _take(pipeline: Any, state: Any, pages: list[tuple[str, str]]) -> int:
    """The label takes ``pages``; returns how many of them replaced a sample page."""
    outcomes = [pipeline._take(state, html, url)[0] for html, url in pages]
    return outcomes.count("sampled")


def _records(hand: bool, monkeypatch: Any) -> tuple[list[object], int, int]:
    """Each page's record after the label settled, the parses for the items, and the pages
    that replaced another in the sample."""
    pipeline, state = product_pipeline(PAGESIM_INDUCTION_MAX_PAGES=5)
    pages = item_pages(14, seed=3)
    sampled = _take(pipeline, state, pages)
    if not hand:
        pipeline.learner.handed_bytes -= sum(size for *_, size in state.held_trees.values())
        state.held_trees.clear()
    pipeline._relearn_locked(state)
    parses: list[int] = []
    real = records.parse_html
    monkeypatch.setattr(records, "parse_html", lambda *a, **k: parses.append(1) or real(*a, **k))
    out = [
        [composed.record, result.records, result.fit, result.reason]
        for result, composed in (
            pipeline._extract_record(state, html, html, url) for html, url in pages
        )
    ]
    monkeypatch.undo()
    assert not state.held_trees and not state.read_pages
    assert pipeline.learner.handed_bytes == 0
    return out, len(parses), sampled


def test_an_evicted_page_keeps_its_tree_for_its_item(monkeypatch: Any) -> None:
    handed, parses, sampled = _records(True, monkeypatch)
    parsed, parses_again, _ = _records(False, monkeypatch)
    assert sampled > 0  # some waiting pages left the sample
    assert parses == 0 and parses_again > 0
    assert handed == parsed


def test_without_holding_an_evicted_tree_is_not_kept() -> None:
    pipeline, state = product_pipeline(
        PAGESIM_INDUCTION_MAX_PAGES=5, PAGESIM_INDUCTION_BUFFER_SIZE=0
    )
    sampled = _take(pipeline, state, item_pages(14, seed=3))
    assert sampled > 0
    assert not state.held_trees and pipeline.learner.handed_bytes == 0
