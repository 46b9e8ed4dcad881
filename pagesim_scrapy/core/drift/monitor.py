"""Drift watched during a crawl: feed each decided page, get a report when a look changed.

Framework-free, so that the crawl's hook is a few lines: pass each page's site, label and
features to :meth:`DriftMonitor.observe`; it returns a :class:`DriftReport` the first time a
(site, label) is found changed or in two looks (log it, count it, act on it). Checks run when
the label's pages on the site reach ``min_pages``, then each time their number doubles, so a
long crawl pays for a few comparisons per label, not one per page.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pagesim_scrapy.core.drift.collapse import collapsed
from pagesim_scrapy.core.drift.decide import compare_looks
from pagesim_scrapy.core.drift.fields import FieldDrift, compare_fields
from pagesim_scrapy.core.drift.looks import DriftBaseline, SiteLooks
from pagesim_scrapy.core.drift.memo import remembered
from pagesim_scrapy.core.drift.options import DEFAULT_DRIFT_OPTIONS, DriftOptions
from pagesim_scrapy.core.drift.report import CHANGED, UNCHANGED, DriftReport
from pagesim_scrapy.core.site import Features


class DriftMonitor:
    """Compares each (site, label)'s pages of this crawl with a baseline: a saved one (an
    earlier crawl's :meth:`snapshot`) and, with ``first_pages``, the first pages of this crawl
    for a label the saved baseline does not have."""

    def __init__(
        self,
        baseline: DriftBaseline | None = None,
        options: DriftOptions = DEFAULT_DRIFT_OPTIONS,
        *,
        first_pages: int = 0,
    ) -> None:
        self.options = options
        self.baseline = (
            baseline if baseline is not None else DriftBaseline(max_kept=options.max_kept)
        )
        self.first_pages = first_pages
        self.now = DriftBaseline(max_kept=options.max_kept)
        self._next_check: dict[tuple[str | None, str], int] = {}
        self._reported: dict[tuple[str | None, str], DriftReport] = {}
        self._early: set[tuple[str | None, str]] = set()
        self._next_site_check: dict[str | None, int] = {}
        self._next_field_check: dict[tuple[str | None, str], int] = {}
        self._fields_reported: dict[tuple[str | None, str], list[FieldDrift]] = {}

    def observe(
        self,
        site: str | None,
        label: str | None,
        features: Features,
        page_id: str = "",
        skeleton: Features | None = None,
    ) -> DriftReport | None:
        """Count one decided page (``label`` None: no label; ``skeleton``: its tag skeleton,
        see :func:`~.looks.skeleton_features`); return a report the first time its (site,
        label) drifted (changed or two looks), else None."""
        if label is not None and self.first_pages and self._is_early(site, label):
            self.baseline.add(site, label, features, page_id, skeleton)
            return None
        site_looks = self.now.site(site)
        look = site_looks.look(label)
        look.add(features, page_id, skeleton)
        collapse = self._check_collapses(site, site_looks.pages)
        if label is None or collapse is not None:
            return collapse
        key = (site, label)
        pages = look.pages
        if key in self._reported or pages < self._next_check.get(key, self.options.min_pages):
            return None
        self._next_check[key] = 2 * pages
        report = self.check(site, label)
        if report.verdict is None or report.verdict == UNCHANGED:
            return None
        self._reported[key] = report
        return report

    def observe_record(
        self, site: str | None, label: str, record: Mapping[str, Any]
    ) -> list[FieldDrift] | None:
        """Count the record a learned wrapper extracted from one page of ``label``; return
        its fields that drifted the first time some did (checked as the records double)."""
        counts = self.now.site(site).field_counts(label)
        counts.add(record)
        key = (site, label)
        due = self._next_field_check.get(key, self.options.min_pages)
        if key in self._fields_reported or counts.pages < due:
            return None
        self._next_field_check[key] = 2 * counts.pages
        drifts = self.check_fields(site, label)
        if not drifts:
            return None
        self._fields_reported[key] = drifts
        return drifts

    def check_fields(self, site: str | None, label: str) -> list[FieldDrift]:
        """The fields of ``label``'s wrapper on ``site`` gone or of another kind now."""
        before = self.baseline.sites.get(site)
        now = self._site_now(site).fields.get(label)
        if before is None or now is None:
            return []
        return compare_fields(before.fields.get(label), now, self.options)

    def field_drifts(self) -> dict[tuple[str | None, str], list[FieldDrift]]:
        """Every (site, label) whose wrapper's fields drifted, as the crawl stands."""
        found = {
            (site, label): self.check_fields(site, label)
            for site, looks in self.now.sites.items()
            for label in looks.fields
        }
        return {key: drifts for key, drifts in found.items() if drifts}

    def fields_reported(self) -> dict[tuple[str | None, str], list[FieldDrift]]:
        """The (site, label)s whose field drift :meth:`observe_record` returned."""
        return dict(self._fields_reported)

    def _check_collapses(self, site: str | None, pages: int) -> DriftReport | None:
        """A report for a label of the baseline whose pages vanished from the site (a
        redesign its templates no longer match); checked as the site's ``pages`` double."""
        if pages < self._next_site_check.get(site, self.options.collapse_pages):
            return None
        self._next_site_check[site] = 2 * pages
        with remembered():
            return self._first_collapse(site)

    def _first_collapse(self, site: str | None) -> DriftReport | None:
        for label in self._missing_labels(site):
            report = self.check(site, label)
            if report.verdict == CHANGED:
                self._reported[(site, label)] = report
                return report
        return None

    def _missing_labels(self, site: str | None) -> list[str]:
        """The baseline's labels of ``site`` not reported yet whose share collapsed now."""
        before = self.baseline.sites.get(site)
        if before is None:
            return []
        now = self._site_now(site)
        return [
            label
            for label in before.named_labels()
            if (site, label) not in self._reported and collapsed(before, now, label, self.options)
        ]

    def _is_early(self, site: str | None, label: str) -> bool:
        """A page among the first ones of a label the saved baseline lacks: they become its
        baseline within this crawl (``first_pages`` of them)."""
        key = (site, label)
        if not self.first_pages:
            return False
        if key in self._early:
            return self.baseline.site(site).labels[label].pages < self.first_pages
        if self.baseline.has(site, label):
            return False
        self._early.add(key)
        return True

    def check(self, site: str | None, label: str) -> DriftReport:
        """The drift of ``label`` on ``site`` as it stands."""
        with remembered():
            return compare_looks(
                site, label, self.baseline.sites.get(site), self._site_now(site), self.options
            )

    def _site_now(self, site: str | None) -> SiteLooks:
        return self.now.sites.get(site) or SiteLooks(self.options.max_kept)

    def reports(self) -> list[DriftReport]:
        """A report for every (site, label) of this crawl (the crawl's close summary), and for
        a label of the baseline the crawl met no page of when its share collapsed."""
        with remembered():  # a site's looks are read once for all its labels
            return self._reports()

    def _reports(self) -> list[DriftReport]:
        reports = [
            self.check(site, label)
            for site, looks in self.now.sites.items()
            for label in looks.named_labels()
        ]
        for site, looks in self.now.sites.items():
            before = self.baseline.sites.get(site)
            missing = [] if before is None else list(before.named_labels())
            for label in missing:
                if label not in looks.labels:  # a verdict only when its share collapsed
                    report = self.check(site, label)
                    reports += [report] if report.verdict is not None else []
        return reports

    def drifted(self) -> list[DriftReport]:
        """The (site, label)s reported changed or in two looks so far."""
        return list(self._reported.values())

    def met(self) -> tuple[list[tuple[str | None, str]], list[tuple[str | None, str]]]:
        """The (site, label)s whose look, and whose wrapper's fields, this crawl saw on
        enough pages to replace the baseline's in :meth:`snapshot`."""
        least = self.options.min_pages
        looks = [
            (site, label)
            for site, site_looks in self.now.sites.items()
            for label, look in site_looks.labels.items()
            if len(look.kept) >= least
        ]
        fields = [
            (site, label)
            for site, site_looks in self.now.sites.items()
            for label, counts in site_looks.fields.items()
            if counts.pages >= least
        ]
        return looks, fields

    def snapshot(self) -> DriftBaseline:
        """What the next crawl compares with: this crawl's looks, and the baseline's for the
        (site, label)s this crawl did not meet; the sites this crawl met first, then the
        baseline's in its order, at most ``max_sites``."""
        merged = DriftBaseline(max_kept=self.options.max_kept)
        for site in self.now.sites:
            merged.site(site)
        for site in self.baseline.sites:
            if len(merged.sites) >= self.options.max_sites:
                break
            merged.site(site)
        for source in (self.baseline, self.now):
            for site, looks in source.sites.items():
                if site not in merged.sites:
                    continue  # a site no crawl met for the longest time
                target = merged.sites[site]
                for label, look in looks.labels.items():
                    # a label met only a few times now keeps the look it had
                    if source is self.baseline or len(look.kept) >= self.options.min_pages:
                        target.labels[label] = look
                for label, counts in looks.fields.items():
                    if source is self.baseline or counts.pages >= self.options.min_pages:
                        target.fields[label] = counts
        return merged
