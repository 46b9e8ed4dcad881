"""Starting pagesim when the spider opens: the templates, the classifier, the state files, the
fleet, the second look, and the gate that keeps early responses waiting until then."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from scrapy.exceptions import CloseSpider
from scrapy.utils.asyncio import call_later
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.defer import Deferred

from pagesim_scrapy.core.classify import build_classifier
from pagesim_scrapy.core.content import ContentScorer
from pagesim_scrapy.core.decide import PageDecider, site_classifier
from pagesim_scrapy.core.guard import check_templates, format_warnings
from pagesim_scrapy.core.secondlook import SecondLook
from pagesim_scrapy.fleet import start_fleet_sync
from pagesim_scrapy.middlewares.closing import ExampleWatch, describe_thresholds
from pagesim_scrapy.middlewares.drift import DriftWatch
from pagesim_scrapy.middlewares.meta import LOGGER_NAME
from pagesim_scrapy.middlewares.spider import crawl_state
from pagesim_scrapy.middlewares.workarounds import exit_non_zero
from pagesim_scrapy.settings import PageSimConfig, PageSimConfigError
from pagesim_scrapy.templates import (
    TemplateError,
    TemplateLoadStopped,
    load_templates,
    project_root,
)

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from scrapy.statscollectors import StatsCollector

    from pagesim_scrapy.core.cluster import OnlineDiscovery
    from pagesim_scrapy.core.decide import Classifier
    from pagesim_scrapy.core.state.sync import FleetSync
    from pagesim_scrapy.core.summary import SummaryOptions
    from pagesim_scrapy.middlewares.statefiles import StateFiles

logger = logging.getLogger(LOGGER_NAME)

#: Spider close reasons when pagesim cannot start.
CLOSE_REASON_TEMPLATES = "pagesim_template_error"
CLOSE_REASON_CONFIG = "pagesim_config_error"
#: Spider close reason when the crawl was stopped (Ctrl-C) while the templates loaded.
CLOSE_REASON_SHUTDOWN = "shutdown"

#: How long a response waits for the templates when DOWNLOAD_TIMEOUT is not known.
DEFAULT_READY_TIMEOUT = 180.0

#: Settings that may end a crawl before it runs dry (then no page is held for the second
#: look: a held page reaches the spider only when the crawl runs dry).
_EARLY_STOPS = (
    "CLOSESPIDER_TIMEOUT",
    "CLOSESPIDER_TIMEOUT_NO_ITEM",
    "CLOSESPIDER_ITEMCOUNT",
    "CLOSESPIDER_PAGECOUNT",
    "CLOSESPIDER_PAGECOUNT_NO_ITEM",
    "CLOSESPIDER_ERRORCOUNT",
)


class PageSimStartError(Exception):
    """pagesim could not start while the spider opened (a template that cannot be loaded...);
    ``reason`` is the spider's close reason."""

    def __init__(self, reason: str, message: str, level: int = logging.ERROR) -> None:
        super().__init__(message)
        self.reason = reason
        self.level = level


def classifier_threshold(config: PageSimConfig) -> float | str | dict[str, float]:
    """PAGESIM_THRESHOLD as the classifier takes it (labels left out of a dict are "auto")."""
    threshold = config.threshold
    if isinstance(threshold, Mapping):
        return {label: v for label, v in threshold.items() if not isinstance(v, str)}
    return threshold


class Readiness:
    """The gate responses wait at until the templates are loaded (or failed to load).

    The templates load while the spider opens, before the spider's requests are sent, so
    only responses to requests sent during start-up by other components can arrive before
    that; ``timeout`` keeps any such response from waiting forever.
    """

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.ready = False  # templates loaded (or none needed): responses may be classified
        self.failed: str | None = None  # close reason when templates could not be loaded
        self._waiters: list[Deferred[None]] = []

    @classmethod
    def of(cls, crawler: Crawler | None) -> Readiness:
        """The gate of ``crawler``: a response waits at most DOWNLOAD_TIMEOUT (then it is not
        classified)."""
        if crawler is None:
            return cls(DEFAULT_READY_TIMEOUT)
        return cls(crawler.settings.getfloat("DOWNLOAD_TIMEOUT", DEFAULT_READY_TIMEOUT))

    def open(self) -> None:
        self.ready = True
        self._release()

    def fail(self, reason: str) -> None:
        self.failed = reason
        self._release()

    def _release(self) -> None:
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.called:
                waiter.callback(None)

    async def wait(self) -> bool:
        """Wait (at most ``timeout`` seconds) until pagesim has started or failed to; whether
        it is ready."""
        if not self.ready and self.failed is None:
            waiter: Deferred[None] = Deferred()
            self._waiters.append(waiter)
            timer = call_later(self.timeout, self._stop_waiting, waiter) if self.timeout else None
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
            self.timeout,
        )
        waiter.callback(None)


@dataclass
class Started:
    """What pagesim runs with once the spider is open."""

    config: PageSimConfig
    decider: PageDecider
    classifier: Classifier | None = None
    discovery: OnlineDiscovery | None = None
    content: ContentScorer | None = None
    fleet: FleetSync | None = None
    second_look: SecondLook[Request] | None = None
    #: the layout-change alarm (PAGESIM_DRIFT_ENABLED, with templates)
    drift: DriftWatch | None = None


@dataclass
class Startup:
    """Start pagesim for a spider (:meth:`start`); a failure raises PageSimStartError."""

    config: PageSimConfig
    stats: StatsCollector
    options: SummaryOptions
    state_files: StateFiles
    readiness: Readiness
    crawler: Crawler | None
    #: called when a site with pages waiting for the second look has settled
    on_site_settled: Callable[[str | None], object]
    #: the handler of a failed start (see exit_non_zero; signals hold weak references)
    _let_go: Callable[[], None] | None = field(default=None, init=False, repr=False)
    #: the advice on weak examples at close (see ExampleWatch)
    examples: ExampleWatch | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        # made now so that it hears spider_closed before the middleware's close summary
        self.examples = ExampleWatch(self.stats, self.crawler)

    async def open(self, spider: Spider) -> Started:
        """:meth:`start`, or close the spider with one ERROR line.

        Raising CloseSpider here makes Scrapy close the spider before any request is sent. The
        reason, the ERROR line and ``scrapy crawl``'s exit status 1 (see
        :func:`~pagesim_scrapy.middlewares.workarounds.exit_non_zero`) tell the failure; any
        other place to load the templates through the crawl comes before other components
        (HTTP cache, AutoThrottle) have opened.
        """
        cause: Exception | None = None
        try:
            return await self.start(spider)
        except PageSimStartError as exc:
            logger.log(exc.level, "%s", exc)
            reason = exc.reason
        except Exception as exc:  # a bug must not leave requests waiting forever
            logger.error("pagesim could not start: %s", exc, exc_info=True)
            reason, cause = CLOSE_REASON_CONFIG, exc
        self.stats.set_value("pagesim/start_error", reason)
        self.readiness.fail(reason)
        if reason != CLOSE_REASON_SHUTDOWN:  # a stop asked for is not a failure
            self._let_go = exit_non_zero(self.crawler)
        raise CloseSpider(reason) from cause

    async def start(self, spider: Spider) -> Started:
        """Load the templates (URLs through the crawl), build the classifier and the rest."""
        config = self._spider_config(spider)
        # ValueError for a query without terms; validate() has refused those already
        content = (
            ContentScorer(config.query, learn=True, scope="main") if config.content_wanted else None
        )
        discovery = self.state_files.start_discovery(config) if config.discovery_enabled else None
        if not config.templates:  # discovery only: the discovered types are the labels
            return self._discovering(config, discovery, content)
        if self.crawler is not None:
            crawl_state(self.crawler).targets = config.target_labels
        summaries = await self._load_templates(config)
        classifier = self._classifier(config, summaries)
        self._check_templates(summaries)
        if self.examples is not None and site_classifier(classifier) is not None:
            self.examples.classifier = classifier  # the advice reads the site models
        self.state_files.load_site_models(config, classifier)
        fleet = start_fleet_sync(
            config, self.stats, classifier=classifier, discovery=discovery, content=content
        )
        second_look, hold = self._second_look(config, classifier, fleet)
        started = Started(
            config,
            self._decider(config, classifier, discovery, content, second_look, hold),
            classifier,
            discovery,
            content,
            fleet,
            second_look,
            DriftWatch.start(config, self.stats, self.state_files, self.crawler),
        )
        logger.info(
            "pagesim: classifying pages with %s against the templates of %s; targets: %s; "
            "action: %s; "
            "thresholds: %s",
            config.method,
            ", ".join(f"{label} ({len(pages)})" for label, pages in summaries.items()),
            ", ".join(sorted(config.target_labels)),
            config.action,
            describe_thresholds(classifier),
        )
        return started

    def _spider_config(self, spider: Spider) -> PageSimConfig:
        try:
            config = self.config.with_spider(spider)
            config.check_ready()
        except PageSimConfigError as exc:
            raise PageSimStartError(
                CLOSE_REASON_CONFIG, f"pagesim: invalid configuration, closing the spider: {exc}"
            ) from None
        return config

    def _discovering(
        self,
        config: PageSimConfig,
        discovery: OnlineDiscovery | None,
        content: ContentScorer | None,
    ) -> Started:
        """Discovery without templates: every page gets its discovered type as its label."""
        targets = config.target_labels
        if self.crawler is not None:
            crawl_state(self.crawler).targets = targets or None
        fleet = start_fleet_sync(
            config, self.stats, classifier=None, discovery=discovery, content=content
        )
        decider = self._decider(config, None, discovery, content, None, config.hold_unsettled)
        logger.info(
            "pagesim: no templates; discovering page types with %s (threshold %.3f); "
            "targets: %s; action: %s",
            config.discovery_method,
            discovery.threshold if discovery is not None else 0.0,
            ", ".join(sorted(targets)) or "every discovered type",
            config.action,
        )
        return Started(config, decider, None, discovery, content, fleet)

    async def _load_templates(self, config: PageSimConfig) -> dict[str, list[Any]]:
        try:
            return await load_templates(
                config.templates,
                self.crawler,
                self.options,
                base_dir=project_root(),
                max_per_label=config.max_templates_per_label,
            )
        except TemplateLoadStopped:
            raise PageSimStartError(
                CLOSE_REASON_SHUTDOWN,
                "pagesim: the crawl was stopped while the templates loaded",
                logging.INFO,
            ) from None
        except TemplateError as exc:
            raise PageSimStartError(
                CLOSE_REASON_TEMPLATES,
                f"pagesim: cannot load a template page, closing the spider: {exc}",
            ) from None

    def _classifier(self, config: PageSimConfig, summaries: dict[str, list[Any]]) -> Classifier:
        try:
            classifier: Classifier = build_classifier(
                summaries,
                method=config.method,
                params=config.method_params,
                threshold=classifier_threshold(config),
                aggregate=config.aggregate,
                summary_options=self.options,
                adapt_after=config.adapt_after,
                policy=config.site_policy,
            )
        except ValueError as exc:
            raise PageSimStartError(
                CLOSE_REASON_CONFIG, f"pagesim: invalid configuration, closing the spider: {exc}"
            ) from None
        return classifier

    def _check_templates(self, summaries: dict[str, list[Any]]) -> None:
        """Warn, by template, about degenerate templates (tiny, error pages, duplicates, unlike
        each other); they are still used, as each warning says."""
        warnings = check_templates(summaries)
        for line in format_warnings(warnings):
            logger.warning("pagesim: %s", line)
        for warning in warnings:
            self.stats.inc_value(f"pagesim/template_warnings/{warning.kind}")

    def _second_look(
        self, config: PageSimConfig, classifier: Classifier, fleet: FleetSync | None
    ) -> tuple[SecondLook[Request] | None, bool]:
        """The second look, and whether unsettled pages are held for it.

        The pages turned away are recorded for a second look when the crawl is idle: with the
        site-aware method, when a page turned away is lost to the spider or its items (drop,
        or tag with PAGESIM_FILTER_ITEMS), or in tag mode the pages deferred until their
        verdict settles (PAGESIM_HOLD_UNSETTLED); not in a crawl fleet (its workers go idle
        whenever the shared queue runs dry, not only at the end)."""
        hold = config.hold_unsettled
        sites = site_classifier(classifier)
        if not config.second_look or sites is None:
            return None, hold
        if fleet is not None or not (config.action == "drop" or config.filter_items or hold):
            return None, hold
        second_look: SecondLook[Request] = SecondLook(sites, config.target_labels)
        early = self.may_stop_early()
        if hold and early:
            # a held page reaches the spider only when the crawl runs dry
            logger.info(
                "pagesim: no page is held for the second look (PAGESIM_HOLD_UNSETTLED): %s may "
                "end this crawl before it runs dry",
                early,
            )
            hold = False
        return second_look, hold

    def may_stop_early(self) -> str | None:
        """The setting that may end the crawl before it runs dry, if one is set: a
        CLOSESPIDER_* limit, or JOBDIR (a paused crawl forgets what it held)."""
        if self.crawler is None:
            return None
        settings = self.crawler.settings
        for name in _EARLY_STOPS:
            if settings.getfloat(name, 0):
                return name
        return "JOBDIR" if settings.get("JOBDIR") else None

    def _decider(
        self,
        config: PageSimConfig,
        classifier: Classifier | None,
        discovery: OnlineDiscovery | None,
        content: ContentScorer | None,
        second_look: SecondLook[Request] | None,
        hold: bool,
    ) -> PageDecider:
        drop = config.action == "drop"
        return PageDecider(
            classifier,
            discovery=discovery,
            content=content,
            second_look=second_look,
            targets=config.target_labels,
            drop=drop,
            # tag mode without item filtering: the spider gets every page with its verdict,
            # so an unsettled verdict (either way) is deferred to the second look
            defer=not drop and not config.filter_items,
            hold=hold,
            explore=config.explore_fraction,
            relevance_threshold=(config.relevance_threshold if config.query is not None else None),
            relevance_min_pages=config.relevance_min_pages,
            on_site_settled=self.on_site_settled,
        )
