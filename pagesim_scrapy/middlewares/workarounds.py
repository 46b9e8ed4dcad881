"""Workarounds for Scrapy internals, each with the reason it is needed.

- :func:`reported`: a start-up error logged once is not logged again by asyncio;
- :func:`exit_non_zero`: ``scrapy crawl`` exits with status 1 after pagesim failed to start;
- :func:`parsed_root`: a parsed response is freed without waiting for the cyclic collector.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar
from weakref import proxy

from scrapy import signals

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import TextResponse

#: Attribute set on an exception whose message pagesim has logged already.
_REPORTED = "_pagesim_reported"

_E = TypeVar("_E", bound=BaseException)


class _DropReportedErrors(logging.Filter):
    """Drop asyncio's "Task exception was never retrieved" record (and its traceback) for an
    exception that pagesim has already logged as one ERROR line.

    An exception raised by a component's ``from_crawler`` escapes ``Crawler.crawl_async()``,
    which is how Scrapy 2.19 learns that a crawl failed to start (``scrapy crawl`` then exits
    with status 1); the crawl task is left unawaited, so asyncio logs the exception again, with
    a traceback, when the task is collected.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return not getattr(error, _REPORTED, False)


_DROP_REPORTED_ERRORS = _DropReportedErrors()


def reported(error: _E) -> _E:
    """Mark ``error`` as logged already, so that asyncio does not log it again."""
    setattr(error, _REPORTED, True)
    asyncio_logger = logging.getLogger("asyncio")
    if _DROP_REPORTED_ERRORS not in asyncio_logger.filters:
        asyncio_logger.addFilter(_DROP_REPORTED_ERRORS)
    return error


def exit_non_zero(crawler: Crawler | None) -> Callable[[], None] | None:
    """Make ``scrapy crawl`` exit with status 1 after a failed start, so that schedulers
    (Scrapyd, cron, CI) see it; the caller keeps the returned handler (signals hold weak
    references).

    Scrapy 2.19's crawl command has no public way to say so: it exits 1 when the crawl's
    start-up raised *or when the crawler has no spider once the crawl is over*
    (``CrawlerProcess.bootstrap_failed``). So the crawler lets go of its spider when it
    closes: this handler is connected at the failure, after every component's own
    ``spider_closed`` handler (they get the spider as an argument), and the stats dump that
    follows does not need it.
    """
    if crawler is None:
        return None

    def let_go_of_the_spider() -> None:
        crawler.spider = None

    crawler.signals.connect(let_go_of_the_spider, signal=signals.spider_closed)
    return let_go_of_the_spider


def parsed_root(response: TextResponse) -> Any:
    """The root of the response's parsed page, through ``response.selector`` (parsed once,
    for the callback too) with the selector's link back to the response made weak.

    Scrapy's selector and its response refer to each other, so a parsed response is freed only
    by Python's cyclic garbage collector, not when Scrapy lets go of it; a crawl whose process
    holds a large long-lived state (discovery's site models, wrappers) runs that collector
    rarely, and the pages parsed meanwhile pile up with their lxml trees, bodies and decoded
    text (issue 14's soak crawl). With the link weak each page goes as soon as it is no longer
    used; ``selector.response`` still works while the response is alive.
    """
    selector = response.selector
    if selector.response is response:
        selector.response = proxy(response)
    return selector.root
