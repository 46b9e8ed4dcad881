"""Seed 004's shared-nearest-neighbour clustering (Jarvis & Patrick, 1973) over a sparse graph.

Every item's neighbourhood is itself plus its ``k`` most similar items at similarity >= t_n
(seed 004: "near neighbours" above a similarity threshold). Clusters start as single items
carrying their item's neighbourhood; two clusters are collapsed into one, whose neighbourhood
is the union of theirs, when they share at least ``k_p`` of the smaller neighbourhood (seed
004 generalises Jarvis-Patrick's k_t shared neighbours to a fraction k_p). Collapsing repeats,
the pair sharing most first, until no pair shares enough. Overlaps are counted in pages (an
item weighs the pages condensed into it). Only clusters sharing a neighbour are ever compared.
"""

from __future__ import annotations

import heapq

from pagesim_scrapy.core.cluster.graph import ItemGraph


def neighbourhoods(graph: ItemGraph, k: int, t_n: float) -> list[set[int]]:
    """Each item with its ``k`` most similar items at similarity >= ``t_n``."""
    out = []
    for i, edges in enumerate(graph.edges):
        near = sorted(
            ((score, j) for j, score in edges.items() if score >= t_n),
            key=lambda pair: (-pair[0], pair[1]),
        )[:k]
        out.append({i, *(j for _, j in near)})
    return out


def shared_nearest_neighbours(
    graph: ItemGraph, k: int, t_n: float, k_p: float, max_iterations: int = 100
) -> list[int]:
    """Cluster index of every item (clusters numbered by their smallest item).

    The pair of clusters sharing the largest part of the smaller neighbourhood collapses first
    (``max_iterations`` is kept for callers of the earlier pass-based form and not used). Taken
    in item order, as before, the outcome depended on the order the pages came in, since a
    neighbourhood grows with every collapse; strongest first depends on it less
    (``benchmarks/site_cluster.py`` prints the shuffled orders' mean).
    """
    del max_iterations
    if k < 1:
        raise ValueError("k must be >= 1")
    if not 0.0 < k_p <= 1.0:
        raise ValueError("k_p must be within (0, 1]")
    n = len(graph)
    weights = graph.weights
    hoods = neighbourhoods(graph, k, t_n)
    mass = [sum(weights[x] for x in hood) for hood in hoods]
    parent = list(range(n))
    # holders[x]: clusters whose neighbourhood contains item x
    holders: list[set[int]] = [set() for _ in range(n)]
    for c, hood in enumerate(hoods):
        for x in hood:
            holders[x].add(c)
    version = [0] * n  # bumped when a cluster's neighbourhood grows: older heap entries are stale
    heap: list[tuple[float, int, int, int, int]] = []

    def push_partners(a: int) -> None:
        partners: set[int] = set()
        for x in hoods[a]:
            partners |= holders[x]
        partners.discard(a)
        hood_a = hoods[a]
        weight = weights.__getitem__
        for b in partners:
            # integer weights: the sum is the same in any order (the intersection's)
            share = sum(map(weight, hood_a & hoods[b])) / min(mass[a], mass[b])
            if share >= k_p:
                first, second = min(a, b), max(a, b)
                heapq.heappush(heap, (-share, first, second, version[first], version[second]))

    for a in range(n):
        push_partners(a)
    while heap:
        _, a, b, version_a, version_b = heapq.heappop(heap)
        if parent[a] != a or parent[b] != b or version[a] != version_a or version[b] != version_b:
            continue
        # collapse b into a
        parent[b] = a
        hood_a = hoods[a]
        for x in hoods[b]:
            holders[x].discard(b)
            if x not in hood_a:
                hood_a.add(x)
                holders[x].add(a)
                mass[a] += weights[x]
        hoods[b] = set()
        version[a] += 1
        push_partners(a)

    def root(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(root(i), []).append(i)
    labels = [0] * n
    for items in groups.values():
        first = min(items)
        for item in items:
            labels[item] = first
    return labels
