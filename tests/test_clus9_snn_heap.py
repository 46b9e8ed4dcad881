"""The SNN's heap holds each cluster's strongest found pair, the rest wait in sorted tails."""

from __future__ import annotations

import random

from pagesim_scrapy.core.cluster.graph import ItemGraph
from pagesim_scrapy.core.cluster.snn import _Collapsing, _decode, _entry, neighbourhoods

from .test_snn_prefix import _by_definition, _collapses


def _one_layout(n: int, seed: int) -> ItemGraph:
    """Leaders of one layout: every pair very similar, so nearly every pair passes k_p."""
    rng = random.Random(seed)
    graph = ItemGraph([rng.choice((1, 2, 3)) for _ in range(n)], [1.0] * n, [1.0] * n)
    for i in range(n):
        for j in range(i + 1, n):
            graph.set(i, j, round(rng.uniform(0.8, 1.0), 2))
    return graph


def test_the_heap_holds_one_entry_per_cluster_after_a_band() -> None:
    graph = _one_layout(40, 0)
    state = _Collapsing(graph.weights, neighbourhoods(graph, 30, 0.5), 0.85)
    state.push_band(0.85, float("inf"))
    assert len(state.heap) <= len(graph)
    assert sum(len(tail) for tail in state.tails.values()) + len(state.heap) > len(graph)


def test_a_layout_collapses_as_by_definition() -> None:
    for seed in range(4):
        graph = _one_layout(30, seed)
        assert _collapses(graph, 20, 0.5, 0.85) == _by_definition(graph, 20, 0.5, 0.85)


def test_tails_skip_pairs_whose_cluster_has_gone() -> None:
    state = _Collapsing([1, 1, 1, 1], [{0, 1}, {0, 1}, {2, 3}, {2, 3}], 0.5)
    state.parent[1] = 0  # cluster 1 collapsed into 0
    state.push_found([_entry(1.0, 0, 1), _entry(0.9, 2, 3)])
    assert [_decode(entry)[1:] for entry in state.heap] == [(2, 3)]
    assert not state.tails
