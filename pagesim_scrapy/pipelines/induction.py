"""Learn one wrapper per page label during the crawl and fill every page item's records.

``TemplateInductionPipeline`` handles :class:`pagesim_scrapy.items.PageItem` (other items
pass through untouched):

* it learns the label's wrapper from the first ``PAGESIM_INDUCTION_MAX_PAGES`` page items
  (in a worker thread, so the reactor stays free), starting from a wrapper stored by an
  earlier crawl if there is one;
* once ``PAGESIM_INDUCTION_MIN_PAGES`` pages are learned the wrapper is *ready*: every page
  item gets ``record`` (and ``records``, the main region's groups, on list pages);
* an item that arrives before its label's wrapper is ready is *held*: ``process_item``
  awaits the label's readiness. A pipeline cannot emit items later by itself, so waiting is
  the honest way to hold one. Waiting is bounded: an item is released early — extracted
  with the wrapper learned so far, its record marked ``"pagesim_wrapper": "partial"`` — when
  more than ``PAGESIM_INDUCTION_BUFFER_SIZE`` items are held (the oldest goes), when it has
  waited ``PAGESIM_INDUCTION_WAIT`` seconds, when the crawl has nothing else left to do (a
  label that never gets enough pages), and at spider close. No item is lost or dropped.
* at spider close the wrappers are saved through ``PAGESIM_INDUCTION_STORE`` (default: JSON
  files under the project's data dir, ``.scrapy/pagesim/wrappers/<label>.json``) and the
  next crawl starts from them.

Stats: ``pagesim/induction/...``.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.utils.asyncio import create_looping_call, run_in_thread
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.misc import build_from_crawler, load_object
from scrapy.utils.project import data_path
from twisted.internet.defer import Deferred

from pagesim_scrapy.core.induce import (
    Extraction,
    PageParseError,
    Wrapper,
    WrapperError,
    parse_html,
)
from pagesim_scrapy.items import PageItem
from pagesim_scrapy.settings import DEFAULTS, INDUCTION_SETTINGS, SETTINGS

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings
    from scrapy.statscollectors import StatsCollector
    from typing_extensions import Self

logger = logging.getLogger(__name__)

#: The induction settings and their defaults; the one place they are declared is
#: :data:`pagesim_scrapy.settings.SETTINGS`.
SETTING_DEFAULTS: dict[str, Any] = {name: DEFAULTS[name] for name in INDUCTION_SETTINGS}

#: What each setting means (from :data:`pagesim_scrapy.settings.SETTINGS`).
SETTING_DOCS: dict[str, str] = {
    spec.name: spec.doc for spec in SETTINGS if spec.name in SETTING_DEFAULTS
}

STATS_PREFIX = "pagesim/induction"
#: How often held items are checked for time-outs and an idle crawl (seconds).
WATCH_INTERVAL = 0.25
#: Consecutive idle checks before held items are released because nothing else will come.
IDLE_CHECKS = 2


@dataclass(frozen=True)
class InductionConfig:
    """The pipeline's settings, read with Scrapy's typed getters."""

    enabled: bool = SETTING_DEFAULTS["PAGESIM_INDUCTION_ENABLED"]
    min_pages: int = SETTING_DEFAULTS["PAGESIM_INDUCTION_MIN_PAGES"]
    max_pages: int = SETTING_DEFAULTS["PAGESIM_INDUCTION_MAX_PAGES"]
    lam: float = SETTING_DEFAULTS["PAGESIM_INDUCTION_LAMBDA"]
    min_fit: float = SETTING_DEFAULTS["PAGESIM_INDUCTION_MIN_FIT"]
    buffer_size: int = SETTING_DEFAULTS["PAGESIM_INDUCTION_BUFFER_SIZE"]
    wait: float = SETTING_DEFAULTS["PAGESIM_INDUCTION_WAIT"]
    store: str = SETTING_DEFAULTS["PAGESIM_INDUCTION_STORE"]
    directory: str = SETTING_DEFAULTS["PAGESIM_INDUCTION_DIR"]
    jsonld: bool = SETTING_DEFAULTS["PAGESIM_INDUCTION_JSONLD"]
    keep_html: bool = SETTING_DEFAULTS["PAGESIM_PAGE_ITEMS_KEEP_HTML"]

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> InductionConfig:
        d = SETTING_DEFAULTS
        config = cls(
            enabled=settings.getbool("PAGESIM_INDUCTION_ENABLED", d["PAGESIM_INDUCTION_ENABLED"]),
            min_pages=settings.getint(
                "PAGESIM_INDUCTION_MIN_PAGES", d["PAGESIM_INDUCTION_MIN_PAGES"]
            ),
            max_pages=settings.getint(
                "PAGESIM_INDUCTION_MAX_PAGES", d["PAGESIM_INDUCTION_MAX_PAGES"]
            ),
            lam=settings.getfloat("PAGESIM_INDUCTION_LAMBDA", d["PAGESIM_INDUCTION_LAMBDA"]),
            min_fit=settings.getfloat("PAGESIM_INDUCTION_MIN_FIT", d["PAGESIM_INDUCTION_MIN_FIT"]),
            buffer_size=settings.getint(
                "PAGESIM_INDUCTION_BUFFER_SIZE", d["PAGESIM_INDUCTION_BUFFER_SIZE"]
            ),
            wait=settings.getfloat("PAGESIM_INDUCTION_WAIT", d["PAGESIM_INDUCTION_WAIT"]),
            store=str(settings.get("PAGESIM_INDUCTION_STORE") or d["PAGESIM_INDUCTION_STORE"]),
            directory=str(settings.get("PAGESIM_INDUCTION_DIR") or ""),
            jsonld=settings.getbool("PAGESIM_INDUCTION_JSONLD", d["PAGESIM_INDUCTION_JSONLD"]),
            keep_html=settings.getbool(
                "PAGESIM_PAGE_ITEMS_KEEP_HTML", d["PAGESIM_PAGE_ITEMS_KEEP_HTML"]
            ),
        )
        config.validate()
        return config

    def validate(self) -> None:
        """Raise ``ValueError`` naming the setting at fault."""
        if self.min_pages < 1:
            raise ValueError("PAGESIM_INDUCTION_MIN_PAGES must be at least 1")
        if self.max_pages < self.min_pages:
            raise ValueError("PAGESIM_INDUCTION_MAX_PAGES must be >= PAGESIM_INDUCTION_MIN_PAGES")
        if not 0.0 <= self.lam <= 1.0:
            raise ValueError("PAGESIM_INDUCTION_LAMBDA must be within [0, 1]")
        if not 0.0 <= self.min_fit <= 1.0:
            raise ValueError("PAGESIM_INDUCTION_MIN_FIT must be within [0, 1]")
        if self.buffer_size < 0:
            raise ValueError("PAGESIM_INDUCTION_BUFFER_SIZE must be >= 0")
        if self.wait < 0:
            raise ValueError("PAGESIM_INDUCTION_WAIT must be >= 0")


# --- wrapper stores ----------------------------------------------------------------------------


class WrapperStore(Protocol):
    """Where wrappers live between crawls. A store class is built with
    ``build_from_crawler`` (so it may define ``from_crawler``)."""

    def load(self, label: str) -> Wrapper | None: ...

    def save(self, label: str, wrapper: Wrapper) -> None: ...


_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


class JsonFileWrapperStore:
    """One JSON file per label in a folder (default: ``.scrapy/pagesim/wrappers``)."""

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        directory = crawler.settings.get("PAGESIM_INDUCTION_DIR") or data_path("pagesim/wrappers")
        return cls(directory)

    def path_for(self, label: str) -> Path:
        """A file name from the label that cannot leave the folder."""
        name = _UNSAFE.sub("_", label).strip("._") or "label"
        return self.directory / f"{name}.json"

    def load(self, label: str) -> Wrapper | None:
        path = self.path_for(label)
        if not path.exists():
            return None
        return Wrapper.load(path)

    def save(self, label: str, wrapper: Wrapper) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        wrapper.save(self.path_for(label))


# --- the pipeline --------------------------------------------------------------------------------


@dataclass(eq=False)
class _Held:
    """A page item waiting for its label's wrapper."""

    item: PageItem
    label: str
    since: float
    waiter: Deferred[str] = field(default_factory=Deferred)


class _Label:
    """Everything learned about one label in this crawl."""

    def __init__(self, label: str, wrapper: Wrapper, stored_pages: int) -> None:
        self.label = label
        self.wrapper = wrapper
        self.stored_pages = stored_pages
        self.learned = 0  # pages learned in this crawl
        self.lock = threading.Lock()  # learning happens in worker threads

    @property
    def pages(self) -> int:
        return self.wrapper.pages


class TemplateInductionPipeline:
    """Learn a wrapper per label from page items and fill their ``record``/``records``."""

    def __init__(
        self,
        config: InductionConfig,
        stats: StatsCollector,
        store: WrapperStore | None = None,
        crawler: Crawler | None = None,
    ) -> None:
        self.config = config
        self.stats = stats
        self.store = store
        self.crawler = crawler
        self.labels: dict[str, _Label] = {}
        self.held: deque[_Held] = deque()
        self._watch: Any = None
        self._idle_checks = 0

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        try:
            config = InductionConfig.from_settings(crawler.settings)
        except ValueError as exc:
            raise NotConfigured(f"bad induction settings: {exc}") from exc
        if not config.enabled or not crawler.settings.getbool("PAGESIM_ENABLED", True):
            # off by default: NotConfigured without a message, so Scrapy logs no WARNING
            logger.debug("pagesim: TemplateInductionPipeline is off (PAGESIM_INDUCTION_ENABLED)")
            raise NotConfigured
        store_cls = load_object(config.store)
        store = build_from_crawler(store_cls, crawler)
        pipeline = cls(config, crawler.stats, store, crawler)
        crawler.signals.connect(pipeline.release_all_on_close, signal=signals.spider_closed)
        return pipeline

    # --- Scrapy hooks ---------------------------------------------------------------------

    def open_spider(self) -> None:
        self.stats.set_value(f"{STATS_PREFIX}/enabled", 1)

    async def process_item(self, item: Any) -> Any:
        if not isinstance(item, PageItem):
            return item
        self.stats.inc_value(f"{STATS_PREFIX}/items")
        if not item.label or not item.html:
            why = "no_label" if not item.label else "no_html"
            self.stats.inc_value(f"{STATS_PREFIX}/skipped/{why}")
            self._finish(item, None, None, "skipped")
            return item
        state = self._label(item.label)
        if state.pages < self.config.max_pages:
            outcome = await run_in_thread(self._learn, state, item.html, item.url)
            if outcome == "learned":
                self.stats.inc_value(f"{STATS_PREFIX}/learned/{state.label}")
                if state.pages >= self.config.min_pages:
                    self._release_label(state.label, "ready")
            elif outcome == "duplicate":
                self.stats.inc_value(f"{STATS_PREFIX}/duplicates/{state.label}")
            elif outcome == "error":
                self.stats.inc_value(f"{STATS_PREFIX}/errors/parse")
        if state.pages < self.config.min_pages and self.config.buffer_size > 0:
            mode = await self._hold(item, state.label)
        else:
            mode = "ready" if state.pages >= self.config.min_pages else "no_buffer"
        await self._extract_into(item, state, mode)
        return item

    def close_spider(self) -> None:
        self.release_all("close")
        if self.store is None:
            return
        for state in self.labels.values():
            if state.learned == 0 or state.pages == 0:
                continue
            try:
                self.store.save(state.label, state.wrapper)
            except (OSError, WrapperError) as exc:
                logger.error("cannot save the wrapper of %r: %s", state.label, exc)
                self.stats.inc_value(f"{STATS_PREFIX}/errors/save")
            else:
                self.stats.inc_value(f"{STATS_PREFIX}/wrappers_saved")
                logger.info(
                    "saved the wrapper of %r (%d pages, %d fields)",
                    state.label,
                    state.pages,
                    len(state.wrapper.fields),
                )

    def release_all_on_close(self) -> None:
        """``spider_closed``: nothing may stay held once the spider is gone."""
        self.release_all("close")

    # --- learning and extracting ---------------------------------------------------------

    def _label(self, label: str) -> _Label:
        state = self.labels.get(label)
        if state is not None:
            return state
        wrapper: Wrapper | None = None
        if self.store is not None:
            try:
                wrapper = self.store.load(label)
            except (OSError, WrapperError) as exc:
                logger.warning("ignoring the stored wrapper of %r: %s", label, exc)
                self.stats.inc_value(f"{STATS_PREFIX}/errors/load")
        if wrapper is not None:
            self.stats.inc_value(f"{STATS_PREFIX}/wrappers_loaded")
            logger.info("reusing the stored wrapper of %r (%d pages)", label, wrapper.pages)
            wrapper.label = wrapper.label or label
        else:
            wrapper = Wrapper(label=label)
        wrapper.lam = self.config.lam
        wrapper.min_fit = self.config.min_fit
        wrapper.structured = self.config.jsonld
        state = self.labels[label] = _Label(label, wrapper, wrapper.pages)
        return state

    def _learn(self, state: _Label, html: str, url: str | None) -> str:
        """Worker thread: parse and learn one page (and recompile). Returns ``"learned"``,
        ``"duplicate"`` (a page learned already), ``"full"`` (the wrapper reached
        ``PAGESIM_INDUCTION_MAX_PAGES`` meanwhile) or ``"error"`` (not parseable)."""
        try:
            root = parse_html(html, structured=state.wrapper.structured, base_url=url)
        except PageParseError as exc:
            logger.warning("page item of %r not learned: %s", state.label, exc)
            return "error"
        with state.lock:
            if state.pages >= self.config.max_pages:
                return "full"
            if not state.wrapper.add_page(root):
                return "duplicate"
            state.learned += 1
            state.wrapper.compiled()
        return "learned"

    async def _extract_into(self, item: PageItem, state: _Label, mode: str) -> None:
        ready = state.pages >= self.config.min_pages
        result: Extraction | None = None
        if state.pages > 0 and item.html:
            result = await run_in_thread(self._extract, state, item.html, item.url)
        status = "ready" if ready else "partial"
        self._finish(item, result, state, status if mode != "skipped" else mode)
        self.stats.inc_value(f"{STATS_PREFIX}/extracted/{status}")

    @staticmethod
    def _extract(state: _Label, html: str, url: str | None) -> Extraction:
        return state.wrapper.extract(html, url=url)

    def _finish(
        self, item: PageItem, result: Extraction | None, state: _Label | None, status: str
    ) -> None:
        """Fill the item's record(s) and induction verdict; drop the HTML unless kept."""
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
            record = dict(result.record)
            if status == "partial" and record:
                record["pagesim_wrapper"] = "partial"
            item.record = record
            if state is not None and result.ok and state.wrapper.kind == "list":
                item.records = list(result.records)
        item.verdict = {**item.verdict, "induction": info}
        if not self.config.keep_html:
            item.html = None

    # --- holding items -------------------------------------------------------------------

    async def _hold(self, item: PageItem, label: str) -> str:
        held = _Held(item, label, time.monotonic())
        self.held.append(held)
        self.stats.inc_value(f"{STATS_PREFIX}/held")
        while len(self.held) > self.config.buffer_size:
            self._release(self.held[0], "overflow")
        self.stats.max_value(f"{STATS_PREFIX}/held_max", len(self.held))
        self._ensure_watch()
        return await maybe_deferred_to_future(held.waiter)

    def _release(self, held: _Held, why: str) -> None:
        try:
            self.held.remove(held)
        except ValueError:
            return
        self.stats.inc_value(f"{STATS_PREFIX}/released/{why}")
        if not held.waiter.called:
            held.waiter.callback(why)

    def _release_label(self, label: str, why: str) -> None:
        for held in [h for h in self.held if h.label == label]:
            self._release(held, why)

    def release_all(self, why: str) -> None:
        for held in list(self.held):
            self._release(held, why)
        self._stop_watch()

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
                self._release(held, "timeout")
        if self.held and self._crawl_idle():
            self._idle_checks += 1
            if self._idle_checks >= IDLE_CHECKS:
                logger.info(
                    "nothing left to crawl: releasing %d held page item(s) with partial wrappers",
                    len(self.held),
                )
                self.release_all("idle")
        else:
            self._idle_checks = 0
        if not self.held:
            self._stop_watch()

    def _closing(self) -> bool:
        """The engine is closing the spider (CLOSESPIDER_*, a shutdown): it waits for the
        items in the pipelines, so held items must go now."""
        engine = getattr(self.crawler, "engine", None) if self.crawler is not None else None
        try:
            slot = engine.scraper.slot if engine is not None else None
            return bool(slot is not None and slot.closing)
        except (AttributeError, RuntimeError):
            return False

    def _crawl_idle(self) -> bool:
        """True when no request is downloading or scheduled and no response waits for its
        callback: only the held items keep the crawl open, no more page items will come."""
        engine = getattr(self.crawler, "engine", None) if self.crawler is not None else None
        if engine is None:
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
