"""Crawl-time discovery with method ``site`` runs batch ``cluster``'s procedure one page at a
time: the types it ends with are the batch clusters of the same pages (issue 32, item 2)."""

from __future__ import annotations

import csv
import random

from pagesim_scrapy.core.cluster import OnlineDiscovery, adjusted_rand_index, cluster_pages
from pagesim_scrapy.core.cluster.sitetypes import SiteTypes
from pagesim_scrapy.core.summary import summarize
from pagesim_scrapy.settings import PageSimConfig
from tests.conftest import shared_data


def _site_pages(name: str) -> list[tuple[str, object]]:
    folder = shared_data("site_page_types", name)
    options = PageSimConfig().summary_options()
    with open(folder / "labels.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return [
        (row["page_type"], summarize((folder / row["path"]).read_bytes(), options)) for row in rows
    ]


def test_discovered_types_are_the_batch_clusters_of_the_same_pages() -> None:
    pages = _site_pages("cc_opensource_blog")
    batch = cluster_pages([summary for _, summary in pages], method="site").labels()
    order = list(range(len(pages)))
    random.Random(1).shuffle(order)
    discovery = OnlineDiscovery(method="site", options=PageSimConfig().summary_options())
    for i in order:
        discovery.assign(pages[i][1], site="blog")
    discovery.regroup()
    ended = [discovery.label_of(pages[i][1], site="blog") for i in range(len(pages))]
    assert None not in ended
    assert adjusted_rand_index(batch, ended) >= 0.95
    truth = [kind for kind, _ in pages]
    assert adjusted_rand_index(truth, ended) >= 0.95
    # the counts are the pages seen, and the saved types are the ones the pages end in
    assert sum(discovery.counts().values()) == len(pages)
    assert {rep.label for rep in discovery.representatives()} == set(ended)


def test_regrouping_keeps_a_type_id_where_most_of_its_pages_stay() -> None:
    types = SiteTypes.__new__(SiteTypes)  # only the relabelling is exercised
    types.type_of = {1: 10, 2: 10, 3: 11, 4: 11}
    types.members = {10: {1, 2}, 11: {3, 4}}
    types.founder = {10: 1, 11: 3}
    types.max_types = 10
    types._next_type = 12

    class _Leader:
        def __init__(self, weight: int) -> None:
            self.weight = weight

    class _Leaders:
        def __init__(self) -> None:
            self.leaders = {1: _Leader(5), 2: _Leader(1), 3: _Leader(1), 4: _Leader(1)}

    types.leaders = _Leaders()  # type: ignore[assignment]
    # leaders 1, 2 and 3 group together, 4 alone: type 10 holds most of the first group
    change = types._relabel([1, 2, 3, 4], [0, 0, 0, 1])
    assert types.type_of == {1: 10, 2: 10, 3: 10, 4: 11}
    assert change.removed == [] and change.created == []
    # one group: type 11 is merged into 10
    change = types._relabel([1, 2, 3, 4], [0, 0, 0, 0])
    assert set(types.type_of.values()) == {10} and change.removed == [11]
