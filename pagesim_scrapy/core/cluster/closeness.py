"""Merging clusters that are as alike to each other as their own pages are (relative closeness).

Shared nearest neighbours with one near-neighbour threshold splits a page type whose pages are
only loosely alike (a wiki's free-form articles, templates and user pages) into a large cluster
and a few fragments: a fragment's pages are below the threshold with too many of the type's
pages. An absolute threshold cannot tell such a fragment from a distinct type, because each site,
and each type of a site, has its own scale: two of a wiki's articles are about as alike as an
article and a template are on a blog. What a site's own pages do tell is how alike the pages
*inside* each cluster are.

So, after clustering, two clusters are merged when the mean similarity *between* their pages
reaches ``ratio`` times the mean similarity *within* the looser of them: the relative closeness
of Chameleon (Karypis, Han and Kumar, IEEE Computer 32(8), 1999), with the bar set by the
clusters themselves rather than by a number fitted to one site. Merging repeats, most alike pair
first, until no pair is close enough. A cluster of one page has no similarity within; the bar
is then the other cluster's. Two clusters of one page each are never merged here.

Means are page-weighted over the pairs the graph compared (an item stands for the pages folded
into it; among those, the item's cohesion stands in for their mutual similarity).
"""

from __future__ import annotations

import heapq

from pagesim_scrapy.core.cluster.graph import ItemGraph


class PairSums:
    """A running similarity total over a number of page pairs."""

    __slots__ = ("pairs", "total")

    def __init__(self) -> None:
        self.total = 0.0
        self.pairs = 0.0

    def add(self, similarity: float, pairs: float) -> None:
        self.total += similarity * pairs
        self.pairs += pairs

    def absorb(self, other: PairSums) -> None:
        self.total += other.total
        self.pairs += other.pairs

    def mean(self) -> float | None:
        return self.total / self.pairs if self.pairs > 0 else None


def merge_by_closeness(graph: ItemGraph, groups: list[int], ratio: float) -> list[int]:
    """``groups`` (a cluster id per item) with clusters merged by relative closeness.

    ``ratio`` 0 merges nothing. A merged cluster keeps the smaller of the two ids.
    """
    if not 0.0 <= ratio <= 1.0:
        raise ValueError("ratio must be within [0, 1]")
    if len(groups) != len(graph):
        raise ValueError("one group per item is needed")
    if ratio == 0.0:
        return list(groups)
    within, cross = _cluster_sums(graph, groups)
    merged_into = ClosenessMerges(within, cross, ratio).run()

    def final(group: int) -> int:
        while group in merged_into:
            group = merged_into[group]
        return group

    return [final(group) for group in groups]


def cluster_means(
    graph: ItemGraph, groups: list[int]
) -> tuple[dict[int, float | None], dict[tuple[int, int], float]]:
    """The page-weighted mean similarity inside each cluster (None for a cluster of one page),
    and between each pair of clusters the graph has an edge between (keys ``(a, b)``, a < b)."""
    within, cross = _cluster_sums(graph, groups)
    between = {}
    for a, neighbours in cross.items():
        for b, sums in neighbours.items():
            mean = sums.mean()
            if a < b and mean is not None:
                between[a, b] = mean
    return {group: sums.mean() for group, sums in within.items()}, between


def _cluster_sums(
    graph: ItemGraph, groups: list[int]
) -> tuple[dict[int, PairSums], dict[int, dict[int, PairSums]]]:
    """Similarity sums inside each cluster and between each pair of clusters."""
    weights = graph.weights
    within: dict[int, PairSums] = {}
    cross: dict[int, dict[int, PairSums]] = {}
    for item, group in enumerate(groups):
        sums = within.setdefault(group, PairSums())
        cross.setdefault(group, {})
        weight = weights[item]
        sums.add(graph.cohesion[item], weight * (weight - 1) / 2)
    for i, edges in enumerate(graph.edges):
        group_i = groups[i]
        for j, score in edges.items():
            if j <= i:
                continue
            group_j = groups[j]
            pairs = weights[i] * weights[j]
            if group_i == group_j:
                within[group_i].add(score, pairs)
                continue
            between = cross[group_i].get(group_j)
            if between is None:  # one total per pair of clusters, seen from both sides
                between = cross[group_i][group_j] = cross[group_j][group_i] = PairSums()
            between.add(score, pairs)
    return within, cross


class ClosenessMerges:
    """Merges of one run, closest pair first, until no pair reaches ``ratio``."""

    def __init__(
        self, within: dict[int, PairSums], cross: dict[int, dict[int, PairSums]], ratio: float
    ) -> None:
        self.within = within
        self.cross = cross
        self.ratio = ratio
        self.version = dict.fromkeys(within, 0)
        self.heap: list[tuple[float, int, int, int, int]] = []

    def closeness(self, a: int, b: int) -> float | None:
        between = self.cross[a][b].mean()
        own = [m for m in (self.within[a].mean(), self.within[b].mean()) if m is not None]
        if between is None or not own:
            return None
        bar = min(own)
        return between / bar if bar > 0 else None

    def push(self, a: int, b: int) -> None:
        a, b = min(a, b), max(a, b)
        score = self.closeness(a, b)
        if score is not None and score >= self.ratio:
            heapq.heappush(self.heap, (-score, a, b, self.version[a], self.version[b]))

    def run(self) -> dict[int, int]:
        """Which cluster each merged cluster joined."""
        for a, neighbours in self.cross.items():
            for b in neighbours:
                if a < b:
                    self.push(a, b)
        merged_into: dict[int, int] = {}
        version = self.version
        while self.heap:
            _, a, b, version_a, version_b = heapq.heappop(self.heap)
            if version.get(a) != version_a or version.get(b) != version_b:
                continue  # one of the two has merged since: its closeness was pushed again
            self.merge(a, b)
            merged_into[b] = a
        return merged_into

    def merge(self, a: int, b: int) -> None:
        """``b`` joins ``a``: its pairs, and the pairs between the two, are now ``a``'s own."""
        within, cross = self.within, self.cross
        within[a].absorb(within.pop(b))
        within[a].absorb(cross[a].pop(b))
        for c, sums in cross.pop(b).items():
            if c == a:
                continue
            del cross[c][b]
            if c in cross[a]:
                cross[a][c].absorb(sums)
            else:
                cross[a][c] = cross[c][a] = sums
        del self.version[b]
        self.version[a] += 1
        for c in cross[a]:
            self.push(a, c)
