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
  more than ``PAGESIM_INDUCTION_BUFFER_SIZE`` items are held (the oldest goes), when the held
  pages take more than half of ``SCRAPER_SLOT_MAX_ACTIVE_SIZE`` (the oldest go; see below),
  when it has waited ``PAGESIM_INDUCTION_WAIT`` seconds, when the crawl has nothing else left
  to do (a label that never gets enough pages), and at spider close. No item is lost or
  dropped.
* holding an item keeps its response in Scrapy's scraper slot until ``process_item`` returns
  (the scraper counts a response's body in the slot's active size until every item of that
  response is processed, and the engine stops sending requests while that size exceeds
  ``SCRAPER_SLOT_MAX_ACTIVE_SIZE``). There is no public way for a pipeline to hand the item on
  later without holding the response (dropping it and injecting it again would run the earlier
  pipelines twice and count it as dropped), so held pages are kept within a byte budget:
  their bodies (as Scrapy counts them, at least 1 KB each) stay within half of
  ``SCRAPER_SLOT_MAX_ACTIVE_SIZE``, and whenever the slot is over its limit while items are
  held, the oldest held items are released until it is not. Held items therefore never stop
  the downloader; a larger ``SCRAPER_SLOT_MAX_ACTIVE_SIZE`` lets more pages wait for their
  wrapper (at the cost of memory). Stats ``pagesim/induction/released/memory`` and
  ``pagesim/induction/held_bytes_max``.
* at most ``PAGESIM_INDUCTION_MAX_LABELS`` labels get a wrapper in one crawl (a memory bound,
  stored wrappers included): page items of further labels pass at once with an empty record
  and a ``reason`` (stat ``pagesim/induction/skipped/label_limit``, one WARNING).
* the wrappers of a crawl hold at most ``PAGESIM_INDUCTION_MAX_NODES`` template nodes
  together (a memory bound, stored wrappers included; a node takes about 2.2 KB, learned and
  compiled): once they do, no wrapper learns more pages in this crawl, and page items are
  extracted with the wrappers as they are (stat ``pagesim/induction/not_learned/node_limit``,
  one WARNING; ``pagesim/induction/nodes_max``). The worker thread also hands the memory
  freed by parsed pages back to the system (glibc's ``malloc_trim``) after every relearning
  and every 100 pages.
* learning and extracting run in one worker thread of the pipeline's own, one page at a time
  (a page is parsed once, for both; stat ``pagesim/induction/time_ms``, the thread's CPU):
  the work is pure Python under the GIL, so more threads would not run it faster, and each
  more thread would take a larger share of the interpreter away from the reactor that
  downloads (with asyncio's default executor, up to 5 of 6 shares).
* the same pages give the same wrapper whatever order they arrive in (issue 14, item 6): a
  label learns each page as it comes (so that early items get a partial record), and when it
  becomes ready (``PAGESIM_INDUCTION_MIN_PAGES`` pages) and again at spider close, its
  wrapper is learned afresh from the pages learned so far in a fixed order (largest first,
  then by content: :func:`~pagesim_scrapy.core.induce.wrapper.page_order_key`, as
  :func:`~pagesim_scrapy.core.induce.induce` does; stat ``pagesim/induction/relearned``).
  This costs a second learning of each page (twice for a page learned before readiness,
  once for a later one), in the worker thread, unless the pages came in that order with no
  compile between them (stat ``pagesim/induction/relearn_skipped``); the pages are kept,
  compressed, until spider close (at most ``PAGESIM_INDUCTION_MAX_PAGES`` per label). What
  may still differ between two crawls of the same pages: which pages a label learns when more
  than ``PAGESIM_INDUCTION_MAX_PAGES`` arrive, or once the wrappers reach
  ``PAGESIM_INDUCTION_MAX_NODES`` (the first ones); the wrapper between readiness and
  close while more pages come (it learns them in arrival order), and so the records of the
  items extracted meanwhile and their field names (names are fixed when a wrapper is compiled:
  the close-time relearning may name a field differently); the partial records of items
  released before their label is ready; and a wrapper that continues a stored one (its stored
  pages cannot be learned again: new pages are added in arrival order). The saved wrapper of a
  label learned in one crawl, and every record extracted with it later, do not depend on the
  order.
* at spider close the wrappers are saved through ``PAGESIM_INDUCTION_STORE`` (default: JSON
  files under the project's data dir, ``.scrapy/pagesim/wrappers/<label>.json``) and the
  next crawl starts from them. A stored wrapper that cannot be used (corrupt, hostile, another
  format) is logged once as an ERROR, moved aside to ``<label>.json.corrupt`` and the label
  is learned afresh (stat ``pagesim/state/corrupt``).
* one page never costs its item: a page that cannot be parsed, learned or extracted (whatever
  the exception) leaves its item with an empty record and a ``reason`` in its verdict, a stat
  and a WARNING; the label's wrapper is not touched by a page that fails to parse.

Stats: ``pagesim/induction/...``, ``pagesim/state/...``.
"""

from __future__ import annotations

import asyncio
import ctypes
import logging
import re
import sys
import threading
import time
import zlib
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.utils.asyncio import create_looping_call, is_asyncio_available
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.misc import build_from_crawler, load_object
from scrapy.utils.project import data_path
from twisted.internet.defer import Deferred

if TYPE_CHECKING:
    from typing import TypeVar

    _T = TypeVar("_T")

from pagesim_scrapy.core.induce import (
    Extraction,
    Wrapper,
    WrapperError,
    parse_html,
)
from pagesim_scrapy.core.induce.dom import Element, forget_page
from pagesim_scrapy.core.induce.wrapper import page_order_key
from pagesim_scrapy.core.statefile import (
    CorruptStateError,
    describe_error,
    read_state,
    remove_stale_temp_files,
)
from pagesim_scrapy.items import PageItem
from pagesim_scrapy.settings import DEFAULTS, INDUCTION_SETTINGS, SETTINGS, shared_state_url

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
#: The reason an item gets when its label is beyond ``PAGESIM_INDUCTION_MAX_LABELS``.
LABEL_LIMIT_REASON = "no wrapper: %d labels have one already (PAGESIM_INDUCTION_MAX_LABELS)"
#: Stats of the files kept between crawls (shared with the discovery file).
STATE_STATS_PREFIX = "pagesim/state"
#: How often held items are checked for time-outs, the scraper slot and an idle crawl (seconds).
WATCH_INTERVAL = 0.1
#: Consecutive idle checks before held items are released because nothing else will come.
IDLE_CHECKS = 2
#: Scrapy's scraper counts a response as at least this many bytes (``Slot.MIN_RESPONSE_SIZE``).
MIN_RESPONSE_SIZE = 1024
#: The share of ``SCRAPER_SLOT_MAX_ACTIVE_SIZE`` that held pages may take.
HELD_SHARE = 0.5


@dataclass(frozen=True)
class InductionConfig:
    """The pipeline's settings, read with Scrapy's typed getters."""

    enabled: bool = SETTING_DEFAULTS["PAGESIM_INDUCTION_ENABLED"]
    min_pages: int = SETTING_DEFAULTS["PAGESIM_INDUCTION_MIN_PAGES"]
    max_pages: int = SETTING_DEFAULTS["PAGESIM_INDUCTION_MAX_PAGES"]
    max_labels: int = SETTING_DEFAULTS["PAGESIM_INDUCTION_MAX_LABELS"]
    max_nodes: int = SETTING_DEFAULTS["PAGESIM_INDUCTION_MAX_NODES"]
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
            max_labels=settings.getint(
                "PAGESIM_INDUCTION_MAX_LABELS", d["PAGESIM_INDUCTION_MAX_LABELS"]
            ),
            max_nodes=settings.getint(
                "PAGESIM_INDUCTION_MAX_NODES", d["PAGESIM_INDUCTION_MAX_NODES"]
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
        if self.max_labels < 0:
            raise ValueError("PAGESIM_INDUCTION_MAX_LABELS must be >= 0 (0: no limit)")
        if self.max_nodes < 0:
            raise ValueError("PAGESIM_INDUCTION_MAX_NODES must be >= 0 (0: no limit)")
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
    ``build_from_crawler`` (so it may define ``from_crawler``).

    ``load`` may raise anything: the pipeline logs it and learns the label afresh (it counts a
    :class:`~pagesim_scrapy.core.statefile.CorruptStateError` as a corrupt file). A store may
    also define ``open()``, called when the spider opens, returning the stale temporary files
    it removed."""

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

    def open(self) -> list[Path]:
        """Remove the temporary files that a killed crawl's saves left in the folder (see
        :func:`~pagesim_scrapy.core.statefile.remove_stale_temp_files`); returns them."""
        return remove_stale_temp_files(self.directory, lambda name: name.endswith(".json"))

    def load(self, label: str) -> Wrapper | None:
        """The stored wrapper of ``label`` (None if there is none). Raises OSError when the
        file cannot be read, and :class:`~pagesim_scrapy.core.statefile.CorruptStateError`,
        after moving the file aside to ``<name>.corrupt``, when it cannot be used."""
        return read_state(self.path_for(label), _wrapper_from_json)

    def save(self, label: str, wrapper: Wrapper) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        wrapper.save(self.path_for(label))


def _wrapper_from_json(text: str) -> Wrapper:
    """A stored wrapper, compiled once here so that a file that passes the format checks but
    cannot be used fails now, at load, and not on every page."""
    wrapper = Wrapper.from_json(text)
    if wrapper.tree.root is not None:
        wrapper.compiled()
    return wrapper


# --- the pipeline --------------------------------------------------------------------------------


@dataclass(eq=False)
class _Held:
    """A page item waiting for its label's wrapper."""

    item: PageItem
    label: str
    since: float
    size: int = MIN_RESPONSE_SIZE  # the bytes the scraper slot counts for its response
    waiter: Deferred[str] = field(default_factory=Deferred)


#: A page kept for relearning: its canonical order key, compressed HTML, whether the HTML was
#: text, its URL.
_Source = tuple[tuple[int, bytes], bytes, bool, str | None]


class _Label:
    """Everything learned about one label in this crawl."""

    def __init__(self, label: str, wrapper: Wrapper, stored_pages: int) -> None:
        self.label = label
        self.wrapper = wrapper
        self.stored_pages = stored_pages
        self.learned = 0  # pages learned in this crawl
        self.lock = threading.Lock()  # learning happens in worker threads
        #: set when learning raised inside the wrapper: the tree may hold part of that page, so
        #: the label learns no more and its wrapper is not saved over the stored one
        self.failed: str | None = None
        #: the pages learned in this crawl, in arrival order, as (canonical order key,
        #: compressed HTML, whether it was text, URL): kept to learn them again in canonical
        #: order (see the module's docstring); None for a wrapper that continues a stored one
        self.sources: list[_Source] | None = [] if stored_pages == 0 else None
        #: how many of ``sources`` the wrapper was last learned from in canonical order
        self.relearned = 0
        #: template nodes of the wrapper (counted after each page learned)
        self.nodes = count_nodes(wrapper)
        #: the wrapper is what learning ``sources`` afresh in canonical order gives: every
        #: page came after the one before in that order and the wrapper was not compiled
        #: between them (relearning it would give the same wrapper, so it is skipped)
        self.in_order = True
        #: the canonical order key of the last page learned (while ``in_order``)
        self.last_key: tuple[int, bytes] | None = None
        #: ``wrapper.compilations`` when the last page was learned
        self.compilations = 0

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
        held_bytes: int | None = None,
    ) -> None:
        self.config = config
        self.stats = stats
        self.store = store
        self.crawler = crawler
        if held_bytes is None:
            max_active = 5_000_000  # Scrapy's default SCRAPER_SLOT_MAX_ACTIVE_SIZE
            if crawler is not None:
                max_active = crawler.settings.getint("SCRAPER_SLOT_MAX_ACTIVE_SIZE", max_active)
            held_bytes = int(max_active * HELD_SHARE)
        #: the bytes of held pages (as the scraper slot counts them) kept at most
        self.held_bytes_budget = held_bytes
        self.labels: dict[str, _Label] = {}
        self.held: deque[_Held] = deque()
        self._held_bytes = 0
        #: bytes of released items whose processing has not ended yet (still in the slot)
        self._leaving_bytes = 0
        self._watch: Any = None
        self._idle_checks = 0
        self._executor: ThreadPoolExecutor | None = None
        #: CPU seconds of the worker thread's learning and extracting (``time_ms`` stat)
        self._cpu_seconds = 0.0
        self._label_limit_logged = False
        #: page items waiting for (or in) their learning step
        self._learning = 0
        #: jobs given to the worker thread (every TRIM_EVERY-th is followed by a memory trim)
        self._jobs = 0
        #: template nodes over all wrappers (``PAGESIM_INDUCTION_MAX_NODES``)
        self.nodes = 0
        self._node_limit_logged = False

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
        if (
            config.store == SETTING_DEFAULTS["PAGESIM_INDUCTION_STORE"]
            and shared_state_url(crawler.settings) is not None
        ):
            # a crawl fleet: the wrappers live in the shared state with the rest
            store = cls._shared_store(crawler)
        else:
            store = build_from_crawler(load_object(config.store), crawler)
        pipeline = cls(config, crawler.stats, store, crawler)
        crawler.signals.connect(pipeline.release_all_on_close, signal=signals.spider_closed)
        return pipeline

    @staticmethod
    def _shared_store(crawler: Crawler) -> WrapperStore:
        """The fleet's wrapper store; the JSON files, after one ERROR, when it cannot be used
        (the redis package missing, a URL that is not redis://…)."""
        from pagesim_scrapy.fleet import SharedWrapperStore

        try:
            return build_from_crawler(SharedWrapperStore, crawler)
        except ImportError:
            logger.error(
                "pagesim: PAGESIM_STATE_URL/REDIS_URL is set but the redis package is missing "
                '(pip install "pagesim-scrapy[redis]"); wrappers are not shared'
            )
        except ValueError as exc:
            logger.error("pagesim: cannot share wrappers: %s", exc)
        return build_from_crawler(JsonFileWrapperStore, crawler)

    # --- Scrapy hooks ---------------------------------------------------------------------

    def open_spider(self) -> None:
        self.stats.set_value(f"{STATS_PREFIX}/enabled", 1)
        opener = getattr(self.store, "open", None)
        if callable(opener):
            try:
                removed = list(opener() or ())
            except Exception as exc:  # a custom store's failure must not stop the crawl
                logger.error("pagesim: the wrapper store failed to open: %s", describe_error(exc))
                return
            if removed:
                logger.info(
                    "pagesim: removed %d stale temporary wrapper file(s) left by an "
                    "interrupted save in %s",
                    len(removed),
                    removed[0].parent,
                )
                self.stats.inc_value(f"{STATE_STATS_PREFIX}/stale_temp_removed", len(removed))

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
        if state is None:  # PAGESIM_INDUCTION_MAX_LABELS labels have wrappers already
            why = "label_limit"  # one of the skipped/<why> reasons
            self.stats.inc_value(f"{STATS_PREFIX}/skipped/{why}")
            self._finish(item, None, None, "skipped")
            item.verdict["induction"]["reason"] = LABEL_LIMIT_REASON % self.config.max_labels
            return item
        failure: str | None = None  # why this page could not be learned
        root: Element | None = None  # the page parsed for learning, reused for extraction
        if state.pages < self.config.max_pages and state.failed is None:
            self._learning += 1  # an item still learning may make its label ready
            try:
                outcome, failure, root = await self._in_worker(
                    self._learn, state, item.html, item.url
                )
            finally:
                self._learning -= 1
            if outcome == "learned":
                self.stats.inc_value(f"{STATS_PREFIX}/learned/{state.label}")
                if state.pages >= self.config.min_pages:
                    self._release_label(state.label, "ready")
            elif outcome == "duplicate":
                self.stats.inc_value(f"{STATS_PREFIX}/duplicates/{state.label}")
            elif outcome == "error":
                self.stats.inc_value(f"{STATS_PREFIX}/errors/parse")
            elif outcome == "failed":
                self.stats.inc_value(f"{STATS_PREFIX}/errors/learn")
            elif outcome == "node_limit":
                self.stats.inc_value(f"{STATS_PREFIX}/not_learned/node_limit")
        if state.pages < self.config.min_pages and self.config.buffer_size > 0:
            root = None  # a held item keeps its HTML only, not a parsed tree (memory)
            held = _Held(item, state.label, time.monotonic(), _body_size(item.html))
            try:
                mode = await self._hold(held)
                await self._extract_into(item, state, mode, failure)
            finally:
                self._leaving_bytes -= held.size
            return item
        mode = "ready" if state.pages >= self.config.min_pages else "no_buffer"
        await self._extract_into(item, state, mode, failure, root)
        return item

    async def close_spider(self) -> None:
        self.release_all("close")
        for state in self.labels.values():
            if state.sources and state.failed is None:
                await self._in_worker(self._relearn_locked, state)
        if self._executor is not None:
            self._executor.shutdown(wait=False)
            self._executor = None
        if self.store is None:
            return
        for state in self.labels.values():
            if state.learned == 0 or state.pages == 0:
                continue
            if state.failed is not None:
                logger.warning(
                    "pagesim: the wrapper of %r is not saved: learning failed in this crawl (%s)",
                    state.label,
                    state.failed,
                )
                self.stats.inc_value(f"{STATS_PREFIX}/errors/save")
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

    async def _in_worker(self, func: Callable[..., _T], *args: Any) -> _T:
        """Run ``func(*args)`` in the pipeline's worker thread (one, see the module's
        docstring) and wait for it without blocking the reactor."""
        if self._executor is None:
            self._executor = ThreadPoolExecutor(1, thread_name_prefix="pagesim-induction")
        self._jobs += 1
        if self._jobs % TRIM_EVERY == 0:
            self._executor.submit(_trim_memory)
        future: Future[tuple[_T, float]] = self._executor.submit(_timed, func, *args)
        if is_asyncio_available():
            result, seconds = await asyncio.wrap_future(future)
        else:
            from twisted.internet import reactor

            waiter: Deferred[tuple[_T, float]] = Deferred()

            def done(_: Future[tuple[_T, float]]) -> None:
                # Future.result() re-raises the worker's exception, into the Deferred's errback
                reactor.callFromThread(_settle, waiter, future)

            future.add_done_callback(done)
            result, seconds = await maybe_deferred_to_future(waiter)
        self._cpu_seconds += seconds
        self.stats.set_value(f"{STATS_PREFIX}/time_ms", round(self._cpu_seconds * 1000))
        return result

    def _label(self, label: str) -> _Label | None:
        """The label's state, created (from the store, or empty) at its first page; None
        when ``PAGESIM_INDUCTION_MAX_LABELS`` labels exist already (logged once)."""
        state = self.labels.get(label)
        if state is not None:
            return state
        if 0 < self.config.max_labels <= len(self.labels):
            if not self._label_limit_logged:
                self._label_limit_logged = True
                logger.warning(
                    "pagesim: %d labels have wrappers (PAGESIM_INDUCTION_MAX_LABELS): page items "
                    "of further labels, %r first, get no record in this crawl",
                    len(self.labels),
                    label,
                )
            return None
        wrapper: Wrapper | None = None
        if self.store is not None:
            # whatever happens, the label's state is created below: the load is never retried
            try:
                wrapper = self.store.load(label)
            except CorruptStateError as exc:
                logger.error(
                    "pagesim: the stored wrapper of %r is unusable, learning it afresh: %s",
                    label,
                    exc,
                )
                self.stats.inc_value(f"{STATE_STATS_PREFIX}/corrupt")
                self.stats.inc_value(f"{STATS_PREFIX}/errors/load")
            except Exception as exc:  # any store, any failure: the crawl goes on
                logger.error(
                    "pagesim: cannot load the stored wrapper of %r, learning it afresh: %s",
                    label,
                    describe_error(exc),
                )
                self.stats.inc_value(f"{STATS_PREFIX}/errors/load")
                wrapper = None
            if wrapper is not None and not isinstance(wrapper, Wrapper):
                logger.error(
                    "pagesim: the wrapper store gave a %s for %r, not a Wrapper; learning afresh",
                    type(wrapper).__name__,
                    label,
                )
                self.stats.inc_value(f"{STATS_PREFIX}/errors/load")
                wrapper = None
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
        self.nodes += state.nodes  # a stored wrapper's nodes count too
        return state

    def _learn(
        self, state: _Label, html: str, url: str | None
    ) -> tuple[str, str | None, Element | None]:
        """Worker thread: parse and learn one page. Returns the outcome, for a failure why,
        and the parsed page (None after an error) so that extraction need not parse it
        again. Outcomes: ``"learned"``, ``"duplicate"`` (a page learned already), ``"full"``
        (the wrapper reached ``PAGESIM_INDUCTION_MAX_PAGES`` meanwhile), ``"node_limit"``
        (the wrappers reached ``PAGESIM_INDUCTION_MAX_NODES``), ``"error"`` (not
        parseable, or any exception while parsing: the wrapper is untouched) or
        ``"failed"`` (an exception inside the wrapper's learning step). Never raises.

        The wrapper is compiled here only once the label is ready (its items are extracted
        at once): before that, the label is learned again in canonical order at readiness
        (or close) anyway, and its held items compile it when they are released, once for
        all of them, instead of once per page learned."""
        try:
            root = parse_html(html, structured=state.wrapper.structured, base_url=url)
        except Exception as exc:  # PageParseError, or lxml/json/url errors on hostile pages
            reason = f"cannot parse the page: {describe_error(exc)}"
            logger.warning("pagesim: page item %s of %r not learned: %s", url, state.label, reason)
            return "error", reason, None
        with state.lock:
            if state.failed is not None:
                return "full", None, root
            if state.pages >= self.config.max_pages:
                return "full", None, root
            if self._over_node_budget():
                return "node_limit", None, root
            try:
                if not state.wrapper.add_page(root):
                    return "duplicate", None, root
                state.learned += 1
                self._recount(state)
                if state.sources is not None:
                    key = page_order_key(root)
                    self._note_order(state, key)
                    text = isinstance(html, str)
                    data = html.encode("utf-8", "surrogatepass") if isinstance(html, str) else html
                    state.sources.append((key, zlib.compress(data, 1), text, url))
                    if state.learned == self.config.min_pages:
                        self._relearn(state)
                    if state.pages >= self.config.max_pages:
                        # the label learns no more pages: its close-time relearning can be
                        # done now, and its pages need not be kept until close
                        self._relearn(state)
                        if state.sources is not None:
                            self.stats.inc_value(f"{STATS_PREFIX}/sources_released/full")
                            state.sources = None
                if state.pages >= self.config.min_pages or state.sources is None:
                    # compiling names fields for good: a wrapper that will not be learned
                    # again in canonical order is compiled after every page, as always
                    state.wrapper.compiled()
            except Exception as exc:
                # a bug in learning, triggered by this page: the tree may hold part of it
                reason = f"learning failed: {describe_error(exc)}"
                state.failed = reason
                logger.error(
                    "pagesim: page item %s of %r: %s; the label learns no more pages in this "
                    "crawl and its wrapper will not be saved",
                    url,
                    state.label,
                    reason,
                )
                return "failed", reason, None
        return "learned", None, root

    def _recount(self, state: _Label) -> None:
        """Worker thread, under ``state.lock``: the label's wrapper changed."""
        nodes = count_nodes(state.wrapper)
        self.nodes += nodes - state.nodes
        state.nodes = nodes
        self.stats.max_value(f"{STATS_PREFIX}/nodes_max", self.nodes)

    def _over_node_budget(self) -> bool:
        """``PAGESIM_INDUCTION_MAX_NODES`` reached: no wrapper learns more (WARNING once)."""
        limit = self.config.max_nodes
        if not limit or self.nodes < limit:
            return False
        if not self._node_limit_logged:
            self._node_limit_logged = True
            logger.warning(
                "pagesim: the wrappers hold %d template nodes (PAGESIM_INDUCTION_MAX_NODES %d): "
                "they learn no more pages in this crawl; page items are still extracted",
                self.nodes,
                limit,
            )
        return True

    @staticmethod
    def _note_order(state: _Label, key: tuple[int, bytes]) -> None:
        """Worker thread, under ``state.lock``, just after a page of canonical order ``key``
        was learned: is the wrapper still the one canonical-order learning gives?"""
        if state.in_order:
            state.in_order = state.wrapper.compilations == state.compilations and (
                state.last_key is None or key > state.last_key
            )
            state.last_key = key
        state.compilations = state.wrapper.compilations

    def _relearn_locked(self, state: _Label) -> None:
        with state.lock:
            if state.failed is None:
                self._relearn(state)

    def _relearn(self, state: _Label) -> None:
        """Worker thread, under ``state.lock``: learn the label's wrapper afresh from the pages
        it learned in this crawl, in canonical order (nothing to do when it learned none since
        the last time). Skipped when the pages came in canonical order with no compile
        between them (``in_order``: one page, or pages that arrived sorted): the wrapper is then
        the one relearning gives. A compile between pages (after readiness, or for an item
        released early) names fields for good, so such a wrapper is learned afresh. The kept
        pages are parsed one at a time, in their order. A failure keeps the wrapper as
        learned, in arrival order, with a WARNING."""
        sources = state.sources
        if not sources or state.relearned == len(sources):
            return
        if state.in_order:  # learned in canonical order already (one page, or sorted)
            state.relearned = len(sources)
            if len(sources) > 1:
                self.stats.inc_value(f"{STATS_PREFIX}/relearn_skipped")
            return
        old = state.wrapper
        try:
            wrapper = Wrapper(
                label=old.label, lam=old.lam, min_fit=old.min_fit, structured=old.structured
            )
            # in canonical order (as Wrapper.add_pages learns them), one parsed page at a
            # time: the trees of a full label's pages together take hundreds of MB
            for _, data, text, url in sorted(sources, key=lambda source: source[0]):
                raw = zlib.decompress(data)
                page = raw.decode("utf-8", "surrogatepass") if text else raw
                wrapper.add_page(parse_html(page, structured=old.structured, base_url=url))
            forget_page()
            wrapper.compiled()
        except Exception as exc:  # the same pages were learned once already: a bug
            logger.warning(
                "pagesim: cannot learn the wrapper of %r again in canonical order, keeping "
                "it as learned in arrival order: %s",
                state.label,
                describe_error(exc),
            )
            state.sources = None
            return
        state.wrapper = wrapper
        self._recount(state)
        _trim_memory()  # the old wrapper and the parsed pages are gone
        state.relearned = len(sources)
        # compiled after its last page: the next page learned is out of order
        state.in_order, state.last_key, state.compilations = True, None, 0
        self.stats.inc_value(f"{STATS_PREFIX}/relearned")

    async def _extract_into(
        self,
        item: PageItem,
        state: _Label,
        mode: str,
        failure: str | None = None,
        root: Element | None = None,
    ) -> None:
        ready = state.pages >= self.config.min_pages
        result: Extraction | None = None
        if state.pages > 0 and item.html:
            page = item.html if root is None else root
            result = await self._in_worker(self._extract, state, page, item.url)
        elif failure is not None:  # nothing to extract with, but the item says why it is empty
            result = Extraction({}, [], 0.0, failure)
        status = "ready" if ready else "partial"
        self._finish(item, result, state, status if mode != "skipped" else mode)
        self.stats.inc_value(f"{STATS_PREFIX}/extracted/{status}")

    @staticmethod
    def _extract(state: _Label, page: str | Element, url: str | None) -> Extraction:
        """Worker thread: apply the label's wrapper to the page's HTML, or to its tree as
        :meth:`_learn` parsed it (the same options: the same tree). Never raises: any failure
        gives an empty record and a reason (the wrapper is only read)."""
        try:
            return state.wrapper.extract(page, url=url)
        except Exception as exc:  # lxml/json/url errors on a hostile page, or a bug
            reason = f"extraction failed: {describe_error(exc)}"
            logger.warning(
                "pagesim: no record for page item %s of %r: %s", url, state.label, reason
            )
            return Extraction({}, [], 0.0, reason)
        finally:
            forget_page()  # the page's tree is not needed any more

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

    async def _hold(self, held: _Held) -> str:
        """Wait until ``held`` is released; returns why. The caller subtracts ``held.size``
        from ``_leaving_bytes`` once the item's processing is over."""
        self.held.append(held)
        self._held_bytes += held.size
        self.stats.inc_value(f"{STATS_PREFIX}/held")
        while len(self.held) > self.config.buffer_size:
            self._release(self.held[0], "overflow")
        self._make_room()
        if held.waiter.called:  # released at once
            return str(held.waiter.result)
        self.stats.max_value(f"{STATS_PREFIX}/held_max", len(self.held))
        self.stats.max_value(f"{STATS_PREFIX}/held_bytes_max", self._held_bytes)
        self._ensure_watch()
        return await maybe_deferred_to_future(held.waiter)

    def _make_room(self) -> None:
        """Release the oldest held items while held pages exceed their byte budget, or while
        the scraper slot is over ``SCRAPER_SLOT_MAX_ACTIVE_SIZE`` (the engine then sends no
        request) and held pages are part of what it counts."""
        while self.held and self._held_bytes > self.held_bytes_budget:
            self._release(self.held[0], "memory")
        slot = self._scraper_slot()
        if slot is None or not self.held:
            return
        try:
            excess = int(slot.active_size) - int(slot.max_active_size)
        except (AttributeError, TypeError, ValueError):
            return
        # released items leave the slot once their processing ends: count them as gone
        excess -= self._leaving_bytes
        while self.held and excess >= 0:  # the engine backs out above max_active_size
            excess -= self.held[0].size
            self._release(self.held[0], "memory")

    def _scraper_slot(self) -> Any:
        engine = getattr(self.crawler, "engine", None) if self.crawler is not None else None
        try:
            return engine.scraper.slot if engine is not None else None
        except (AttributeError, RuntimeError):
            return None

    def _release(self, held: _Held, why: str) -> None:
        try:
            self.held.remove(held)
        except ValueError:
            return
        self._held_bytes -= held.size
        self._leaving_bytes += held.size
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
        self._make_room()
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
        slot = self._scraper_slot()
        return bool(slot is not None and getattr(slot, "closing", None))

    def _crawl_idle(self) -> bool:
        """True when no request is downloading or scheduled, no response waits for its
        callback and no page item is still being learned (it may make a label ready): only
        the held items keep the crawl open, no more page items will come."""
        engine = getattr(self.crawler, "engine", None) if self.crawler is not None else None
        if engine is None or self._learning:
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


def count_nodes(wrapper: Wrapper) -> int:
    """The template nodes of a wrapper's tree."""
    root = wrapper.tree.root
    if root is None:
        return 0
    count, stack = 0, [root]
    while stack:
        node = stack.pop()
        count += 1
        stack.extend(node.children)
    return count


def _body_size(html: str | bytes | None) -> int:
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


def _timed(func: Callable[..., _T], *args: Any) -> tuple[_T, float]:
    """Worker thread: ``func(*args)`` and the thread's CPU seconds it took."""
    started = time.thread_time()
    result = func(*args)
    return result, time.thread_time() - started


#: Worker jobs between two :func:`_trim_memory` calls.
TRIM_EVERY = 100


def _load_malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None (another C library, another system)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)
        trim = libc.malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


_MALLOC_TRIM = _load_malloc_trim()


def _trim_memory() -> None:
    """Hand the memory that freed parsed pages leave in the C allocator back to the system.
    Parsing a page takes many MB in small blocks that glibc keeps, per thread arena, once
    they are freed: without this the crawl's RSS grows far past what it uses. A few ms."""
    if _MALLOC_TRIM is not None:
        _MALLOC_TRIM(0)


def _settle(waiter: Deferred[Any], future: Future[Any]) -> None:
    try:
        result = future.result()
    except BaseException as exc:
        waiter.errback(exc)
    else:
        waiter.callback(result)
