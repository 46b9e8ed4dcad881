"""What a crawl says about pagesim when it closes: the running totals, the summary line, the
thresholds in force, the discovered types, the advice on weak examples and the HTML report."""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from scrapy import signals

from pagesim_scrapy.core.decide import site_classifier
from pagesim_scrapy.core.examplecheck import check_labels
from pagesim_scrapy.core.examples import ExampleAdvice, SitePage, advise_labels
from pagesim_scrapy.core.site import Features, site_key, structural_features
from pagesim_scrapy.middlewares.meta import LOGGER_NAME

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.statscollectors import StatsCollector

    from pagesim_scrapy.core.cluster import OnlineDiscovery
    from pagesim_scrapy.core.decide import Classifier, Decision
    from pagesim_scrapy.core.secondlook import SecondLook
    from pagesim_scrapy.core.summary import PageSummary
    from pagesim_scrapy.crawlreport import CrawlReportCollector
    from pagesim_scrapy.middlewares.statefiles import StateFiles

logger = logging.getLogger(LOGGER_NAME)

#: How a threshold was set, in words (keys: LabelThreshold.source).
_THRESHOLD_SOURCES = {
    "given": "set",
    "prior": "auto, from the templates",
    "distribution": "auto, from the scores seen",
    "nearest": "auto, the nearest type above the other types' templates",
}

#: Sites whose thresholds the close summary names (the ones with the most pages).
SUMMARY_SITES = 3


@dataclass
class CrawlTotals:
    """Running totals for the summary line: each page once, with its latest verdict."""

    label_counts: Counter[str | None] = field(default_factory=Counter)
    score_sums: defaultdict[str | None, float] = field(default_factory=lambda: defaultdict(float))
    seconds: float = 0.0
    dropped: int = 0
    explored: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    #: responses of pages requested again by the second look that were decided
    decided_again: int = 0

    def count(self, decision: Decision, first: Mapping[str, Any] | None) -> None:
        """Count a page's verdict; a page decided again takes its first verdict's place."""
        first_label = first.get("label") if first is not None else None
        if first is not None and self.label_counts[first_label] > 0:
            self.label_counts[first_label] -= 1
            self.score_sums[first_label] -= float(first.get("score", 0.0))
        self.label_counts[decision.label] += 1
        self.score_sums[decision.label] += float(decision.score)
        self.decided_again += decision.again


def summary_line(
    totals: CrawlTotals,
    classifier: Classifier,
    *,
    method: str,
    targets: frozenset[str],
    drop: bool,
    second_look: SecondLook[Any] | None,
    requested_again: int,
) -> str:
    """One paragraph: pages per label with mean scores (a page decided again by the
    second look with its latest verdict), drops, skips, thresholds."""
    total = sum(totals.label_counts.values())
    again = totals.decided_again
    per_page = totals.seconds * 1000.0 / total if total else 0.0
    return (
        f"pagesim summary: {total} pages classified"
        + (f" ({again} of them twice: the second look)" if again else "")
        + f" with {method} in "
        f"{totals.seconds * 1000.0:.1f} ms ({per_page:.2f} ms/page); per label: "
        f"{_per_label(totals, classifier.labels)}; targets: {', '.join(sorted(targets))}; "
        f"{_action(totals, drop, second_look, requested_again)}; "
        f"{_skipped(totals.skipped)}; thresholds: {describe_thresholds(classifier)}."
    )


def _per_label(totals: CrawlTotals, labels: list[str]) -> str:
    parts = []
    for label in [*labels, None]:
        count = totals.label_counts.get(label, 0)
        name = label if label is not None else "unmatched"
        if count:
            mean = totals.score_sums[label] / count
            parts.append(f"{name} {count} (mean score {mean:.3f})")
        else:
            parts.append(f"{name} 0")
    return ", ".join(parts)


def _action(
    totals: CrawlTotals, drop: bool, look: SecondLook[Any] | None, requested_again: int
) -> str:
    action = (
        f"{totals.dropped} non-target pages dropped, {totals.explored} let through to explore"
        if drop
        else "non-target pages tagged, not dropped"
    )
    if look is not None:
        action += (
            f"; {look.held} pages held while their site's cut settled; second look at "
            f"{look.looked} pages turned away or held, {requested_again} requested "
            "again"
        )
    return action


def _skipped(skipped: Counter[str]) -> str:
    total = sum(skipped.values())
    if not total:
        return "no response skipped"
    reasons = ", ".join(f"{reason} {n}" for reason, n in sorted(skipped.items()))
    return f"{total} responses not classified ({reasons})"


def describe_thresholds(classifier: Classifier | None) -> str:
    """The thresholds in force: with the site method, on the sites with the most pages
    (each site has its own), else the classifier's."""
    if classifier is None:
        return "none"
    sites = site_classifier(classifier)
    if sites is not None:
        # the crawl's sites (site None is the classifier's own, of the templates alone)
        pages = {site: sites.site_model(site).pages for site in sites.sites() if site is not None}
        busiest = sorted((s for s in pages if pages[s]), key=lambda s: (-pages[s], s))
        if busiest:
            parts = [
                f"on {site or 'pages without a host'} ({pages[site]} pages): "
                + _label_thresholds(sites.describe(site))
                for site in busiest[:SUMMARY_SITES]
            ]
            if len(busiest) > SUMMARY_SITES:
                more = len(busiest) - SUMMARY_SITES
                parts.append(f"{more} more sites (PAGESIM_REPORT lists every site)")
            return "; ".join(parts)
    return _label_thresholds(classifier.describe())


def _label_thresholds(described: dict[str, Any]) -> str:
    parts = []
    for label, info in described["labels"].items():
        how = _THRESHOLD_SOURCES.get(info["threshold_source"], info["threshold_source"])
        parts.append(f"{label} {info['threshold']:.3f} ({how})")
    return ", ".join(parts)


def close_discovery(
    discovery: OnlineDiscovery, stats: StatsCollector, state_files: StateFiles
) -> None:
    """Log the discovered types and a ready PAGESIM_TEMPLATES snippet; save them."""
    counts = discovery.counts()
    stats.set_value("pagesim/discovery/clusters", len(counts))
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
    state_files.save_discovery(discovery)


def write_report(
    report: CrawlReportCollector, path: str, examples: list[ExampleAdvice] | None = None
) -> None:
    """Write the crawl report, with the weak examples' advice when given."""
    try:
        written = _write(report, path, examples or [])
    except OSError as exc:
        logger.error("pagesim: cannot write the crawl report to %s: %s", path, exc)
    else:
        logger.info("pagesim: crawl report of %d pages written to %s", report.pages, written)


#: Pages of each site the advice on weak examples is read from (the first ones classified).
EXAMPLE_PAGES_PER_SITE = 300


def _write(report: CrawlReportCollector, path: str, examples: list[ExampleAdvice]) -> Any:
    if not examples:
        return report.write(path)
    from pagesim_scrapy.reports import crawl_report
    from pagesim_scrapy.reports import write_report as write_file

    data = report.as_dict()
    data["examples"] = [advice.as_dict() for advice in examples]
    return write_file(path, crawl_report(data))


class ExampleWatch:
    """Keep the first pages of each site (URL and features) and, at close, say per label and
    site whether its examples are weak (see :mod:`pagesim_scrapy.core.examples`): one INFO
    line and ``pagesim/examples/weak/<label>``.

    It connects to ``spider_closed`` when made, before the downloader middleware does, so the
    advice is logged before the summary; the classifier is given once the templates load, and
    the middleware hands it each page it summarised (:meth:`observe`).
    """

    def __init__(self, stats: StatsCollector, crawler: Crawler | None) -> None:
        self.stats = stats
        self.classifier: Classifier | None = None
        self.pages: dict[str, list[tuple[str, Features]]] = {}
        self._seen: set[str] = set()
        self.advice: list[ExampleAdvice] = []
        if crawler is not None:
            crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    def observe(
        self,
        url: str,
        summary: PageSummary,
        site: str | None = None,
        features: Features | None = None,
    ) -> None:
        """Keep a classified page's features, from the summary its decision was made on
        (``site``: the URL's site, ``features``: the summary's structural features, when the
        caller has them already)."""
        if self.classifier is None:
            return
        kept = self.pages.setdefault(site_key(url) if site is None else site, [])
        if len(kept) >= EXAMPLE_PAGES_PER_SITE or url in self._seen:
            return
        self._seen.add(url)
        kept.append((url, structural_features(summary) if features is None else features))

    def spider_closed(self) -> None:
        self.advice = self.close()

    def close(self) -> list[ExampleAdvice]:
        """Every weak (site, label): logged, counted, returned."""
        sites = site_classifier(self.classifier)
        if sites is None:
            return []
        weak = []
        for site, kept in self.pages.items():
            pages = site_pages(sites, site, kept)
            for advice in advise_labels(sites, pages, site=site):
                if advice.weak:
                    weak.append(advice)
                    self.stats.inc_value(f"pagesim/examples/weak/{advice.label}")
                    logger.info("pagesim: weak examples on %s: %s", site, advice.message())
            for warning in check_labels(sites, pages, site=site):  # what the site shows
                self.stats.inc_value(f"pagesim/template_warnings/{warning.kind}")
                message = warning.message()
                logger.warning("pagesim: template check on %s [%s] %s", site, warning.kind, message)
        return weak


def site_pages(
    classifier: Any, site: str | None, kept: list[tuple[str, Features]]
) -> dict[str, list[SitePage]]:
    """Per label, the site's pages with their scores and final verdicts (learns nothing)."""
    out: dict[str, list[SitePage]] = {label: [] for label in classifier.labels}
    for url, features in kept:
        scores = classifier.scores(features, site=site)
        given = classifier.decide(scores, site=site, features=features).label
        for label, score in scores.items():
            out[label].append(SitePage(url, features, score, given == label))
    return out
