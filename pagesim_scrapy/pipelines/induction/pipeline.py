"""``TemplateInductionPipeline``: the Scrapy glue of induction (settings, signals, items,
stats). Learning lives in :mod:`.learning`, holding in :mod:`.holding`, the worker thread in
:mod:`.worker`, the wrapper files in :mod:`.stores`."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from scrapy import signals
from scrapy.exceptions import NotConfigured

from pagesim_scrapy.core.induce import Extraction
from pagesim_scrapy.core.induce.dom import seed_page_memo
from pagesim_scrapy.core.record import ItemRecord
from pagesim_scrapy.items import PageItem
from pagesim_scrapy.pipelines._config import config_or_fail
from pagesim_scrapy.pipelines.driftrelearn import relearn_if_drifted, watch_record
from pagesim_scrapy.pipelines.induction.holding import Held, Holding, held_bytes_budget
from pagesim_scrapy.pipelines.induction.learning import LabelState, Learner, LearnResult
from pagesim_scrapy.pipelines.induction.naming import Signatures
from pagesim_scrapy.pipelines.induction.records import (
    body_naming,
    compose_record,
    labelled_rows,
    page_tree,
)
from pagesim_scrapy.pipelines.induction.stores import (
    WrapperStore,
    build_store,
    load_signatures,
    logger,
    open_store,
    save_signatures,
    save_wrappers,
)
from pagesim_scrapy.pipelines.induction.worker import InductionWorker
from pagesim_scrapy.settings import InductionConfig, read_setting

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.statscollectors import StatsCollector
    from typing_extensions import Self

    from pagesim_scrapy.core.induce.dom import Element

#: The prefix of the stats this module counts (written out here: the docs scan each file).
STATS_PREFIX = "pagesim/induction"

_T = TypeVar("_T")

#: The reason an item gets when its label is beyond ``PAGESIM_INDUCTION_MAX_LABELS``.
LABEL_LIMIT_REASON = "no wrapper: %d labels have one already (PAGESIM_INDUCTION_MAX_LABELS)"

#: Why held items are released when no more pages of their label will be learned: they are
#: extracted with the wrapper learned afresh, in canonical order, from every page learned.
SETTLED_RELEASES = frozenset({"ready", "idle", "close"})

#: The stat counted for each outcome of learning a page (``"full"``, ``"sampled"``: none).
OUTCOME_STATS: dict[str, str] = {
    "learned": "learned/{label}",
    "duplicate": "duplicates/{label}",
    "error": "errors/parse",
    "failed": "errors/learn",
    "node_limit": "not_learned/node_limit",
}


class TemplateInductionPipeline:
    """Learn a wrapper per label from page items and fill their ``record``/``records``."""

    def __init__(
        self,
        config: InductionConfig,
        stats: StatsCollector,
        store: WrapperStore | None = None,
        crawler: Crawler | None = None,
        held_bytes: int | None = None,
    ) -> None:
        self.config = config
        self.stats = stats
        self.store = store
        self.crawler = crawler
        #: the bytes of held pages (as the scraper slot counts them) kept at most
        self.held_bytes_budget = held_bytes_budget(crawler) if held_bytes is None else held_bytes
        # waiting pages keep their parsed trees within the held pages' budget
        self.learner = Learner(config, stats, store, self.held_bytes_budget)
        self.holding = Holding(
            config, stats, crawler, self.held_bytes_budget, learning=self._is_learning
        )
        self.worker = InductionWorker(stats)
        #: page items waiting for (or in) their learning step
        self._learning = 0

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        config = config_or_fail(lambda: InductionConfig.from_settings(crawler.settings))
        enabled = config_or_fail(lambda: read_setting(crawler.settings, "PAGESIM_ENABLED"))
        if not config.enabled or not enabled:
            # off by default: NotConfigured without a message, so Scrapy logs no WARNING
            logger.debug("pagesim: TemplateInductionPipeline is off (PAGESIM_INDUCTION_ENABLED)")
            raise NotConfigured
        pipeline = cls(config, crawler.stats, build_store(crawler, config), crawler)
        crawler.signals.connect(pipeline.release_all_on_close, signal=signals.spider_closed)
        return pipeline

    # --- what the parts hold -----------------------------------------------------------------

    @property
    def labels(self) -> dict[str, LabelState]:
        return self.learner.labels

    @property
    def held(self) -> deque[Held]:
        return self.holding.held

    @property
    def nodes(self) -> int:
        """Template nodes over all wrappers (``PAGESIM_INDUCTION_MAX_NODES``)."""
        return self.learner.nodes

    def _is_learning(self) -> bool:
        return self._learning > 0

    # --- Scrapy hooks ------------------------------------------------------------------------

    def open_spider(self) -> None:
        self.stats.set_value(f"{STATS_PREFIX}/enabled", 1)
        open_store(self.store, self.stats)
        self.learner.signatures = Signatures.from_saved(load_signatures(self.store, self.stats))

    async def process_item(self, item: Any) -> Any:
        if not isinstance(item, PageItem):
            return item
        with self.worker.counting():
            self.stats.inc_value(f"{STATS_PREFIX}/items")
            state = self._state_for(item)
        if state is None:
            return item
        failure, root = await self._learn_item(item, state)
        if not self.learner.settled(state) and self.config.buffer_size > 0:
            # a held item keeps its HTML only, not a parsed tree (memory)
            with self.worker.counting():
                held = self.holding.new(item, state.label)
            try:
                mode = await self.holding.hold(held)
                # a label no more pages of which will be learned has its wrapper learned
                # afresh from all of them, in canonical order, before its items go
                settle = mode in SETTLED_RELEASES
                await self._extract_into(item, state, mode, failure, settle=settle)
                if mode not in SETTLED_RELEASES and self.learner.settled(state):
                    # an early release fixed a full label's wrapper: the label's other
                    # items need not wait for a wrapper that will not change any more
                    self.holding.release_label(state.label, "ready")
            finally:
                self.holding.done(held)
            return item
        mode = "ready" if state.pages >= self.config.min_pages else "no_buffer"
        await self._extract_into(item, state, mode, failure, root)
        return item

    async def close_spider(self) -> None:
        self.release_all("close")
        for state in self.labels.values():
            if state.sources and state.failed is None:
                await self._in_worker(self._relearn_locked, state)
        self.worker.shutdown()
        if self.store is not None:
            with self.worker.counting():
                save_wrappers(self.store, self.labels.values(), self.stats)
                save_signatures(self.store, self.learner.signatures.taught, self.stats)

    def release_all_on_close(self) -> None:
        """``spider_closed``: nothing may stay held once the spider is gone."""
        self.release_all("close")

    def release_all(self, why: str) -> None:
        self.holding.release_all(why)

    # --- one page item -----------------------------------------------------------------------

    def _state_for(self, item: PageItem) -> LabelState | None:
        """The state of the item's label; None when the item is skipped (no label, no HTML,
        or beyond ``PAGESIM_INDUCTION_MAX_LABELS``), its verdict then says why."""
        if not item.label or not item.html:
            why = "no_label" if not item.label else "no_html"
            self.stats.inc_value(f"{STATS_PREFIX}/skipped/{why}")
            self._finish(item, None, None, "skipped")
            return None
        relearn_if_drifted(self.crawler, self.learner, item.label)  # PAGESIM_DRIFT_ACTION
        state = self._label(item.label)
        if state is None:  # PAGESIM_INDUCTION_MAX_LABELS labels have wrappers already
            why = "label_limit"  # one of the skipped/<why> reasons
            self.stats.inc_value(f"{STATS_PREFIX}/skipped/{why}")
            self._finish(item, None, None, "skipped")
            item.verdict["induction"]["reason"] = LABEL_LIMIT_REASON % self.config.max_labels
        return state

    async def _learn_item(
        self, item: PageItem, state: LabelState
    ) -> tuple[str | None, Element | None]:
        """Learn the item's page while its label takes more; returns why it could not be
        learned (or None) and the parsed page, reused for extraction."""
        if not self.learner.takes(state):
            return None, None
        self._learning += 1  # an item still learning may make its label ready
        try:
            outcome, failure, root = await self._in_worker(self._take, state, item.html, item.url)
        finally:
            self._learning -= 1
        with self.worker.counting():
            stat = OUTCOME_STATS.get(outcome)
            if stat is not None:
                self.stats.inc_value(f"{STATS_PREFIX}/{stat.format(label=state.label)}")
            if outcome in ("learned", "node_limit") and self.learner.settled(state):
                self.holding.release_label(state.label, "ready")
        return failure, root

    async def _extract_into(
        self,
        item: PageItem,
        state: LabelState,
        mode: str,
        failure: str | None = None,
        root: Element | None = None,
        settle: bool = False,
    ) -> None:
        """Fill the item from the label's wrapper; with ``settle``, the label settles first,
        in the same worker job (one trip to the worker thread, not two)."""
        page = item.html if root is None else root
        if settle:
            pages, extracted = await self._in_worker(
                self._settle_and_extract, state, page, item.html, item.url
            )
        else:
            pages = state.pages
            extracted = None
            if pages > 0 and item.html:
                extracted = await self._in_worker(
                    self._extract_record, state, page, item.html, item.url
                )
        with self.worker.counting():
            result, composed = extracted if extracted is not None else (None, None)
            if result is None and failure is not None:
                # nothing to extract with, but the item says why it is empty
                result = Extraction({}, [], 0.0, failure)
            status = "ready" if pages >= self.config.min_pages else "partial"
            self._finish(item, result, state, status if mode != "skipped" else mode, composed)
            self.stats.inc_value(f"{STATS_PREFIX}/extracted/{status}")

    def _finish(
        self,
        item: PageItem,
        result: Extraction | None,
        state: LabelState | None,
        status: str,
        composed: ItemRecord | None = None,
    ) -> None:
        """Fill the item's record(s) and induction verdict; drop the HTML unless kept. The
        record is ``composed`` (the core record, then the induced fields kept) when given,
        the wrapper's own record otherwise; the core values' sources go to the verdict."""
        info: dict[str, Any] = {"wrapper": status}
        if state is not None:
            info["pages"] = state.pages
        if result is None:
            item.record = {} if status != "skipped" else item.record
        else:
            info["fit"] = round(result.fit, 4)
            if result.reason:
                info["reason"] = result.reason
                unfit = result.reason.startswith("page does not fit")
                self.stats.inc_value(f"{STATS_PREFIX}/{'unfit' if unfit else 'errors/page'}")
            record = dict(result.record if composed is None else composed.record)
            if composed is not None and composed.page_type:
                info["page_type"] = composed.page_type
                info["sources"] = dict(composed.sources)
            if status == "partial" and record:
                record["pagesim_wrapper"] = "partial"
            item.record = record
            if state is not None and result.ok and state.wrapper.kind == "list":
                item.records = list(result.records)
        item.verdict = {**item.verdict, "induction": info}
        watch_record(self.crawler, item, status)  # wrapper drift (PAGESIM_DRIFT_ENABLED)
        if not self.config.keep_html:
            item.html = None

    # --- the learner's steps, run in the worker thread -------------------------------------

    async def _in_worker(self, func: Callable[..., _T], *args: Any) -> _T:
        return await self.worker.run(func, *args)

    def _label(self, label: str) -> LabelState | None:
        return self.learner.label(label)

    def _learn(self, state: LabelState, html: str, url: str | None) -> LearnResult:
        return self.learner.learn(state, html, url)

    def _take(self, state: LabelState, html: str, url: str | None) -> LearnResult:
        """The page learned, or kept until its label settles (:meth:`Learner.take`). The
        tree of a page the label does not keep (its sample is full, a duplicate) stays for
        its item, which will be held (within the learner's tree budget)."""
        outcome, failure, root = self.learner.take(state, html, url)
        held = not self.learner.settled(state) and self.config.buffer_size > 0
        if held and root is not None and outcome in ("full", "duplicate"):
            self.learner.hold_tree(state, (html, url), root)
        return outcome, failure, root

    def _relearn_locked(self, state: LabelState) -> None:
        self.learner.relearn_locked(state)

    def _settle_and_extract(
        self, state: LabelState, page: str | Element, html: str | None, url: str | None
    ) -> tuple[int, tuple[Extraction, ItemRecord] | None]:
        """Worker thread: the label settled (:meth:`_relearn_locked`), then the item's
        extraction and record as :meth:`_extract_record` gives them (None when the label
        learned no page, or the item has no HTML), with the label's pages after settling."""
        self._relearn_locked(state)
        pages = state.pages
        if pages > 0 and html:
            return pages, self._extract_record(state, page, html, url)
        return pages, None

    _extract = staticmethod(Learner.extract)

    def _extract_record(
        self, state: LabelState, page: str | Element, html: str | bytes, url: str | None
    ) -> tuple[Extraction, ItemRecord]:
        """Worker thread: the wrapper's extraction and the item's record built from it (the
        page is parsed once for both). Pages still waiting are learned first."""
        self.learner.catch_up(state)
        root = self._held_tree(state, page, html, url)
        if root is None:
            root = page_tree(page, url, state.wrapper.structured)
        rows = labelled_rows(root, url)
        result = self._extract(state, page if root is None else root, url)
        naming = body_naming(state, url, self.learner.signatures)
        learned = self.learner.take_read(state, (html, url))
        return result, compose_record(html, result.record, url, rows, naming, learned)

    def _held_tree(
        self, state: LabelState, page: str | Element, html: str | bytes, url: str | None
    ) -> Element | None:
        """Worker thread: the tree the label parsed the held item's page into while it
        waited (None if not kept), with what learning read of it: parsed and read once. An
        item given its tree lets the kept one go."""
        handed = self.learner.take_tree(state, (html, url))
        if handed is None or not isinstance(page, (str, bytes)):
            return None
        root, read = handed
        seed_page_memo(root, read)
        return root
