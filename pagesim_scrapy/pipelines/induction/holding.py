"""Page items held until their label's wrapper is ready, and the rules that release them.

A pipeline cannot emit an item later by itself, so ``process_item`` awaits a held item's
release. A held item keeps its response in Scrapy's scraper slot, which the engine counts
against ``SCRAPER_SLOT_MAX_ACTIVE_SIZE``: held pages therefore stay within a byte budget, and
are released (oldest first) whenever the slot is over its limit, so they never stop the
downloader. Items are also released on overflow, time-out, an idle crawl and spider close.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import CloseSpider, DontCloseSpider
from scrapy.utils.asyncio import create_looping_call
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.defer import Deferred
from twisted.python.failure import Failure

from pagesim_scrapy.pipelines.induction.stores import logger

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.statscollectors import StatsCollector

    from pagesim_scrapy.items import PageItem
    from pagesim_scrapy.settings import InductionConfig

#: The prefix of the stats this module counts (written out here: the docs scan each file).
STATS_PREFIX = "pagesim/induction"

#: How often held items are checked for time-outs, the scraper slot and an idle crawl (seconds).
WATCH_INTERVAL = 0.1
#: Consecutive idle checks before held items are released because nothing else will come.
IDLE_CHECKS = 2
#: Scrapy's scraper counts a response as at least this many bytes (``Slot.MIN_RESPONSE_SIZE``).
MIN_RESPONSE_SIZE = 1024
#: The share of ``SCRAPER_SLOT_MAX_ACTIVE_SIZE`` that held pages may take.
HELD_SHARE = 0.5
#: Scrapy's default ``SCRAPER_SLOT_MAX_ACTIVE_SIZE``.
DEFAULT_MAX_ACTIVE_SIZE = 5_000_000


@dataclass(eq=False)
class Held:
    """A page item waiting for its label's wrapper."""

    item: PageItem
    label: str
    since: float
    size: int = MIN_RESPONSE_SIZE  # the bytes the scraper slot counts for its response
    waiter: Deferred[str] = field(default_factory=Deferred)


def held_bytes_budget(crawler: Crawler | None) -> int:
    """The bytes held pages may take: a share of the scraper slot's limit."""
    max_active = DEFAULT_MAX_ACTIVE_SIZE
    if crawler is not None:
        max_active = crawler.settings.getint("SCRAPER_SLOT_MAX_ACTIVE_SIZE", max_active)
    return int(max_active * HELD_SHARE)


class Holding:
    """The held page items of one crawl, oldest first, and the watch that releases them."""

    def __init__(
        self,
        config: InductionConfig,
        stats: StatsCollector,
        crawler: Crawler | None,
        budget: int,
        learning: Callable[[], bool],
    ) -> None:
        self.config = config
        self.stats = stats
        self.crawler = crawler
        #: the bytes of held pages (as the scraper slot counts them) kept at most
        self.budget = budget
        #: whether a page item is still being learned (it may make its label ready)
        self._learning = learning
        self.held: deque[Held] = deque()
        self.held_bytes = 0
        #: bytes of released items whose processing has not ended yet (still in the slot)
        self.leaving_bytes = 0
        self._watch: Any = None
        self._idle_checks = 0
        #: the ``spider_idle`` listeners were asked in this idle spell (see :meth:`_more_to_come`)
        self._asked_idle = False

    def new(self, item: PageItem, label: str) -> Held:
        return Held(item, label, time.monotonic(), body_size(item.html))

    async def hold(self, held: Held) -> str:
        """Wait until ``held`` is released; returns why. The caller calls :meth:`done` once
        the item's processing is over."""
        self.held.append(held)
        self.held_bytes += held.size
        self.stats.inc_value(f"{STATS_PREFIX}/held")
        while len(self.held) > self.config.buffer_size:
            self.release(self.held[0], "overflow")
        self.make_room()
        if held.waiter.called:  # released at once
            return str(held.waiter.result)
        self.stats.max_value(f"{STATS_PREFIX}/held_max", len(self.held))
        self.stats.max_value(f"{STATS_PREFIX}/held_bytes_max", self.held_bytes)
        self._ensure_watch()
        return await maybe_deferred_to_future(held.waiter)

    def done(self, held: Held) -> None:
        """The released item's processing is over: its response leaves the scraper slot."""
        self.leaving_bytes -= held.size

    def make_room(self) -> None:
        """Release the oldest held items while held pages exceed their byte budget, or while
        the scraper slot is over ``SCRAPER_SLOT_MAX_ACTIVE_SIZE`` (the engine then sends no
        request) and held pages are part of what it counts."""
        while self.held and self.held_bytes > self.budget:
            self.release(self.held[0], "memory")
        slot = self._scraper_slot()
        if slot is None or not self.held:
            return
        try:
            excess = int(slot.active_size) - int(slot.max_active_size)
        except (AttributeError, TypeError, ValueError):
            return
        # released items leave the slot once their processing ends: count them as gone
        excess -= self.leaving_bytes
        while self.held and excess >= 0:  # the engine backs out above max_active_size
            excess -= self.held[0].size
            self.release(self.held[0], "memory")

    def _scraper_slot(self) -> Any:
        engine = getattr(self.crawler, "engine", None) if self.crawler is not None else None
        try:
            return engine.scraper.slot if engine is not None else None
        except (AttributeError, RuntimeError):
            return None

    def release(self, held: Held, why: str) -> None:
        try:
            self.held.remove(held)
        except ValueError:
            return
        self.held_bytes -= held.size
        self.leaving_bytes += held.size
        self.stats.inc_value(f"{STATS_PREFIX}/released/{why}")
        if not held.waiter.called:
            held.waiter.callback(why)

    def release_label(self, label: str, why: str) -> None:
        for held in [h for h in self.held if h.label == label]:
            self.release(held, why)

    def release_all(self, why: str) -> None:
        for held in list(self.held):
            self.release(held, why)
        self._stop_watch()

    # --- the watch -------------------------------------------------------------------------

    def _ensure_watch(self) -> None:
        if self._watch is None and self.held:
            self._idle_checks = 0
            self._watch = create_looping_call(self._check_held)
            self._watch.start(WATCH_INTERVAL, now=False)

    def _stop_watch(self) -> None:
        if self._watch is not None:
            if self._watch.running:
                self._watch.stop()
            self._watch = None

    def _check_held(self) -> None:
        """Release items that waited too long, or all of them once the crawl is idle."""
        if self._closing():
            self.release_all("close")
            return
        now = time.monotonic()
        for held in list(self.held):
            if now - held.since >= self.config.wait:
                self.release(held, "timeout")
        self.make_room()
        if self.held and self._crawl_idle():
            self._idle_checks += 1
            if self._idle_checks >= IDLE_CHECKS and not self._more_to_come():
                logger.info(
                    "nothing left to crawl: releasing %d held page item(s), extracted with "
                    "the wrappers learned from every page of the crawl",
                    len(self.held),
                )
                self.release_all("idle")
        else:
            self._idle_checks = 0
            self._asked_idle = False
        if not self.held:
            self._stop_watch()

    def _more_to_come(self) -> bool:
        """Whether a ``spider_idle`` listener brings more pages: the engine asks them only
        once the scraper is idle, which the held items keep it from, so the holding asks
        them first (once per idle spell), as the engine would. Pages the classifier held
        for its second look, or a spider's next batch, then still reach their label's
        sample before its items go."""
        if self._asked_idle or self.crawler is None:
            return False
        spider = getattr(self.crawler, "spider", None)
        if spider is None:
            return False
        self._asked_idle = True
        self._idle_checks = 0
        results = self.crawler.signals.send_catch_log(
            signals.spider_idle, spider=spider, dont_log=(DontCloseSpider, CloseSpider)
        )
        return any(
            isinstance(outcome, Failure) and isinstance(outcome.value, DontCloseSpider)
            for _, outcome in results
        )

    def _closing(self) -> bool:
        """The engine is closing the spider (CLOSESPIDER_*, a shutdown): it waits for the
        items in the pipelines, so held items must go now."""
        slot = self._scraper_slot()
        return bool(slot is not None and getattr(slot, "closing", None))

    def _crawl_idle(self) -> bool:
        """True when no request is downloading or scheduled, no response waits for its
        callback and no page item is still being learned (it may make a label ready): only
        the held items keep the crawl open, no more page items will come."""
        engine = getattr(self.crawler, "engine", None) if self.crawler is not None else None
        if engine is None or self._learning():
            return False
        try:
            if engine.downloader.active:
                return False
            scheduler = engine.scheduler
            if scheduler is not None and scheduler.has_pending_requests():
                return False
            slot = engine.scraper.slot
            return slot is None or not slot.queue
        except (AttributeError, RuntimeError):
            return False


def body_size(html: str | bytes | None) -> int:
    """The bytes Scrapy's scraper slot counts for the response of a page item: its body, at
    least ``MIN_RESPONSE_SIZE`` (the body is not in the item: its HTML, encoded, stands in)."""
    if html is None:
        return MIN_RESPONSE_SIZE
    if isinstance(html, str):
        # UTF-8 length without building the bytes: ASCII pages, the common case, are exact
        size = len(html) if html.isascii() else len(html.encode("utf-8", "surrogatepass"))
    else:
        size = len(html)
    return max(size, MIN_RESPONSE_SIZE)
