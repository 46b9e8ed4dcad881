"""A full label learns the same pages whatever their order (issue 31, item 5): once more
than ``PAGESIM_INDUCTION_MAX_PAGES`` pages of a label come, it keeps the bottom-k sample of
them (the pages of smallest digest), so its wrapper and every record extracted with it are
the same in any order; the holding asks the ``spider_idle`` listeners before it lets its
items go, so pages brought back at idle (the classifier's second look) reach the sample.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from scrapy import Spider, signals
from scrapy.exceptions import DontCloseSpider
from scrapy.utils.test import get_crawler

from pagesim_scrapy.pipelines.induction import Holding, TemplateInductionPipeline
from pagesim_scrapy.settings import InductionConfig
from sample_project.demo_shop import DEMO_LABELS_FILE, DEMO_SITE_DIR

#: pages of one label, and how many its wrapper learns at most
PAGES, MAX_PAGES = 12, 5


def _product_pages() -> list[tuple[str, str]]:
    labels = json.loads(DEMO_LABELS_FILE.read_text(encoding="utf-8"))
    paths = sorted(path for path, label in labels.items() if label == "product")[:PAGES]
    return [
        ((DEMO_SITE_DIR / path).read_text(encoding="utf-8"), "https://shop.example/" + path)
        for path in paths
    ]


def _pipeline() -> TemplateInductionPipeline:
    settings = {
        "PAGESIM_INDUCTION_ENABLED": True,
        "PAGESIM_INDUCTION_MIN_PAGES": 3,
        "PAGESIM_INDUCTION_MAX_PAGES": MAX_PAGES,
    }
    return TemplateInductionPipeline.from_crawler(get_crawler(settings_dict=settings))


def _crawl(
    pages: list[tuple[str, str]], early: int | None = None
) -> tuple[Any, list[dict[str, Any]], list[str]]:
    """The pipeline's steps for a crawl whose items all wait until the end (the label
    settles at idle), but for one released by a cap after ``early`` pages (before the label
    is full): the wrapper, every record, the pages kept."""
    pipeline = _pipeline()
    state = pipeline._label("product")
    assert state is not None
    for k, (html, url) in enumerate(pages):
        pipeline._take(state, html, url)
        if k == early:  # learned as the pages came so far; the label still takes pages
            assert pipeline._extract_record(state, html, html, url)[0].record
            assert state.applied == k + 1 and not pipeline.learner.settled(state)
    kept = sorted(url or "" for *_, url in state.sources or [])
    pipeline._relearn_locked(state)
    records = [
        pipeline._extract_record(state, html, html, url)[0].record for html, url in sorted(pages)
    ]
    return state.wrapper.to_json(), records, kept


@pytest.mark.skipif(not DEMO_LABELS_FILE.is_file(), reason="the demo site is not generated")
def test_a_full_label_learns_the_same_sample_in_any_order() -> None:
    pages = _product_pages()
    orders = [pages[:], pages[::-1]]
    random.Random(31).shuffle(orders[1])
    runs = [_crawl(order) for order in orders]
    # an item released early, before the label is full, changes none of the others: the
    # pages it had the wrapper learn leave the sample like any other
    runs.append(_crawl(orders[1], early=1))
    _, records, kept = runs[0]
    assert len(kept) == MAX_PAGES and all(records)
    assert runs[1] == runs[0] == runs[2]
    # the sample is not the first pages that came
    assert kept != sorted(url for _, url in orders[0][:MAX_PAGES])


@pytest.mark.skipif(not DEMO_LABELS_FILE.is_file(), reason="the demo site is not generated")
def test_an_early_release_of_a_full_label_fixes_its_wrapper() -> None:
    """An item released by a cap needs the wrapper now: the sample as it stands is learned
    in canonical order, and the label learns no more (its items need not wait)."""
    pipeline = _pipeline()
    state = pipeline._label("product")
    assert state is not None
    pages = _product_pages()
    for html, url in pages[: MAX_PAGES + 2]:
        pipeline._take(state, html, url)
    assert pipeline.learner.sampling(state) and not pipeline.learner.settled(state)
    html, url = pages[0]
    record = pipeline._extract_record(state, html, html, url)[0].record
    assert record
    assert pipeline.learner.settled(state) and state.wrapper.pages == MAX_PAGES
    assert pipeline._take(state, *pages[-1])[0] == "full"


class _Later:
    """A ``spider_idle`` listener that brings more pages once (as the second look does)."""

    def __init__(self) -> None:
        self.calls = 0

    def spider_idle(self, spider: Spider) -> None:
        self.calls += 1
        if self.calls == 1:
            raise DontCloseSpider


def test_the_holding_asks_the_idle_listeners_once_per_idle_spell() -> None:
    crawler = get_crawler(Spider)
    crawler.spider = Spider(name="s")
    listener = _Later()
    crawler.signals.connect(listener.spider_idle, signal=signals.spider_idle)
    holding = Holding(InductionConfig(), crawler.stats, crawler, 1000, learning=lambda: False)
    assert holding._more_to_come() is True  # pages come: the items keep waiting
    assert holding._more_to_come() is False  # asked in this spell already
    holding._asked_idle = False  # the crawl was busy again
    assert holding._more_to_come() is False  # nothing more: the items go
    assert listener.calls == 2
