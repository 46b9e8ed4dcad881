"""The layout-change alarm in a crawl: feed each decided page to the core's
:class:`~pagesim_scrapy.core.drift.DriftMonitor`, and turn its reports into a WARNING, a
``pagesim/drift/<label>`` stat and, with ``PAGESIM_DRIFT_ACTION = "close"``, a closed spider
(with ``"relearn"``, a wrapper that learns the new look: see :func:`take_relearn`).

The looks are loaded from the drift file at start and saved back at close, so each crawl is
compared with the one before (a site's first crawl has nothing to compare with: no verdict).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from scrapy.utils.defer import deferred_from_coro

from pagesim_scrapy.core.drift import CHANGED, UNCHANGED, DriftMonitor
from pagesim_scrapy.core.drift.fields import GONE
from pagesim_scrapy.core.drift.looks import skeleton_features
from pagesim_scrapy.core.explain import readable_codes
from pagesim_scrapy.core.site import structural_features
from pagesim_scrapy.fleet import SharedDriftLooks
from pagesim_scrapy.middlewares.meta import LOGGER_NAME

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.statscollectors import StatsCollector

    from pagesim_scrapy.core.decide import Decision
    from pagesim_scrapy.core.drift import DriftBaseline, DriftReport, FieldDrift
    from pagesim_scrapy.core.summary import PageSummary
    from pagesim_scrapy.crawlreport import CrawlReportCollector
    from pagesim_scrapy.middlewares.statefiles import StateFiles
    from pagesim_scrapy.settings import PageSimConfig

logger = logging.getLogger(LOGGER_NAME)

#: The spider's close reason when a label's layout changed and PAGESIM_DRIFT_ACTION is close.
CLOSE_REASON_DRIFT = "pagesim_layout_changed"

#: Labels whose wrapper is to relearn from the new pages (PAGESIM_DRIFT_ACTION = relearn), per
#: crawl: the induction pipeline takes each once (:func:`take_relearn`).
#: The end of the WARNING when the wrapper relearns (PAGESIM_DRIFT_ACTION = relearn).
RELEARN_NOTE = "; the label's wrapper relearns from the new pages (PAGESIM_DRIFT_ACTION = relearn)"

_RELEARN: WeakKeyDictionary[Crawler, set[str]] = WeakKeyDictionary()

#: The watch of each crawl, for the induction pipeline's records (:func:`watch_of`).
_WATCHES: WeakKeyDictionary[Crawler, DriftWatch] = WeakKeyDictionary()


def watch_of(crawler: Crawler | None) -> DriftWatch | None:
    """The crawl's drift watch (None when the alarm is off or not started yet)."""
    return _WATCHES.get(crawler) if crawler is not None else None


def take_relearn(crawler: Crawler | None, label: str) -> bool:
    """True once after a change of ``label``'s look with the ``relearn`` action: the caller
    drops the label's wrapper so that it learns the new look instead of extracting with the
    old one."""
    labels = _RELEARN.get(crawler) if crawler is not None else None
    if not labels or label not in labels:
        return False
    labels.discard(label)
    return True


class DriftWatch:
    """The crawl's side of the alarm: one monitor, the drift file, and what a report does."""

    def __init__(
        self,
        monitor: DriftMonitor,
        action: str,
        stats: StatsCollector,
        state_files: StateFiles,
        crawler: Crawler | None = None,
    ) -> None:
        self.monitor = monitor
        self.action = action
        self.stats = stats
        self.state_files = state_files
        self.crawler = crawler
        self.closing = False
        #: the fleet's looks (PAGESIM_STATE_URL), else the drift file holds them
        self.shared: SharedDriftLooks | None = None
        if crawler is not None:
            _WATCHES[crawler] = self

    @classmethod
    def start(
        cls,
        config: PageSimConfig,
        stats: StatsCollector,
        state_files: StateFiles,
        crawler: Crawler | None = None,
    ) -> DriftWatch | None:
        """The watch of this crawl (None when PAGESIM_DRIFT_ENABLED is off), continuing from
        the looks the last crawl saved: in the drift file, or in a crawl fleet's shared state
        (``PAGESIM_STATE_URL``; None when it cannot be used)."""
        if not config.drift_enabled:
            return None
        shared = None
        if config.state_url is not None:  # a fleet: one drift file per worker would not do
            shared = SharedDriftLooks.open(config, stats, state_files.options)
            if shared is None:
                return None
            baseline, where = shared.load(), shared.location
        else:
            baseline, where = state_files.load_drift_baseline(config), str(state_files.drift_path)
        if baseline is not None:
            logger.info(
                "pagesim: layout-change alarm on, comparing with the looks of %d site(s) "
                "saved in %s",
                len(baseline.sites),
                where,
            )
        watch = cls(DriftMonitor(baseline), config.drift_action, stats, state_files, crawler)
        watch.shared = shared
        return watch

    def observe(self, decision: Decision, summary: PageSummary, root: Any, url: str) -> None:
        """Count one decided page; act on a report of its (site, label). A page decided
        again by the second look was counted when first decided."""
        if decision.again:
            return
        features = decision.features
        if features is None:
            features = structural_features(summary)
        site = decision.site or self.state_files.hostless_name()
        try:
            report = self.monitor.observe(
                site, decision.label, features, url, skeleton_features(summary)
            )
        except Exception:  # the alarm must never break the crawl
            logger.warning("pagesim: layout-change alarm failed on %s", url, exc_info=True)
            return
        if report is not None:
            # the page is in the new look: its tree names what appeared (what disappeared
            # is named where this page still has it)
            report.name_features(readable_codes([root], self.state_files.options))
            self._alarm(report)

    def observe_record(self, site: str | None, label: str, record: Mapping[str, Any]) -> None:
        """Count the record a learned wrapper extracted from a page of ``label``; warn the
        first time its fields drifted (gone, or values of another kind)."""
        site = site or self.state_files.hostless_name()
        try:
            drifts = self.monitor.observe_record(site, label, record)
        except Exception:  # the alarm must never break the crawl
            logger.warning("pagesim: wrapper drift check failed on %r", label, exc_info=True)
            return
        if drifts:
            self._field_alarm(site, label, drifts)

    def _field_alarm(
        self, site: str | None, label: str, drifts: list[FieldDrift], *, closing: bool = False
    ) -> None:
        relearn = self.action == "relearn" and not closing
        logger.warning(
            "pagesim: the wrapper of %s on %s finds other fields: %s%s",
            label,
            site,
            "; ".join(drift.render() for drift in drifts[: self.monitor.options.top]),
            RELEARN_NOTE if relearn else "",
        )
        for drift in drifts:
            self.stats.inc_value(f"pagesim/drift/field/{label}/{drift.name}")
        if relearn and self.crawler is not None:
            _RELEARN.setdefault(self.crawler, set()).add(label)
        if self.action == "close" and not closing:
            self._close_spider()

    def _alarm(self, report: DriftReport, *, closing: bool = False) -> None:
        label = report.label
        relearn = self.action == "relearn" and report.verdict == CHANGED and not closing
        logger.warning(
            "pagesim: layout of %s on %s %s: %s%s",
            label,
            report.site,
            "changed" if report.verdict == CHANGED else "shows two looks",
            report.summary(),
            RELEARN_NOTE if relearn else "",
        )
        self.stats.inc_value(f"pagesim/drift/{label}")
        if relearn and self.crawler is not None:
            _RELEARN.setdefault(self.crawler, set()).add(label)
        if self.action == "close" and report.verdict == CHANGED and not closing:
            self._close_spider()

    def _close_spider(self) -> None:
        """Close the spider with :data:`CLOSE_REASON_DRIFT` (once)."""
        engine = getattr(self.crawler, "engine", None)
        if engine is None or self.closing:
            return
        self.closing = True
        logger.warning("pagesim: closing the spider (PAGESIM_DRIFT_ACTION = close)")
        # scheduled, not awaited: closing waits for the downloads under way, this one too
        deferred_from_coro(engine.close_spider_async(reason=CLOSE_REASON_DRIFT))

    def close(self, crawl_report: CrawlReportCollector | None = None) -> None:
        """Warn of a drift found only with the crawl's last pages, log each (site, label)'s
        verdict, add the drifted ones to the crawl report, and save the looks for the next
        crawl."""
        named = {(report.site, report.label): report for report in self.monitor.drifted()}
        reported = set(named)
        reports = self.monitor.reports()
        if crawl_report is not None:
            for report in reports:
                if report.verdict not in (None, UNCHANGED):
                    # the one warned about during the crawl has its evidence named
                    crawl_report.add_drift(
                        report_entry(named.get((report.site, report.label), report))
                    )
        for report in reports:
            if (
                report.verdict not in (None, UNCHANGED)
                and (report.site, report.label) not in reported
            ):
                self._alarm(report, closing=True)
        self._close_fields(crawl_report)
        verdicts = [
            f"{report.label} on {report.site}: {report.verdict or 'no verdict'}"
            for report in reports
        ]
        if verdicts:
            logger.info("pagesim: layout-change alarm: %s", "; ".join(verdicts))
        baseline = self.next_baseline(reports)
        if self.shared is not None:
            if self.shared.save(baseline, *self.monitor.met()):
                logger.info("pagesim: drift looks saved to %s", self.shared.location)
            return
        path = self.state_files.save_drift_baseline(baseline)
        if path is not None:
            logger.info("pagesim: drift looks saved to %s", path)

    def _close_fields(self, crawl_report: CrawlReportCollector | None) -> None:
        """Warn of the wrappers' field drift found only with the last records, and add
        every drifted wrapper to the crawl report."""
        warned = self.monitor.fields_reported()
        for (site, label), drifts in self.monitor.field_drifts().items():
            if (site, label) not in warned:
                self._field_alarm(site, label, drifts, closing=True)
            if crawl_report is not None:
                crawl_report.add_drift(field_entry(site, label, drifts))

    def next_baseline(self, reports: list[DriftReport]) -> DriftBaseline:
        """What the next crawl compares with: this crawl's looks, except that with the
        ``close`` action a changed label keeps its old look, so every run fails until the
        change is accepted (one crawl with ``warn``, or the drift file removed)."""
        snapshot = self.monitor.snapshot()
        if self.action != "close":
            return snapshot
        for report in reports:
            old = self.monitor.baseline.sites.get(report.site)
            if report.verdict == CHANGED and old is not None and report.label in old.labels:
                snapshot.site(report.site).labels[report.label] = old.labels[report.label]
        for site, label in self.monitor.field_drifts():
            old = self.monitor.baseline.sites.get(site)
            if old is not None and label in old.fields:
                snapshot.site(site).fields[label] = old.fields[label]
        return snapshot


def field_entry(site: str | None, label: str, drifts: list[FieldDrift]) -> dict[str, Any]:
    """A wrapper whose fields drifted, in the form of the crawl report's layout-change
    cards: each field is a line of the evidence (gone, or its old kind's share)."""
    gone = [d for d in drifts if d.change == GONE]
    kind = [d for d in drifts if d.change != GONE]
    return {
        "site": site,
        "label": label,
        "verdict": "fields changed",
        "confidence": None,
        "reason": "the wrapper's records: " + "; ".join(d.render() for d in drifts),
        "disappeared": [
            {"pair": f"field {d.name}", "before": d.before, "now": d.now} for d in gone
        ],
        "appeared": [
            {
                "pair": f"field {d.name}: {d.kind_before} -> {d.kind_now}",
                "before": d.before,
                "now": d.now,
            }
            for d in kind
        ],
        "fields": [d.as_dict() for d in drifts],
    }


def report_entry(report: DriftReport) -> dict[str, Any]:
    """A drifted (site, label) for the crawl report: the report, and its new look's pages as
    proposed example pages (a ``PAGESIM_TEMPLATES`` snippet) for the label."""
    entry = report.as_dict()
    entry["proposed_templates"] = list(report.examples_now)
    return entry
