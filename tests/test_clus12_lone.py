"""A page the grouping left alone joins the cluster it is as near as that cluster's own pages."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from pagesim_scrapy.core.cluster.graph import ItemGraph
from pagesim_scrapy.core.cluster.grouping import GroupingParams
from pagesim_scrapy.core.cluster.lone import attach_lone_pages
from pagesim_scrapy.core.cluster.pipeline import LONE, ClusterOptions
from pagesim_scrapy.core.sitepolicy import SITE_METHOD

#: each "page" is a set of features; the overlap is shared over the smaller set's size
PAGES = [
    {"a", "b", "c", "d"},
    {"a", "b", "c", "e"},
    {"a", "b", "d", "e"},
    {"a", "b", "x", "y", "z", "w"},  # alone: half of it is the cluster's
    {"m", "n", "o"},  # alone and unlike anything: stays so
    {"p", "q", "r"},  # alone, contained in the p/q pages as they are in each other
    {"p", "q", "s", "t"},
    {"p", "q", "s", "u"},
]


def _overlap(a: Any, b: Any) -> float:
    return len(a & b) / min(len(a), len(b))


def _setup() -> tuple[ItemGraph, list[Any]]:
    leaders = [SimpleNamespace(summary=frozenset(page)) for page in PAGES]
    n = len(PAGES)
    matrix = [[_overlap(PAGES[i], PAGES[j]) for j in range(n)] for i in range(n)]
    return ItemGraph.from_matrix(matrix), leaders


def test_lone_page_joins_the_cluster_it_overlaps_like_its_own_pages() -> None:
    graph, leaders = _setup()
    groups = [0, 0, 0, 3, 4, 5, 6, 6]
    out = attach_lone_pages(graph, groups, leaders, _overlap, 0.6, 8)
    assert out == [0, 0, 0, 0, 4, 6, 6, 6]
    strict = attach_lone_pages(graph, groups, leaders, _overlap, 1.0, 8)
    assert strict == groups  # both below their cluster's own overlap


def test_off_and_bounds() -> None:
    graph, leaders = _setup()
    groups = [0, 0, 0, 3, 4, 5, 6, 6]
    assert attach_lone_pages(graph, groups, leaders, _overlap, 0.0, 8) == groups
    with pytest.raises(ValueError):
        attach_lone_pages(graph, groups, leaders, _overlap, 1.5, 8)
    everyone_alone = list(range(len(PAGES)))
    assert attach_lone_pages(graph, everyone_alone, leaders, _overlap, 0.5, 8) == everyone_alone


def test_no_edge_no_candidate() -> None:
    """Only clusters the lone page has an edge to are candidates (the LSH's proposals)."""
    leaders = [SimpleNamespace(summary=frozenset(page)) for page in PAGES[:4]]
    graph = ItemGraph([1, 1, 1, 1], [1.0] * 4, [1.0] * 4)
    for i in range(3):
        for j in range(i + 1, 3):
            graph.set(i, j, 0.9)
    assert attach_lone_pages(graph, [0, 0, 0, 3], leaders, _overlap, 0.5, 8) == [0, 0, 0, 3]
    graph.set(3, 0, 0.3)
    assert attach_lone_pages(graph, [0, 0, 0, 3], leaders, _overlap, 0.5, 8) == [0, 0, 0, 0]


def test_options_carry_the_bar_to_the_shared_grouping_step() -> None:
    params = ClusterOptions(method=SITE_METHOD).grouping_params()
    assert params.lone == LONE[SITE_METHOD] > 0.0
    assert ClusterOptions(method=SITE_METHOD, lone=0.0).grouping_params().lone == 0.0
    assert ClusterOptions(method="combined").grouping_params().lone == 0.0
    assert GroupingParams("snn", 30, 0.85, 0.35, 0.4, 0.2, 0.7, 50).lone == 0.0
    with pytest.raises(ValueError):
        ClusterOptions(method=SITE_METHOD, lone=2.0)
