"""Batch jobs on Spark: ``classify``, ``cluster``, ``extract`` and ``drift`` over WARC files or
folders of saved pages, with the same output fields as the local commands.

Run as ``python -m pagesim_scrapy.spark classify|cluster|extract …`` or through
``spark-submit`` (``pagesim_scrapy/spark/__main__.py`` is the application file). PySpark is an
optional extra (``pip install "pagesim-scrapy[spark]"``); nothing in the core imports it.

The jobs call the core's functions; only the grouping is Spark's:

* **input**: the driver lists the files (folders walked, WARC files not opened); each worker
  reads whole files, WARC records in one pass (warcio), and summarises the pages there.
* **classify**: method ``site`` decides a site from all of its pages, so the pages are grouped
  by site (``--site``: the host of their URL, the argument they came from, or all as one) and
  each site is classified in one task, as the local command classifies the pages it is
  given. The pairwise methods score pages where they are read, fit their automatic
  thresholds to all the scores on the driver, and decide there.
* **cluster**: no pair is compared unless the LSH index would propose it. Every page's
  MinHash signature is cut into the index's bands; pages sharing a band are linked, and the
  connected components of these links (label propagation) are clustered one task each with
  the local pipeline. Nothing outside a component is ever a candidate, so the clusters are the
  local command's; their names (``cluster-1`` the largest) are given over all components.
  Method ``site`` weighs features by their document frequency over all pages: counted by a
  distributed sum and broadcast. ``--site host`` (or ``input``) instead clusters each site's
  pages in one task, as the local command clusters one site's pages given to it (cluster
  names under the site): one shuffle, and the largest task is the largest site.
* **extract**: a map over the pages with the wrapper broadcast.
* **drift**: the local ``drift OLD NEW`` over two sets of WARC files (or pages) of a site:
  pages summarised where they are read, grouped by site (the host of a WARC record's URL),
  each site's labels (sub-folders of a folder of pages; one look for WARC records) compared in
  one task; one JSON line per (site, label), exit status 3 when one changed.
"""

from __future__ import annotations

from pagesim_scrapy.spark.jobs import (
    JobInput,
    PageRecord,
    classify_job,
    cluster_job,
    drift_job,
    extract_job,
    list_inputs,
    write_records,
)

__all__ = [
    "JobInput",
    "PageRecord",
    "classify_job",
    "cluster_job",
    "drift_job",
    "extract_job",
    "list_inputs",
    "write_records",
]
