"""The prefix-filtered SNN collapses the same pairs in the same order as counting every pair."""

from __future__ import annotations

import random

import pytest

from pagesim_scrapy.core.cluster.graph import ItemGraph
from pagesim_scrapy.core.cluster.snn import (
    _Collapsing,
    collapse_steps,
    neighbourhoods,
    shared_nearest_neighbours,
)


def _by_definition(graph: ItemGraph, k: int, t_n: float, k_p: float) -> list[tuple[int, int]]:
    """The collapses, recounting every pair of clusters before each: the largest share of the
    lighter neighbourhood first, ties to the lowest (first, second)."""
    weights = graph.weights
    hoods = {i: set(hood) for i, hood in enumerate(neighbourhoods(graph, k, t_n))}
    done = []
    while True:
        best = None
        for a in hoods:
            for b in hoods:
                if b <= a:
                    continue
                mass = min(sum(weights[x] for x in hoods[a]), sum(weights[x] for x in hoods[b]))
                share = sum(weights[x] for x in hoods[a] & hoods[b]) / mass
                if share >= k_p and (best is None or (-share, a, b) < best):
                    best = (-share, a, b)
        if best is None:
            return done
        _, a, b = best
        hoods[a] |= hoods.pop(b)
        done.append((a, b))


def _collapses(graph: ItemGraph, k: int, t_n: float, k_p: float) -> list[tuple[int, int]]:
    state = _Collapsing(graph.weights, neighbourhoods(graph, k, t_n), k_p)
    done: list[tuple[int, int]] = []
    collapse = state.collapse

    def recording(a: int, b: int) -> list[int]:
        done.append((a, b))
        return collapse(a, b)

    state.collapse = recording  # type: ignore[method-assign]
    state.run()
    return done


def _layouts(seed: int, n: int, hubs: int, step: float) -> tuple[ItemGraph, list[int]]:
    """Items of a few layouts, similarities on a coarse grid (many ties), a few hub items
    near every item of their layout (as the leaders of one big layout are)."""
    rng = random.Random(seed)
    layout = [rng.randrange(3) for _ in range(n)]
    weights = [rng.choice((1, 1, 1, 2, 5)) for _ in range(n)]
    graph = ItemGraph(weights, [1.0] * n, [1.0] * n)
    for i in range(n):
        for j in range(i + 1, n):
            same = layout[i] == layout[j]
            base = 0.9 if same and (i < hubs or j < hubs) else (0.6 if same else 0.3)
            score = round((base + rng.uniform(-0.25, 0.25)) / step) * step
            if score > 0.0:
                graph.set(i, j, min(1.0, score))
    return graph, weights


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize(("k", "t_n", "k_p"), [(5, 0.5, 0.5), (8, 0.4, 0.85), (3, 0.6, 0.3)])
def test_same_collapses_in_the_same_order(seed: int, k: int, t_n: float, k_p: float) -> None:
    graph, _ = _layouts(seed, 36, hubs=4, step=0.1)
    assert _collapses(graph, k, t_n, k_p) == _by_definition(graph, k, t_n, k_p)


@pytest.mark.parametrize("k_p", [0.5, 0.85, 1.0])
def test_identical_neighbourhoods_collapse_by_ties(k_p: float) -> None:
    graph = ItemGraph.from_matrix([[1.0] * 12 for _ in range(12)])
    assert _collapses(graph, 11, 0.5, k_p) == _by_definition(graph, 11, 0.5, k_p)
    assert shared_nearest_neighbours(graph, 11, 0.5, k_p) == [0] * 12


def test_least_shared_is_the_bar_as_divided() -> None:
    state = _Collapsing([1], [{0}], 0.85)
    for mass in range(1, 400):
        need = state.least_shared(mass)
        assert need / mass >= 0.85
        assert need == 1 or (need - 1) / mass < 0.85


def test_steps_are_counted() -> None:
    graph, _ = _layouts(0, 36, hubs=4, step=0.1)
    assert collapse_steps(graph, 5, 0.5, 0.85) > 0


@pytest.mark.parametrize("seed", range(6))
def test_growing_clusters_keep_the_order(seed: int) -> None:
    """Heavy items and one big layout: collapses make clusters much heavier, so many pairs'
    shares fall after they were pushed (their entries are requeued when they come up)."""
    graph, _ = _layouts(100 + seed, 60, hubs=10, step=0.05)
    for i in range(0, 60, 7):
        graph.weights[i] = 20
    for k, t_n, k_p in [(10, 0.45, 0.85), (6, 0.5, 0.6), (12, 0.4, 0.95)]:
        assert _collapses(graph, k, t_n, k_p) == _by_definition(graph, k, t_n, k_p)


def test_fallen_shares_are_requeued_not_dropped() -> None:
    """A pair whose share fell below its entry but stays above k_p still collapses."""
    graph, _ = _layouts(3, 48, hubs=8, step=0.05)
    state = _Collapsing(graph.weights, neighbourhoods(graph, 8, 0.45), 0.7)
    requeued: list[tuple[int, int]] = []
    requeue = state.requeue

    def recording(a: int, b: int, share: float, recorded: float) -> None:
        if 0.7 <= share < recorded:
            requeued.append((a, b))
        requeue(a, b, share, recorded)

    state.requeue = recording  # type: ignore[method-assign]
    state.run()
    assert requeued
    assert _collapses(graph, 8, 0.45, 0.7) == _by_definition(graph, 8, 0.45, 0.7)
