"""The ``cluster --site host|input`` job: each site's pages clustered in one task by the local
pipeline, as the local ``cluster`` command clusters the pages of one site it is given.

Method ``site`` takes the pages given as one site; a crawl of many hosts given to the local
command as one set is weighed as one site, and copies of one layout on many hosts link into
one LSH component that a single task clusters alone. Grouped by site, every task is one
site's local job: one shuffle (each page's summary, compressed), no propagation rounds, and
the largest task is the largest site.
"""

from __future__ import annotations

import pickle
import zlib
from collections.abc import Iterable, Iterator
from typing import Any

from pagesim_scrapy.core.cluster import ClusterOptions, cluster_pages
from pagesim_scrapy.core.summary import SummaryOptions
from pagesim_scrapy.spark.jobs import (
    JobInput,
    Order,
    PageRecord,
    _storage,
    read_pages,
    summarise,
)

#: What the grouping by site moves per page: order, path, the compressed pickled summary
#: (None: the page has none) and why it has none.
SitePage = tuple[Order, str, bytes | None, str | None]

#: A row of the per-site step: ("page", (order, line)) or ("site", (site, pages, clusters)).
SiteRow = tuple[str, Any]


def site_cluster_name(site: str, label: str) -> str:
    """A cluster's name in the job's output: the site's local name under the site (two sites'
    ``cluster-1`` are two clusters)."""
    return f"{site}/{label}"


def _site_page(page: PageRecord, options: SummaryOptions) -> tuple[str, SitePage]:
    row = summarise(page, options)
    if row.summary is None:
        return row.site, (row.order, row.path, None, row.error)
    kept = zlib.compress(pickle.dumps(row.summary, pickle.HIGHEST_PROTOCOL), 1)
    return row.site, (row.order, row.path, kept, None)


def cluster_site(
    site: str, pages: Iterable[SitePage], options: ClusterOptions
) -> Iterator[SiteRow]:
    """One site's lines, as the local ``cluster`` writes them for the site's pages in input
    order (cluster names under the site), then the site's figures."""
    ordered = sorted(pages, key=lambda page: page[0])
    read = [(order, path, kept) for order, path, kept, _ in ordered if kept is not None]
    for order, path, kept, error in ordered:
        if kept is None:
            yield "page", (order, {"path": path, "cluster": None, "error": error})
    if not read:
        yield "site", (site, 0, 0)
        return
    summaries = [pickle.loads(zlib.decompress(kept)) for _, _, kept in read]
    result = cluster_pages(summaries, options)
    for (order, path, _), label in zip(read, result.labels()):
        yield "page", (order, {"path": path, "cluster": site_cluster_name(site, label)})
    yield "site", (site, len(read), len(result.clusters))


def cluster_sites_job(
    spark: Any,
    inputs: list[JobInput],
    options: ClusterOptions,
    summary_options: SummaryOptions,
    site_key: str,
) -> tuple[Any, dict[str, Any]]:
    """An RDD of (order, output line), each site clustered as the local command clusters it,
    and the job's figures (pages, sites, the largest, clusters).

    Raises ValueError when no page could be summarised.
    """
    sc = spark.sparkContext
    clustered = (
        read_pages(spark, inputs, site_key)
        .map(lambda page: _site_page(page, summary_options))
        .groupByKey(sc.defaultParallelism)
        .flatMap(lambda group: cluster_site(group[0], group[1], options))
        .persist(_storage())
    )
    sites = clustered.filter(lambda row: row[0] == "site").map(lambda row: row[1]).collect()
    pages = sum(count for _, count, _ in sites)
    if not pages:
        clustered.unpersist()
        raise ValueError("no pages to cluster")
    stats = {
        "pages": pages,
        "sites": len(sites),
        "largest_site": max(count for _, count, _ in sites),
        "clusters": sum(count for _, _, count in sites),
    }
    return clustered.filter(lambda row: row[0] == "page").map(lambda row: row[1]), stats
