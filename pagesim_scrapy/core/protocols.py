"""The contract every template classifier keeps, whatever its method.

:class:`~pagesim_scrapy.core.classify.TemplateClassifier` (the pairwise measures) and
:class:`~pagesim_scrapy.core.siteaware.SiteAwareClassifier` (``site``) both implement it, so
code that only classifies pages (the CLI, the Spark jobs, evaluation) needs no branch on the
method; what only the site classifier has (site models, holding verdicts) stays in the core.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol, runtime_checkable

from pagesim_scrapy.core.summary import SummaryOptions
from pagesim_scrapy.core.verdict import Verdict


@runtime_checkable
class PageClassifier(Protocol):
    """Labels -> template pages; decides a page's label from its similarity to them."""

    method: str
    params: dict[str, Any]
    summary_options: SummaryOptions

    @property
    def labels(self) -> list[str]:
        """The configured labels, in the templates' order."""
        ...

    def scores(self, page: Any, *, site: str | None = None) -> dict[str, float]:
        """Per-label similarity of ``page`` (learns nothing)."""
        ...

    def decide(self, scores: Mapping[str, float], *, site: str | None = None) -> Verdict:
        """The verdict for a page's per-label ``scores`` with the current thresholds."""
        ...

    def classify(self, page: Any, *, site: str | None = None, learn: bool = True) -> Verdict:
        """Score ``page`` and decide; ``learn`` lets it shape the thresholds first."""
        ...

    def classify_all(self, pages: Iterable[Any], *, site: str | None = None) -> list[Verdict]:
        """Batch form: the pages given are the site; decide each."""
        ...

    def threshold_info(self, label: str, site: str | None = None) -> tuple[float, str]:
        """The threshold ``label`` must reach and how it was set."""
        ...

    def describe(self, site: str | None = None) -> dict[str, Any]:
        """Labels, template counts and thresholds, for logs and reports."""
        ...
