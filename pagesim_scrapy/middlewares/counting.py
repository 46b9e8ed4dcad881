"""The stats of each decision (``pagesim/response_count``, ``pagesim/label_count/<label>``,
``pagesim/neighbour_fill``, the second look's, the discovery's and the relevance's), and a
dropped page counted by Scrapy as a received response."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from pagesim_scrapy.core.decide import FOUNDED, JOINED
from pagesim_scrapy.middlewares.meta import LOGGER_NAME

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from scrapy.statscollectors import StatsCollector

    from pagesim_scrapy.core.decide import Decision

logger = logging.getLogger(LOGGER_NAME)


def count_decision(
    stats: StatsCollector, decision: Decision, url: str, relevance_threshold: float | None
) -> None:
    """Count one decided page."""
    label = decision.label
    stats.inc_value("pagesim/response_count")
    if label is None:
        stats.inc_value("pagesim/unmatched")
    else:
        stats.inc_value(f"pagesim/label_count/{label}")
        if decision.filled is not None:
            stats.inc_value("pagesim/neighbour_fill")
            stats.inc_value(f"pagesim/neighbour_fill/{label}")
    if decision.held_for_type:
        stats.inc_value("pagesim/discovery/held")
    # a page back for its discovered type is counted when due; most pages are neither
    # decided again nor held, and have no second-look stat
    elif decision.classified and (decision.again or decision.held):
        _count_second_look(stats, decision)
    if decision.discovered in (JOINED, FOUNDED):
        stats.inc_value("pagesim/discovery/pages")
        if decision.discovered == FOUNDED:
            stats.inc_value("pagesim/discovery/new")
        stats.inc_value(f"pagesim/discovery/{decision.cluster or 'unassigned'}")
    if decision.relevance is not None:
        stats.inc_value("pagesim/relevance/scored")
    if decision.off_topic:
        stats.inc_value("pagesim/off_topic")
        logger.debug(
            "pagesim: %s is off-topic (relevance %.3f < %.3f)",
            url,
            decision.relevance,
            relevance_threshold,
        )


def _count_second_look(stats: StatsCollector, decision: Decision) -> None:
    if decision.again and decision.target:
        stats.inc_value("pagesim/second_look/kept")
    elif decision.again:
        stats.inc_value("pagesim/second_look/turned_away")
    elif decision.held:
        stats.inc_value("pagesim/second_look/held")


def count_as_received(crawler: Crawler | None, request: Request, response: Response) -> None:
    """Send ``response_received`` for a page about to be dropped.

    A downloader middleware that raises ``IgnoreRequest`` keeps the engine from sending it, so
    ``CLOSESPIDER_PAGECOUNT``, ``response_received_count`` and the once-a-minute "Crawled N
    pages" line would see only the pages kept; a user setting a page limit means every page
    downloaded.
    """
    if crawler is None:
        return
    from scrapy import signals

    if response.request is None:  # the engine sets it only for a response it gets back
        response.request = request
    crawler.signals.send_catch_log(
        signal=signals.response_received,
        response=response,
        request=request,
        spider=crawler.spider,
    )
