"""Classify every HTML response against the template pages, and hand verdicts to items.

``PageSimDownloaderMiddleware`` (priority ~545: after decompression, redirects and retries)
builds a page summary from the response's own selector (the one parse the spider callback
reuses), classifies it, writes the verdict to ``request.meta["pagesim"]`` (the callback reads
``response.meta["pagesim"]``), adds a ``pagesim:<label>`` response flag, and tags or drops
non-target pages. With ``PAGESIM_QUERY`` / ``PAGESIM_MAIN_TEXT`` target pages also get their
relevance and main text (seed 001), and with ``PAGESIM_DISCOVERY_ENABLED`` every HTML response
gets a discovered page type (``cluster``), with or without templates.
``PageSimSpiderMiddleware`` adds :class:`~pagesim_scrapy.items.PageItem`\\ s
for target pages and remembers which page each of the spider's items came from, so that
:class:`~pagesim_scrapy.pipelines.filter.PageSimFilterPipeline` can judge them.
"""

from __future__ import annotations

import logging
import zlib
from collections import Counter, defaultdict
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import replace
from functools import partial
from pathlib import Path
from time import thread_time
from typing import TYPE_CHECKING, Any, TypeVar
from weakref import WeakKeyDictionary, proxy

from scrapy import Request, signals
from scrapy.exceptions import CloseSpider, DontCloseSpider, IgnoreRequest, NotConfigured
from scrapy.http import HtmlResponse, Response, TextResponse
from scrapy.http.request import NO_CALLBACK
from scrapy.spidermiddlewares.base import BaseSpiderMiddleware
from scrapy.utils.asyncio import call_later
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.project import data_path
from twisted.internet.defer import Deferred

from pagesim_scrapy.core.classify import TemplateClassifier, build_classifier
from pagesim_scrapy.core.cluster import OnlineDiscovery
from pagesim_scrapy.core.content import ContentScorer
from pagesim_scrapy.core.guard import check_templates, format_warnings
from pagesim_scrapy.core.secondlook import SecondLook
from pagesim_scrapy.core.site import SavedSite, site_key
from pagesim_scrapy.core.siteaware import SiteAwareClassifier
from pagesim_scrapy.core.sitefile import MAX_SITES as SITE_MODELS_MAX_SITES
from pagesim_scrapy.core.sitefile import parse_site_models, site_models_text
from pagesim_scrapy.core.statefile import (
    CorruptStateError,
    read_state,
    remove_stale_temp_files,
    write_atomic,
)
from pagesim_scrapy.core.summary import PageParseError, SummaryOptions, summarize_tree
from pagesim_scrapy.crawlreport import CrawlReportCollector
from pagesim_scrapy.fleet import start_fleet_sync, stop_fleet_sync
from pagesim_scrapy.items import PageItem
from pagesim_scrapy.settings import PageSimConfig, PageSimConfigError
from pagesim_scrapy.templates import TemplateError, load_templates, project_root

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler
    from scrapy.statscollectors import StatsCollector
    from typing_extensions import Self

    from pagesim_scrapy.core.state.sync import FleetSync

logger = logging.getLogger(__name__)

#: Request meta key holding the verdict; the callback reads ``response.meta[META_KEY]``.
META_KEY = "pagesim"
#: Request meta key that, when true, makes pagesim leave the request and its response alone.
DONT_META_KEY = "dont_pagesim"
#: ``request.meta`` key of a page requested again for its second look (see
#: :mod:`pagesim_scrapy.core.secondlook`): decided without counting it into its site twice
SECOND_LOOK_META_KEY = "pagesim_second_look"
#: Its value for a page deferred in tag mode: the spider gets it whatever its new verdict
OWED = "owed"
#: ``request.meta`` key of a page requested again: its first verdict's label, score and
#: discovered cluster (the page is not counted into the discovery twice)
FIRST_VERDICT_META_KEY = "pagesim_first_verdict"
#: ``request.meta`` key of a held page requested again: the token of its response, kept
#: in memory, which the middleware returns instead of downloading the page a second time
REPLAY_META_KEY = "pagesim_replay"
#: Held pages' responses kept at most, in body bytes (past it, a held page that passes on the
#: second look is downloaded again)
HELD_RESPONSES_MAX_BYTES = 64 * 2**20
#: Prefix of the response flag naming the label (shown in the "Crawled" log line).
FLAG_PREFIX = "pagesim:"
#: Flag label of pages no label matched.
UNMATCHED_FLAG = "unmatched"

#: How a threshold was set, in words (keys: LabelThreshold.source).
_THRESHOLD_SOURCES = {
    "given": "set",
    "prior": "auto, from the templates",
    "distribution": "auto, from the scores seen",
    "nearest": "auto, the nearest type above the other types' templates",
}

#: Sites whose thresholds the close summary names (the ones with the most pages).
SUMMARY_SITES = 3

#: Spider close reasons when pagesim cannot start.
CLOSE_REASON_TEMPLATES = "pagesim_template_error"
CLOSE_REASON_CONFIG = "pagesim_config_error"

#: How long a response waits for the templates when DOWNLOAD_TIMEOUT is not known.
DEFAULT_READY_TIMEOUT = 180.0

#: Where discovered page types are kept when PAGESIM_DISCOVERY_FILE is not set (in the
#: project's data dir, ``.scrapy/``).
DEFAULT_DISCOVERY_FILE = "pagesim/discovery.json"
DEFAULT_SITE_MODELS_FILE = "pagesim/sites.json"


class HeldForSecondLook(IgnoreRequest):
    """A page held back until its site's cut has settled (the site past its young pages, or
    the crawl dry), when it reaches the spider with a settled verdict
    (``PAGESIM_HOLD_UNSETTLED``): a request's errback gets this first, and the page later, so
    an errback can tell it from a page that is lost."""


class PageSimStartError(Exception):
    """pagesim could not start while the spider opened (a template that cannot be loaded...);
    ``reason`` is the spider's close reason."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


#: Attribute set on an exception whose message pagesim has logged already.
_REPORTED = "_pagesim_reported"


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
_E = TypeVar("_E", bound=BaseException)
_T = TypeVar("_T")


def reported(error: _E) -> _E:
    """Mark ``error`` as logged already, so that asyncio does not log it again."""
    setattr(error, _REPORTED, True)
    asyncio_logger = logging.getLogger("asyncio")
    if _DROP_REPORTED_ERRORS not in asyncio_logger.filters:
        asyncio_logger.addFilter(_DROP_REPORTED_ERRORS)
    return error


def explore_selected(url: str, fraction: float) -> bool:
    """Whether a dropped page is let through to explore: a stable hash of the URL decides."""
    if fraction <= 0.0:
        return False
    if fraction >= 1.0:
        return True
    return zlib.crc32(url.encode("utf-8", "surrogatepass")) < fraction * 4294967296.0


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


def classifier_threshold(config: PageSimConfig) -> float | str | dict[str, float]:
    """PAGESIM_THRESHOLD as the classifier takes it (labels left out of a dict are "auto")."""
    threshold = config.threshold
    if isinstance(threshold, Mapping):
        return {label: v for label, v in threshold.items() if not isinstance(v, str)}
    return threshold


def verdict_of(response: Response | None) -> dict[str, Any] | None:
    """The verdict pagesim gave ``response`` (None for unclassified responses)."""
    request = response.request if response is not None else None
    if request is None:
        return None
    verdict = request.meta.get(META_KEY)
    return verdict if isinstance(verdict, dict) else None


def _parsed_root(response: TextResponse) -> Any:
    """The root of the response's parsed page, through ``response.selector`` (parsed once,
    for the callback too) with the selector's link back to the response made weak.

    Scrapy's selector and its response refer to each other, so a parsed response is freed only
    by Python's cyclic garbage collector, not when Scrapy lets go of it; a crawl whose process
    holds a large long-lived state (discovery's site models, wrappers) runs that collector
    rarely, and the pages parsed meanwhile pile up with their lxml trees, bodies and decoded
    text: 130 to 290 parsed pages, 0.25 to 0.5 GB, in issue 14's soak crawl. With the link weak
    each page goes as soon as it is no longer used; ``selector.response`` still works while the
    response is alive.
    """
    selector = response.selector
    if selector.response is response:
        selector.response = proxy(response)
    return selector.root


class PageSimDownloaderMiddleware:
    """Classify HTML responses; tag (meta, flag, stats) or drop the non-target ones."""

    def __init__(
        self,
        config: PageSimConfig,
        stats: StatsCollector,
        crawler: Crawler | None = None,
    ) -> None:
        self.config = config
        self.stats = stats
        self.crawler = crawler
        self.options: SummaryOptions = config.summary_options()
        self.classifier: TemplateClassifier | SiteAwareClassifier | None = None
        self.discovery: OnlineDiscovery | None = None
        self.discovery_path: Path | None = None
        #: where the site models are saved at close (None: not saved)
        self.site_models_path: Path | None = None
        self.content: ContentScorer | None = None
        #: shares the learned state with a crawl fleet (PAGESIM_STATE_URL / REDIS_URL)
        self.fleet: FleetSync | None = None
        self.ready = False  # templates loaded (or none needed): responses may be classified
        self.failed: str | None = None  # close reason when templates could not be loaded
        self._waiters: list[Deferred[None]] = []
        # a response waits at most this long for the templates (then it is not classified)
        self.ready_timeout = (
            crawler.settings.getfloat("DOWNLOAD_TIMEOUT", DEFAULT_READY_TIMEOUT)
            if crawler is not None
            else DEFAULT_READY_TIMEOUT
        )
        self._apply(config)
        # running totals for the closing summary
        self._label_counts: Counter[str | None] = Counter()
        self._score_sums: defaultdict[str | None, float] = defaultdict(float)
        self._seconds = 0.0
        self._dropped = 0
        self._explored = 0
        self._skipped: Counter[str] = Counter()
        self._relevance_scored = 0
        self._off_topic = 0
        # PAGESIM_REPORT: verdicts gathered for the HTML report written at close
        self.report = CrawlReportCollector() if config.report else None
        #: PAGESIM_SECOND_LOOK: the pages turned away, decided again when the crawl is idle
        self.second_look: SecondLook[Request] | None = None
        #: the responses of held pages (by id of their request), and those due again (by the
        #: token in their new request's meta), up to HELD_RESPONSES_MAX_BYTES
        self._held_responses: dict[int, Response] = {}
        self._replays: dict[int, Response] = {}
        self._held_bytes = 0
        self._requested_again = 0  # by the second look
        self._decided_again = 0  # responses of those decided (a replay or a new download)

    def _apply(self, config: PageSimConfig) -> None:
        self.config = config
        self._targets = config.target_labels
        self._drop = config.action == "drop"
        # tag mode without item filtering: the spider gets every page with its verdict, so an
        # unsettled verdict (either way) is deferred to the second look, not looked at again
        self._defer = not self._drop and not config.filter_items
        self._hold = config.hold_unsettled
        self._explore = config.explore_fraction
        self._max_body = config.max_body_size
        self._relevance_threshold = config.relevance_threshold if config.query is not None else None
        if config.content_wanted:
            # ValueError for a query without terms; validate() has refused those already
            self.content = ContentScorer(config.query, learn=True, scope="main")
        else:
            self.content = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        try:
            config = PageSimConfig.from_settings(crawler.settings, crawler.spidercls)
            if config.enabled and crawler.spider is not None:  # with the spider's attributes
                config.with_spider(crawler.spider).check_ready()
        except PageSimConfigError as exc:
            # the crawl fails to start (scrapy crawl exits 1) with this one line, no traceback
            logger.error("pagesim: invalid configuration: %s", exc)
            raise reported(exc) from None
        if not config.enabled:
            raise NotConfigured
        middleware = cls(config, crawler.stats, crawler)
        crawler.signals.connect(middleware.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(middleware.spider_closed, signal=signals.spider_closed)
        crawler.signals.connect(middleware.spider_idle, signal=signals.spider_idle)
        return middleware

    # -- start: templates ------------------------------------------------------------------

    async def spider_opened(self, spider: Spider) -> None:
        """Load the templates (URLs through the crawl) and build the classifier.

        Raising CloseSpider here makes Scrapy close the spider before any request is sent. The
        reason, the ERROR line and ``scrapy crawl``'s exit status 1 (see
        :meth:`_exit_non_zero`) tell the failure; any other place to load the templates through
        the crawl comes before other components (HTTP cache, AutoThrottle) have opened.
        """
        try:
            await self._start(spider)
        except PageSimStartError as exc:
            logger.error("%s", exc)
            self._fail(exc.reason)
            self._exit_non_zero()
            raise CloseSpider(exc.reason) from None
        except Exception as exc:  # a bug must not leave requests waiting forever
            logger.error("pagesim could not start: %s", exc, exc_info=True)
            self._fail(CLOSE_REASON_CONFIG)
            self._exit_non_zero()
            raise CloseSpider(CLOSE_REASON_CONFIG) from exc

    def _exit_non_zero(self) -> None:
        """Make ``scrapy crawl`` exit with status 1 after a failed start, so that schedulers
        (Scrapyd, cron, CI) see it.

        Scrapy 2.19's crawl command has no public way to say so: it exits 1 when the crawl's
        start-up raised *or when the crawler has no spider once the crawl is over*
        (``CrawlerProcess.bootstrap_failed``). So the crawler lets go of its spider when it
        closes: this handler is connected at the failure, after every component's own
        ``spider_closed`` handler (they get the spider as an argument), and the stats dump that
        follows does not need it.
        """
        crawler = self.crawler
        if crawler is None:
            return

        def let_go_of_the_spider() -> None:
            crawler.spider = None

        self._spider_closed_handler = let_go_of_the_spider  # signals keep weak references
        crawler.signals.connect(let_go_of_the_spider, signal=signals.spider_closed)

    async def _start(self, spider: Spider) -> None:
        try:
            config = self.config.with_spider(spider)
            config.check_ready()
        except PageSimConfigError as exc:
            raise PageSimStartError(
                CLOSE_REASON_CONFIG, f"pagesim: invalid configuration, closing the spider: {exc}"
            ) from None
        self._apply(config)
        if config.discovery_enabled:
            self._start_discovery(config)
        if not config.templates:  # discovery only: the discovered types are the labels
            if self.crawler is not None:
                crawl_state(self.crawler).targets = self._targets or None
            self._start_fleet(config)
            self.ready = True
            self._release()
            logger.info(
                "pagesim: no templates; discovering page types with %s (threshold %.3f); "
                "targets: %s; action: %s",
                config.discovery_method,
                self.discovery.threshold if self.discovery is not None else 0.0,
                ", ".join(sorted(self._targets)) or "every discovered type",
                config.action,
            )
            return
        if self.crawler is not None:
            crawl_state(self.crawler).targets = self._targets
        try:
            summaries = await load_templates(
                config.templates, self.crawler, self.options, base_dir=project_root()
            )
        except TemplateError as exc:
            raise PageSimStartError(
                CLOSE_REASON_TEMPLATES,
                f"pagesim: cannot load a template page, closing the spider: {exc}",
            ) from None
        try:
            classifier = build_classifier(
                summaries,
                method=config.method,
                params=config.method_params,
                threshold=classifier_threshold(config),
                aggregate=config.aggregate,
                summary_options=self.options,
                adapt_after=config.adapt_after,
            )
        except ValueError as exc:
            raise PageSimStartError(
                CLOSE_REASON_CONFIG, f"pagesim: invalid configuration, closing the spider: {exc}"
            ) from None
        self.classifier = classifier
        self._check_templates(summaries)
        self._load_site_models(config)
        self._start_fleet(config)
        self._start_second_look(config, classifier)
        self.ready = True
        self._release()
        logger.info(
            "pagesim: classifying pages with %s against the templates of %s; targets: %s; "
            "action: %s; "
            "thresholds: %s",
            config.method,
            ", ".join(f"{label} ({len(pages)})" for label, pages in summaries.items()),
            ", ".join(sorted(self._targets)),
            config.action,
            self._describe_thresholds(),
        )

    def _check_templates(self, summaries: dict[str, list[Any]]) -> None:
        """Warn, by template, about degenerate templates (tiny, error pages, duplicates, unlike
        each other); they are still used, as each warning says."""
        warnings = check_templates(summaries)
        for line in format_warnings(warnings):
            logger.warning("pagesim: %s", line)
        for warning in warnings:
            self.stats.inc_value(f"pagesim/template_warnings/{warning.kind}")

    def _start_second_look(
        self, config: PageSimConfig, classifier: TemplateClassifier | SiteAwareClassifier
    ) -> None:
        """Record the pages turned away for a second look when the crawl is idle: with the
        site-aware method, when a page turned away is lost to the spider or its items (drop,
        or tag with PAGESIM_FILTER_ITEMS), or in tag mode the pages deferred until their
        verdict settles (PAGESIM_HOLD_UNSETTLED); not in a crawl fleet (its workers go idle
        whenever the shared queue runs dry, not only at the end)."""
        if not config.second_look or not isinstance(classifier, SiteAwareClassifier):
            return
        if self.fleet is not None or not (self._drop or config.filter_items or self._hold):
            return
        self.second_look = SecondLook(classifier, self._targets)
        early = self._may_stop_early()
        if self._hold and early:
            # a held page reaches the spider only when the crawl runs dry
            logger.info(
                "pagesim: no page is held for the second look (PAGESIM_HOLD_UNSETTLED): %s may "
                "end this crawl before it runs dry",
                early,
            )
            self._hold = False

    def _may_stop_early(self) -> str | None:
        """The setting that may end the crawl before it runs dry, if one is set: a
        CLOSESPIDER_* limit, or JOBDIR (a paused crawl forgets what it held)."""
        if self.crawler is None:
            return None
        settings = self.crawler.settings
        for name in (
            "CLOSESPIDER_TIMEOUT",
            "CLOSESPIDER_TIMEOUT_NO_ITEM",
            "CLOSESPIDER_ITEMCOUNT",
            "CLOSESPIDER_PAGECOUNT",
            "CLOSESPIDER_PAGECOUNT_NO_ITEM",
            "CLOSESPIDER_ERRORCOUNT",
        ):
            if settings.getfloat(name, 0):
                return name
        return "JOBDIR" if settings.get("JOBDIR") else None

    def _start_fleet(self, config: PageSimConfig) -> None:
        """Share the site models, discovered types and relevance counts with a crawl fleet
        when PAGESIM_STATE_URL (or REDIS_URL) is set (see :mod:`pagesim_scrapy.fleet`)."""
        self.fleet = start_fleet_sync(
            config,
            self.stats,
            classifier=self.classifier,
            discovery=self.discovery,
            content=self.content,
        )

    def _load_site_models(self, config: PageSimConfig) -> None:
        """Start the sites from what the last crawl learned about them (method ``site``, no
        fleet: a fleet keeps its site models in Redis). A file that cannot be used is moved
        aside with one ERROR and the crawl learns its sites afresh; one summarised with other
        options is ignored with an INFO line and replaced at close."""
        classifier = self.classifier
        if (
            not isinstance(classifier, SiteAwareClassifier)
            or not config.site_models_save
            or config.state_url is not None
        ):
            return
        path = Path(config.site_models_file or data_path(DEFAULT_SITE_MODELS_FILE))
        self.site_models_path = path

        def parse(text: str) -> list[SavedSite]:
            sites = parse_site_models(text, self.options)
            if sites is None:
                logger.info(
                    "pagesim: the site models in %s were learned with other summary options "
                    "(PAGESIM_MAX_NODES, PAGESIM_MAX_DEPTH...); learning the sites afresh",
                    path,
                )
                return []
            return sites

        saved = self._read_state_file(path, parse, "site models")
        if not saved:
            return
        # this spider's pages without a host (file://) were saved under its name; other
        # spiders' stay under theirs, which no page's site matches, and are saved back as read
        # (an entry without a name, from an older file, is every spider's: left out)
        own = self._hostless_name()
        saved = [
            replace(site, site="") if site.site == own else site for site in saved if site.site
        ]
        if not saved:
            return
        classifier.adopt_saved(saved)
        self.stats.set_value("pagesim/site_models/loaded", len(saved))
        logger.info(
            "pagesim: starting %d site(s) from the site models saved in %s", len(saved), path
        )

    def _hostless_name(self) -> str:
        """The name this spider's pages without a host are saved under: file:// pages of one
        spider and of another (the demo shop, a snapshot of a blog) are not one site."""
        spider = getattr(self.crawler, "spider", None) if self.crawler is not None else None
        return f"(pages without a host: {getattr(spider, 'name', None) or 'spider'})"

    def _save_site_models(self, classifier: SiteAwareClassifier, path: Path) -> None:
        own = self._hostless_name()
        sites = [
            replace(site, site=own) if not site.site else site for site in classifier.export_sites()
        ]
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, site_models_text(sites, self.options))
        except OSError as exc:
            logger.error("pagesim: cannot save the site models to %s: %s", path, exc)
            self.stats.inc_value("pagesim/state/save_errors")
            return
        saved = min(len(sites), SITE_MODELS_MAX_SITES)
        self.stats.set_value("pagesim/site_models/saved", saved)
        logger.info("pagesim: site models of %d site(s) saved to %s", saved, path)

    def _start_discovery(self, config: PageSimConfig) -> None:
        """Build the online discovery, continuing from the saved types when there are some.

        The discovery summarises with the classifier's options, so one summary per response
        serves both. An unreadable file is logged and replaced at close.
        """
        path = Path(config.discovery_file or data_path(DEFAULT_DISCOVERY_FILE))
        self.discovery_path = path
        arguments: dict[str, Any] = {
            "method": config.discovery_method,
            "method_params": None,
            "threshold": config.discovery_threshold,
            "closeness": config.discovery_closeness,
            "max_clusters": config.discovery_max_clusters,
            "options": self.options,
        }
        discovery: OnlineDiscovery | None = self._load_discovery(path, arguments)
        if discovery is not None:
            logger.info(
                "pagesim: continuing page-type discovery with %d types from %s",
                len(discovery),
                path,
            )
        if discovery is None:
            discovery = OnlineDiscovery(**arguments)
        self.discovery = discovery

    def _load_discovery(self, path: Path, arguments: dict[str, Any]) -> OnlineDiscovery | None:
        """The saved discovery, or None (see :meth:`_read_state_file`)."""
        return self._read_state_file(
            path,
            lambda text: OnlineDiscovery.from_json(text, name=str(path), **arguments),
            "discovered page types",
        )

    def _read_state_file(self, path: Path, parse: Callable[[str], _T], what: str) -> _T | None:
        """A state file saved by an earlier crawl, parsed; None when there is none or it cannot
        be used: then one ERROR names the file and the reason, a corrupt file is moved aside to
        ``<name>.corrupt`` and counted in ``pagesim/state/corrupt``, and the crawl starts
        afresh. Stale temporary files of interrupted saves are removed first."""
        removed = remove_stale_temp_files(path.parent, lambda name: name == path.name)
        if removed:
            logger.info(
                "pagesim: removed %d stale temporary %s file(s) left by an interrupted save in %s",
                len(removed),
                what,
                path.parent,
            )
            self.stats.inc_value("pagesim/state/stale_temp_removed", len(removed))
        try:
            return read_state(path, parse)
        except CorruptStateError as exc:
            logger.error(
                "pagesim: cannot use the %s, starting afresh (the file is written anew at "
                "close): %s",
                what,
                exc,
            )
            self.stats.inc_value("pagesim/state/corrupt")
        except OSError as exc:
            logger.error("pagesim: cannot read the %s in %s, starting afresh: %s", what, path, exc)
            self.stats.inc_value("pagesim/state/unreadable")
        return None

    def _fail(self, reason: str) -> None:
        self.failed = reason
        self.stats.set_value("pagesim/start_error", reason)
        self._release()

    def _release(self) -> None:
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.called:
                waiter.callback(None)

    async def _wait_until_ready(self, timeout: float | None) -> bool:
        """Wait (at most ``timeout`` seconds) until the templates are loaded or failed to load.

        The templates load while the spider opens, before the spider's requests are sent, so
        only responses to requests sent during start-up by other components can arrive before
        that; the bound keeps any such response from waiting forever.
        """
        if not self.ready and self.failed is None:
            waiter: Deferred[None] = Deferred()
            self._waiters.append(waiter)
            timer = call_later(timeout, self._stop_waiting, waiter) if timeout else None
            try:
                await maybe_deferred_to_future(waiter)
            finally:
                if timer is not None:
                    timer.cancel()
        return self.ready

    def _stop_waiting(self, waiter: Deferred[None]) -> None:
        if waiter.called:
            return
        self._waiters.remove(waiter)
        logger.warning(
            "pagesim: templates not loaded after %.0f s (DOWNLOAD_TIMEOUT); a response is let "
            "through unclassified",
            self.ready_timeout,
        )
        waiter.callback(None)

    # -- per response ----------------------------------------------------------------------

    async def process_response(self, request: Request, response: Response) -> Response:
        meta = request.meta
        # NO_CALLBACK: a download for a component (robots.txt, a template, a media file), never
        # seen by the spider; it must not wait either (the templates may need it to load)
        if meta.get(DONT_META_KEY) or request.callback is NO_CALLBACK:
            return response
        if not self.ready and not await self._wait_until_ready(self.ready_timeout):
            return self._skip(meta, response, "not_ready")
        classifier = self.classifier
        discovery = self.discovery
        if not isinstance(response, HtmlResponse):
            return self._skip(meta, response, "not_html")
        if not 200 <= response.status < 300:
            return self._skip(meta, response, "http_status")
        body = response.body
        if not body or body.isspace():
            return self._skip(meta, response, "empty")
        if self._max_body and len(body) > self._max_body:
            return self._skip(meta, response, "too_large")

        try:
            # The parse is the callback's too (response.css() reuses it): not counted as ours.
            root = _parsed_root(response)
            started = thread_time()
            summary = summarize_tree(root, self.options, source=response.url)
            site = site_key(response.url)
            second_look = self.second_look
            again = bool(meta.get(SECOND_LOOK_META_KEY))
            features = None
            unsettled = False
            if second_look is not None and isinstance(classifier, SiteAwareClassifier):
                # already counted into its site the first time it was decided
                features = classifier.features(summary)
                verdict = classifier.classify(features, site=site, learn=not again)
                info = verdict.as_dict()
                if self._hold and not again:
                    # tag mode: the spider sees the verdict either way, so either way it waits
                    settles = classifier.settled if self._defer else classifier.holds
                    unsettled = not settles(verdict, site)
            elif classifier is not None:
                info = classifier.classify(summary, site=site).as_dict()
            else:
                info = {"label": None, "score": 0.0, "scores": {}, "method": None}
            first = meta.get(FIRST_VERDICT_META_KEY) if again else None
            if discovery is not None and first is not None:  # assigned (and learned) once
                info["cluster"] = first.get("cluster")
                info["cluster_score"] = first.get("cluster_score")
            elif discovery is not None:
                cluster, cluster_score, is_new = discovery.assign(
                    summary, source=response.url, html=response.text, site=site
                )
                info["cluster"] = cluster
                info["cluster_score"] = cluster_score
                if classifier is None:
                    info.update(
                        label=cluster,
                        score=cluster_score,
                        scores={cluster: cluster_score} if cluster is not None else {},
                        method=discovery.method,
                    )
                self._count_discovery(cluster, is_new)
        except PageParseError as exc:
            logger.debug("pagesim: cannot parse %s: %s", response.url, exc)
            return self._skip(meta, response, "unparseable")
        except Exception:  # never let one odd page break the crawl
            logger.warning("pagesim: cannot classify %s", response.url, exc_info=True)
            return self._skip(meta, response, "error")
        if (
            second_look is not None
            and not again
            and second_look.waits_on(site)
            and isinstance(classifier, SiteAwareClassifier)
            and not classifier.is_young(site)
        ):
            # the site is just past its young pages: its cut has settled, and its pages turned
            # away or held get their look now, not when the crawl runs dry (a long crawl may
            # not for hours, and a held page's links wait with it)
            self._look_again(partial(second_look.due_on, site), f"{site}'s cut settled")
        label = info["label"]
        score = float(info["score"])
        if classifier is not None or self._targets:
            target = label is not None and label in self._targets
        else:  # discovery only, no PAGESIM_TARGETS: every page of a discovered type
            target = label is not None
        # a target page on a verdict its young site may not keep waits for the second look
        # (PAGESIM_HOLD_UNSETTLED) while there is room to record it; its content is scored
        # (and learned) when it comes back, once. In tag mode any page whose verdict may not
        # last waits, and comes back whatever its verdict then.
        held = (
            (target or self._defer)
            and unsettled
            and second_look is not None
            and second_look.has_room()
        )
        if held:
            target = False
            info["held"] = True
        info["target"] = target
        if target and self.content is not None:
            target = self._add_content(info, root, response.url)
        self._seconds += thread_time() - started
        meta[META_KEY] = info
        owed = meta.get(SECOND_LOOK_META_KEY) == OWED
        deferred = held and self._defer
        # each page once: as first decided, or a deferred page as it reached the spider
        if self.report is not None and (owed or not (again or deferred)):
            self.report.add(info, response.url)
        response.flags.append(FLAG_PREFIX + (label or UNMATCHED_FLAG))
        stats = self.stats
        stats.inc_value("pagesim/response_count")
        if label is None:
            stats.inc_value("pagesim/unmatched")
        else:
            stats.inc_value(f"pagesim/label_count/{label}")
        # the summary has each page once, with its latest verdict
        first_label = first.get("label") if first is not None else None
        if first is not None and self._label_counts[first_label] > 0:
            self._label_counts[first_label] -= 1
            self._score_sums[first_label] -= float(first.get("score", 0.0))
        self._label_counts[label] += 1
        self._score_sums[label] += score
        self._decided_again += again
        if again and target:
            stats.inc_value("pagesim/second_look/kept")
        elif again:
            stats.inc_value("pagesim/second_look/turned_away")
        elif held:
            stats.inc_value("pagesim/second_look/held")
        # a page of no target label is recorded for the second look where it is lost: its
        # items dropped by the filter (tag mode), or the page itself (drop, not explored);
        # an off-topic page has its label, and the second look would not change that
        record = (
            features is not None and not again and not info["target"] and not info.get("off_topic")
        )
        if held and (self._drop or self._defer):  # counted in pagesim/second_look/held
            assert features is not None
            if self._record_for_second_look(request, features, site, held=True, owed=deferred):
                self._keep_held_response(request, response)
            logger.debug(
                "pagesim: held %s for the second look (label %s, score %.3f: its site's cut "
                "is still settling)",
                response.url,
                label,
                score,
            )
            raise HeldForSecondLook(
                f"pagesim: {response.url} is held for the second look (label {label}, "
                f"score {score:.3f})"
            )
        if target or not self._drop:
            # the spider gets the page now; in tag mode without filtering that is final
            recorded = (
                record
                and not self._defer
                and self._record_for_second_look(request, features, site, held)
            )
            if recorded and held:  # tag mode with filtering: replayed if it passes
                self._keep_held_response(request, response)
            return response
        if explore_selected(response.url, self._explore):
            info["explored"] = True
            self._explored += 1
            stats.inc_value("pagesim/explored")
            return response
        if record:
            self._record_for_second_look(request, features, site)
        self._dropped += 1
        stats.inc_value("pagesim/dropped")
        why = "off-topic" if info.get("off_topic") else "not a target"
        logger.debug(
            "pagesim: dropped %s (label %s, score %.3f, %s)", response.url, label, score, why
        )
        raise IgnoreRequest(
            f"pagesim: {response.url} is not a target page (label {label}, "
            f"score {score:.3f}, {why})"
        )

    def _keep_held_response(self, request: Request, response: Response) -> None:
        """Keep a held page's response to replay it if it passes on the second look: the page
        is not downloaded twice. Without the label flag and the content encoding (its body is
        decoded already), within HELD_RESPONSES_MAX_BYTES."""
        size = len(response.body)
        if self._held_bytes + size > HELD_RESPONSES_MAX_BYTES:
            return
        headers = response.headers.copy()
        headers.pop(b"Content-Encoding", None)
        flags = [flag for flag in response.flags if not flag.startswith(FLAG_PREFIX)]
        self._held_responses[id(request)] = response.replace(headers=headers, flags=flags)
        self._held_bytes += size

    def process_request(self, request: Request) -> Response | None:
        """A held page due again is replayed from memory (see _keep_held_response)."""
        token = request.meta.get(REPLAY_META_KEY)
        if token is None:
            return None
        stored = self._replays.pop(token, None)
        if stored is None:
            return None
        self._held_bytes -= len(stored.body)
        self.stats.inc_value("pagesim/second_look/replayed")
        return stored.replace(request=request)

    def _record_for_second_look(
        self, request: Request, features: Any, site: str, held: bool = False, owed: bool = False
    ) -> bool:
        """Record a page for the second look; whether it was (a held page's response is kept
        only then)."""
        assert self.second_look is not None
        if not self.second_look.record(request, features, site, held=held, owed=owed):
            return False
        self.stats.inc_value("pagesim/second_look/recorded")
        return True

    def spider_idle(self, spider: Spider) -> None:
        """The crawl has nothing else to do: decide the pages turned away again under the
        sites' cuts now, and request those that pass (once each; see
        :mod:`pagesim_scrapy.core.secondlook`)."""
        second_look = self.second_look
        if second_look is None or not len(second_look):
            return
        if self._look_again(second_look.due, "the crawl ran dry"):
            raise DontCloseSpider

    def _look_again(self, look: Callable[[], list[tuple[Request, Any]]], why: str) -> int:
        """Take a second look (``look``: ``due`` or ``due_on``) and request the pages due
        again, a held page's from the response kept in memory; the number requested."""
        second_look = self.second_look
        engine = self.crawler.engine if self.crawler is not None else None
        if second_look is None or engine is None:
            return 0
        looked_before, passed_before = second_look.looked, second_look.passed
        try:
            due = look()
        except Exception:  # a bug here must not keep the crawl from closing
            logger.warning("pagesim: the second look failed", exc_info=True)
            return 0
        looked = second_look.looked - looked_before
        self.stats.inc_value("pagesim/second_look/looked", looked)
        if self._defer:
            logger.info(
                "pagesim: second look (%s) at %d pages held while their site's cut settled: "
                "%d now pass under the sites' cuts; all are given to the spider with their "
                "verdicts now",
                why,
                looked,
                second_look.passed - passed_before,
            )
        else:
            logger.info(
                "pagesim: second look (%s) at %d pages turned away: "
                "%d now pass under the sites' cuts and are requested again",
                why,
                looked,
                len(due),
            )
        # the records looked at are forgotten: only the held responses of the pages due stay
        due_ids = {id(request) for request, _ in due}
        owed, replays = set(), {}
        looked_at, second_look.last_looked = second_look.last_looked, []
        for request, was_owed in looked_at:
            key = id(request)
            if was_owed:
                owed.add(key)
            stored = self._held_responses.pop(key, None)
            if stored is not None and key in due_ids:
                replays[key] = stored
            elif stored is not None:
                self._held_bytes -= len(stored.body)
        requested = 0
        for request, _ in due:
            meta = {key: value for key, value in request.meta.items() if key != META_KEY}
            meta[SECOND_LOOK_META_KEY] = OWED if id(request) in owed else True
            first = request.meta.get(META_KEY)
            if first is not None:
                kept = ("label", "score", "cluster", "cluster_score")
                meta[FIRST_VERDICT_META_KEY] = {key: first.get(key) for key in kept}
            stored = replays.get(id(request))
            if stored is not None:  # the token: the stored response's id, unique while kept
                self._replays[id(stored)] = stored
                meta[REPLAY_META_KEY] = id(stored)
            try:
                engine.crawl(request.replace(meta=meta, dont_filter=True))
            except Exception:  # the engine is closing: the rest cannot be requested
                logger.warning("pagesim: cannot request %s again", request.url, exc_info=True)
                break
            requested += 1
        self.stats.inc_value("pagesim/second_look/requested", requested)
        self._requested_again += requested
        return requested

    def _count_discovery(self, cluster: str | None, is_new: bool) -> None:
        stats = self.stats
        stats.inc_value("pagesim/discovery/pages")
        if is_new:
            stats.inc_value("pagesim/discovery/new")
        stats.inc_value(f"pagesim/discovery/{cluster or 'unassigned'}")

    def _add_content(self, info: dict[str, Any], root: Any, url: str) -> bool:
        """Add relevance / main text to a target page's verdict; False when it is off-topic.

        The relevance threshold only applies once PAGESIM_RELEVANCE_MIN_PAGES pages have been
        scored: the document frequencies learned from the first pages make a flat idf.
        """
        assert self.content is not None
        relevance, main_text = self.content.score(root)
        info["main_text"] = main_text
        if self.config.query is None or relevance is None:
            return True
        info["relevance"] = relevance
        self._relevance_scored += 1
        self.stats.inc_value("pagesim/relevance/scored")
        threshold = self._relevance_threshold
        if (
            threshold is None
            or relevance >= threshold
            or self._relevance_scored < self.config.relevance_min_pages
        ):
            return True
        info["off_topic"] = True
        info["target"] = False
        self._off_topic += 1
        self.stats.inc_value("pagesim/off_topic")
        logger.debug("pagesim: %s is off-topic (relevance %.3f < %.3f)", url, relevance, threshold)
        return False

    def _skip(self, meta: dict[str, Any], response: Response, reason: str) -> Response:
        meta.pop(META_KEY, None)  # a verdict copied from another response's meta is stale
        self._skipped[reason] += 1
        self.stats.inc_value(f"pagesim/skipped/{reason}")
        logger.debug("pagesim: not classified (%s): %s", reason, response)
        return response

    # -- end: summary ----------------------------------------------------------------------

    def _describe_thresholds(self) -> str:
        """The thresholds in force: with the site method, on the sites with the most pages
        (each site has its own), else the classifier's."""
        classifier = self.classifier
        if classifier is None:
            return "none"
        if isinstance(classifier, SiteAwareClassifier):
            # the crawl's sites (site None is the classifier's own, of the templates alone)
            pages = {
                site: classifier.site_model(site).pages
                for site in classifier.sites()
                if site is not None
            }
            busiest = sorted((s for s in pages if pages[s]), key=lambda s: (-pages[s], s))
            if busiest:
                parts = [
                    f"on {site or 'pages without a host'} ({pages[site]} pages): "
                    + self._label_thresholds(classifier.describe(site))
                    for site in busiest[:SUMMARY_SITES]
                ]
                if len(busiest) > SUMMARY_SITES:
                    more = len(busiest) - SUMMARY_SITES
                    parts.append(f"{more} more sites (PAGESIM_REPORT lists every site)")
                return "; ".join(parts)
        return self._label_thresholds(classifier.describe())

    @staticmethod
    def _label_thresholds(described: dict[str, Any]) -> str:
        parts = []
        for label, info in described["labels"].items():
            how = _THRESHOLD_SOURCES.get(info["threshold_source"], info["threshold_source"])
            parts.append(f"{label} {info['threshold']:.3f} ({how})")
        return ", ".join(parts)

    def spider_closed(self, spider: Spider, reason: str) -> None:
        self.stats.set_value("pagesim/time_ms", round(self._seconds * 1000.0, 1))
        if self.second_look is not None and self.second_look.over:
            self.stats.set_value("pagesim/second_look/not_recorded", self.second_look.over)
        waiting = self.second_look.waiting_held() if self.second_look is not None else 0
        if waiting:
            self.stats.set_value("pagesim/second_look/held_undelivered", waiting)
            logger.warning(
                "pagesim: %d pages held for the second look never reached the spider: the "
                "crawl closed (%s) before it ran dry. Set PAGESIM_HOLD_UNSETTLED = False for "
                "crawls that are stopped early",
                waiting,
                reason,
            )
        if self.fleet is not None:
            stop_fleet_sync(self.fleet, self.stats)
            self.fleet = None
        if self.classifier is not None:
            logger.info("%s", self.summary())
            if self.site_models_path is not None and isinstance(
                self.classifier, SiteAwareClassifier
            ):
                self._save_site_models(self.classifier, self.site_models_path)
        if self.discovery is not None and self.ready:
            self._close_discovery(self.discovery)
        if self.report is not None and self.config.report and self.ready:
            self._write_report(self.report, self.config.report)

    def _write_report(self, report: CrawlReportCollector, path: str) -> None:
        try:
            written = report.write(path)
        except OSError as exc:
            logger.error("pagesim: cannot write the crawl report to %s: %s", path, exc)
        else:
            logger.info("pagesim: crawl report of %d pages written to %s", report.pages, written)

    def _close_discovery(self, discovery: OnlineDiscovery) -> None:
        """Log the discovered types and a ready PAGESIM_TEMPLATES snippet; save them."""
        counts = discovery.counts()
        self.stats.set_value("pagesim/discovery/clusters", len(counts))
        logger.info(
            "pagesim: %d page types discovered over %d pages (%d unassigned): %s",
            len(counts),
            discovery.pages,
            discovery.unassigned,
            ", ".join(f"{label} {n}" for label, n in counts.items()) or "none",
        )
        if counts:
            logger.info(
                "pagesim: templates of the discovered types, ready for settings.py:\n%s",
                discovery.templates_snippet(),
            )
        if self.discovery_path is None:
            return
        try:
            discovery.save(self.discovery_path)
        except OSError as exc:
            logger.error(
                "pagesim: cannot save the discovered page types to %s: %s",
                self.discovery_path,
                exc,
            )
        else:
            logger.info("pagesim: discovered page types saved to %s", self.discovery_path)

    def summary(self) -> str:
        """One paragraph: pages per label with mean scores (a page decided again by the
        second look with its latest verdict), drops, skips, thresholds."""
        total = sum(self._label_counts.values())
        again = self._decided_again
        per_page = self._seconds * 1000.0 / total if total else 0.0
        assert self.classifier is not None
        parts = []
        for label in [*self.classifier.labels, None]:
            count = self._label_counts.get(label, 0)
            name = label if label is not None else "unmatched"
            if count:
                mean = self._score_sums[label] / count
                parts.append(f"{name} {count} (mean score {mean:.3f})")
            else:
                parts.append(f"{name} 0")
        skipped = sum(self._skipped.values())
        skipped_text = (
            f"{skipped} responses not classified ("
            + ", ".join(f"{reason} {n}" for reason, n in sorted(self._skipped.items()))
            + ")"
            if skipped
            else "no response skipped"
        )
        action = (
            f"{self._dropped} non-target pages dropped, {self._explored} let through to explore"
            if self._drop
            else "non-target pages tagged, not dropped"
        )
        if self.second_look is not None:
            look = self.second_look
            action += (
                f"; {look.held} pages held while their site's cut settled; second look at "
                f"{look.looked} pages turned away or held, {self._requested_again} requested "
                "again"
            )
        return (
            f"pagesim summary: {total} pages classified"
            + (f" ({again} of them twice: the second look)" if again else "")
            + f" with {self.config.method} in "
            f"{self._seconds * 1000.0:.1f} ms ({per_page:.2f} ms/page); per label: "
            f"{', '.join(parts)}; targets: {', '.join(sorted(self._targets))}; {action}; "
            f"{skipped_text}; thresholds: {self._describe_thresholds()}."
        )


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
        verdict = verdict_of(response)
        if verdict is None:
            async for obj in result:
                yield obj
            return
        if self.page_items and verdict.get("target") and isinstance(response, TextResponse):
            yield PageItem(
                url=response.url,
                label=verdict.get("label"),
                score=float(verdict.get("score", 0.0)),
                verdict=dict(verdict),
                html=response.text,
                relevance=verdict.get("relevance"),
                main_text=verdict.get("main_text"),
            )
        state = self.state
        field = self.label_field
        # Only items of non-target pages need remembering: the filter lets the rest through.
        remember = state.filtering and not verdict.get("target")
        async for obj in result:
            if not isinstance(obj, Request):
                if remember:
                    state.remember(obj, verdict)
                if field:
                    _set_field(obj, field, verdict.get("label"))
            yield obj


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
