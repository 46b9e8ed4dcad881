"""What a crawl's HTML report needs, gathered cheaply while pages are classified.

``PAGESIM_REPORT = "report.html"`` makes the downloader middleware hand every verdict to a
:class:`CrawlReportCollector` and write the report (:func:`pagesim_scrapy.reports.crawl_report`)
when the spider closes. Per site (host) and per *nearest* label — the label a page scored
highest, whether or not it reached the threshold — the collector keeps fixed-bin histograms of
the scores of the pages given the label and of the pages left unmatched, the last threshold and
how it was set, the range the threshold moved in, the verdicts' confidence, and a few example
URLs: the first pages given the label, the lowest-scoring ones given it (borderline) and the
highest-scoring ones refused (near misses). Memory is bounded whatever the crawl's size:
``bins`` counters and ``examples`` URLs per site and label, at most ``max_sites`` sites (later
sites are pooled into one).

Nothing here imports Scrapy.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pagesim_scrapy.core.site import site_key

#: Score histogram bins over [0, 1].
DEFAULT_BINS = 40
#: Confidence histogram bins over [0, 1].
CONFIDENCE_BINS = 10
#: Example URLs kept per kind (first, borderline, near miss) per site and label.
DEFAULT_EXAMPLES = 3
#: Sites kept apart at most; pages of later sites are pooled under :data:`OTHER_SITES`.
DEFAULT_MAX_SITES = 50
#: Where the pages of sites beyond ``max_sites`` are counted.
OTHER_SITES = "(other sites)"
#: The nearest-label key of pages with no score at all (no templates scored them).
NO_LABEL = "(none)"


def _bin(value: float, bins: int) -> int:
    return min(bins - 1, max(0, int(value * bins)))


@dataclass
class _Examples:
    """The first ``k`` URLs, and the ``k`` with the lowest / highest score (bounded heaps)."""

    k: int
    first: list[tuple[str, float, float | None]] = field(default_factory=list)
    # max-heap of the k lowest scores (by negated score), min-heap of the k highest
    _low: list[tuple[float, int, str, float | None]] = field(default_factory=list)
    _high: list[tuple[float, int, str, float | None]] = field(default_factory=list)

    def add(self, url: str, score: float, confidence: float | None, order: int) -> None:
        if len(self.first) < self.k:
            self.first.append((url, score, confidence))
        low = (-score, -order, url, confidence)
        if len(self._low) < self.k:
            heapq.heappush(self._low, low)
        elif low > self._low[0]:
            heapq.heapreplace(self._low, low)
        high = (score, -order, url, confidence)
        if len(self._high) < self.k:
            heapq.heappush(self._high, high)
        elif high > self._high[0]:
            heapq.heapreplace(self._high, high)

    def lowest(self) -> list[tuple[str, float, float | None]]:
        return [(u, -s, c) for s, _, u, c in sorted(self._low, reverse=True)]

    def highest(self) -> list[tuple[str, float, float | None]]:
        return [(u, s, c) for s, _, u, c in sorted(self._high, reverse=True)]


@dataclass
class _LabelStats:
    """One site's pages whose nearest label is one label."""

    bins: int
    examples: int
    accepted: list[int] = field(init=False)
    refused: list[int] = field(init=False)
    confidence: list[int] = field(init=False)
    confidence_sum: float = 0.0
    confidence_count: int = 0
    score_sum: float = 0.0
    above_one: int = 0  # scores above 1 (counted in the last bin)
    threshold: float | None = None
    threshold_source: str | None = None
    threshold_low: float | None = None
    threshold_high: float | None = None
    sources: dict[str, int] = field(default_factory=dict)
    given: _Examples = field(init=False)
    missed: _Examples = field(init=False)

    def __post_init__(self) -> None:
        self.accepted = [0] * self.bins
        self.refused = [0] * self.bins
        self.confidence = [0] * CONFIDENCE_BINS
        self.given = _Examples(self.examples)
        self.missed = _Examples(self.examples)

    def add(
        self,
        url: str,
        score: float,
        accepted: bool,
        threshold: float | None,
        source: str | None,
        confidence: float | None,
        order: int,
    ) -> None:
        (self.accepted if accepted else self.refused)[_bin(score, self.bins)] += 1
        if score > 1.0:
            self.above_one += 1
        self.score_sum += score
        if confidence is not None:
            self.confidence[_bin(confidence, CONFIDENCE_BINS)] += 1
            self.confidence_sum += confidence
            self.confidence_count += 1
        if threshold is not None:
            self.threshold = threshold
            self.threshold_source = source
            if self.threshold_low is None or threshold < self.threshold_low:
                self.threshold_low = threshold
            if self.threshold_high is None or threshold > self.threshold_high:
                self.threshold_high = threshold
            key = source or "?"
            self.sources[key] = self.sources.get(key, 0) + 1
        (self.given if accepted else self.missed).add(url, score, confidence, order)

    def as_dict(self) -> dict[str, Any]:
        n_given = sum(self.accepted)
        n_missed = sum(self.refused)
        return {
            "given": n_given,
            "unmatched": n_missed,
            "mean_score": self.score_sum / (n_given + n_missed) if n_given + n_missed else None,
            "above_one": self.above_one,
            "hist_given": list(self.accepted),
            "hist_unmatched": list(self.refused),
            "confidence_hist": list(self.confidence),
            "mean_confidence": (
                self.confidence_sum / self.confidence_count if self.confidence_count else None
            ),
            "threshold": self.threshold,
            "threshold_source": self.threshold_source,
            "threshold_range": (
                None if self.threshold_low is None else [self.threshold_low, self.threshold_high]
            ),
            "threshold_sources": dict(self.sources),
            "examples": _examples(self.given.first),
            "borderline": _examples(self.given.lowest()),
            "near_misses": _examples(self.missed.highest()),
        }


def _examples(rows: list[tuple[str, float, float | None]]) -> list[dict[str, Any]]:
    return [{"url": url, "score": score, "confidence": conf} for url, score, conf in rows]


class CrawlReportCollector:
    """Collect verdicts for the crawl report; :meth:`add` is O(log examples) per page."""

    def __init__(
        self,
        *,
        bins: int = DEFAULT_BINS,
        examples: int = DEFAULT_EXAMPLES,
        max_sites: int = DEFAULT_MAX_SITES,
    ) -> None:
        if bins < 1 or examples < 0 or max_sites < 1:
            raise ValueError("bins and max_sites must be >= 1, examples >= 0")
        self.bins = bins
        self.examples = examples
        self.max_sites = max_sites
        self.pages = 0
        self._order = itertools.count()
        self._sites: dict[str, dict[str, _LabelStats]] = {}
        self._site_pages: dict[str, int] = {}
        self.methods: dict[str, int] = {}
        #: drifted (site, label)s of the layout-change alarm (``DriftReport.as_dict()`` each)
        self.drift: list[dict[str, Any]] = []

    def add_drift(self, report: Mapping[str, Any]) -> None:
        """Add a drifted (site, label) to the report's layout-change section."""
        self.drift.append(dict(report))

    def add(self, verdict: Mapping[str, Any], url: str) -> None:
        """Count one classified page (``verdict`` as in ``response.meta["pagesim"]``)."""
        scores = verdict.get("scores")
        label = verdict.get("label")
        score = float(verdict.get("score") or 0.0)
        if label is not None:
            nearest = str(label)
        elif isinstance(scores, Mapping) and scores:  # the label it came closest to
            nearest = str(max(scores.items(), key=lambda item: item[1])[0])
        else:
            nearest = NO_LABEL
        site = site_key(url)
        if site not in self._sites and len(self._sites) >= self.max_sites:
            site = OTHER_SITES
        labels = self._sites.setdefault(site, {})
        self._site_pages[site] = self._site_pages.get(site, 0) + 1
        stats = labels.get(nearest)
        if stats is None:
            stats = labels[nearest] = _LabelStats(self.bins, self.examples)
        threshold = verdict.get("threshold")
        confidence = verdict.get("confidence")
        stats.add(
            url,
            score,
            label is not None,
            None if threshold is None else float(threshold),
            verdict.get("threshold_source"),
            None if confidence is None else float(confidence),
            next(self._order),
        )
        method = str(verdict.get("method"))
        self.methods[method] = self.methods.get(method, 0) + 1
        self.pages += 1

    def as_dict(self) -> dict[str, Any]:
        """Everything gathered, as plain JSON-able data (the input of ``crawl_report``)."""
        sites = []
        for site, labels in sorted(
            self._sites.items(),
            key=lambda item: (item[0] == OTHER_SITES, -self._site_pages[item[0]], item[0]),
        ):
            sites.append(
                {
                    "site": site,
                    "pages": self._site_pages[site],
                    "labels": {
                        name: labels[name].as_dict()
                        for name in sorted(labels, key=lambda n: (n == NO_LABEL, n))
                    },
                }
            )
        return {
            "pages": self.pages,
            "bins": self.bins,
            "methods": dict(self.methods),
            "sites": sites,
            "drift": list(self.drift),
        }

    def write(self, path: str | Path, **kwargs: Any) -> Path:
        """Render the report (:func:`~pagesim_scrapy.reports.crawl_report`) into ``path``."""
        from pagesim_scrapy.reports import crawl_report, write_report

        return write_report(path, crawl_report(self.as_dict(), **kwargs))


__all__ = ["CrawlReportCollector"]
