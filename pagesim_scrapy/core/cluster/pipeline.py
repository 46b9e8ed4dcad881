"""Clustering many pages without comparing all pairs: condense, compare candidates, cluster.

1. **Condense** (one pass, streaming): every page is sketched (MinHash of tag-path shingles)
   and joins the most similar *leader* among its best LSH candidates when the exact similarity
   reaches ``condense``; otherwise it becomes a leader. Near-duplicates fold into weighted items;
   only leaders keep their summary, so memory grows with the number of distinct layouts, not
   with the number of pages.
2. **Compare**: each leader is compared exactly with its best ``max_neighbors`` LSH candidates.
3. **Cluster** the weighted leader graph with seed 003's agglomerative procedure or seed 004's
   shared-nearest-neighbour procedure; ``online`` skips 2-3 and keeps the leaders of a pass run
   at the clustering threshold (the crawl-time procedure).

Every cluster gets a representative page: the leader most similar, weighted by pages, to the
rest of its cluster (a medoid), which is the template the cluster proposes.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pagesim_scrapy.core.cluster.graph import ItemGraph, ProgressFunc
from pagesim_scrapy.core.cluster.grouping import CLOSENESS_SAMPLE as CLOSENESS_SAMPLE
from pagesim_scrapy.core.cluster.grouping import GroupingParams, group_leaders
from pagesim_scrapy.core.cluster.leader import Leader, LeaderClustering, SimilarityFunc
from pagesim_scrapy.core.cluster.persist import (
    Representative,
    templates_snippet,
    write_representatives,
)
from pagesim_scrapy.core.cluster.sitesim import BatchSiteSimilarity
from pagesim_scrapy.core.cluster.sitesim import site_document_model as site_document_model
from pagesim_scrapy.core.cluster.sketch import Sketcher
from pagesim_scrapy.core.similarity import get_measure
from pagesim_scrapy.core.site import SiteModel
from pagesim_scrapy.core.sitepolicy import SITE_METHOD
from pagesim_scrapy.core.summary import DEFAULT_OPTIONS, PageSummary

logger = logging.getLogger(__name__)

ALGORITHMS: tuple[str, ...] = ("agglomerative", "snn", "online")

#: Defaults chosen by measurement (``python benchmarks/bench_cluster.py --sweep``): seed 004's
#: structure + style measure with its shared-nearest-neighbour procedure was the pairing that
#: recovered both the Stack Overflow page types and the recipe sites over a range of
#: near-neighbour thresholds (the default sits in the middle).
#: lcs alone recovers the types but merges sites that share one publisher's templates.
DEFAULT_METHOD = "combined"
DEFAULT_ALGORITHM = "snn"

#: Thresholds per similarity measure: every measure has its own scale (two unrelated pages score
#: far lower under lcs than under layers), so one set of numbers cannot serve all of them.
#: Measured on ../shared/data (stackoverflow_page_types, recipe_scrapers_testdata).
#: ``site`` is the site-weighted similarity of issue 10 (:mod:`pagesim_scrapy.core.site`): the
#: pages given are the site, so its chrome weighs nothing. Its near-neighbour threshold was the
#: choice of four of five leave-one-site-out folds on ../shared/data/site_page_types
#: (``python benchmarks/bench_cluster.py --sites``).
METHOD_THRESHOLDS: dict[str, dict[str, float]] = {
    "combined": {"q_a": 0.6, "q_c": 0.55, "t_n": 0.65, "online": 0.6, "condense": 0.9},
    "lcs": {"q_a": 0.5, "q_c": 0.4, "t_n": 0.45, "online": 0.45, "condense": 0.9},
    "site": {"q_a": 0.4, "q_c": 0.2, "t_n": 0.35, "online": 0.55, "condense": 0.95},
}

#: Batch: clusters are merged when the pages of the two are, on average, at least this share as
#: alike as the pages within the looser of them (:mod:`~pagesim_scrapy.core.cluster.closeness`).
#: With ``site`` the near-neighbour pass leaves a loosely alike type (a wiki's articles,
#: templates and user pages) in fragments. The value had the best mean ARI over the
#: distinct-template sites of the shared data; a lower one merges the wiki's templates into its
#: articles. ``python benchmarks/site_cluster.py`` prints the leave-one-site-out choices. Other
#: measures were not measured with it: off (0).
CLOSENESS: dict[str, float] = {SITE_METHOD: 0.7}

#: Batch and discovery: after the merge by closeness (and only where it is on), clusters are
#: merged when the smaller pages of the two are, on the site's weights, this much contained in
#: the larger ones (:mod:`~pagesim_scrapy.core.cluster.overlap`): a large type split by what
#: some of its pages add (replies, a sidebar, a long body). Chosen leave-one-site-out over the
#: visible sites; a lower value merges the wiki's templates into its articles
#: (``python benchmarks/site_cluster.py --overlap``; docs/benchmarks.md). Other measures:
#: off (0).
OVERLAP: dict[str, float] = {SITE_METHOD: 0.7}

#: Batch and discovery: after both merges (and only where closeness is on), a page left alone
#: joins the cluster whose pages overlap it at least this share as much as they overlap each
#: other (:mod:`~pagesim_scrapy.core.cluster.lone`). Chosen leave-one-site-out over the
#: visible sites (``python benchmarks/site_cluster.py --lone``; docs/benchmarks.md).
#: Other measures: off (0).
LONE: dict[str, float] = {SITE_METHOD: 0.4}

#: For a measure not in METHOD_THRESHOLDS: thresholds placed between the similarity of unrelated
#: pages under the measure (classify.BACKGROUND_SIMILARITY) and 1.0.
_RELATIVE = {"q_a": 0.45, "q_c": 0.3, "t_n": 0.4, "online": 0.35, "condense": 0.8}


def method_thresholds(method: str) -> dict[str, float]:
    """Default thresholds for ``method`` (measured where known, else derived from background)."""
    known = METHOD_THRESHOLDS.get(method)
    if known is not None:
        return dict(known)
    from pagesim_scrapy.core.classify import BACKGROUND_SIMILARITY

    background = BACKGROUND_SIMILARITY.get(method, 0.2)
    return {name: background + share * (1.0 - background) for name, share in _RELATIVE.items()}


#: Similarity to its best leader that makes a page one more variant of that leader's layout
#: (see ``ClusterOptions.layout_leaders``): under ``condense``, so that a layout's variants count,
#: and high enough that no page of the site benchmarks is folded by the bound (their clusters
#: are those without it; docs/benchmarks.md). Other methods were not measured: no bound.
LAYOUT_BAR: dict[str, float] = {SITE_METHOD: 0.9}

#: Keys an LSH bucket of the batch clustering holds at most (see ``SketchIndex``). Above the
#: leaders one layout of a small site makes, so those sites cluster as without a bound.
BUCKET_CAP = 128


@dataclass(frozen=True)
class ClusterOptions:
    """Parameters of :func:`cluster_pages`; None takes the method's default threshold."""

    algorithm: str = DEFAULT_ALGORITHM
    method: str = DEFAULT_METHOD
    method_params: Mapping[str, Any] = field(default_factory=dict)
    q_a: float | None = None  # seed 003: auto-similarity a merged group must exceed
    q_c: float | None = None  # seed 003: similarity every pair inside a group must exceed
    k: int = 30  # seed 004: near neighbours per item
    t_n: float | None = None  # seed 004: similarity to count as a near neighbour
    k_p: float = 0.85  # seed 004: shared share of the smaller neighbourhood to collapse
    threshold: float | None = None  # online: similarity to join a cluster
    condense: float | None = None  # batch: similarity to fold a page into a leader
    closeness: float | None = None  # batch: merge clusters this close relative to their own (0 off)
    overlap: float | None = None  # batch: merge clusters whose pages overlap this much (0 off)
    lone: float | None = None  # batch: attach a lone page this near a cluster, relatively (0 off)
    lsh_threshold: float = 0.3  # Jaccard of shingle sets the LSH index aims to catch
    max_compare: int = 5  # exact comparisons per page while condensing
    max_neighbors: int = 50  # exact comparisons per leader for the leader graph
    #: keys an LSH bucket holds at most (None: no bound): what a page's query meets stops
    #: growing with the pages of its layout
    bucket_cap: int | None = BUCKET_CAP
    #: snn: leaders one layout keeps at most while condensing (None: half of ``k``; 0: no bound)
    layout_leaders: int | None = None
    #: similarity to a leader that puts a page in that leader's layout (None: the method's)
    layout_bar: float | None = None
    num_perm: int = 128
    shingle_size: int = 2
    shingle_relation: str = "rpsa"

    def __post_init__(self) -> None:
        if self.algorithm not in ALGORITHMS:
            raise ValueError(
                f"unknown algorithm {self.algorithm!r}; choose from {', '.join(ALGORITHMS)}"
            )
        if self.method == SITE_METHOD:
            if self.method_params:
                raise ValueError("method 'site' takes no parameters")
        else:
            get_measure(self.method).check_params(self.method_params)
        for name in (
            "q_a",
            "q_c",
            "t_n",
            "threshold",
            "condense",
            "k_p",
            "closeness",
            "overlap",
            "lone",
            "layout_bar",
        ):
            value = getattr(self, name)
            if value is not None and not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be within [0, 1]")
        if not 0.0 < self.lsh_threshold < 1.0:
            raise ValueError("lsh_threshold must be within (0, 1)")
        for name in ("k", "max_compare", "max_neighbors"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1")
        if self.bucket_cap is not None and self.bucket_cap < 1:
            raise ValueError("bucket_cap must be >= 1 or None")
        if self.layout_leaders is not None and self.layout_leaders < 0:
            raise ValueError("layout_leaders must be >= 0 or None")

    def layout_bound(self) -> int | None:
        """Leaders per layout for the condensing pass (None: unbounded).

        Half of ``k`` by default: a layout's own leaders then fill at most half of a leader's
        near neighbours, so the other half can reach the other layouts of its page type.
        Only the near-neighbour procedure counts neighbours per leader.
        """
        if self.algorithm != "snn" or self.layout_leaders == 0:
            return None
        if self.layout_similarity() is None:
            return None
        return max(1, self.k // 2) if self.layout_leaders is None else self.layout_leaders

    def resolved(self) -> dict[str, float]:
        """The thresholds in force: the given ones, else the method's defaults."""
        base = method_thresholds(self.method)
        out = {
            "q_a": base["q_a"] if self.q_a is None else self.q_a,
            "q_c": base["q_c"] if self.q_c is None else self.q_c,
            "t_n": base["t_n"] if self.t_n is None else self.t_n,
            "threshold": base["online"] if self.threshold is None else self.threshold,
            "condense": base["condense"] if self.condense is None else self.condense,
        }
        # Folding pages that the clustering itself would keep apart would lose them for good.
        floor = {"agglomerative": out["q_a"], "snn": out["t_n"], "online": out["threshold"]}
        out["condense"] = max(out["condense"], floor[self.algorithm])
        if self.algorithm != "online":
            default = CLOSENESS.get(self.method, 0.0)
            out["closeness"] = default if self.closeness is None else self.closeness
            default = OVERLAP.get(self.method, 0.0)
            out["overlap"] = default if self.overlap is None else self.overlap
            default = LONE.get(self.method, 0.0)
            out["lone"] = default if self.lone is None else self.lone
        return out

    def layout_similarity(self) -> float | None:
        """The similarity to a leader that puts a page in that leader's layout (None: the
        method has none measured, and its layouts are not bounded)."""
        return LAYOUT_BAR.get(self.method) if self.layout_bar is None else self.layout_bar

    def grouping_params(self) -> GroupingParams:
        """The thresholds of the grouping step (shared with crawl-time discovery)."""
        resolved = self.resolved()
        return GroupingParams(
            algorithm=self.algorithm,
            k=self.k,
            k_p=self.k_p,
            t_n=resolved["t_n"],
            q_a=resolved["q_a"],
            q_c=resolved["q_c"],
            closeness=resolved.get("closeness", 0.0),
            max_neighbors=self.max_neighbors,
            overlap=resolved.get("overlap", 0.0),
            lone=resolved.get("lone", 0.0),
        )

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {"algorithm": self.algorithm, "method": self.method}
        if self.method_params:
            out["method_params"] = dict(self.method_params)
        out.update({name: round(value, 4) for name, value in self.resolved().items()})
        if self.algorithm == "snn":
            out.update(k=self.k, k_p=self.k_p)
        return out


def measure_function(method: str, params: Mapping[str, Any] | None = None) -> SimilarityFunc:
    """A two-argument similarity with the parameters checked once (the fast path)."""
    if method == SITE_METHOD:
        raise ValueError("method 'site' compares pages of one batch: use cluster_pages")
    measure = get_measure(method)
    full = measure.check_params(dict(params or {}))
    return functools.partial(measure.func, **full)


@dataclass
class Cluster:
    label: str  # "cluster-1" is the largest
    size: int  # pages
    representative: int  # page index of the representative (a leader)
    summary: PageSummary  # the representative's summary
    leaders: list[int]  # indexes into Clustering.leaders
    cohesion: float  # mean similarity of the cluster's pages to the representative (approx.)


@dataclass
class LeaderInfo:
    page: int  # page index of the leader
    weight: int
    cluster: int  # index into Clustering.clusters
    summary: PageSummary


@dataclass
class Clustering:
    """The outcome: one cluster per page, the clusters with representatives, how it went."""

    assignments: list[int]  # cluster index of every page, in input order
    scores: list[float]  # each page's similarity to its leader
    sources: list[str | None]
    clusters: list[Cluster]
    leaders: list[LeaderInfo]
    graph: ItemGraph  # similarities among leaders (edges only where compared)
    options: ClusterOptions
    stats: dict[str, Any]
    similarity: SimilarityFunc | None = None  # the measure the pages were compared with

    def labels(self) -> list[str]:
        """The cluster label of every page, in input order."""
        names = [cluster.label for cluster in self.clusters]
        return [names[c] for c in self.assignments]

    def members(self, cluster: int) -> list[int]:
        """Page indexes of one cluster, in input order."""
        return [page for page, c in enumerate(self.assignments) if c == cluster]

    def representatives(self, examples: int = 3) -> list[Representative]:
        """Each cluster's representative and the sources of a few more of its pages.

        The extra examples are the cluster's other leaders, largest first (so they show the
        cluster's variety), then its other pages in input order.
        """
        by_cluster: dict[int, list[int]] = {}
        for page, c in enumerate(self.assignments):
            members = by_cluster.setdefault(c, [])
            if len(members) < examples:
                members.append(page)
        out = []
        for number, cluster in enumerate(self.clusters):
            leaders = sorted(
                (self.leaders[i] for i in cluster.leaders), key=lambda info: -info.weight
            )
            pages = [cluster.representative]
            pages += [info.page for info in leaders] + by_cluster.get(number, [])
            sources: list[str] = []
            for page in pages:
                source = self.sources[page]
                if source and source not in sources:
                    sources.append(source)
            out.append(
                Representative(
                    label=cluster.label,
                    size=cluster.size,
                    summary=cluster.summary,
                    source=self.sources[cluster.representative],
                    title=cluster.summary.title,
                    examples=sources[:examples],
                )
            )
        return out

    def settings(self) -> dict[str, Any]:
        """What a later :class:`OnlineDiscovery` needs to continue with these clusters."""
        resolved = self.options.resolved()
        online = (
            resolved["threshold"]
            if self.options.algorithm == "online"
            else method_thresholds(self.options.method)["online"]
        )
        method = self.options.method
        if method == SITE_METHOD:
            online = method_thresholds(method)["online"]  # crawl-time discovery's own
        return {
            "method": method,
            "method_params": dict(self.options.method_params),
            "threshold": online,
            "clustering": self.options.describe(),
        }

    def save(
        self,
        path: str | Path,
        *,
        html: Mapping[int, str] | None = None,
        examples: int = 3,
    ) -> None:
        """Write the representatives file (``html``: page index -> HTML to store with them)."""
        reps = self.representatives(examples)
        if html:
            for rep, cluster in zip(reps, self.clusters):
                rep.html = html.get(cluster.representative)
        options = self.clusters[0].summary.options if self.clusters else DEFAULT_OPTIONS
        write_representatives(path, reps, options=options, settings=self.settings())

    def templates_snippet(self, examples: int = 3) -> str:
        """A ready ``PAGESIM_TEMPLATES = {...}`` from the clusters' pages."""
        return templates_snippet(self.representatives(examples), examples)


class _Progress:
    """Calls the user's progress function at most every ``interval`` seconds per stage."""

    def __init__(self, func: ProgressFunc | None, interval: float = 0.5) -> None:
        self.func = func
        self.interval = interval
        self.last: dict[str, float] = {}

    def __call__(self, stage: str, done: int, total: int | None) -> None:
        if self.func is None:
            return
        now = time.monotonic()
        finished = total is not None and done >= total
        if finished or now - self.last.get(stage, 0.0) >= self.interval:
            self.last[stage] = now
            self.func(stage, done, total)


def condensing_pass(
    options: ClusterOptions, similarity: SimilarityFunc, sketcher: Sketcher
) -> LeaderClustering:
    """The leaders of the condensing pass (step 1), empty: batch ``cluster`` adds its pages,
    crawl-time discovery's final regrouping its leaders, so both group the same items."""
    thresholds = options.resolved()
    online = options.algorithm == "online"
    return LeaderClustering(
        similarity,
        thresholds["threshold"] if online else thresholds["condense"],
        sketcher=sketcher,
        lsh_threshold=options.lsh_threshold,
        max_compare=options.max_compare,
        early_accept=None if online else thresholds["condense"],
        bucket_cap=options.bucket_cap,
        layout_leaders=options.layout_bound(),
        layout_bar=_or_one(options.layout_similarity()),
    )


def cluster_pages(
    pages: Iterable[PageSummary],
    options: ClusterOptions | None = None,
    *,
    progress: ProgressFunc | None = None,
    total: int | None = None,
    site_model: SiteModel | None = None,
    **kwargs: Any,
) -> Clustering:
    """Cluster page summaries (any iterable; consumed once, in one pass).

    ``options`` or keyword arguments (the fields of :class:`ClusterOptions`) choose the
    algorithm, measure and thresholds. ``progress(stage, done, total)`` is called now and then.
    ``site_model``: for method ``site``, the document frequencies of the whole site when the
    pages given are only part of it (a batch job clusters each LSH component on its own);
    by default the pages given are the site. With ``site``, pages streamed from an iterator
    are kept pickled until the leaders are known (see :mod:`~pagesim_scrapy.core.cluster.sitesim`).
    """
    if options is None:
        options = ClusterOptions(**kwargs)
    elif kwargs:
        raise TypeError("give either options or keyword arguments, not both")
    sketcher = Sketcher(options.num_perm, 1, options.shingle_size, options.shingle_relation)
    batch: BatchSiteSimilarity | None = None
    similarity: SimilarityFunc
    if options.method == SITE_METHOD:
        batch = BatchSiteSimilarity(pages, site_model, sketcher)
        pages, similarity = batch.pages, batch
    else:
        similarity = measure_function(options.method, options.method_params)
    condenser = condensing_pass(options, similarity, sketcher)
    report = _Progress(progress)
    started = time.perf_counter()
    leader_of: list[int] = []
    scores: list[float] = []
    sources: list[str | None] = []
    leader_page: dict[int, int] = {}
    sketches = batch.sketches if batch is not None else None
    for index, summary in enumerate(pages):
        assignment = condenser.add(summary, None if sketches is None else sketches[index])
        if assignment.key is None:  # cannot happen without max_leaders; never lose a page
            raise RuntimeError("a page was left without a leader")
        if assignment.is_new:
            leader_page[assignment.key] = index
        leader_of.append(assignment.key)
        scores.append(assignment.score)
        sources.append(summary.source)
        report("condensing", index + 1, total)
    condensed = time.perf_counter()
    if not leader_of:
        raise ValueError("no pages to cluster")

    leaders: list[Leader] = sorted(condenser.leaders.values(), key=lambda leader: leader.key)
    if batch is not None:
        batch.sketches = None  # each leader keeps its own
        for leader in leaders:
            leader.summary = batch.restore(leader.summary)
    grouping = group_leaders(
        leaders, similarity, condenser.index, options.grouping_params(), progress=report
    )
    graph, groups, merged = grouping.graph, grouping.groups, grouping.merged_by_closeness
    clustered = time.perf_counter()
    compared = condensed + grouping.seconds_graph

    clusters, item_cluster = _build_clusters(leaders, graph, groups, leader_page)
    position = {leader.key: i for i, leader in enumerate(leaders)}
    assignments = [item_cluster[position[key]] for key in leader_of]
    infos = [
        LeaderInfo(leader_page[leader.key], leader.weight, item_cluster[i], leader.summary)
        for i, leader in enumerate(leaders)
    ]
    stats = {
        "pages": len(leader_of),
        "leaders": len(leaders),
        "clusters": len(clusters),
        "merged_by_closeness": merged,
        "leader_edges": graph.n_edges,
        "comparisons": condenser.comparisons + graph.n_edges,
        "lsh_queries": condenser.index.queries,
        "lsh_hits": condenser.index.hit_count,
        "largest_bucket": condenser.index.largest_bucket(),
        "layout_folds": condenser.layout_folds,
        "seconds_condense": round(condensed - started, 3),
        "seconds_compare": round(compared - condensed, 3),
        "seconds_cluster": round(clustered - compared, 3),
    }
    logger.debug("clustering stats: %s", stats)
    return Clustering(
        assignments, scores, sources, clusters, infos, graph, options, stats, similarity
    )


def _or_one(value: float | None) -> float:
    return 1.0 if value is None else value


def _build_clusters(
    leaders: list[Leader],
    graph: ItemGraph,
    groups: list[int],
    leader_page: Mapping[int, int],
) -> tuple[list[Cluster], list[int]]:
    """Clusters sorted by size (largest first, ties by first page) with medoid representatives."""
    by_group: dict[int, list[int]] = {}
    for item, group in enumerate(groups):
        by_group.setdefault(group, []).append(item)

    def first_page(items: list[int]) -> int:
        return min(leader_page[leaders[i].key] for i in items)

    ordered = sorted(
        by_group.values(),
        key=lambda items: (-sum(graph.weights[i] for i in items), first_page(items)),
    )
    clusters: list[Cluster] = []
    item_cluster = [0] * len(leaders)
    for number, items in enumerate(ordered):
        size = sum(graph.weights[i] for i in items)
        best, centrality = _medoid(graph, items, size)
        for item in items:
            item_cluster[item] = number
        leader = leaders[best]
        clusters.append(
            Cluster(
                label=f"cluster-{number + 1}",
                size=size,
                representative=leader_page[leader.key],
                summary=leader.summary,
                leaders=sorted(items),
                cohesion=centrality,
            )
        )
    return clusters, item_cluster


def _medoid(graph: ItemGraph, items: list[int], size: int) -> tuple[int, float]:
    """The item with the highest page-weighted mean similarity to the rest of its cluster.

    Each item's total runs over its own edges inside the cluster, in the cluster's item order
    (the same sums as over every pair with a missing edge as 0.0): walking every pair of a
    cluster's items grew with the square of a layout's leaders.
    """
    if size <= 1:
        return items[0], 1.0
    best, best_score = items[0], -1.0
    weights = graph.weights
    members = set(items)
    for i in items:
        total = (weights[i] - 1) * graph.cohesion[i]
        edges = graph.edges[i]
        for j in sorted(j for j in edges if j in members):
            total += weights[j] * edges[j]
        score = total / (size - 1)
        if score > best_score + 1e-12 or (
            abs(score - best_score) <= 1e-12 and weights[i] > weights[best]
        ):
            best, best_score = i, score
    return best, best_score
