"""HTML reports, next to the Scrapy and CLI layers that write them (not in the core): the crawl
report (``PAGESIM_REPORT``, :mod:`.crawl`), the clustering and classification reports
(``cluster --report``, :mod:`.clustering`) and the pieces they share (:mod:`.html`)."""

from __future__ import annotations

from pagesim_scrapy.reports.clustering import (
    classical_mds,
    classification_report,
    clustering_report,
    outline,
    scores_section,
    seriate,
)
from pagesim_scrapy.reports.crawl import BORDERLINE, THRESHOLD_SOURCES, crawl_report
from pagesim_scrapy.reports.html import cluster_colour, write_report

__all__ = [
    "BORDERLINE",
    "THRESHOLD_SOURCES",
    "classical_mds",
    "classification_report",
    "cluster_colour",
    "clustering_report",
    "crawl_report",
    "outline",
    "scores_section",
    "seriate",
    "write_report",
]
