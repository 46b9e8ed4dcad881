"""A label's pages are learned once, when it settles (issue 31: the CPU of a crawl with
induction): a page a label that is not settled takes is only parsed and kept, and the
settle's learning in canonical order is the wrapper's one pass over them, with the trees
the pages were parsed into (none parsed again)."""

from __future__ import annotations

from typing import Any

from pagesim_scrapy.core.induce.wrapper import Wrapper
from pagesim_scrapy.pipelines.induction import learning, sources
from tests.demo_items import item_pages, product_pipeline


def _settle(max_pages: int, pages: int, monkeypatch: Any) -> tuple[int, int, int]:
    """Pages added to wrappers while taking, while settling, and pages parsed again."""
    added: list[int] = []
    real_add = Wrapper.add_page
    monkeypatch.setattr(Wrapper, "add_page", lambda *a, **k: added.append(1) or real_add(*a, **k))
    parsed: list[int] = []
    real_parse = sources.parse_html
    monkeypatch.setattr(
        sources, "parse_html", lambda *a, **k: parsed.append(1) or real_parse(*a, **k)
    )
    pipeline, state = product_pipeline(PAGESIM_INDUCTION_MAX_PAGES=max_pages)
    for html, url in item_pages(pages, seed=5):
        pipeline._take(state, html, url)
    taking = len(added)
    pipeline._relearn_locked(state)
    assert learning.count_nodes(state.wrapper) > 0
    return taking, len(added) - taking, len(parsed)


def test_a_full_label_learns_its_sample_once_at_settle(monkeypatch: Any) -> None:
    taking, settling, parsed = _settle(5, 12, monkeypatch)
    assert (taking, settling, parsed) == (0, 5, 0)


def test_a_label_under_its_cap_learns_each_page_once(monkeypatch: Any) -> None:
    taking, settling, parsed = _settle(50, 6, monkeypatch)
    assert (taking, settling, parsed) == (0, 6, 0)
