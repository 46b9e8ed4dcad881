"""Merging the fragments of one page type that differ by what some of its pages add.

A large page type is often split by its own optional parts: forum topics with and without
replies, posts with and without a sidebar or a long body. Under the site-weighted similarity
(a weighted Jaccard) a short page and a long page of one type score low, because the long
page's extra parts count against the pair, so the near-neighbour pass and the relative
closeness both keep such fragments apart. What still joins them is that the smaller page is
*contained* in the larger one: the weight the two share over the weight of the smaller (the
overlap coefficient), on the site's weights, so the chrome still weighs nothing. Two distinct
types share their chrome and little else, and stay apart.

Clusters are merged, most overlapping pair first, while the page-weighted mean overlap between
their largest leaders reaches ``bar``. A cluster of one page is never merged here (one short
page is contained in many): it is left to the relative closeness.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pagesim_scrapy.core.cluster.closeness import ClosenessMerges, PairSums
from pagesim_scrapy.core.cluster.graph import ItemGraph
from pagesim_scrapy.core.cluster.leader import Leader
from pagesim_scrapy.core.summary import PageSummary

#: the overlap coefficient of two pages: shared weight over the smaller page's weight
OverlapFunc = Callable[[PageSummary, PageSummary], float]


class _MeanOverlap(ClosenessMerges):
    """The merge loop of relative closeness, judged on the mean overlap between clusters."""

    def closeness(self, a: int, b: int) -> float | None:
        return self.cross[a][b].mean()


def merge_by_overlap(
    graph: ItemGraph,
    groups: list[int],
    leaders: Sequence[Leader],
    overlap: OverlapFunc,
    bar: float,
    sample: int,
) -> list[int]:
    """``groups`` with clusters merged while their mean overlap reaches ``bar`` (0: off).

    Each pair of clusters with an edge between them is judged on up to ``sample`` of the
    largest leaders of each; a merged cluster keeps the smaller id.
    """
    if not 0.0 <= bar <= 1.0:
        raise ValueError("bar must be within [0, 1]")
    if bar == 0.0:
        return list(groups)
    members = _largest_members(graph, groups, sample)
    within = {group: PairSums() for group in members}
    cross: dict[int, dict[int, PairSums]] = {group: {} for group in members}
    for a, b in _adjacent(graph, groups):
        if _pages(graph, members[a]) < 2 or _pages(graph, members[b]) < 2:
            continue
        sums = cross[a][b] = cross[b][a] = PairSums()
        for i in members[a]:
            for j in members[b]:
                score = overlap(leaders[i].summary, leaders[j].summary)
                sums.add(score, graph.weights[i] * graph.weights[j])
    merged_into = _MeanOverlap(within, cross, bar).run()

    def final(group: int) -> int:
        while group in merged_into:
            group = merged_into[group]
        return group

    return [final(group) for group in groups]


def _largest_members(graph: ItemGraph, groups: list[int], sample: int) -> dict[int, list[int]]:
    members: dict[int, list[int]] = {}
    for item, group in enumerate(groups):
        members.setdefault(group, []).append(item)
    for items in members.values():
        items.sort(key=lambda item: (-graph.weights[item], item))
        del items[sample:]
    return members


def _pages(graph: ItemGraph, items: list[int]) -> int:
    return sum(graph.weights[item] for item in items)


def _adjacent(graph: ItemGraph, groups: list[int]) -> list[tuple[int, int]]:
    """Pairs of clusters (a < b) with at least one edge between them."""
    return sorted(
        {
            (min(groups[i], groups[j]), max(groups[i], groups[j]))
            for i, edges in enumerate(graph.edges)
            for j in edges
            if groups[i] != groups[j]
        }
    )
