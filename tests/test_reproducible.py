"""The same pages give the same wrapper and records whatever their order (issue 14, item 6).

Real pages of several page types from ../shared/data/site_page_types (five real sites), each
type's pages learned in two shuffled orders: through ``induce`` (batch), through the real
induction pipeline (pages learned one by one as a crawl gives them, relearned in canonical order
at readiness and at close), and through two real crawls that request the same pages in
opposite orders (the saved wrappers are compared).
"""

from __future__ import annotations

import csv
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pagesim_scrapy.core.induce import Wrapper, induce
from tests.conftest import shared_data
from tests.test_induce_pipeline import _serve

# (site, page type): types whose pages, learned in arrival order, gave different records
TYPES = [
    ("android_stackexchange", "question"),
    ("awesomewm_wiki", "article"),
    ("cc_opensource_blog", "static_page"),
    ("cpython_docs", "library_module"),
    ("flink_site", "info_page"),
]
PAGES = 7
MIN_PAGES = 3


def type_pages(site: str, page_type: str) -> list[tuple[str, bytes]]:
    folder = shared_data("site_page_types", site)
    with (folder / "labels.csv").open(encoding="utf-8") as handle:
        rows = [row for row in csv.DictReader(handle) if row["page_type"] == page_type]
    return [(row["url"], (folder / row["path"]).read_bytes()) for row in rows[:PAGES]]


def records(wrapper: Wrapper, pages: list[tuple[str, bytes]]) -> list[str]:
    return [
        json.dumps(wrapper.extract(html, url=url).record, sort_keys=True) for url, html in pages
    ]


def orders(pages: list[Any], seed: int) -> tuple[list[Any], list[Any]]:
    first, second = pages[:], pages[:]
    random.Random(seed).shuffle(first)
    random.Random(seed + 1).shuffle(second)
    assert first != second
    return first, second


@pytest.mark.parametrize(("site", "page_type"), TYPES)
def test_induce_gives_the_same_wrapper_in_any_order(site: str, page_type: str) -> None:
    pages = type_pages(site, page_type)
    first, second = orders([html for _, html in pages], 5)
    a, b = induce(first, label=page_type), induce(second, label=page_type)
    assert a.to_json() == b.to_json()
    assert records(a, pages) == records(b, pages)


def induction_pipeline(**settings: Any) -> tuple[Any, Any]:
    """A TemplateInductionPipeline with induction on and MIN_PAGES (plus ``settings``), and
    its crawler."""
    from scrapy.utils.test import get_crawler

    from pagesim_scrapy.pipelines.induction import TemplateInductionPipeline

    crawler = get_crawler(
        settings_dict={
            "PAGESIM_INDUCTION_ENABLED": True,
            "PAGESIM_INDUCTION_MIN_PAGES": MIN_PAGES,
            **settings,
        }
    )
    return TemplateInductionPipeline.from_crawler(crawler), crawler


def learn_through_the_pipeline(pages: list[tuple[str, bytes]]) -> tuple[Any, Any]:
    """The real pipeline's learning steps, in the order given; returns the label's state right
    after readiness (a copy of its wrapper) and after the close step."""
    pipeline, _ = induction_pipeline()
    state = pipeline._label("type")
    at_ready = None
    for url, html in pages:
        assert pipeline._learn(state, html.decode("utf-8", "replace"), url)[0] == "learned"
        if state.pages == MIN_PAGES:
            at_ready = Wrapper.from_json(state.wrapper.to_json())
    pipeline._relearn_locked(state)  # what close_spider does before saving
    return at_ready, state.wrapper


@pytest.mark.parametrize(("site", "page_type"), TYPES)
def test_the_pipeline_learns_the_same_wrapper_in_any_order(site: str, page_type: str) -> None:
    pages = type_pages(site, page_type)
    first, _ = orders(pages, 11)
    # the same first MIN_PAGES pages in another order (so the same wrapper at readiness), the
    # later ones too
    second = first[:MIN_PAGES][::-1] + first[MIN_PAGES:][::-1]
    ready_a, final_a = learn_through_the_pipeline(first)
    ready_b, final_b = learn_through_the_pipeline(second)
    assert ready_a.to_json() == ready_b.to_json()
    assert final_a.to_json() == final_b.to_json()
    assert records(final_a, pages) == records(final_b, pages)


def test_pages_in_canonical_order_are_not_learned_again() -> None:
    """Pages that arrive in canonical order, with no compile between them, give at readiness
    the wrapper that relearning would give: it is kept (stat ``relearn_skipped``), and it
    equals the wrapper of the same pages in a shuffled order. A compile between two pages
    (an item released early is extracted with the partial wrapper) names fields in the tree:
    then the label is learned again, to the same wrapper."""
    from pagesim_scrapy.core.induce import parse_html
    from pagesim_scrapy.core.induce.wrapper import page_order_key

    pages = type_pages("cpython_docs", "library_module")[:MIN_PAGES]
    assert len(pages) == MIN_PAGES
    pages.sort(key=lambda page: page_order_key(parse_html(page[1], base_url=page[0])))
    shuffled = pages[::-1]
    wrappers = []
    for order, compile_between in ((pages, False), (pages, True), (shuffled, False)):
        pipeline, crawler = induction_pipeline()
        state = pipeline._label("type")
        for k, (url, html) in enumerate(order):
            assert pipeline._learn(state, html.decode("utf-8", "replace"), url)[0] == "learned"
            if compile_between and k == 0:
                pipeline._extract(state, html.decode("utf-8", "replace"), url)
        pipeline._relearn_locked(state)  # close: nothing more to learn
        skipped = crawler.stats.get_value("pagesim/induction/relearn_skipped")
        relearned = crawler.stats.get_value("pagesim/induction/relearned")
        if order is pages and not compile_between:
            assert (skipped, relearned) == (1, None)
        else:
            assert (skipped, relearned) == (None, 1)
        wrappers.append(state.wrapper)
    assert wrappers[0].to_json() == wrappers[1].to_json() == wrappers[2].to_json()
    assert records(wrappers[0], pages) == records(wrappers[2], pages)


def test_a_full_label_is_learned_again_at_once_and_its_pages_freed() -> None:
    """A label that reaches PAGESIM_INDUCTION_MAX_PAGES learns no more: its close-time
    relearning is done at once and the copies of its pages are freed; the wrapper is the one
    the close step gives when the pages stay kept until close."""

    pages = type_pages("awesomewm_wiki", "article")[: MIN_PAGES + 2]
    assert len(pages) == MIN_PAGES + 2
    wrappers = []
    for max_pages in (len(pages), 50):
        pipeline, crawler = induction_pipeline(PAGESIM_INDUCTION_MAX_PAGES=max_pages)
        state = pipeline._label("type")
        for url, html in pages:
            assert pipeline._learn(state, html.decode("utf-8", "replace"), url)[0] == "learned"
        full = max_pages == len(pages)
        assert (state.sources is None) == full
        assert crawler.stats.get_value("pagesim/induction/sources_released/full") == (
            1 if full else None
        )
        pipeline._relearn_locked(state)  # close_spider's step: nothing left to do when full
        wrappers.append(state.wrapper)
    assert wrappers[0].to_json() == wrappers[1].to_json()
    assert records(wrappers[0], pages) == records(wrappers[1], pages)


def test_two_crawls_in_opposite_orders_save_the_same_wrapper(tmp_path: Path) -> None:
    """Real crawls (this repository's induction-hold worker: one label per crawl) of the same
    pages in opposite orders, one request at a time: the saved wrappers are the same."""
    pages = type_pages("cpython_docs", "library_module")
    routes = {f"/lib/{k}.html": html for k, (_, html) in enumerate(pages)}
    worker = Path(__file__).resolve().parent / "test_induction_hold.py"
    saved = []
    for base in _serve(routes):
        urls = [base + path for path in routes]
        for name, order in (("forward", urls), ("backward", urls[::-1])):
            folder = tmp_path / name
            folder.mkdir()
            settings = {
                "TELNETCONSOLE_ENABLED": False,
                "ROBOTSTXT_OBEY": False,
                "LOG_LEVEL": "INFO",
                "ITEM_PIPELINES": {
                    "pagesim_scrapy.pipelines.induction.TemplateInductionPipeline": 300
                },
                "PAGESIM_INDUCTION_ENABLED": True,
                "PAGESIM_INDUCTION_DIR": str(folder / "wrappers"),
                "PAGESIM_INDUCTION_MIN_PAGES": MIN_PAGES,
                "CONCURRENT_REQUESTS": 1,
            }
            spec = {"settings": settings, "urls": order, "label": "library_module"}
            (folder / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
            proc = subprocess.run(
                [sys.executable, str(worker), str(folder / "spec.json"), str(folder / "out.json")],
                capture_output=True,
                text=True,
                timeout=300,
                cwd=folder,
            )
            assert proc.returncode == 0, proc.stderr[-4000:]
            result = json.loads((folder / "out.json").read_text(encoding="utf-8"))
            assert sorted(result["items"]) == sorted(urls)
            assert result["stats"].get("pagesim/induction/relearned", 0) >= 1
            saved.append((folder / "wrappers" / "library_module.json").read_text("utf-8"))
    first, second = (json.loads(text) for text in saved)
    assert first["pages"] == second["pages"] == len(pages)
    assert first == second


def test_types_differ_when_learned_in_arrival_order() -> None:
    """The reproducer: without the canonical order, learning the same pages one by one in two
    orders gives different wrappers (so the tests above can fail)."""
    differ = 0
    for site, page_type in TYPES:
        pages = type_pages(site, page_type)
        first, second = orders(pages, 5)
        wrappers = []
        for order in (first, second):
            wrapper = Wrapper(label=page_type)
            for url, html in order:
                wrapper.add_page(html, url=url)
            wrappers.append(wrapper)
        differ += records(wrappers[0], pages) != records(wrappers[1], pages)
    assert differ >= len(TYPES) - 1


def test_sources_are_kept_only_for_wrappers_learned_in_this_crawl(tmp_path: Path) -> None:
    from scrapy.utils.test import get_crawler

    from pagesim_scrapy.pipelines.induction import TemplateInductionPipeline

    pages = type_pages("cpython_docs", "library_module")
    stored = induce([html for _, html in pages[:2]], label="lib")
    folder = tmp_path / "wrappers"
    folder.mkdir()
    stored.save(folder / "lib.json")
    crawler = get_crawler(
        settings_dict={"PAGESIM_INDUCTION_ENABLED": True, "PAGESIM_INDUCTION_DIR": str(folder)}
    )
    pipeline = TemplateInductionPipeline.from_crawler(crawler)
    continued, fresh = pipeline._label("lib"), pipeline._label("other")
    assert continued.sources is None and fresh.sources == []
