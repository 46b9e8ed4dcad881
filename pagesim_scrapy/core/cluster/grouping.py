"""Grouping condensed leaders into page types: the step batch ``cluster`` and crawl-time
discovery share, so that both give the same types on the same pages.

Leaders (each standing for the near-duplicate pages folded into it) are compared with their
best LSH candidates, grouped by seed 003's agglomerative or seed 004's shared-nearest-neighbour
procedure, and the groups merged by relative closeness where the method has it on, then by
overlap (a type's fragments that differ by what some of its pages add; see
:mod:`~pagesim_scrapy.core.cluster.overlap`), then the pages left alone given to the cluster
they are as near as its own pages (:mod:`~pagesim_scrapy.core.cluster.lone`): all part of the
same merge step.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pagesim_scrapy.core.cluster.agglomerative import agglomerative
from pagesim_scrapy.core.cluster.closeness import merge_by_closeness
from pagesim_scrapy.core.cluster.graph import ItemGraph, ProgressFunc, leader_graph
from pagesim_scrapy.core.cluster.leader import Leader, SimilarityFunc
from pagesim_scrapy.core.cluster.lone import attach_lone_pages
from pagesim_scrapy.core.cluster.overlap import OverlapFunc, merge_by_overlap
from pagesim_scrapy.core.cluster.sketch import SketchIndex
from pagesim_scrapy.core.cluster.snn import shared_nearest_neighbours

#: a step over the clusters that judges them on the pages' overlap
OverlapStep = Callable[[ItemGraph, list[int], Sequence[Leader], OverlapFunc, float, int], list[int]]

#: Leaders per cluster (the largest) compared exactly with each other and with those of every
#: cluster it has an edge to, before clusters are merged by closeness: the LSH candidates alone
#: are the most alike pairs, which would make two clusters look closer than they are. Larger
#: samples gave the same clusters (docs/benchmarks.md); this one bounds the comparisons per
#: pair of neighbouring clusters to its square.
CLOSENESS_SAMPLE = 8


@dataclass(frozen=True)
class GroupingParams:
    """What :func:`group_leaders` needs of the clustering options (thresholds resolved)."""

    algorithm: str  # "snn", "agglomerative" or "online" (no grouping)
    k: int
    k_p: float
    t_n: float
    q_a: float
    q_c: float
    closeness: float  # 0: off
    max_neighbors: int
    overlap: float = 0.0  # 0: off (see :mod:`~pagesim_scrapy.core.cluster.overlap`)
    lone: float = 0.0  # 0: off (see :mod:`~pagesim_scrapy.core.cluster.lone`)


@dataclass
class Grouping:
    graph: ItemGraph
    groups: list[int]  # a group id per leader, in the order given
    merged_by_closeness: int  # merges of the whole step: by closeness, then by overlap
    seconds_graph: float  # of the whole step, comparing the leaders


def group_leaders(
    leaders: Sequence[Leader],
    similarity: SimilarityFunc,
    index: SketchIndex,
    params: GroupingParams,
    progress: ProgressFunc | None = None,
) -> Grouping:
    """The leaders' similarity graph and a group per leader (see the module docstring)."""
    started = time.perf_counter()
    graph = leader_graph(
        leaders, similarity, index, max_neighbors=params.max_neighbors, progress=progress
    )
    seconds = time.perf_counter() - started
    if params.algorithm == "online":
        return Grouping(graph, list(range(len(leaders))), 0, seconds)
    if params.algorithm == "agglomerative":
        groups = agglomerative(graph, params.q_a, params.q_c)
    else:
        groups = shared_nearest_neighbours(graph, params.k, params.t_n, params.k_p)
    merged = 0
    if params.closeness > 0.0:
        compare_for_closeness(graph, groups, leaders, similarity)
        before = len(set(groups))
        groups = merge_by_closeness(graph, groups, params.closeness)
        groups = _by_overlap(merge_by_overlap, graph, groups, leaders, similarity, params.overlap)
        groups = _by_overlap(attach_lone_pages, graph, groups, leaders, similarity, params.lone)
        merged = before - len(set(groups))
    return Grouping(graph, groups, merged, seconds)


def compare_for_closeness(
    graph: ItemGraph, groups: list[int], leaders: Sequence[Leader], similarity: SimilarityFunc
) -> None:
    """Add the missing edges among each cluster's largest leaders, and between those of
    clusters with an edge between them (at most CLOSENESS_SAMPLE² per pair of clusters)."""
    members: dict[int, list[int]] = {}
    for item, group in enumerate(groups):
        members.setdefault(group, []).append(item)
    for items in members.values():
        items.sort(key=lambda item: (-graph.weights[item], item))
        del items[CLOSENESS_SAMPLE:]
    adjacent = {
        (min(groups[i], groups[j]), max(groups[i], groups[j]))
        for i, edges in enumerate(graph.edges)
        for j in edges
        if groups[i] != groups[j]
    }
    pairs = [(items, items) for items in members.values()]
    pairs += [(members[a], members[b]) for a, b in sorted(adjacent)]
    for first, second in pairs:
        for i in first:
            for j in second:
                if i != j and graph.get(i, j) is None:
                    graph.set(i, j, similarity(leaders[i].summary, leaders[j].summary))


def _by_overlap(
    step: OverlapStep,
    graph: ItemGraph,
    groups: list[int],
    leaders: Sequence[Leader],
    similarity: SimilarityFunc,
    bar: float,
) -> list[int]:
    """The groups after ``step`` (the merge by overlap, or the lone pages' attachment) where
    the similarity offers an overlap (the batch site-weighted similarity does) and ``bar`` is
    on."""
    overlap = getattr(similarity, "overlap", None)
    if overlap is None or bar <= 0.0:
        return groups
    return step(graph, groups, leaders, overlap, bar, CLOSENESS_SAMPLE)
