"""A full label's held trees make room in the tree budget for what settling read of its
kept pages: the body naming's reads (they spare their items the whole record reading) and
the sample's trees parsed again (with their rows and sections); a held tree spares only a
parse. The records are those of items that read and parse everything afresh (issue 31: the
CPU of a crawl with induction)."""

from __future__ import annotations

from typing import Any

from tests.demo_items import item_pages, product_pipeline, take_all

#: a sample smaller than the pages taken, so that the items of the others hold their trees
_SETTINGS = {"PAGESIM_INDUCTION_MAX_PAGES": 8, "PAGESIM_INDUCTION_MIN_PAGES": 4}


def _settled(pages: list[tuple[str, str]]) -> tuple[Any, Any, int]:
    """A pipeline whose product label took ``pages`` with a tree budget its held trees
    fill, then settled; and how many trees were held before it settled."""
    pipeline, state = product_pipeline(**_SETTINGS)
    take_all(pipeline, state, pages)
    learner = pipeline.learner
    learner.tree_budget = learner.tree_bytes + learner.read_bytes + learner.handed_bytes
    held = len(state.held_trees)
    pipeline._relearn_locked(state)
    return pipeline, state, held


def _records(pipeline: Any, state: Any, pages: list[tuple[str, str]]) -> list[object]:
    out: list[object] = []
    for html, url in pages:
        result, composed = pipeline._extract_record(state, html, html, url)
        out.append([composed.record, composed.sources, result.records, result.fit])
    return out


def test_held_trees_make_room_for_the_reads_and_the_records_are_the_fresh_ones() -> None:
    pages = item_pages(24, seed=3)
    pipeline, state, held = _settled(pages)
    learner = pipeline.learner
    assert held > 0
    assert state.record_reads, "the naming's reads were kept"
    assert len(state.held_trees) < held, "held trees left to make room"
    kept = learner.tree_bytes + learner.read_bytes + learner.handed_bytes
    assert kept <= learner.tree_budget
    shared = _records(pipeline, state, pages)

    fresh_pipeline, fresh_state, _ = _settled(pages)
    fresh_pipeline.learner._drop_reads(fresh_state)
    fresh_state.held_trees.clear()
    fresh_state.read_pages.clear()
    assert shared == _records(fresh_pipeline, fresh_state, pages)


def test_sample_pages_parsed_again_to_settle_go_to_their_items() -> None:
    pages = item_pages(24, seed=4)
    pipeline, state = product_pipeline(**_SETTINGS)
    learner = pipeline.learner
    learner.tree_budget = 0  # no tree waits parsed: settling parses the sample again
    take_all(pipeline, state, pages)
    assert not state.waiting_trees and not state.held_trees
    learner.tree_budget = 10**9
    pipeline._relearn_locked(state)
    sample = {(html, url) for html, url in pages} & set(state.read_pages)
    assert len(sample) == len(state.read_pages) == 8
    assert all(memo for _, memo, _ in state.read_pages.values()), "with their rows and sections"
    shared = _records(pipeline, state, pages)
    assert not state.read_pages and learner.handed_bytes == 0

    fresh_pipeline, fresh_state = product_pipeline(**_SETTINGS)
    fresh_pipeline.learner.tree_budget = 0
    take_all(fresh_pipeline, fresh_state, pages)
    fresh_pipeline._relearn_locked(fresh_state)
    fresh_pipeline.learner._drop_reads(fresh_state)
    assert not fresh_state.read_pages
    assert shared == _records(fresh_pipeline, fresh_state, pages)
