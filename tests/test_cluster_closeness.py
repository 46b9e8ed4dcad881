"""Relative closeness: clusters merged (batch) and types joined (online) by how alike their own
pages are, not by one similarity for every site.

Pages: the real sites of ../shared/data/site_page_types (the wiki's <body> class removed, as the
benchmark does, so that its types are told apart by structure); skipped when it is absent.
"""

from __future__ import annotations

import csv
import random

import pytest

from pagesim_scrapy.core.cluster import (
    ItemGraph,
    OnlineDiscovery,
    RepresentativesError,
    adjusted_rand_index,
    cluster_pages,
    merge_by_closeness,
)
from pagesim_scrapy.core.cluster.leader import LeaderClustering
from pagesim_scrapy.core.summary import PageSummary, summarize
from pagesim_scrapy.settings import PageSimConfig
from tests.conftest import shared_data, without_body_class

OPTIONS = PageSimConfig().summary_options()


def _site(name: str) -> tuple[list[str], list[PageSummary]]:
    folder = shared_data("site_page_types", name)
    with open(folder / "labels.csv", newline="", encoding="utf-8") as handle:
        rows = sorted(csv.DictReader(handle), key=lambda row: row["path"])
    labels, pages = [], []
    for row in rows:
        data = (folder / row["path"]).read_bytes()
        if name == "awesomewm_wiki":  # the body class names the namespace: hide it
            data = without_body_class(data)
        labels.append(row["page_type"])
        pages.append(summarize(data, OPTIONS))
    return labels, pages


@pytest.fixture(scope="module")
def wiki() -> tuple[list[str], list[PageSummary]]:
    return _site("awesomewm_wiki")


# --------------------------------------------------------------------------------------------
# merge_by_closeness on hand-made graphs


def _two_types_and_a_fragment() -> ItemGraph:
    # items 0-2: one tight type (0.9 among them); 3-5: another (0.9); 6: a page of the first
    # type that clustering left alone (0.8 to the first type's pages, 0.5 to the second's);
    # between the two types 0.5
    n = 7
    matrix = [[0.5] * n for _ in range(n)]
    for group in ((0, 1, 2), (3, 4, 5)):
        for i in group:
            for j in group:
                matrix[i][j] = 0.9
    for i in (0, 1, 2):
        matrix[i][6] = matrix[6][i] = 0.8
    return ItemGraph.from_matrix(matrix)


def test_a_fragment_joins_its_type_and_two_types_stay_apart() -> None:
    graph = _two_types_and_a_fragment()
    groups = [0, 0, 0, 3, 3, 3, 6]
    # the fragment is 0.8 / 0.9 = 0.89 as close to the first type as its pages are to each
    # other; the two types only 0.5 / 0.9 = 0.56
    assert merge_by_closeness(graph, groups, 0.75) == [0, 0, 0, 3, 3, 3, 0]
    assert merge_by_closeness(graph, groups, 0.95) == groups
    assert merge_by_closeness(graph, groups, 0.5) == [0] * 7
    assert merge_by_closeness(graph, groups, 0.0) == groups


def test_the_looser_cluster_sets_the_bar() -> None:
    # a loose type (0.5 among its pages) and a tight one (0.95): between them 0.45, which is
    # 0.9 of the loose type's own likeness: merged at 0.85, whatever the tight one's
    matrix = [[0.45] * 4 for _ in range(4)]
    matrix[0][1] = matrix[1][0] = 0.5
    matrix[2][3] = matrix[3][2] = 0.95
    graph = ItemGraph.from_matrix(matrix)
    assert merge_by_closeness(graph, [0, 0, 2, 2], 0.85) == [0, 0, 0, 0]
    assert merge_by_closeness(graph, [0, 0, 2, 2], 0.95) == [0, 0, 2, 2]


def test_two_single_pages_are_not_merged_and_missing_pairs_are_not_guessed() -> None:
    graph = ItemGraph.from_matrix([[1.0, 0.99], [0.99, 1.0]])
    assert merge_by_closeness(graph, [0, 1], 0.5) == [0, 1]  # no likeness within either
    sparse = ItemGraph([1, 1, 1], [1.0] * 3, [1.0] * 3)
    sparse.set(0, 1, 0.9)  # item 2 was compared with nothing
    assert merge_by_closeness(sparse, [0, 0, 2], 0.1) == [0, 0, 2]


def test_bad_arguments() -> None:
    graph = _two_types_and_a_fragment()
    with pytest.raises(ValueError):
        merge_by_closeness(graph, [0] * 7, 1.5)
    with pytest.raises(ValueError):
        merge_by_closeness(graph, [0] * 6, 0.5)
    with pytest.raises(ValueError):
        cluster_pages([], closeness=-0.1)


# --------------------------------------------------------------------------------------------
# the online bar


def _pages(n: int) -> list[PageSummary]:
    return [summarize(f"<html><body><p>page {i}</p></body></html>") for i in range(n)]


def test_online_bar_follows_the_scores_a_type_was_joined_with() -> None:
    pages = _pages(4)
    # page 1 joins page 0 at 0.6; page 2 scores 0.5 with page 0: below the bar of 0.55, but
    # 0.5 >= 0.8 * 0.6 when the bar follows the type's own scores
    scores = {(1, 0): 0.6, (2, 0): 0.5, (3, 0): 0.3}
    index = {id(page): i for i, page in enumerate(pages)}

    def similarity(a: PageSummary, b: PageSummary) -> float:
        return scores.get((index[id(a)], index[id(b)]), 0.0)

    for relative, joined in ((0.0, [0, 0, 2, 3]), (0.8, [0, 0, 0, 3])):
        leaders = LeaderClustering(similarity, 0.55, relative=relative)
        keys = [leaders.add(page).key for page in pages]
        assert [keys.index(key) for key in keys] == joined
    with pytest.raises(ValueError):
        LeaderClustering(similarity, 0.55, relative=2.0)


def test_a_seeded_type_keeps_the_plain_bar_until_pages_join_it() -> None:
    pages = _pages(2)
    leaders = LeaderClustering(lambda a, b: 0.3, 0.55, relative=0.9)
    seeded = leaders.new_leader(pages[0], leaders.sketcher.sketch(pages[0]), weight=40)
    assert seeded.joined_mean is None and leaders.bar(seeded) == 0.55
    assert leaders.add(pages[1]).is_new


# --------------------------------------------------------------------------------------------
# real sites


def _orders(labels: list[str], pages: list[PageSummary], **options) -> float:
    """Mean ARI over the pages in path order and three shuffled orders (a batch clustering
    depends on the order too)."""
    total = 0.0
    for seed in range(4):
        order = list(range(len(pages)))
        if seed:
            random.Random(seed).shuffle(order)
        found = cluster_pages([pages[i] for i in order], **options).labels()
        total += adjusted_rand_index([labels[i] for i in order], found)
    return total / 4


def test_wiki_fragments_join_their_types(wiki) -> None:
    """The wiki's articles, templates and user pages are loosely alike: the near-neighbour
    pass leaves fragments of them, which the closeness merge gives back to their types."""
    labels, pages = wiki
    plain = cluster_pages(pages, method="site", closeness=0.0)
    merged = cluster_pages(pages, method="site")
    assert merged.options.resolved()["closeness"] > 0.0
    assert len(merged.clusters) < len(plain.clusters)
    assert plain.stats["merged_by_closeness"] == 0
    assert merged.stats["merged_by_closeness"] == len(plain.clusters) - len(merged.clusters)
    plain_ari = _orders(labels, pages, method="site", closeness=0.0)
    assert _orders(labels, pages, method="site") > plain_ari + 0.01


@pytest.mark.parametrize("name", ["android_stackexchange", "cc_opensource_blog"])
def test_sites_with_distinct_types_keep_them(name: str) -> None:
    labels, pages = _site(name)
    plain = adjusted_rand_index(labels, cluster_pages(pages, method="site", closeness=0).labels())
    merged = adjusted_rand_index(labels, cluster_pages(pages, method="site").labels())
    assert merged >= plain


def _online_ari(labels: list[str], pages: list[PageSummary], closeness: float) -> float:
    """ARI of the types a crawl-time discovery ends with (its regroupings merge by closeness)."""
    total = 0.0
    for seed in (1, 2, 3):
        order = list(range(len(pages)))
        random.Random(seed).shuffle(order)
        discovery = OnlineDiscovery(method="site", options=OPTIONS, closeness=closeness)
        for i in order:
            discovery.assign(pages[i], site="wiki")
        discovery.regroup()
        found = [discovery.label_of(pages[i], site="wiki") for i in order]
        total += adjusted_rand_index([labels[i] for i in order], found)
    return total / 3


def test_online_discovery_keeps_a_loose_type_together(wiki) -> None:
    labels, pages = wiki
    assert OnlineDiscovery(method="site").closeness > 0.0
    assert OnlineDiscovery(method="combined").closeness == 0.0
    assert _online_ari(labels, pages, OnlineDiscovery(method="site").closeness) > _online_ari(
        labels, pages, 0.0
    )


def test_a_saved_discovery_keeps_its_closeness(tmp_path) -> None:
    discovery = OnlineDiscovery(method="site", closeness=0.65)
    for page in _pages(3):
        discovery.assign(page, site="example.org")
    path = tmp_path / "discovery.json"
    discovery.save(path)
    assert OnlineDiscovery.load(path).closeness == 0.65
    assert OnlineDiscovery.load(path, closeness=0.0).closeness == 0.0
    text = path.read_text(encoding="utf-8").replace('"closeness": 0.65', '"closeness": 3')
    with pytest.raises(RepresentativesError, match="closeness"):
        OnlineDiscovery.from_json(text)
