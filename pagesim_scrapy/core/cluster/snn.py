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
    state = _Collapsing(graph.weights, neighbourhoods(graph, k, t_n), k_p)
    state.run()
    return state.labels()


class _Collapsing:
    """The clusters of the shared-nearest-neighbour procedure as they collapse.

    The shared weight of every pair of clusters with a neighbour in common is kept and
    updated by the items a collapse adds, rather than recounted: a large cluster's
    neighbourhood holds hundreds of items and collapses many times, and recounting its
    overlap with every partner on each collapse made the step grow faster than the leaders.
    Weights are whole pages, so the kept sums equal the recounted ones exactly.
    """

    def __init__(self, weights: list[int], hoods: list[set[int]], k_p: float) -> None:
        n = len(hoods)
        self.weights = weights
        self.hoods = hoods
        self.k_p = k_p
        self.mass = [sum(weights[x] for x in hood) for hood in hoods]
        self.parent = list(range(n))
        # holders[x]: clusters whose neighbourhood contains item x
        self.holders: list[set[int]] = [set() for _ in range(n)]
        for c, hood in enumerate(hoods):
            for x in hood:
                self.holders[x].add(c)
        # overlap[a][b]: the weight of the items a's and b's neighbourhoods share (b != a)
        self.overlap: list[dict[int, int]] = [self._overlaps(a) for a in range(n)]
        # bumped when a cluster's neighbourhood grows: older heap entries are stale
        self.version = [0] * n
        self.heap: list[tuple[float, int, int, int, int]] = []

    def _overlaps(self, a: int) -> dict[int, int]:
        partners: set[int] = set()
        hood_a = self.hoods[a]
        for x in hood_a:
            partners |= self.holders[x]
        partners.discard(a)
        weight = self.weights.__getitem__
        return {b: sum(map(weight, hood_a & self.hoods[b])) for b in partners}

    def push_partners(self, a: int) -> None:
        mass, version, k_p = self.mass, self.version, self.k_p
        mass_a = mass[a]
        for b, shared in self.overlap[a].items():
            share = shared / min(mass_a, mass[b])
            if share >= k_p:
                first, second = min(a, b), max(a, b)
                heapq.heappush(self.heap, (-share, first, second, version[first], version[second]))

    def run(self) -> None:
        for a in range(len(self.hoods)):
            self.push_partners(a)
        while self.heap:
            _, a, b, version_a, version_b = heapq.heappop(self.heap)
            if self._current(a, version_a) and self._current(b, version_b):
                self.collapse(a, b)
                self.push_partners(a)

    def _current(self, cluster: int, version: int) -> bool:
        """Whether a heap entry's cluster still exists as it was when the entry was made."""
        return self.parent[cluster] == cluster and self.version[cluster] == version

    def collapse(self, a: int, b: int) -> None:
        """Collapse cluster b into a: a's neighbourhood becomes the union of both."""
        self.parent[b] = a
        overlap, holders, weights = self.overlap, self.holders, self.weights
        for other in overlap[b]:
            del overlap[other][b]
        overlap[b] = {}
        hood_a, hood_b = self.hoods[a], self.hoods[b]
        overlap_a = overlap[a]
        for x in hood_b:
            holders[x].discard(b)
            if x in hood_a:
                continue
            weight = weights[x]
            for other in holders[x]:
                overlap_a[other] = overlap_a.get(other, 0) + weight
                overlap[other][a] = overlap[other].get(a, 0) + weight
            hood_a.add(x)
            holders[x].add(a)
            self.mass[a] += weight
        self.hoods[b] = set()
        self.version[a] += 1

    def root(self, x: int) -> int:
        parent = self.parent
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def labels(self) -> list[int]:
        groups: dict[int, list[int]] = {}
        for i in range(len(self.hoods)):
            groups.setdefault(self.root(i), []).append(i)
        labels = [0] * len(self.hoods)
        for items in groups.values():
            first = min(items)
            for item in items:
                labels[item] = first
        return labels
