"""Classify every HTML response against the template pages, and hand verdicts to items.

``PageSimDownloaderMiddleware`` (:mod:`.downloader`, priority ~545: after decompression,
redirects and retries) builds a page summary from the response's own selector (the one parse
the spider callback reuses), asks the core's
:class:`~pagesim_scrapy.core.decide.PageDecider`, writes the verdict to
``request.meta["pagesim"]`` (the callback reads ``response.meta["pagesim"]``), adds a
``pagesim:<label>`` response flag, and tags or drops non-target pages. With ``PAGESIM_QUERY`` /
``PAGESIM_MAIN_TEXT`` target pages also get their relevance and main text (seed 001), and with
``PAGESIM_DISCOVERY_ENABLED`` every HTML response gets a discovered page type (``cluster``),
with or without templates. ``PageSimSpiderMiddleware`` (:mod:`.spider`) adds
:class:`~pagesim_scrapy.items.PageItem`\\ s for target pages and remembers which page each of
the spider's items came from, so that
:class:`~pagesim_scrapy.pipelines.filter.PageSimFilterPipeline` can judge them.

The middleware's other concerns are modules of their own: :mod:`.startup` (templates,
classifier, readiness gate), :mod:`.holding` (held pages, replays, the second look's
requests), :mod:`.statefiles` (site models and discovered types), :mod:`.closing` (the close
summary), :mod:`.workarounds` (Scrapy internals) and :mod:`.meta` (meta keys and flags).
Every name is importable from here, as before the split.
"""

from __future__ import annotations

from pagesim_scrapy.core.decide import explore_selected
from pagesim_scrapy.middlewares.closing import SUMMARY_SITES
from pagesim_scrapy.middlewares.downloader import PageSimDownloaderMiddleware
from pagesim_scrapy.middlewares.holding import HELD_RESPONSES_MAX_BYTES, HeldForSecondLook
from pagesim_scrapy.middlewares.meta import (
    DONT_META_KEY,
    FIRST_VERDICT_META_KEY,
    FLAG_PREFIX,
    META_KEY,
    OWED,
    REPLAY_META_KEY,
    SECOND_LOOK_META_KEY,
    UNMATCHED_FLAG,
)
from pagesim_scrapy.middlewares.spider import (
    CrawlState,
    PageSimSpiderMiddleware,
    crawl_state,
    verdict_of,
)
from pagesim_scrapy.middlewares.startup import (
    CLOSE_REASON_CONFIG,
    CLOSE_REASON_TEMPLATES,
    DEFAULT_READY_TIMEOUT,
    PageSimStartError,
    classifier_threshold,
)
from pagesim_scrapy.middlewares.statefiles import (
    DEFAULT_DISCOVERY_FILE,
    DEFAULT_SITE_MODELS_FILE,
)
from pagesim_scrapy.middlewares.workarounds import reported

__all__ = [
    "DONT_META_KEY",
    "FLAG_PREFIX",
    "META_KEY",
    "CrawlState",
    "PageSimDownloaderMiddleware",
    "PageSimSpiderMiddleware",
    "PageSimStartError",
    "crawl_state",
    "explore_selected",
    "verdict_of",
]

# Names importable from here before the split, kept for code that imports them.
_COMPATIBLE = (
    CLOSE_REASON_CONFIG,
    CLOSE_REASON_TEMPLATES,
    DEFAULT_DISCOVERY_FILE,
    DEFAULT_READY_TIMEOUT,
    DEFAULT_SITE_MODELS_FILE,
    FIRST_VERDICT_META_KEY,
    HELD_RESPONSES_MAX_BYTES,
    HeldForSecondLook,
    OWED,
    REPLAY_META_KEY,
    SECOND_LOOK_META_KEY,
    SUMMARY_SITES,
    UNMATCHED_FLAG,
    classifier_threshold,
    reported,
)
