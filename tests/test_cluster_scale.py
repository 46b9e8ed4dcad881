"""Batch clustering's scaling work keeps its results: the packed site similarity equals the
site model's, the LSH index hits what datasketch's does, SNN's kept overlaps give the clusters
that recounting gives, and streamed pages cluster as a list of them does."""

from __future__ import annotations

import random

import pytest
from datasketch import MinHashLSH

from pagesim_scrapy.core.cluster import cluster_pages
from pagesim_scrapy.core.cluster.graph import ItemGraph
from pagesim_scrapy.core.cluster.pipeline import site_document_model
from pagesim_scrapy.core.cluster.sitesim import BatchSiteSimilarity, feature_codes, feature_name
from pagesim_scrapy.core.cluster.sketch import LSH_WEIGHTS, Sketcher, SketchIndex
from pagesim_scrapy.core.cluster.snn import neighbourhoods, shared_nearest_neighbours
from pagesim_scrapy.core.pageio import iter_page_paths
from pagesim_scrapy.core.site import site_similarity, structural_features
from pagesim_scrapy.core.summary import summarize
from tests.conftest import FIXTURES


@pytest.fixture(scope="module")
def summaries() -> list:
    paths = list(iter_page_paths([FIXTURES / "stackoverflow"]))
    return [summarize(p, source=str(p)) for p in paths]


def test_feature_codes_are_the_structural_features(summaries) -> None:
    for summary in summaries:
        names = {feature_name(int(code)) for code in feature_codes(summary)}
        assert names == set(structural_features(summary))


def test_batch_site_similarity_equals_the_site_models(summaries) -> None:
    batch = BatchSiteSimilarity(summaries)
    model = site_document_model()
    features = [structural_features(s) for s in summaries]
    for page in features:
        model.add(page, keep=False)
    assert batch.model.df == model.df
    for i, a in enumerate(summaries):
        for j, b in enumerate(summaries):
            assert batch(a, b) == site_similarity(features[i], features[j], model)


def test_sketch_index_hits_what_datasketch_hits(summaries) -> None:
    sketcher = Sketcher()
    index = SketchIndex(sketcher.num_perm, 0.3)
    lsh = MinHashLSH(threshold=0.3, num_perm=sketcher.num_perm, weights=LSH_WEIGHTS)
    sketches = [sketcher.sketch(s) for s in summaries]
    for key, minhash in enumerate(sketches):
        index.add(key, minhash)
        lsh.insert(key, minhash)
    index.remove(3)
    lsh.remove(3)
    for minhash in sketches:
        assert index.hits(minhash) == set(lsh.query(minhash))


def _recounted_snn(graph: ItemGraph, k: int, t_n: float, k_p: float) -> list[int]:
    """The procedure as first written: every pair's shared weight recounted on each collapse."""
    import heapq

    n, weights = len(graph), graph.weights
    hoods = neighbourhoods(graph, k, t_n)
    mass = [sum(weights[x] for x in hood) for hood in hoods]
    parent, version = list(range(n)), [0] * n
    holders: list[set[int]] = [set() for _ in range(n)]
    for c, hood in enumerate(hoods):
        for x in hood:
            holders[x].add(c)
    heap: list = []

    def push(a: int) -> None:
        partners = set().union(*(holders[x] for x in hoods[a])) - {a}
        for b in partners:
            share = sum(weights[x] for x in hoods[a] & hoods[b]) / min(mass[a], mass[b])
            if share >= k_p:
                f, s = min(a, b), max(a, b)
                heapq.heappush(heap, (-share, f, s, version[f], version[s]))

    for a in range(n):
        push(a)
    while heap:
        _, a, b, va, vb = heapq.heappop(heap)
        if parent[a] != a or parent[b] != b or version[a] != va or version[b] != vb:
            continue
        parent[b] = a
        for x in hoods[b]:
            holders[x].discard(b)
            if x not in hoods[a]:
                hoods[a].add(x)
                holders[x].add(a)
                mass[a] += weights[x]
        hoods[b] = set()
        version[a] += 1
        push(a)

    def root(x: int) -> int:
        while parent[x] != x:
            x = parent[x]
        return x

    roots = [root(i) for i in range(n)]
    first = {}
    for i, r in enumerate(roots):
        first.setdefault(r, i)
    return [first[r] for r in roots]


@pytest.mark.parametrize("seed", range(5))
def test_snn_kept_overlaps_equal_recounting(seed: int) -> None:
    rng = random.Random(seed)
    n = 60
    centres = [rng.randrange(4) for _ in range(n)]
    matrix = [
        [
            min(1.0, max(0.0, (0.8 if centres[i] == centres[j] else 0.3) + rng.uniform(-0.2, 0.2)))
            for j in range(n)
        ]
        for i in range(n)
    ]
    for i in range(n):
        for j in range(i):
            matrix[i][j] = matrix[j][i]
    weights = [rng.randint(1, 5) for _ in range(n)]
    graph = ItemGraph.from_matrix(matrix, weights)
    for k, t_n, k_p in ((5, 0.6, 0.5), (10, 0.5, 0.85), (3, 0.7, 0.3)):
        expected = _recounted_snn(ItemGraph.from_matrix(matrix, weights), k, t_n, k_p)
        assert shared_nearest_neighbours(graph, k, t_n, k_p) == expected


def test_streamed_pages_cluster_as_a_list_and_keep_their_summaries(summaries) -> None:
    listed = cluster_pages(summaries, method="site")
    streamed = cluster_pages(iter(summaries), method="site")
    assert streamed.assignments == listed.assignments
    assert streamed.scores == listed.scores
    assert streamed.sources == listed.sources
    for a, b in zip(streamed.clusters, listed.clusters):
        assert a.summary.bfs == b.summary.bfs and a.summary.source == b.summary.source
        assert a.summary.title == b.summary.title
    first, second = streamed.clusters[0].summary, streamed.clusters[-1].summary
    assert streamed.similarity is not None and listed.similarity is not None
    assert streamed.similarity(first, second) == listed.similarity(
        listed.clusters[0].summary, listed.clusters[-1].summary
    )


def test_a_bucket_holds_at_most_its_cap(summaries) -> None:
    """With ``bucket_cap`` a bucket keeps the first keys that reach it: a query meets at most
    the cap per band, a key left out of a full bucket is still indexed and removable."""
    sketcher = Sketcher()
    sketches = [sketcher.sketch(s) for s in summaries]
    capped, plain = SketchIndex(bucket_cap=2), SketchIndex()
    for key, minhash in enumerate(sketches):
        capped.add(key, minhash)
        plain.add(key, minhash)
    assert capped.largest_bucket() <= 2 < plain.largest_bucket()
    bands = len(capped._bands)
    for minhash in sketches:
        hits = capped.hits(minhash)
        assert len(hits) <= 2 * bands
        assert hits <= plain.hits(minhash)
    for key in range(len(sketches)):
        capped.remove(key)
    assert len(capped) == 0 and capped.largest_bucket() == 0
    with pytest.raises(ValueError):
        SketchIndex(bucket_cap=0)


def test_a_bucket_cap_above_the_leaders_changes_no_cluster(summaries) -> None:
    plain = cluster_pages(summaries, method="site", bucket_cap=None)
    capped = cluster_pages(summaries, method="site", bucket_cap=len(summaries))
    assert capped.assignments == plain.assignments
