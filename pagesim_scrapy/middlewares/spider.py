"""The spider middleware: page items for target pages, and page verdicts for the filter.

``PageSimSpiderMiddleware`` adds :class:`~pagesim_scrapy.items.PageItem`\\ s for target pages
and remembers which page each of the spider's items came from (in the crawl's
:class:`CrawlState`), so that :class:`~pagesim_scrapy.pipelines.filter.PageSimFilterPipeline`
can judge them.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from time import thread_time
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from scrapy import Request
from scrapy.exceptions import NotConfigured
from scrapy.http import Response, TextResponse
from scrapy.spidermiddlewares.base import BaseSpiderMiddleware

from pagesim_scrapy.items import PageItem
from pagesim_scrapy.middlewares.meta import LOGGER_NAME, META_KEY
from pagesim_scrapy.settings import PageSimConfig

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from typing_extensions import Self

logger = logging.getLogger(LOGGER_NAME)


class CrawlState:
    """What the pagesim components of one crawl share.

    ``targets`` are the target labels once the spider is open (spider attributes may change
    them); ``filtering`` is set by the filter pipeline, and only then does the spider
    middleware remember item verdicts (by ``id(item)``, holding the item so the id stays
    unique) until the pipeline or a drop/error signal consumes them.
    """

    def __init__(self) -> None:
        self.targets: frozenset[str] | None = None
        self.filtering = False
        #: CPU seconds of the spider middleware's per-page work, for ``pagesim/time_ms``
        self.seconds = 0.0
        self._verdicts: dict[int, tuple[Any, dict[str, Any]]] = {}

    def remember(self, item: Any, verdict: dict[str, Any]) -> None:
        self._verdicts[id(item)] = (item, verdict)

    def pop(self, item: Any) -> dict[str, Any] | None:
        entry = self._verdicts.pop(id(item), None)
        if entry is None or entry[0] is not item:
            return None
        return entry[1]

    def forget(self, item: Any) -> None:
        """Signal handler (item_dropped, item_error): the item will not reach the filter."""
        entry = self._verdicts.get(id(item))
        if entry is not None and entry[0] is item:
            del self._verdicts[id(item)]

    def __len__(self) -> int:
        return len(self._verdicts)


_STATES: WeakKeyDictionary[Crawler, CrawlState] = WeakKeyDictionary()


def crawl_state(crawler: Crawler) -> CrawlState:
    """The shared :class:`CrawlState` of ``crawler`` (created on first use)."""
    state = _STATES.get(crawler)
    if state is None:
        state = _STATES[crawler] = CrawlState()
    return state


def verdict_of(response: Response | None) -> dict[str, Any] | None:
    """The verdict pagesim gave ``response`` (None for unclassified responses)."""
    request = response.request if response is not None else None
    if request is None:
        return None
    verdict = request.meta.get(META_KEY)
    return verdict if isinstance(verdict, dict) else None


class PageSimSpiderMiddleware(BaseSpiderMiddleware):
    """Emit page items for target pages; attach page verdicts to the spider's items."""

    # Scrapy 2.19 prefers an inherited ``process_spider_output_async`` over our async
    # ``process_spider_output``; without this the base class's would run instead of ours.
    process_spider_output_async = None  # type: ignore[assignment]

    def __init__(self, crawler: Crawler, config: PageSimConfig | None = None) -> None:
        super().__init__(crawler)
        if config is None:
            config = PageSimConfig.from_settings(crawler.settings, crawler.spidercls)
        self.page_items = config.page_items
        self.label_field = config.item_label_field
        self.state = crawl_state(crawler)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        config = PageSimConfig.from_settings(crawler.settings, crawler.spidercls)
        if not config.enabled:
            raise NotConfigured
        return cls(crawler, config)

    async def process_spider_output(  # type: ignore[override]  # the base one is sync
        self, response: Response | None, result: AsyncIterator[Any]
    ) -> AsyncIterator[Any]:
        # pagesim/time_ms counts this work too (not the waits for the callback's output)
        began = thread_time()
        state = self.state
        verdict = verdict_of(response)
        if verdict is None:
            state.seconds += thread_time() - began
            async for obj in result:
                yield obj
            return
        item = self._page_item(response, verdict)
        field = self.label_field
        # Only items of non-target pages need remembering: the filter lets the rest through.
        remember = state.filtering and not verdict.get("target")
        state.seconds += thread_time() - began
        if item is not None:
            yield item
        async for obj in result:
            if not isinstance(obj, Request) and (remember or field):
                began = thread_time()
                if remember:
                    state.remember(obj, verdict)
                if field:
                    _set_field(obj, field, verdict.get("label"))
                state.seconds += thread_time() - began
            yield obj

    def _page_item(self, response: Response | None, verdict: dict[str, Any]) -> PageItem | None:
        """The page item of a target page (with ``PAGESIM_PAGE_ITEMS``), else None."""
        if not (self.page_items and verdict.get("target") and isinstance(response, TextResponse)):
            return None
        return PageItem(
            url=response.url,
            label=verdict.get("label"),
            score=float(verdict.get("score", 0.0)),
            verdict=dict(verdict),
            html=response.text,
            relevance=verdict.get("relevance"),
            main_text=verdict.get("main_text"),
        )


def _set_field(item: Any, field: str, value: Any) -> None:
    """Write ``field`` if the item can hold it (dicts; items declaring the field)."""
    from itemadapter import ItemAdapter

    if not ItemAdapter.is_item(item):
        return
    adapter = ItemAdapter(item)
    try:
        adapter[field] = value
    except KeyError:  # an item class without that field
        logger.debug("pagesim: %s has no field %r for the page label", type(item).__name__, field)
