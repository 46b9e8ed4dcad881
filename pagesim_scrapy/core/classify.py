"""Classify pages against a few template pages per label.

A user gives two or three example pages per page type, not a labelled training set, so each
label's decision threshold is derived ("auto") from what is known without labels:

* ``within``: how similar the label's templates are to each other;
* ``background``: how similar the label's templates are to the other labels' templates, or,
  with a single label, how similar two unrelated pages typically are under the measure
  (measured on ../shared/data, see ``BACKGROUND_SIMILARITY``);
* once enough pages have been scored, the distribution of the scores of the pages nearest to
  the label: on a real crawl it is bimodal (the label's pages near the top, pages of other,
  unconfigured types lower) and the threshold moves into the gap between the two.

With other labels, the nearest label decides the type and the prior threshold is
``background``: a page must be closer to the label's templates than the other labels'
templates are. With one label it is ``background + prior_weight * (within - background)``.
"""

from __future__ import annotations

import math
import threading
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations, pairwise
from typing import Any

from pagesim_scrapy.core.protocols import PageClassifier
from pagesim_scrapy.core.similarity import get_measure
from pagesim_scrapy.core.siteaware import SiteAwareClassifier
from pagesim_scrapy.core.sitepolicy import SITE_METHOD, SitePolicy
from pagesim_scrapy.core.summary import DEFAULT_OPTIONS, PageSummary, SummaryOptions, summarize
from pagesim_scrapy.core.verdict import AGGREGATES, Verdict, check_threshold, given_thresholds

__all__ = [
    "AGGREGATES",
    "BACKGROUND_SIMILARITY",
    "CLASSIFIER_BUILDERS",
    "LabelThreshold",
    "PageClassifier",
    "TemplateClassifier",
    "Verdict",
    "build_classifier",
    "gap_split",
    "given_thresholds",
    "register_classifier",
]

#: The older private name of :func:`~pagesim_scrapy.core.verdict.check_threshold`.
_check_threshold = check_threshold

#: Similarity two pages of unrelated sites have under each measure (a high percentile of random
#: cross-site pairs of real recipe pages, default parameters; reproduce with
#: ``python benchmarks/calibrate.py``).
BACKGROUND_SIMILARITY: dict[str, float] = {
    "lcs": 0.15,
    "layers": 0.61,
    "style": 0.16,
    "combined": 0.15,
    "ted": 0.37,
}


@dataclass
class LabelThreshold:
    """How a label's threshold was set, for logs and reports."""

    value: float
    source: str  # "given", "prior" or "distribution"
    within: float | None = None
    background: float | None = None


def gap_split(
    scores: Sequence[float], low: float, high: float, min_gap: float, near: float = 0.6
) -> float | None:
    """Where to cut a label's score distribution into "other pages" below and "its pages" above.

    Candidates are the gaps between consecutive sorted scores whose midpoint lies in
    [low, high] and that are at least ``min_gap`` wide. Of those at least ``near`` times as
    wide as the widest, the lowest wins: a type's own pages spread out above the cut (one odd
    page can leave a gap inside them), while the rest of a site crowds below it.
    """
    ordered = sorted(scores)
    gaps = [
        (upper - lower, (lower + upper) / 2)
        for lower, upper in pairwise(ordered)
        if upper - lower >= min_gap and low <= (lower + upper) / 2 <= high
    ]
    if not gaps:
        return None
    widest = max(width for width, _ in gaps)
    return min(mid for width, mid in gaps if width >= near * widest)


@dataclass
class _LabelState:
    templates: list[PageSummary]
    within: float | None = None
    background: float = 0.0
    prior: float = 0.0
    given: float | None = None
    observed: deque[float] = field(default_factory=lambda: deque(maxlen=2000))
    adapted: float | None = None
    #: scores ever recorded (``observed`` keeps only the latest 2,000)
    seen: int = 0


class TemplateClassifier:
    """Labels -> template pages; ``classify(page)`` returns a :class:`Verdict`.

    ``threshold`` is a number (all labels), a ``{label: number}`` dict (missing labels use
    "auto"), or ``"auto"``. Template summaries are computed once, here.
    """

    def __init__(
        self,
        templates: Mapping[str, Iterable[Any]],
        *,
        method: str = "lcs",
        params: Mapping[str, Any] | None = None,
        threshold: float | str | Mapping[str, float] = "auto",
        aggregate: str = "max",
        summary_options: SummaryOptions = DEFAULT_OPTIONS,
        prior_weight: float = 0.5,
        adapt_after: int = 20,
        min_gap: float = 0.05,
    ) -> None:
        self.measure = get_measure(method)
        self.method = method
        self.params = self.measure.check_params(dict(params or {}))
        if aggregate not in AGGREGATES:
            raise ValueError(f"aggregate must be one of {AGGREGATES}, not {aggregate!r}")
        if not 0.0 < prior_weight < 1.0:
            raise ValueError("prior_weight must be within (0, 1)")
        self.aggregate = aggregate
        self.summary_options = summary_options
        self.prior_weight = prior_weight
        self.adapt_after = adapt_after
        self.min_gap = min_gap
        self._lock = threading.Lock()
        self._labels: dict[str, _LabelState] = {}
        for label, pages in templates.items():
            summaries = [summarize(page, summary_options) for page in pages]
            if not summaries:
                raise ValueError(f"label {label!r} has no template page")
            self._labels[label] = _LabelState(summaries)
        if not self._labels:
            raise ValueError("no templates given")
        self._set_given_thresholds(threshold)
        self._compute_priors()

    # -- construction ---------------------------------------------------------------------

    def _set_given_thresholds(self, threshold: float | str | Mapping[str, float]) -> None:
        for label, value in given_thresholds(threshold, self._labels).items():
            self._labels[label].given = value

    def _sim(self, a: PageSummary, b: PageSummary) -> float:
        return self.measure.func(a, b, **self.params)

    def _compute_priors(self) -> None:
        default_background = BACKGROUND_SIMILARITY.get(self.method, 0.3)
        for label, state in self._labels.items():
            pairs = list(combinations(state.templates, 2))
            if pairs:
                state.within = min(self._sim(a, b) for a, b in pairs)
            cross = [
                self._sim(mine, theirs)
                for other, other_state in self._labels.items()
                if other != label
                for mine in state.templates
                for theirs in other_state.templates
            ]
            state.background = max(cross) if cross else default_background
            top = state.within if state.within is not None else 1.0
            if cross or top <= state.background:
                # With other labels the nearest-label rule already separates the types; the
                # threshold only turns away pages no closer to this label's templates than
                # the other labels' templates are: a type's pages can spread far below
                # ``within`` but stay above that level.
                state.prior = state.background
            else:
                state.prior = state.background + self.prior_weight * (top - state.background)

    # -- thresholds ------------------------------------------------------------------------

    @property
    def labels(self) -> list[str]:
        return list(self._labels)

    def threshold(self, label: str) -> LabelThreshold:
        state = self._labels[label]
        if state.given is not None:
            return LabelThreshold(state.given, "given", state.within, state.background)
        if state.adapted is not None:
            return LabelThreshold(state.adapted, "distribution", state.within, state.background)
        return LabelThreshold(state.prior, "prior", state.within, state.background)

    def _record(self, scores: Mapping[str, float]) -> _LabelState | None:
        """Keep a page's score for its nearest label only: a label's threshold decides only
        among the pages nearest to it, so only their scores shape it."""
        if not scores:
            return None
        label = max(scores, key=scores.__getitem__)
        state = self._labels.get(label)
        if state is None or state.given is not None:
            return None
        state.observed.append(scores[label])
        state.seen += 1
        return state

    def observe(self, scores: Mapping[str, float]) -> None:
        """Feed one page's per-label scores into the distributions that adapt auto thresholds."""
        with self._lock:
            state = self._record(scores)
            if state is None:
                return
            # re-split now and then, not on every page: cost stays flat in a long crawl (a count
            # of all pages, not of the capped window, or past the cap every page would re-split)
            count = state.seen
            if count >= self.adapt_after and (count < 200 or count % 50 == 0):
                self._adapt(state)

    def fit_distribution(self, pages_scores: Iterable[Mapping[str, float]]) -> None:
        """Batch form of :meth:`observe`: adapt auto thresholds from many pages' scores at once."""
        with self._lock:
            for scores in pages_scores:
                self._record(scores)
            for state in self._labels.values():
                if state.given is None and len(state.observed) >= self.adapt_after:
                    self._adapt(state)

    def _adapt(self, state: _LabelState) -> None:
        # The cut may land above ``within`` (a page can be closer to one template than the
        # templates are to each other), but not far above it: a type's own pages spread out
        # there, and a gap among them is no border.
        high = max(state.within or 0.0, state.prior + 0.75 * (1.0 - state.prior))
        state.adapted = gap_split(state.observed, state.background, high, self.min_gap)

    # -- classification --------------------------------------------------------------------

    def scores(self, page: Any, *, site: str | None = None) -> dict[str, float]:
        """Per-label similarity of ``page`` (aggregated over each label's templates)."""
        summary = page if isinstance(page, PageSummary) else summarize(page, self.summary_options)
        result: dict[str, float] = {}
        similarities = self.measure.similarities
        for label, state in self._labels.items():
            values = similarities(summary, state.templates, **self.params)
            if self.aggregate == "max":
                result[label] = max(values)
            else:
                result[label] = math.fsum(values) / len(values)
        return result

    def decide(self, scores: Mapping[str, float], *, site: str | None = None) -> Verdict:
        """Turn per-label scores into a verdict with the current thresholds."""
        ranked = sorted(scores.items(), key=lambda item: item[1], reverse=True)
        best_label, best_score = ranked[0]
        runner_up, second = ranked[1] if len(ranked) > 1 else (None, 0.0)
        margin = best_score - second if len(ranked) > 1 else 1.0
        chosen = self.threshold(best_label)
        label = best_label if best_score >= chosen.value else None
        return Verdict(
            label=label,
            score=best_score,
            scores=dict(scores),
            method=self.method,
            margin=margin,
            runner_up=runner_up,
            threshold=chosen.value,
            threshold_source=chosen.source,
        )

    def classify(self, page: Any, *, site: str | None = None, learn: bool = True) -> Verdict:
        """Score ``page`` against every label and decide; ``learn`` feeds the auto thresholds.

        ``site`` is accepted for the common classifier interface; these measures ignore it.
        """
        scores = self.scores(page)
        if learn:
            self.observe(scores)
        return self.decide(scores)

    def classify_all(self, pages: Iterable[Any], *, site: str | None = None) -> list[Verdict]:
        """Batch form: score every page, adapt the auto thresholds to all of them, decide."""
        all_scores = [self.scores(page) for page in pages]
        self.fit_distribution(all_scores)
        return [self.decide(scores) for scores in all_scores]

    def threshold_info(self, label: str, site: str | None = None) -> tuple[float, str]:
        """The threshold ``label`` must reach and how it was set (common interface)."""
        threshold = self.threshold(label)
        return threshold.value, threshold.source

    def describe(self, site: str | None = None) -> dict[str, Any]:
        """Labels, template counts and thresholds, for logs and reports (``site`` is accepted
        for the common classifier interface; these thresholds are the same on every site)."""
        out: dict[str, Any] = {"method": self.method, "params": self.params, "labels": {}}
        for label, state in self._labels.items():
            th = self.threshold(label)
            out["labels"][label] = {
                "templates": len(state.templates),
                "threshold": round(th.value, 4),
                "threshold_source": th.source,
                "within": None if th.within is None else round(th.within, 4),
                "background": None if th.background is None else round(th.background, 4),
            }
        return out


#: Builds a classifier from ``build_classifier``'s arguments.
ClassifierBuilder = Callable[..., PageClassifier]


def build_template_classifier(
    templates: Mapping[str, Iterable[Any]],
    *,
    method: str,
    params: Mapping[str, Any] | None,
    threshold: float | str | Mapping[str, float],
    aggregate: str,
    summary_options: SummaryOptions,
    prior_weight: float | None,
    min_pages: int | None,
    adapt_after: int,
    policy: SitePolicy | None,
) -> TemplateClassifier:
    """The classifier of a pairwise measure of the measure registry (``min_pages`` and
    ``policy`` are the site method's: ignored here)."""
    return TemplateClassifier(
        templates,
        method=method,
        params=params,
        threshold=threshold,
        aggregate=aggregate,
        summary_options=summary_options,
        prior_weight=0.5 if prior_weight is None else prior_weight,
        adapt_after=adapt_after,
    )


def build_site_classifier(
    templates: Mapping[str, Iterable[Any]],
    *,
    method: str,
    params: Mapping[str, Any] | None,
    threshold: float | str | Mapping[str, float],
    aggregate: str,
    summary_options: SummaryOptions,
    prior_weight: float | None,
    min_pages: int | None,
    adapt_after: int,
    policy: SitePolicy | None,
) -> SiteAwareClassifier:
    """The site-aware classifier; ``prior_weight`` and ``min_pages``, when given, override the
    policy's (``adapt_after`` is the pairwise measures': the site method has ``min_pages``)."""
    if params:
        raise ValueError(f"unknown parameter(s) for method 'site': {', '.join(sorted(params))}")
    return SiteAwareClassifier(
        templates,
        threshold=threshold,
        aggregate=aggregate,
        summary_options=summary_options,
        prior_weight=prior_weight,
        min_pages=min_pages,
        policy=policy,
    )


#: The classifier of each method that is not a pairwise measure; every measure of the
#: similarity registry is built by :func:`build_template_classifier`.
CLASSIFIER_BUILDERS: dict[str, ClassifierBuilder] = {SITE_METHOD: build_site_classifier}


def register_classifier(method: str, builder: ClassifierBuilder) -> None:
    """Make ``build_classifier(method=method)`` use ``builder``."""
    CLASSIFIER_BUILDERS[method] = builder


def build_classifier(
    templates: Mapping[str, Iterable[Any]],
    *,
    method: str = SITE_METHOD,
    params: Mapping[str, Any] | None = None,
    threshold: float | str | Mapping[str, float] = "auto",
    aggregate: str = "max",
    summary_options: SummaryOptions = DEFAULT_OPTIONS,
    prior_weight: float | None = None,
    min_pages: int | None = None,
    adapt_after: int = 20,
    policy: SitePolicy | None = None,
) -> PageClassifier:
    """The classifier for ``method`` (a :class:`PageClassifier`): the registered builder of
    ``method`` (``site``: the site-aware classifier, with ``policy``, default the shipped
    one), else the pairwise measure's."""
    builder = CLASSIFIER_BUILDERS.get(method, build_template_classifier)
    return builder(
        templates,
        method=method,
        params=params,
        threshold=threshold,
        aggregate=aggregate,
        summary_options=summary_options,
        prior_weight=prior_weight,
        min_pages=min_pages,
        adapt_after=adapt_after,
        policy=policy,
    )
