"""Merge by overlap: a page type split by what some of its pages add (a forum's topics with and
without replies) is one cluster again, in batch ``cluster`` and in crawl-time discovery, while
the types of sites with distinct templates stay as they were.

Pages: ../shared/data/site_page_types and site_page_types_2; skipped when absent.
"""

from __future__ import annotations

import csv
import random
from types import SimpleNamespace
from typing import Any

import pytest

from pagesim_scrapy.core.cluster import (
    ItemGraph,
    OnlineDiscovery,
    adjusted_rand_index,
    cluster_pages,
)
from pagesim_scrapy.core.cluster.overlap import merge_by_overlap
from pagesim_scrapy.core.summary import PageSummary, summarize
from pagesim_scrapy.settings import PageSimConfig
from tests.conftest import shared_data, without_body_class

OPTIONS = PageSimConfig().summary_options()


def _site(folder_set: str, name: str) -> tuple[list[str], list[PageSummary]]:
    folder = shared_data(folder_set, name)
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


# --------------------------------------------------------------------------------------------
# merge_by_overlap on a hand-made graph


def _fragments() -> tuple[ItemGraph, list[int], list[Any], dict[tuple[int, int], float]]:
    # items 0-1: a type's long pages, 2-3: its short pages (contained in the long ones: overlap
    # 0.9), 4-5: another type (overlap 0.2 with both), 6: one page alone (overlap 1.0: short)
    n = 7
    graph = ItemGraph.from_matrix([[0.3] * n for _ in range(n)])
    groups = [0, 0, 2, 2, 4, 4, 6]
    overlap: dict[tuple[int, int], float] = {}
    for i in range(n):
        for j in range(n):
            same = {groups[i], groups[j]} <= {0, 2}
            overlap[i, j] = 1.0 if 6 in (i, j) else 0.9 if same else 0.2
    leaders = [SimpleNamespace(summary=i) for i in range(n)]
    return graph, groups, leaders, overlap


def test_fragments_of_one_type_merge_and_others_stay() -> None:
    graph, groups, leaders, overlap = _fragments()
    merged = merge_by_overlap(graph, groups, leaders, lambda a, b: overlap[a, b], 0.7, 8)
    assert merged == [0, 0, 0, 0, 4, 4, 6]


def test_off_and_high_bar_merge_nothing() -> None:
    graph, groups, leaders, overlap = _fragments()
    for bar in (0.0, 0.95):
        found = merge_by_overlap(graph, groups, leaders, lambda a, b: overlap[a, b], bar, 8)
        assert found == groups
    with pytest.raises(ValueError):
        merge_by_overlap(graph, groups, leaders, lambda a, b: 0.0, 1.5, 8)


# --------------------------------------------------------------------------------------------
# real sites


@pytest.fixture(scope="module")
def forum() -> tuple[list[str], list[PageSummary]]:
    return _site("site_page_types_2", "oem_forum")


def test_forum_topics_are_one_type_again(forum) -> None:
    """The forum's topics (most of the site) were split by their replies into three
    clusters; merged by overlap they are one, and the forum lists stay apart."""
    labels, pages = forum
    plain = cluster_pages(pages, method="site", overlap=0.0)
    merged = cluster_pages(pages, method="site")
    assert merged.options.resolved()["overlap"] > 0.0
    assert adjusted_rand_index(labels, plain.labels()) < 0.8
    assert adjusted_rand_index(labels, merged.labels()) == pytest.approx(1.0)


def test_forum_discovery_ends_with_the_batch_types(forum) -> None:
    labels, pages = forum
    batch = cluster_pages(pages, method="site").labels()
    order = list(range(len(pages)))
    random.Random(1).shuffle(order)
    discovery = OnlineDiscovery(method="site", options=OPTIONS)
    for i in order:
        discovery.assign(pages[i], site="site")
    discovery.regroup()
    ended = [discovery.label_of(pages[i], site="site") for i in order]
    assert adjusted_rand_index([batch[i] for i in order], ended) == pytest.approx(1.0)
    assert adjusted_rand_index([labels[i] for i in order], ended) == pytest.approx(1.0)


@pytest.mark.parametrize("name", ["android_stackexchange", "awesomewm_wiki", "cc_opensource_blog"])
def test_distinct_template_sites_keep_their_clusters(name: str) -> None:
    labels, pages = _site("site_page_types", name)
    plain = adjusted_rand_index(labels, cluster_pages(pages, method="site", overlap=0).labels())
    merged = adjusted_rand_index(labels, cluster_pages(pages, method="site").labels())
    assert merged >= plain
