"""Clustering core: ARI, tag-path shingles and sketches, seed 003 / 004 procedures, the
condense-compare-cluster pipeline, synthetic perturbations.

Pages: real Stack Overflow pages of 5 types (tests/fixtures/stackoverflow, BSD-3-Clause), and
the full shared sets in ../shared/data when present.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from pathlib import Path

import pytest
from lxml import etree

from pagesim_scrapy.core.cluster import (
    ClusterOptions,
    ItemGraph,
    Sketcher,
    SketchIndex,
    adjusted_rand_index,
    agglomerative,
    cluster_pages,
    measure_function,
    method_thresholds,
    path_shingles,
    purity,
    shared_nearest_neighbours,
)
from pagesim_scrapy.core.cluster.synthetic import Perturber
from pagesim_scrapy.core.pageio import PAGE_SUFFIXES, iter_page_paths
from pagesim_scrapy.core.summary import parse_html, summarize, summarize_tree
from tests.conftest import FIXTURES, shared_data

STACKOVERFLOW = FIXTURES / "stackoverflow"


@pytest.fixture(scope="module")
def fixture_pages() -> tuple[list[str], list]:
    paths = list(iter_page_paths([STACKOVERFLOW]))
    assert len(paths) == 15
    return [p.parent.name for p in paths], [summarize(p, source=str(p)) for p in paths]


def page(body: str) -> object:
    return summarize(f"<html><head><title>t</title></head><body>{body}</body></html>")


# --------------------------------------------------------------------------------------------
# adjusted Rand index


def test_ari_hand_worked_example() -> None:
    # contingency (0,0)=2 (0,1)=1 (1,1)=1 (1,2)=2: sum C(n_ij,2)=2, rows 6, columns 3,
    # expected 6*3/15=1.2, max (6+3)/2=4.5 -> (2-1.2)/(4.5-1.2)
    truth = [0, 0, 0, 1, 1, 1]
    predicted = [0, 0, 1, 1, 2, 2]
    assert adjusted_rand_index(truth, predicted) == pytest.approx(0.8 / 3.3)


def test_ari_properties() -> None:
    truth = ["a", "a", "b", "b", "c", "c", "c"]
    renamed = ["x", "x", "y", "y", "z", "z", "z"]
    assert adjusted_rand_index(truth, renamed) == 1.0
    other = [1, 2, 1, 2, 3, 3, 1]
    assert adjusted_rand_index(truth, other) == pytest.approx(adjusted_rand_index(other, truth))
    rng = random.Random(5)
    labels = [rng.randrange(5) for _ in range(2000)]
    noise = [rng.randrange(5) for _ in range(2000)]
    assert abs(adjusted_rand_index(labels, noise)) < 0.02  # chance-corrected
    with pytest.raises(ValueError):
        adjusted_rand_index([1, 2], [1])


def test_purity() -> None:
    assert purity(["a", "a", "b", "b"], [1, 1, 1, 2]) == pytest.approx(0.75)


# --------------------------------------------------------------------------------------------
# shingles and sketches


def test_path_shingles_hand_page() -> None:
    summary = page('<div class="a"><p>x</p><p>y</p></div><ul><li>z</li></ul>')
    # nodes: body, div.a, ul, p, p, li -> 5 distinct RPSA codes, 5 distinct (parent, child) steps
    assert len(path_shingles(summary, 1)) == 5
    pairs = path_shingles(summary, 2)
    assert len(pairs) == 5
    same_structure = page('<div class="a"><p>other</p><p>text</p></div><ul><li>!</li></ul>')
    assert path_shingles(same_structure, 2) == pairs
    bigger = page('<div class="a"><p>x</p><p>y</p><span>s</span></div><ul><li>z</li></ul>')
    assert pairs < path_shingles(bigger, 2)
    with pytest.raises(ValueError):
        path_shingles(summary, 0)


def test_sketch_index_finds_similar_pages(fixture_pages) -> None:
    labels, summaries = fixture_pages
    sketcher = Sketcher()
    index = SketchIndex(sketcher.num_perm, 0.3)
    sketches = [sketcher.sketch(s) for s in summaries]
    for key, minhash in enumerate(sketches):
        index.add(key, minhash)
    for key, minhash in enumerate(sketches):
        found = index.candidates(minhash, limit=3)
        assert found[0].key == key and found[0].estimate == 1.0
        # the next best candidates are pages of the same type
        assert labels[found[1].key] == labels[key]
    # estimates track the true Jaccard of the shingle sets
    a, b = summaries[0], summaries[-1]
    true = len(path_shingles(a) & path_shingles(b)) / len(path_shingles(a) | path_shingles(b))
    assert index.estimates(sketches[0], [len(sketches) - 1])[0] == pytest.approx(true, abs=0.15)
    # removal frees the key and keeps the other rows right
    index.remove(3)
    assert 3 not in index and len(index) == 14
    assert all(c.key != 3 for c in index.candidates(sketches[3]))
    last = len(sketches) - 1
    assert index.candidates(sketches[last], 1)[0].key == last
    with pytest.raises(KeyError):
        index.add(0, sketches[0])


# --------------------------------------------------------------------------------------------
# seed 003: agglomerative


def test_agglomerative_q_c_keeps_a_dissimilar_pair_apart() -> None:
    # a-b and b-c alike, a-c not: whichever pair merges first, the third cannot join
    graph = ItemGraph.from_matrix([[1, 0.9, 0.3], [0.9, 1, 0.9], [0.3, 0.9, 1]])
    assert agglomerative(graph, q_a=0.5, q_c=0.5) == [0, 0, 2]
    assert agglomerative(graph, q_a=0.5, q_c=0.2) == [0, 0, 0]


def test_agglomerative_q_a_is_the_mean_over_all_pairs() -> None:
    graph = ItemGraph.from_matrix([[1, 0.9, 0.6], [0.9, 1, 0.9], [0.6, 0.9, 1]])
    # the union of all three has mean pair similarity (0.9 + 0.9 + 0.6) / 3 = 0.8
    assert len(set(agglomerative(graph, q_a=0.85, q_c=0.5))) == 2
    assert agglomerative(graph, q_a=0.75, q_c=0.5) == [0, 0, 0]


def test_agglomerative_two_groups_and_missing_edges() -> None:
    sims = [[0.1] * 6 for _ in range(6)]
    for group in ((0, 1, 2), (3, 4, 5)):
        for i, j in itertools.permutations(group, 2):
            sims[i][j] = 0.8
    graph = ItemGraph.from_matrix(sims)
    assert agglomerative(graph, 0.5, 0.4) == [0, 0, 0, 3, 3, 3]
    sparse = ItemGraph([1] * 3, [1.0] * 3, [1.0] * 3)
    sparse.set(0, 1, 0.9)
    sparse.set(1, 2, 0.9)  # 0-2 never compared: counts as dissimilar
    assert agglomerative(sparse, 0.5, 0.1) == [0, 0, 2]


def test_agglomerative_bounds_condensed_items() -> None:
    # two items of 10 pages each whose leaders score 0.6: with pages up to 0.1 from their
    # leader, two pages may score as little as 0.4, which fails Q_c = 0.5
    spread = ItemGraph([10, 10], [0.95, 0.95], [0.9, 0.9])
    spread.set(0, 1, 0.6)
    assert agglomerative(spread, 0.5, 0.5) == [0, 1]
    tight = ItemGraph([10, 10], [1.0, 1.0], [1.0, 1.0])
    tight.set(0, 1, 0.6)
    assert agglomerative(tight, 0.5, 0.5) == [0, 0]


# --------------------------------------------------------------------------------------------
# seed 004: shared nearest neighbours


def two_cliques_with_a_bridge(bridge: float) -> ItemGraph:
    sims = [[0.0] * 10 for _ in range(10)]
    for group in (range(5), range(5, 10)):
        for i, j in itertools.permutations(group, 2):
            sims[i][j] = 0.9
    sims[4][5] = sims[5][4] = bridge
    return ItemGraph.from_matrix(sims)


def test_snn_does_not_chain_through_one_bridge() -> None:
    graph = two_cliques_with_a_bridge(0.65)
    # single linkage at 0.6 would join the cliques; their neighbourhoods share only 2 of 6
    assert shared_nearest_neighbours(graph, k=10, t_n=0.6, k_p=0.85) == [0] * 5 + [5] * 5
    assert shared_nearest_neighbours(graph, k=10, t_n=0.6, k_p=0.3) == [0] * 10
    # below t_n the bridge is no near neighbour at all
    assert shared_nearest_neighbours(graph, k=10, t_n=0.7, k_p=0.3) == [0] * 5 + [5] * 5


def test_snn_isolated_items_stay_alone() -> None:
    graph = ItemGraph.from_matrix([[1, 0.2, 0.1], [0.2, 1, 0.3], [0.1, 0.3, 1]])
    assert shared_nearest_neighbours(graph, k=5, t_n=0.5, k_p=0.5) == [0, 1, 2]
    with pytest.raises(ValueError):
        shared_nearest_neighbours(graph, k=0, t_n=0.5, k_p=0.5)


# --------------------------------------------------------------------------------------------
# the pipeline


@pytest.mark.parametrize("algorithm", ["snn", "agglomerative", "online"])
@pytest.mark.parametrize("method", ["combined", "lcs"])
def test_pipeline_recovers_fixture_types(fixture_pages, algorithm: str, method: str) -> None:
    labels, summaries = fixture_pages
    result = cluster_pages(iter(summaries), algorithm=algorithm, method=method)
    assert len(result.assignments) == 15
    assert adjusted_rand_index(labels, result.assignments) == 1.0
    assert [s.source for s in summaries] == result.sources
    sizes = [c.size for c in result.clusters]
    assert sizes == sorted(sizes, reverse=True) and sum(sizes) == 15
    for number, cluster in enumerate(result.clusters):
        assert cluster.label == f"cluster-{number + 1}"
        # a representative is one of its own cluster's pages
        assert result.assignments[cluster.representative] == number
        assert cluster.summary is summaries[cluster.representative]
    assert result.labels()[0] == result.clusters[result.assignments[0]].label


def test_pipeline_condenses_duplicates(fixture_pages) -> None:
    _, summaries = fixture_pages
    pages = [summaries[0]] * 20 + [summaries[-1]] * 5
    result = cluster_pages(pages)
    assert result.stats["leaders"] == 2
    assert sorted(leader.weight for leader in result.leaders) == [5, 20]
    assert [c.size for c in result.clusters] == [20, 5]
    # at most one exact comparison per page after the first, plus the one pair of leaders
    assert result.stats["comparisons"] <= 24 + 1


def test_pipeline_bad_input() -> None:
    with pytest.raises(ValueError, match="no pages"):
        cluster_pages([])
    with pytest.raises(ValueError, match="algorithm"):
        ClusterOptions(algorithm="kmeans")
    with pytest.raises(ValueError, match="unknown parameter"):
        ClusterOptions(method="lcs", method_params={"relaton": "csr"})
    with pytest.raises(ValueError):
        ClusterOptions(q_a=1.5)
    with pytest.raises(TypeError):
        cluster_pages([], ClusterOptions(), k=3)


def test_thresholds_default_and_floor() -> None:
    assert method_thresholds("lcs")["q_c"] == 0.4
    derived = method_thresholds("layers")  # no measured defaults: placed above background
    assert all(0.6 < value < 1.0 for value in derived.values())
    # the condensing pass never folds pages that the clustering would keep apart
    resolved = ClusterOptions(algorithm="online", threshold=0.95, condense=0.5).resolved()
    assert resolved["condense"] == 0.95


def test_measure_function_matches_similarity(fixture_pages) -> None:
    from pagesim_scrapy.core.similarity import similarity

    _, summaries = fixture_pages
    func = measure_function("lcs", {"relation": "rsn"})
    assert func(summaries[0], summaries[5]) == similarity(
        summaries[0], summaries[5], "lcs", relation="rsn"
    )


# --------------------------------------------------------------------------------------------
# the shared data sets (skipped when ../shared/data is absent)


def test_stackoverflow_types_with_defaults() -> None:
    root = shared_data("stackoverflow_page_types")
    paths = list(iter_page_paths([root]))
    result = cluster_pages(summarize(p, source=str(p)) for p in paths)
    assert adjusted_rand_index([p.parent.name for p in paths], result.assignments) >= 0.95


def test_recipe_sites_by_structure() -> None:
    root = shared_data("recipe_scrapers_testdata")
    paths = list(iter_page_paths([root], (*PAGE_SUFFIXES, ".testhtml")))
    result = cluster_pages(summarize(p, source=str(p)) for p in paths)
    sites = [p.parent.name for p in paths]
    assert len(paths) == 150
    assert adjusted_rand_index(sites, result.assignments) >= 0.90


# --------------------------------------------------------------------------------------------
# synthetic perturbations


def test_perturber_is_deterministic_and_leaves_bases_intact() -> None:
    paths = list(iter_page_paths([STACKOVERFLOW]))[:3]
    roots = [parse_html(p.read_bytes()) for p in paths]
    before = [etree.tostring(r) for r in roots]
    perturber = Perturber(roots, ["a", "b", "c"], edits=3)
    first = list(perturber.variants(12, seed=4))
    again = list(perturber.variants(12, seed=4))
    other = list(perturber.variants(12, seed=5))
    assert [etree.tostring(r) for r in roots] == before
    assert [s.bfs for _, s in first] == [s.bfs for _, s in again]
    assert [s.bfs for _, s in first] != [s.bfs for _, s in other]
    assert [label for label, _ in first] == ["a", "b", "c"] * 4
    bases = [summarize_tree(r) for r in roots]
    sim = measure_function("lcs")
    changed = 0
    for i, (_, variant) in enumerate(first):
        score = sim(variant, bases[i % 3])
        assert score > 0.8  # still its base's page type
        changed += variant.bfs != bases[i % 3].bfs
    assert changed >= 10


def test_pipeline_on_perturbed_pages_keeps_types() -> None:
    paths = list(iter_page_paths([STACKOVERFLOW]))
    roots = [parse_html(p.read_bytes()) for p in paths]
    perturber = Perturber(roots, [p.parent.name for p in paths])
    labels: list[str] = []

    def stream():
        for label, summary in perturber.variants(300, seed=1):
            labels.append(label)
            yield summary

    result = cluster_pages(stream(), total=300)
    assert adjusted_rand_index(labels, result.assignments) >= 0.95
    # condensing: far fewer leaders than pages, and the exact comparisons stay linear
    assert result.stats["leaders"] < 100
    assert result.stats["comparisons"] < 300 * 6
    assert Counter(result.labels()).most_common(1)[0][1] <= 120


def test_source_paths_are_kept(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text("<html><body><div><p>x</p></div></body></html>")
    summary = summarize(tmp_path / "a.html")
    result = cluster_pages([summary])
    assert result.sources == [str(tmp_path / "a.html")]
    assert result.clusters[0].size == 1
