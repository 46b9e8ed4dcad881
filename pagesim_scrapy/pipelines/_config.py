"""One error policy for every component: a bad ``PAGESIM_*`` setting fails the crawl at start
with one ERROR line, as the downloader middleware's does."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TypeVar

from pagesim_scrapy.middlewares import reported
from pagesim_scrapy.settings import PageSimConfigError

logger = logging.getLogger(__name__)

_C = TypeVar("_C")


def config_or_fail(read: Callable[[], _C]) -> _C:
    """``read()``; a :class:`PageSimConfigError` is logged once and raised, marked as logged
    (``scrapy crawl`` then exits with status 1 and no traceback)."""
    try:
        return read()
    except PageSimConfigError as exc:
        logger.error("pagesim: invalid configuration: %s", exc)
        raise reported(exc) from None
