"""Seed 004's shared-nearest-neighbour clustering (Jarvis & Patrick, 1973) over a sparse graph.

Every item's neighbourhood is itself plus its ``k`` most similar items at similarity >= t_n
(seed 004: "near neighbours" above a similarity threshold). Clusters start as single items
carrying their item's neighbourhood; two clusters are collapsed into one, whose neighbourhood
is the union of theirs, when they share at least ``k_p`` of the smaller neighbourhood (seed
004 generalises Jarvis-Patrick's k_t shared neighbours to a fraction k_p). Collapsing repeats
until nothing changes or ``max_iterations`` passes are made. Overlaps are counted in pages (an
item weighs the pages condensed into it). Only clusters sharing a neighbour are ever compared.
"""

from __future__ import annotations

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
    """Cluster index of every item (clusters numbered by their smallest item)."""
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

    for _ in range(max_iterations):
        merged_any = False
        for a in range(n):
            if parent[a] != a:
                continue
            partners: set[int] = set()
            for x in hoods[a]:
                partners |= holders[x]
            partners.discard(a)
            for b in sorted(partners):
                if parent[b] != b or parent[a] != a:
                    continue
                hood_a, hood_b = hoods[a], hoods[b]
                small, large = (hood_a, hood_b) if len(hood_a) <= len(hood_b) else (hood_b, hood_a)
                shared = sum(weights[x] for x in small if x in large)
                if shared < k_p * min(mass[a], mass[b]):
                    continue
                # collapse b into a
                parent[b] = a
                for x in hood_b:
                    holders[x].discard(b)
                    if x not in hood_a:
                        hood_a.add(x)
                        holders[x].add(a)
                        mass[a] += weights[x]
                hoods[b] = set()
                merged_any = True
        if not merged_any:
            break

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
