"""Seed 003's agglomerative page clustering over a sparse weighted similarity graph.

Start with one group per item; repeatedly merge the pair of groups whose union has the highest
auto-similarity s(A ∪ B) -- the mean similarity over all pairs of pages in the union -- provided
s(A ∪ B) > Q_a and every pair of pages inside the union is more similar than Q_c. The paper
stops as soon as its best pair fails the Q_c test; here such a pair is skipped and the next best
is tried, so one odd page cannot freeze the whole procedure. A pair of groups with any pair of
items lacking an edge (the sketches say they are far apart) is never merged.

An item may stand for several condensed pages, known only by their similarity to the item's
leader. The Q_c test must hold for every pair of *pages*, so it uses a lower bound: with
d = 1 - s behaving like a distance, two pages a and b led by la and lb have
s(a, b) >= s(la, lb) - d(a, la) - d(b, lb). The auto-similarity (a mean) uses the leaders'
similarity as the estimate for all their pages' pairs.

A best-first heap with lazy invalidation finds the best pair; merging two groups adds up their
cross sums, so every merge costs the number of the two groups' neighbours, not n².
"""

from __future__ import annotations

import heapq
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pagesim_scrapy.core.cluster.graph import ItemGraph


def _pairs(count: int) -> int:
    return count * (count - 1) // 2


def agglomerative(graph: ItemGraph, q_a: float, q_c: float) -> list[int]:
    """Group index of every item (groups numbered by their smallest item)."""
    state = _Agglomeration(graph, q_a, q_c)
    state.run()
    return state.labels()


class _Agglomeration:
    """The groups of one run: their sums, their cross-group edges and a heap of candidate merges."""

    def __init__(self, graph: ItemGraph, q_a: float, q_c: float) -> None:
        n = len(graph)
        self.q_a = q_a
        self.q_c = q_c
        self.weight = list(graph.weights)
        # pair_sum[g]: sum of similarities over the page pairs inside group g.
        self.pair_sum = [_pairs(w) * c for w, c in zip(graph.weights, graph.cohesion)]
        # spread[i]: how far an item's pages may be from its leader (0 for a single page)
        spread = [1.0 - low if w > 1 else 0.0 for w, low in zip(graph.weights, graph.internal_min)]
        # lowest[g]: lower bound of the similarity of any two pages inside group g
        self.lowest = [
            1.0 if w == 1 else (1.0 - spread[i] if w == 2 else 1.0 - 2 * spread[i])
            for i, w in enumerate(graph.weights)
        ]
        self.n_items = [1] * n
        self.members: list[list[int]] = [[i] for i in range(n)]
        self.alive = [True] * n
        self.version = [0] * n
        # cross[g][h] = [weighted sum of similarities, lowest similarity, item pairs with an edge]
        self.cross: list[dict[int, list[float]]] = [{} for _ in range(n)]
        for i, edges in enumerate(graph.edges):
            for j, score in edges.items():
                bound = score - spread[i] - spread[j]
                self.cross[i][j] = [graph.weights[i] * graph.weights[j] * score, bound, 1.0]
        self.heap: list[tuple[float, int, int, int, int]] = []

    def score_of(self, g: int, h: int) -> float | None:
        total, low, count = self.cross[g][h]
        if count < self.n_items[g] * self.n_items[h]:
            return None
        if min(low, self.lowest[g], self.lowest[h]) <= self.q_c:
            return None
        pair_sum = self.pair_sum
        auto = (pair_sum[g] + pair_sum[h] + total) / _pairs(self.weight[g] + self.weight[h])
        return auto if auto > self.q_a else None

    def push(self, g: int, h: int) -> None:
        auto = self.score_of(g, h)
        if auto is not None:
            a, b = (g, h) if g < h else (h, g)
            heapq.heappush(self.heap, (-auto, a, b, self.version[a], self.version[b]))

    def run(self) -> None:
        for g in range(len(self.cross)):
            for h in self.cross[g]:
                if g < h:
                    self.push(g, h)
        alive, version = self.alive, self.version
        while self.heap:
            _, g, h, vg, vh = heapq.heappop(self.heap)
            if not (alive[g] and alive[h]) or version[g] != vg or version[h] != vh:
                continue
            self.merge(g, h)

    def merge(self, g: int, h: int) -> None:
        """Merge group ``h`` into ``g`` and push ``g``'s new candidate merges."""
        cross = self.cross
        total, low, _ = cross[g].pop(h)
        cross[h].pop(g)
        self.pair_sum[g] += self.pair_sum[h] + total
        self.lowest[g] = min(self.lowest[g], self.lowest[h], low)
        self.weight[g] += self.weight[h]
        self.n_items[g] += self.n_items[h]
        self.members[g].extend(self.members[h])
        self.members[h] = []
        self.alive[h] = False
        self.version[g] += 1
        for k, (t2, l2, c2) in cross[h].items():
            cross[k].pop(h)
            mine = cross[g].get(k)
            if mine is None:
                merged = [t2, l2, c2]
            else:
                merged = [mine[0] + t2, min(mine[1], l2), mine[2] + c2]
            cross[g][k] = merged
            cross[k][g] = list(merged)
        cross[h] = {}
        for k in cross[g]:
            self.push(g, k)

    def labels(self) -> list[int]:
        labels = [0] * len(self.alive)
        for g, alive in enumerate(self.alive):
            if alive:
                first = min(self.members[g])
                for item in self.members[g]:
                    labels[item] = first
        return labels
