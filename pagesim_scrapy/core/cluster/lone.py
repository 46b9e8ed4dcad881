"""Giving a page the grouping left alone to the cluster it is as near as that cluster's own pages.

The near-neighbour pass leaves a page alone when too few of its near neighbours are shared:
a long list page among short ones, a page with an unusual body. The merges that follow never
take it either: relative closeness has no spread of its own to judge it by, and the merge by
overlap leaves one short page alone because one short page is contained in many. Yet such a
page is often as much part of one cluster as that cluster's pages are of each other.

So a small cluster (at most ``fragment`` pages) joins the cluster whose pages overlap it the
most, relative to how much that cluster's own pages overlap each other (the overlap
coefficient on the site's weights, as in :mod:`~pagesim_scrapy.core.cluster.overlap`), when
that relative overlap reaches ``bar``. The bar is relative, like the closeness merge: each
cluster sets its own scale. A page unlike every cluster (a site's home page, its search page)
stays alone. Every small cluster is judged against the clusters as the merges left them, so
the outcome does not depend on the order the small clusters are visited in.
"""

from __future__ import annotations

from collections.abc import Sequence

from pagesim_scrapy.core.cluster.closeness import PairSums
from pagesim_scrapy.core.cluster.graph import ItemGraph
from pagesim_scrapy.core.cluster.leader import Leader
from pagesim_scrapy.core.cluster.overlap import OverlapFunc


def attach_lone_pages(
    graph: ItemGraph,
    groups: list[int],
    leaders: Sequence[Leader],
    overlap: OverlapFunc,
    bar: float,
    sample: int,
    fragment: int = 1,
) -> list[int]:
    """``groups`` with each cluster of at most ``fragment`` pages moved into its nearest larger
    cluster where its relative overlap reaches ``bar`` (0: off).

    A larger cluster is judged on up to ``sample`` of its largest leaders; only clusters the
    small one has a graph edge to are candidates.
    """
    if not 0.0 <= bar <= 1.0:
        raise ValueError("bar must be within [0, 1]")
    if bar == 0.0:
        return list(groups)
    members = _members(graph, groups)
    small = {group for group, items in members.items() if _pages(graph, items) <= fragment}
    if not small or len(small) == len(members):
        return list(groups)
    own: dict[int, float | None] = {}
    moved: dict[int, int] = {}
    for group in sorted(small):
        pair = (overlap, leaders, sample)
        target = _nearest(graph, groups, members, small, group, own, pair, bar)
        if target is not None:
            moved[group] = target
    return [moved.get(group, group) for group in groups]


def _nearest(
    graph: ItemGraph,
    groups: list[int],
    members: dict[int, list[int]],
    small: set[int],
    group: int,
    own: dict[int, float | None],
    pair: tuple[OverlapFunc, Sequence[Leader], int],
    bar: float,
) -> int | None:
    """The larger cluster with the highest relative overlap with ``group``, if it reaches
    ``bar``; ``own`` caches each larger cluster's overlap among its own pages."""
    overlap, leaders, sample = pair
    candidates = sorted(
        {groups[j] for i in members[group] for j in graph.edges[i]} - small - {group}
    )
    best, best_ratio = None, bar
    for other in candidates:
        if other not in own:
            own[other] = _own_overlap(graph, members[other][:sample], leaders, overlap)
        scale = own[other]
        if not scale:
            continue
        sums = PairSums()
        for i in members[group]:
            for j in members[other][:sample]:
                score = overlap(leaders[i].summary, leaders[j].summary)
                sums.add(score, graph.weights[i] * graph.weights[j])
        between = sums.mean()
        if between is not None and between / scale >= best_ratio:
            best, best_ratio = other, between / scale
    return best


def _own_overlap(
    graph: ItemGraph, items: list[int], leaders: Sequence[Leader], overlap: OverlapFunc
) -> float | None:
    """The page-weighted mean overlap among a cluster's pages (an item's cohesion stands in
    for the pairs folded into it)."""
    sums = PairSums()
    for position, i in enumerate(items):
        weight = graph.weights[i]
        sums.add(graph.cohesion[i], weight * (weight - 1) / 2)
        for j in items[position + 1 :]:
            score = overlap(leaders[i].summary, leaders[j].summary)
            sums.add(score, weight * graph.weights[j])
    return sums.mean()


def _members(graph: ItemGraph, groups: list[int]) -> dict[int, list[int]]:
    """Each cluster's items, largest first."""
    members: dict[int, list[int]] = {}
    for item, group in enumerate(groups):
        members.setdefault(group, []).append(item)
    for items in members.values():
        items.sort(key=lambda item: (-graph.weights[item], item))
    return members


def _pages(graph: ItemGraph, items: list[int]) -> int:
    return sum(graph.weights[item] for item in items)
