"""The downloader middleware: gate, summarise, ask the core's
:class:`~pagesim_scrapy.core.decide.PageDecider`, then turn its decision into meta, a flag,
stats, log lines, and an ``IgnoreRequest`` for a page dropped or held."""

from __future__ import annotations

import logging
from time import thread_time
from typing import TYPE_CHECKING, Any

from scrapy import Request, signals
from scrapy.exceptions import DontCloseSpider, IgnoreRequest, NotConfigured
from scrapy.http import HtmlResponse, Response
from scrapy.http.request import NO_CALLBACK

from pagesim_scrapy.core.decide import DROP, HOLD, Decision
from pagesim_scrapy.core.secondlook import SecondLook
from pagesim_scrapy.core.summary import PageParseError, SummaryOptions, summarize_tree
from pagesim_scrapy.crawlreport import CrawlReportCollector
from pagesim_scrapy.fleet import stop_fleet_sync
from pagesim_scrapy.middlewares.closing import (
    CrawlTotals,
    close_discovery,
    summary_line,
    write_report,
)
from pagesim_scrapy.middlewares.counting import count_as_received, count_decision
from pagesim_scrapy.middlewares.holding import HeldForSecondLook, HeldPages, let_go_of_parse
from pagesim_scrapy.middlewares.meta import (
    DONT_META_KEY,
    FIRST_VERDICT_META_KEY,
    FLAG_PREFIX,
    LOGGER_NAME,
    META_KEY,
    OWED,
    SECOND_LOOK_META_KEY,
    UNMATCHED_FLAG,
)
from pagesim_scrapy.middlewares.sitekeys import SiteKeys
from pagesim_scrapy.middlewares.spider import crawl_state
from pagesim_scrapy.middlewares.startup import (
    Readiness,
    Started,
    Startup,
)
from pagesim_scrapy.middlewares.statefiles import StateFiles
from pagesim_scrapy.middlewares.workarounds import parsed_root, reported
from pagesim_scrapy.settings import PageSimConfig, PageSimConfigError

if TYPE_CHECKING:
    from pathlib import Path

    from scrapy import Spider
    from scrapy.crawler import Crawler
    from scrapy.statscollectors import StatsCollector
    from typing_extensions import Self

    from pagesim_scrapy.core.cluster import OnlineDiscovery
    from pagesim_scrapy.core.decide import Classifier

logger = logging.getLogger(LOGGER_NAME)


def unclassifiable(response: Response, max_body: int) -> str | None:
    """Why a response is not classified (a ``pagesim/skipped/<reason>`` stat), or None."""
    if not isinstance(response, HtmlResponse):
        return "not_html"
    if not 200 <= response.status < 300:
        return "http_status"
    body = response.body
    if not body or body.isspace():
        return "empty"
    if max_body and len(body) > max_body:
        return "too_large"
    return None


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
        self.readiness = Readiness.of(crawler)
        self.state_files = StateFiles(stats, self.options, crawler)
        self.holding = HeldPages(stats, crawler)
        self.totals = CrawlTotals()
        #: each response's site, by its URL's origin
        self.site_of = SiteKeys()
        self.startup = Startup(
            config,
            stats,
            self.options,
            self.state_files,
            self.readiness,
            crawler,
            self.holding.site_settled,
        )
        #: what pagesim runs with once the spider is open
        self.started: Started | None = None
        # PAGESIM_REPORT: verdicts gathered for the HTML report written at close
        self.report = CrawlReportCollector() if config.report else None

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

    # -- what pagesim runs with (None until the spider is open) ------------------------------

    @property
    def classifier(self) -> Classifier | None:
        return self.started.classifier if self.started is not None else None

    @property
    def discovery(self) -> OnlineDiscovery | None:
        return self.started.discovery if self.started is not None else None

    @property
    def second_look(self) -> SecondLook[Request] | None:
        return self.holding.second_look

    # -- signals -----------------------------------------------------------------------------

    async def spider_opened(self, spider: Spider) -> None:
        """Start pagesim (see :meth:`.Startup.open`); responses wait until then."""
        started = await self.startup.open(spider)
        self.config, self.started = started.config, started
        self.holding.second_look = started.second_look
        self.holding.defer = started.decider.defer
        self._hold_discovered_types(started)
        self.readiness.open()

    def _hold_discovered_types(self, started: Started) -> None:
        """``PAGESIM_DISCOVERY_HOLD``: pages whose discovered type is not settled wait in a
        second look of their own (discovery without templates and without a fleet, whose
        workers' types are regrouped apart)."""
        if not self.config.discovery_hold or started.discovery is None:
            return
        early = self.startup.may_stop_early()
        if started.fleet is not None or early:
            logger.info(
                "pagesim: no page is held for its discovered type (PAGESIM_DISCOVERY_HOLD): %s",
                f"{early} may end this crawl before it runs dry" if early else "a crawl fleet",
            )
            return
        second_look: SecondLook[Request] = SecondLook(None)
        if started.decider.hold_types(second_look, self.holding.types_settled):
            self.holding.second_look = second_look
            self.holding.discovery = started.discovery

    def spider_idle(self, spider: Spider) -> None:
        """The crawl has nothing else to do: decide the pages turned away again under the
        sites' cuts now, and request those that pass (once each; see
        :mod:`pagesim_scrapy.core.secondlook`)."""
        if self.holding.crawl_ran_dry():
            raise DontCloseSpider

    def spider_closed(self, spider: Spider, reason: str) -> None:
        # with the spider middleware's per-page work: one counter for all of pagesim's
        seconds = self.totals.seconds
        if self.crawler is not None:
            seconds += crawl_state(self.crawler).seconds
        self.stats.set_value("pagesim/time_ms", round(seconds * 1000.0, 1))
        self.holding.close(reason)
        started = self.started
        if started is not None and started.fleet is not None:
            stop_fleet_sync(started.fleet, self.stats)
            started.fleet = None
        if self.classifier is not None:
            logger.info("%s", self.summary())
            self.state_files.save_site_models(self.classifier)
        if started is not None and started.drift is not None and self.readiness.ready:
            started.drift.close(self.report if self.config.report else None)
        if self.discovery is not None and self.readiness.ready:
            close_discovery(self.discovery, self.stats, self.state_files)
        if self.report is not None and self.config.report and self.readiness.ready:
            examples = self.startup.examples
            write_report(self.report, self.config.report, examples.advice if examples else None)

    def summary(self) -> str:
        """The close summary line (see :func:`~.closing.summary_line`)."""
        assert self.started is not None and self.started.classifier is not None
        decider = self.started.decider
        return summary_line(
            self.totals,
            self.started.classifier,
            method=self.config.method,
            targets=decider.targets,
            drop=decider.drop,
            second_look=self.holding.second_look,
            requested_again=self.holding.requested_again,
        )

    def _load_discovery(self, path: Path, arguments: dict[str, Any]) -> OnlineDiscovery | None:
        """The saved discovery, or None (see :meth:`.StateFiles.read`)."""
        return self.state_files.load_discovery(path, arguments)

    # -- per response ------------------------------------------------------------------------

    def process_request(self, request: Request) -> Response | None:
        """A held page due again is replayed from memory (see :mod:`.holding`)."""
        return self.holding.replay(request)

    async def process_response(self, request: Request, response: Response) -> Response:
        meta = request.meta
        # NO_CALLBACK: a download for a component (robots.txt, a template, a media file), never
        # seen by the spider; it must not wait either (the templates may need it to load)
        if meta.get(DONT_META_KEY) or request.callback is NO_CALLBACK:
            return response
        if not self.readiness.ready and not await self.readiness.wait():
            return self._skip(meta, response, "not_ready")
        # pagesim/time_ms is all of the work below (gate, walk, decision, drift watch, meta,
        # stats, holding), less the parse that the callback reuses (see _decide)
        began = thread_time()
        try:
            return self._classify(request, response)
        finally:
            self.totals.seconds += thread_time() - began

    def _classify(self, request: Request, response: Response) -> Response:
        reason = unclassifiable(response, self.config.max_body_size)
        if reason is not None:
            return self._skip(request.meta, response, reason)
        decision = self._decide(request, response)
        if decision is None:
            return response
        self._publish(request, response, decision)
        return self._act(request, response, decision)

    def _decide(self, request: Request, response: Response) -> Decision | None:
        """Summarise the page from its parsed tree and ask the core; None when it was skipped
        (one odd page never breaks the crawl)."""
        assert self.started is not None and isinstance(response, HtmlResponse)
        meta = request.meta
        again = bool(meta.get(SECOND_LOOK_META_KEY))
        url = response.url
        try:
            # The parse is the callback's too (response.css() reuses it): not counted as ours.
            parse_began = thread_time()
            root = parsed_root(response)
            self.totals.seconds -= thread_time() - parse_began
            summary = summarize_tree(root, self.options, source=url)
            decision = self.started.decider.decide(
                summary,
                site=self.site_of(url),
                url=url,
                root=root,
                html=response.text,
                again=again,
                first=meta.get(FIRST_VERDICT_META_KEY) if again else None,
            )
        except PageParseError as exc:
            logger.debug("pagesim: cannot parse %s: %s", url, exc)
            self._skip(meta, response, "unparseable")
            return None
        except Exception:
            logger.warning("pagesim: cannot classify %s", url, exc_info=True)
            self._skip(meta, response, "error")
            return None
        if self.started.drift is not None:
            self.started.drift.observe(decision, summary, root, url)
        if self.startup.examples is not None:
            self.startup.examples.observe(url, summary, decision.site, decision.features)
        return decision

    def _publish(self, request: Request, response: Response, decision: Decision) -> None:
        """The decision as meta, flag, report entry, stats and totals."""
        assert self.started is not None
        meta = request.meta
        verdict = meta[META_KEY] = decision.as_meta()
        # each page once: as first decided, or a deferred page as it reached the spider
        owed = meta.get(SECOND_LOOK_META_KEY) == OWED
        if self.report is not None and (owed or not (decision.again or decision.owed)):
            self.report.add(verdict, response.url)
        response.flags.append(FLAG_PREFIX + (decision.label or UNMATCHED_FLAG))
        count_decision(self.stats, decision, response.url, self.started.decider.relevance_threshold)
        self.totals.count(decision, meta.get(FIRST_VERDICT_META_KEY) if decision.again else None)

    def _act(self, request: Request, response: Response, decision: Decision) -> Response:
        """Let the page through, or raise for a page dropped or held."""
        if decision.record:
            self.holding.record(request, response, decision)
        label, score, url = decision.label, float(decision.score), response.url
        if decision.action == HOLD:
            logger.debug(
                "pagesim: held %s for the second look (label %s, score %.3f: its site's cut "
                "is still settling)",
                url,
                label,
                score,
            )
            raise HeldForSecondLook(
                f"pagesim: {url} is held for the second look (label {label}, score {score:.3f})"
            )
        if decision.action != DROP:
            if decision.explored:
                self.totals.explored += 1
                self.stats.inc_value("pagesim/explored")
            return response
        self.totals.dropped += 1
        self.stats.inc_value("pagesim/dropped")
        why = "off-topic" if decision.off_topic else "not a target"
        logger.debug("pagesim: dropped %s (label %s, score %.3f, %s)", url, label, score, why)
        count_as_received(self.crawler, request, response)  # toward CLOSESPIDER_PAGECOUNT
        # no callback reads it, and the exception below keeps it until the cyclic collector runs
        let_go_of_parse(response)
        raise IgnoreRequest(
            f"pagesim: {url} is not a target page (label {label}, score {score:.3f}, {why})"
        )

    def _skip(self, meta: dict[str, Any], response: Response, reason: str) -> Response:
        meta.pop(META_KEY, None)  # a verdict copied from another response's meta is stale
        self.totals.skipped[reason] += 1
        self.stats.inc_value(f"pagesim/skipped/{reason}")
        logger.debug("pagesim: not classified (%s): %s", reason, response)
        return response
