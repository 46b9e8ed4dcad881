"""Drop the spider's items that come from non-target pages.

The spider middleware remembers the verdict of the page each item came from (or writes the
label into ``PAGESIM_ITEM_LABEL_FIELD``); this pipeline, placed early (priority 100 with the
add-on) so later pipelines do no work for nothing, drops the items of pages that are not
targets. Items with no known page verdict (start items, unclassified responses) pass.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import DropItem, NotConfigured

from pagesim_scrapy.middlewares import CrawlState, crawl_state
from pagesim_scrapy.pipelines._config import config_or_fail
from pagesim_scrapy.settings import PageSimConfig

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.statscollectors import StatsCollector
    from typing_extensions import Self

logger = logging.getLogger(__name__)

_MISSING = object()


class PageSimFilterPipeline:
    """Drop items of non-target pages (``DropItem`` at DEBUG, stat ``pagesim/items_dropped``)."""

    def __init__(
        self,
        stats: StatsCollector,
        state: CrawlState,
        targets: frozenset[str],
        label_field: str | None = None,
    ) -> None:
        self.stats = stats
        self.state = state
        self.targets = targets
        self.label_field = label_field
        state.filtering = True

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        config = config_or_fail(
            lambda: PageSimConfig.from_settings(crawler.settings, crawler.spidercls)
        )
        if not config.enabled or not config.filter_items:
            raise NotConfigured
        state = crawl_state(crawler)
        pipeline = cls(crawler.stats, state, config.target_labels, config.item_label_field)
        # items dropped or failed before reaching this pipeline must not stay remembered
        crawler.signals.connect(state.forget, signal=signals.item_dropped)
        crawler.signals.connect(state.forget, signal=signals.item_error)
        return pipeline

    def process_item(self, item: Any) -> Any:
        verdict = self.state.pop(item)
        if verdict is not None:
            target = bool(verdict.get("target"))
            label = verdict.get("label")
        elif self.label_field:
            label = _get_field(item, self.label_field)
            if label is _MISSING:
                return item
            # spider attributes may have changed the targets when the spider opened; no
            # targets at all (a discovery-only crawl) makes every labelled page a target
            targets = self.state.targets or self.targets
            target = label is not None and (not targets or label in targets)
        else:
            return item
        if target:
            return item
        self.stats.inc_value("pagesim/items_dropped")
        raise DropItem(f"pagesim: item from a non-target page (label {label})", log_level="DEBUG")


def _get_field(item: Any, field: str) -> Any:
    from itemadapter import ItemAdapter

    if not ItemAdapter.is_item(item):
        return _MISSING
    return ItemAdapter(item).get(field, _MISSING)
