"""A held item takes the tree its page was learned from while it waited (issue 31: the CPU
of a crawl with induction): it is not parsed again, its record is the same, and the tree
counts in the learner's one tree budget until the item takes it."""

from __future__ import annotations

from pagesim_scrapy.pipelines.induction import records
from tests.demo_items import item_pages, product_pipeline, take_all


def _pages(count: int) -> list[tuple[str, str]]:
    return item_pages(count, seed=5)


def _records(hand: bool, monkeypatch: object) -> tuple[list[object], int, int]:
    """Each held page's record after its label settled, the parses for the items, and the
    bytes of handed trees right after settling."""
    pipeline, state = product_pipeline()
    pages = _pages(10)
    take_all(pipeline, state, pages)
    pipeline._relearn_locked(state)
    handed = pipeline.learner.handed_bytes
    if not hand:
        pipeline.learner._drop_handed(state)
    parses = []
    real = records.parse_html

    def counted(*args: object, **kwargs: object) -> object:
        parses.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(records, "parse_html", counted)  # type: ignore[attr-defined]
    out: list[object] = []
    for html, url in pages:
        result, composed = pipeline._extract_record(state, html, html, url)
        out.append([composed.record, result.records, result.fit, result.reason])
    monkeypatch.undo()  # type: ignore[attr-defined]
    assert not state.read_pages and pipeline.learner.handed_bytes == 0
    return out, len(parses), handed


def test_a_held_item_takes_its_learned_tree_and_gets_the_same_record(monkeypatch) -> None:
    handed, parses, kept = _records(True, monkeypatch)
    parsed, parses_again, _ = _records(False, monkeypatch)
    assert kept > 0
    assert parses == 0 and parses_again == 10
    assert handed == parsed


def test_handed_trees_count_in_the_tree_budget() -> None:
    pipeline, state = product_pipeline()
    learner = pipeline.learner
    take_all(pipeline, state, _pages(4))
    waiting = learner.tree_bytes
    pipeline._relearn_locked(state)
    assert learner.tree_bytes == 0 and learner.handed_bytes == waiting
    learner.tree_budget = learner.read_bytes + learner.handed_bytes
    assert not learner._trees_fit(1)


def test_a_full_labels_other_pages_keep_their_trees_for_their_items(monkeypatch) -> None:
    """Pages a full label's sample does not take keep their trees for their held items."""

    def run(hand: bool) -> tuple[list[object], int]:
        pipeline, state = product_pipeline(PAGESIM_INDUCTION_MAX_PAGES=5)
        pages = _pages(12)
        take_all(pipeline, state, pages)
        if not hand:
            pipeline.learner.handed_bytes -= sum(size for *_, size in state.held_trees.values())
            state.held_trees.clear()
        pipeline._relearn_locked(state)
        parses = []
        real = records.parse_html
        monkeypatch.setattr(
            records, "parse_html", lambda *a, **k: parses.append(1) or real(*a, **k)
        )
        out = [
            [composed.record, result.records, result.fit]
            for result, composed in (
                pipeline._extract_record(state, html, html, url) for html, url in pages
            )
        ]
        monkeypatch.undo()
        assert not state.held_trees and not state.read_pages
        assert pipeline.learner.handed_bytes == 0
        return out, len(parses)

    handed, parses = run(True)
    parsed, parses_again = run(False)
    assert parses < parses_again
    assert handed == parsed
