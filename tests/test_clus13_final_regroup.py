"""The crawl's final regrouping runs batch ``cluster``'s procedure over the same pages: the
site's leaders folded by the batch condensing pass under the weights of all its pages, then
the shared grouping step (issue 32: crawl-time discovery's types = batch ``cluster``'s)."""

from __future__ import annotations

import csv
import random

from pagesim_scrapy.core.cluster import OnlineDiscovery, adjusted_rand_index, cluster_pages
from pagesim_scrapy.core.cluster.leader import Leader, LeaderClustering
from pagesim_scrapy.core.cluster.sketch import Sketcher
from pagesim_scrapy.core.summary import summarize
from pagesim_scrapy.settings import PageSimConfig
from tests.conftest import shared_data


def _site_pages(name: str) -> list[object]:
    folder = shared_data("site_page_types", name)
    options = PageSimConfig().summary_options()
    with open(folder / "labels.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return [summarize((folder / row["path"]).read_bytes(), options) for row in rows]


def test_ended_types_are_the_batch_clusters_of_the_pages_in_the_crawl_order() -> None:
    # a fragment at the overlap merge's own bar: batch merges it, and so must the crawl's end
    pages = _site_pages("flink_site")
    order = list(range(len(pages)))
    random.Random(1).shuffle(order)
    crawled = [pages[i] for i in order]
    batch = cluster_pages(crawled, method="site").labels()
    discovery = OnlineDiscovery(method="site", options=PageSimConfig().summary_options())
    for summary in crawled:
        discovery.assign(summary, site="flink")
    discovery.regroup()
    ended = [discovery.label_of(summary, site="flink") for summary in crawled]
    assert adjusted_rand_index(batch, ended) == 1.0


def test_fold_carries_a_leaders_pages_and_scores() -> None:
    pages = _site_pages("cc_opensource_blog")[:2]
    sketcher = Sketcher()
    outside = Leader(7, pages[0], sketcher.sketch(pages[0]), weight=4, sim_sum=2.7, sim_min=0.8)
    outside.scored = 3
    condenser = LeaderClustering(lambda a, b: 1.0 if a is b else 0.0, 0.95, sketcher=sketcher)
    first = condenser.fold(outside)
    assert first.is_new
    copy = condenser.leaders[first.key]
    assert (copy.weight, copy.cohesion, copy.sim_min) == (4, outside.cohesion, 0.8)
    again = condenser.fold(outside)  # the same page again: its pages join the copy
    assert not again.is_new and again.key == first.key
    assert condenser.leaders[first.key].weight == 8
    assert outside.weight == 4  # the folded leader is not changed
