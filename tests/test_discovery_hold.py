"""Discovery that holds a page until its type is settled (issue 32, item 2), in a real crawl.

A crawl against a local HTTP server on 127.0.0.1 (the helpers of ``tests/test_scrapy_crawl.py``)
over real Stack Overflow pages of 5 types, 3 each (tests/fixtures/stackoverflow,
BSD-3-Clause), one request at a time. With ``PAGESIM_DISCOVERY_HOLD`` each page reaches the
spider with the label of its settled type: the labels are those of the benchmark's held
simulation for the same arrival order (``benchmarks/site_cluster.py``, ``crawl_in_order``), no
type is split over two labels, and a held page is replayed from memory, not downloaded twice.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pagesim_scrapy.core.cluster import OnlineDiscovery
from pagesim_scrapy.core.decide import HOLD, PageDecider
from pagesim_scrapy.core.secondlook import SecondLook, TypeSettled
from pagesim_scrapy.core.summary import summarize
from pagesim_scrapy.settings import PageSimConfig
from tests.conftest import load_benchmark
from tests.test_scrapy_crawl import (
    ADDON,
    TYPES,
    Site,
    kind_of,
    pages,
    pagesim_stats,
    run_crawl,
    serve,
    so_page,
    so_routes,
)

CLOSENESS = 0.65  # as the discovery crawl of test_scrapy_query_discovery.py
SETTINGS = {
    **ADDON,
    "PAGESIM_DISCOVERY_ENABLED": True,
    "PAGESIM_DISCOVERY_CLOSENESS": CLOSENESS,
    # one request at a time: the pages are decided in the order the server sends them
    "CONCURRENT_REQUESTS": 1,
}

split_and_merged = load_benchmark("site_cluster").split_and_merged
crawl_in_order = load_benchmark("site_cluster").crawl_in_order


@pytest.fixture
def site() -> Iterator[Site]:
    yield from serve(so_routes())


def _shuffled(site: Site, seed: int) -> list[dict[str, Any]]:
    requests = pages(site)
    random.Random(seed).shuffle(requests)
    return requests


def _arrival(site: Site) -> list[str]:
    """The pages in the order the server sent them (each once: a held page is replayed)."""
    return [r["path"] for r in site.seen if r["path"].startswith("/so/")]


def _simulated(paths: list[str]) -> dict[str, str | None]:
    """The benchmark's held labels for the pages in this order."""
    options = PageSimConfig().summary_options()
    bench = load_benchmark("site_accuracy")
    docs = []
    for path in paths:
        kind, name = path.split("/so/")[1].split("/")
        summary = summarize(so_page(kind, int(name[:2])), options)
        docs.append(bench.Page(path, kind, summary))
    crawl = crawl_in_order(docs, list(range(len(docs))), "so", closeness=CLOSENESS)
    return dict(zip(paths, crawl.held))


#: arrival orders in which the labels given at once split a type (the question pages)
SPLIT_AT_ONCE = (2, 5)


@pytest.mark.parametrize("seed", SPLIT_AT_ONCE)
def test_a_crawl_that_holds_gives_the_settled_types(site: Site, tmp_path: Path, seed: int):
    result = run_crawl(
        tmp_path, {**SETTINGS, "PAGESIM_DISCOVERY_HOLD": True}, _shuffled(site, seed)
    )
    assert result["crawl_error"] is None and result["finish_reason"] == "finished"
    paths = _arrival(site)
    assert len(paths) == len(set(paths)) == 15  # no page downloaded twice
    seen = result["seen"]
    assert sorted(p["url"] for p in seen) == sorted(site.url(path) for path in paths)
    labels = {p["url"].removeprefix(site.base): p["pagesim"]["label"] for p in seen}
    assert labels == _simulated(paths)
    truth = [kind_of(path) for path in paths]
    given = [labels[path] for path in paths]
    assert split_and_merged(truth, given) == (0, 0)
    for page in seen:
        verdict = page["pagesim"]
        assert verdict["label"] == verdict["cluster"] and verdict["target"] is True
        assert f"pagesim:{verdict['label']}" in page["flags"]
    stats = pagesim_stats(result)
    held = stats["pagesim/discovery/held"]
    assert 0 < held < 15
    assert stats["pagesim/discovery/held_due"] == stats["pagesim/discovery/replayed"] == held
    assert "pagesim/discovery/held_undelivered" not in stats
    assert stats["pagesim/discovery/pages"] == 15
    # a held page's errback got HeldForSecondLook first, its callback the page later
    errors = [e for e in result["errors"] if e["error"] == "HeldForSecondLook"]
    assert len(errors) == held


def test_without_holding_every_page_comes_at_once(site: Site, tmp_path: Path):
    result = run_crawl(tmp_path, SETTINGS, _shuffled(site, SPLIT_AT_ONCE[0]))
    assert result["finish_reason"] == "finished" and len(result["seen"]) == 15
    stats = pagesim_stats(result)
    assert not [key for key in stats if "held" in key or "replayed" in key]
    assert not result["errors"]
    # the labels as given at once: this order splits a type over two labels
    paths = _arrival(site)
    labels = {p["url"].removeprefix(site.base): p["pagesim"]["label"] for p in result["seen"]}
    truth = [kind_of(path) for path in paths]
    assert split_and_merged(truth, [labels[path] for path in paths]) == (1, 0)


# --- the core: the decider and the second look ---------------------------------------------


def _summaries() -> list[tuple[str, Any]]:
    options = PageSimConfig().summary_options()
    return [(kind, summarize(so_page(kind, n), options)) for kind in TYPES for n in (1, 2, 3)]


def test_the_decider_holds_a_page_whose_type_is_not_settled() -> None:
    discovery = OnlineDiscovery(
        method="site", options=PageSimConfig().summary_options(), closeness=CLOSENESS
    )
    look: SecondLook[int] = SecondLook(None)
    settled_on: list[str | None] = []
    decider = PageDecider(None, discovery=discovery)
    assert decider.hold_types(look, settled_on.append)
    first = decider.decide(_summaries()[0][1], site="so", url="u0")
    assert first.action == HOLD and first.held and first.owed and first.held_for_type
    assert first.leader is not None and first.label is not None
    assert look.hold_for_type(0, "so", first.leader) and look.types_waiting() == 1
    decider.decide(_summaries()[3][1], site="so", url="u1")
    assert settled_on == ["so"]  # asked after the next decision on the site
    assert look.types_due_on("so", discovery.settled, discovery.label_now) == []
    discovery.regroup()
    due = look.types_due(discovery.label_now)
    assert due == [(0, TypeSettled(discovery.label_now(first.leader)))]
    assert look.types_waiting() == 0 and look.last_looked == [(0, True)]
    # the page back: its label is the settled type, carried, not counted again
    back = decider.decide(
        _summaries()[0][1],
        site="so",
        url="u0",
        again=True,
        first={"cluster": "cluster-9", "cluster_score": 0.5},
    )
    assert back.label == back.cluster == "cluster-9" and back.action != HOLD and back.target
    assert discovery.pages == 2


def test_a_classifier_or_no_discovery_never_holds_for_the_type() -> None:
    look: SecondLook[int] = SecondLook(None)
    assert not PageDecider(None).hold_types(look, print)
    assert not PageDecider(None, discovery=None).hold_types(look, print)
