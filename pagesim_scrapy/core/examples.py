"""Whether a label's example pages are weak, and what would make them stronger.

A label learns its type from its examples: one example says nothing about how the type varies,
two near-copies say no more than one, two very different pages may be two types, and a cut that
still comes from the prior (few pages passed) rests on the examples alone. Those warnings hold
whatever the site; :func:`advise_labels` reads them from a site-aware classifier,
:func:`weigh_examples` from plain features.

Naming a page of the site as the better example is harder: the only pages to choose from are
those the weak examples already let through, so a proposal tends to repeat what the examples
cover. It is measured by ``benchmarks/eval_examples.py`` and off unless the policy asks for it
(``ExamplePolicy(propose=True)``): it has not beaten a second page of the type picked at random.

What only the site's pages show (a cut with no gap: two types sharing one template) is the
check of :mod:`pagesim_scrapy.core.examplecheck`.

Framework-free: the Scrapy layer logs the advice at close, ``classify --suggest-examples``
prints it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from pagesim_scrapy.core.site import Features, SiteModel, site_similarity

if TYPE_CHECKING:
    from pagesim_scrapy.core.siteaware import SiteAwareClassifier

#: Why a label's examples are weak (stable codes, e.g. for tests and JSON).
ONE_EXAMPLE = "one_example"
NEAR_COPIES = "near_copies"
UNLIKE = "unlike"
PRIOR_CUT = "prior_cut"
WEAK_REASONS: tuple[str, ...] = (ONE_EXAMPLE, NEAR_COPIES, UNLIKE, PRIOR_CUT)

_REASON_WORDS = {
    ONE_EXAMPLE: "one example only: it says nothing about how the type varies",
    NEAR_COPIES: "its examples are near-copies: the second teaches nothing the first does not",
    UNLIKE: "its examples are less alike than the pages given the label: they may be two types",
    PRIOR_CUT: "its cut still comes from the examples alone (few pages passed)",
}

#: What to do about each reason when no page is proposed.
_REASON_ACTIONS = {
    ONE_EXAMPLE: "add a second page of the type, one that differs from the first",
    NEAR_COPIES: "replace one with a page of the type that differs more",
    UNLIKE: "check they are one type, or give each its own label",
    PRIOR_CUT: "add an example or crawl more pages of the type",
}


@dataclass(frozen=True, slots=True)
class ExamplePolicy:
    """The constants of the advice, in one object callers pass in. The four warning
    constants are chosen leave-one-site-out over the visible sites' drawn example pairs
    (``benchmarks/eval_example_warnings.py``: the warning against a pair's F1)."""

    #: two examples at least this alike (site-weighted) are near-copies
    near_copy: float = 0.9
    #: near-copies are weak only where the type's pages vary below this (its spread): on a
    #: type whose pages are near-copies of each other, or alike enough that the site's
    #: weights tell them from the rest, two near-copies do as well as any two of its pages
    varies_below: float = 0.4
    #: fewer pages given the label than this: its cut rests on the examples
    min_pages: int = 5
    #: examples less alike than this quantile of the label's pages' likeness to their medoid
    #: are unlike each other (the type's own spread)
    spread_quantile: float = 0.05
    #: pages nearest the examples proposed from when fewer than ``min_pages`` passed the cut
    nearest: int = 5
    #: at most this many of the label's pages are compared all-pairs (in the order given)
    max_pages: int = 150
    #: name a page of the site as the better example (see the module's docstring: measured,
    #: not yet better than a random page of the type, so off for users)
    propose: bool = False


DEFAULT_EXAMPLE_POLICY = ExamplePolicy()


@dataclass(frozen=True, slots=True)
class ExampleAdvice:
    """One label's verdict on its examples and the page proposed as an example.

    ``replaces`` is the index of the example the proposed page should replace, or None when it
    should be added as a further example.
    """

    label: str
    reasons: tuple[str, ...]
    pages: int
    proposed: str | None = None
    replaces: int | None = None
    typicality: float | None = None
    likeness_to_examples: float | None = None
    examples_likeness: float | None = None
    spread: float | None = None
    site: str | None = field(default=None)

    @property
    def weak(self) -> bool:
        return bool(self.reasons)

    def message(self) -> str:
        """One sentence: why the examples are weak and what to do."""
        if not self.reasons:
            return f"label {self.label!r}: its examples look fine"
        why = "; ".join(_REASON_WORDS[reason] for reason in self.reasons)
        if self.proposed is None:
            return f"label {self.label!r}: {why}; {_REASON_ACTIONS[self.reasons[0]]}"
        action = "add" if self.replaces is None else f"replace example {self.replaces + 1} with"
        return (
            f"label {self.label!r}: {why}; {action} {self.proposed} (the most typical of the "
            f"site's pages near the label, {self.pages} given it, "
            f"mean likeness {self.typicality:.3f}, "
            f"likeness to the examples {self.likeness_to_examples:.3f})"
        )

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-able data (the crawl report, ``classify --suggest-examples``)."""
        return {
            "label": self.label,
            "site": self.site,
            "weak": self.weak,
            "reasons": list(self.reasons),
            "pages": self.pages,
            "proposed": self.proposed,
            "replaces": self.replaces,
            "typicality": _rounded(self.typicality),
            "likeness_to_examples": _rounded(self.likeness_to_examples),
            "examples_likeness": _rounded(self.examples_likeness),
            "spread": _rounded(self.spread),
            "message": self.message() if self.weak else "",
        }


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _quantile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.floor(q * (len(ordered) - 1))))]


def mean_likeness(pages: Sequence[Features], model: SiteModel) -> list[float]:
    """Each page's mean site-weighted likeness to the other pages (1.0 for a lone page)."""
    n = len(pages)
    if n < 2:
        return [1.0] * n
    sums = [0.0] * n
    for i in range(n):
        for j in range(i + 1, n):
            value = site_similarity(pages[i], pages[j], model)
            sums[i] += value
            sums[j] += value
    return [total / (n - 1) for total in sums]


def _examples_likeness(examples: Sequence[Features], model: SiteModel) -> float | None:
    """The least likeness of two examples (None for one example)."""
    pairs = [
        site_similarity(examples[i], examples[j], model)
        for i in range(len(examples))
        for j in range(i + 1, len(examples))
    ]
    return min(pairs) if pairs else None


def _reasons(
    examples: int,
    likeness: float | None,
    spread: float | None,
    pages: int,
    threshold_source: str | None,
    policy: ExamplePolicy,
) -> tuple[str, ...]:
    found = []
    if examples < 2:
        found.append(ONE_EXAMPLE)
    elif likeness is not None and likeness >= policy.near_copy:
        if spread is not None and spread < policy.varies_below:
            found.append(NEAR_COPIES)
    elif likeness is not None and spread is not None and likeness < spread:
        found.append(UNLIKE)
    if threshold_source == "prior" or pages < policy.min_pages:
        found.append(PRIOR_CUT)
    return tuple(found)


def _proposal(
    examples: Sequence[Features],
    pages: Sequence[Features],
    typical: Sequence[float],
    model: SiteModel,
    policy: ExamplePolicy,
) -> tuple[int, float] | None:
    """The page to propose and its likeness to the examples: the most typical page that is not
    a near-copy of an example (ties to the one least like the examples), or None."""
    best: tuple[float, float, int] | None = None
    for index, page in enumerate(pages):
        if page in examples:
            continue
        nearest = max(site_similarity(page, example, model) for example in examples)
        if nearest >= policy.near_copy:
            continue
        key = (typical[index], -nearest, -index)
        if best is None or key > best:
            best = key
    return None if best is None else (-best[2], -best[1])


def _replaced(
    reasons: tuple[str, ...],
    examples: Sequence[Features],
    pages: Sequence[Features],
    model: SiteModel,
) -> int | None:
    """Which example the proposal replaces: the copy of near-copies, the less typical of
    unlike examples; None (add it) otherwise."""
    if NEAR_COPIES in reasons:
        return len(examples) - 1
    if UNLIKE not in reasons or not pages:
        return None
    fit = [sum(site_similarity(e, p, model) for p in pages) for e in examples]
    return min(range(len(examples)), key=fit.__getitem__)


@dataclass(frozen=True, slots=True)
class SitePage:
    """A page of the site as the advice sees it: where it is, its features, its score against
    the label and whether the site gave it the label."""

    source: str
    features: Features
    score: float
    given: bool


def candidates(
    pages: Sequence[SitePage], policy: ExamplePolicy, *, widen: bool = False
) -> list[SitePage]:
    """The pages the proposal is chosen from: those the site gave the label (they passed its
    own cut), and the pages nearest the examples when too few passed to show the type or
    ``widen`` (every page that passed is a near-copy of an example)."""
    pool = [page for page in pages if page.given]
    if widen or len(pool) < policy.min_pages:
        nearest = sorted(pages, key=lambda page: -page.score)[: len(pool) + policy.nearest]
        pool += [page for page in nearest if not page.given]
    pool.sort(key=lambda page: -page.score)
    return pool[: policy.max_pages]


def weigh_examples(
    label: str,
    examples: Sequence[Features],
    pages: Sequence[SitePage],
    model: SiteModel,
    *,
    threshold_source: str | None = None,
    site: str | None = None,
    policy: ExamplePolicy = DEFAULT_EXAMPLE_POLICY,
) -> ExampleAdvice:
    """Whether ``label``'s ``examples`` are weak given the site's ``pages`` (with their scores
    against the label), under the site's weights ``model``, and the page to propose if so."""
    passed = sum(page.given for page in pages)
    pool = candidates(pages, policy)
    features = [page.features for page in pool]
    typical = mean_likeness(features, model)
    spread = _spread(features, typical, model, policy)
    likeness = _examples_likeness(examples, model)
    reasons = _reasons(len(examples), likeness, spread, passed, threshold_source, policy)
    found = ExampleAdvice(
        label, reasons, passed, examples_likeness=likeness, spread=spread, site=site
    )
    if not reasons or not pool or not policy.propose:
        return found
    proposal = _proposal(examples, features, typical, model, policy)
    if proposal is None:  # every page that passed is a copy of an example: look further
        pool = candidates(pages, policy, widen=True)
        features = [page.features for page in pool]
        typical = mean_likeness(features, model)
        proposal = _proposal(examples, features, typical, model, policy)
    if proposal is None:
        return found
    index, nearest = proposal
    return replace(
        found,
        proposed=pool[index].source,
        replaces=_replaced(reasons, examples, features, model),
        typicality=typical[index],
        likeness_to_examples=nearest,
    )


def _spread(
    features: Sequence[Features], typical: Sequence[float], model: SiteModel, policy: ExamplePolicy
) -> float | None:
    """How alike the type's own pages are: a low quantile of their likeness to their medoid
    (None with too few pages to tell)."""
    if len(features) < policy.min_pages:
        return None
    medoid = features[max(range(len(features)), key=typical.__getitem__)]
    alike = [site_similarity(medoid, page, model) for page in features]
    return _quantile(alike, policy.spread_quantile)


def advise_labels(
    classifier: SiteAwareClassifier,
    pages: Mapping[str, Sequence[SitePage]],
    *,
    site: str | None = None,
    policy: ExamplePolicy = DEFAULT_EXAMPLE_POLICY,
) -> list[ExampleAdvice]:
    """Every label's advice on ``site``: ``pages`` maps a label to the site's pages as that
    label sees them; a label without pages is advised from its examples alone."""
    model = classifier.site_model(site)
    advice = []
    for label in classifier.labels:
        _, source = classifier.threshold_info(label, site)
        advice.append(
            weigh_examples(
                label,
                classifier.template_features(label),
                pages.get(label, ()),
                model,
                threshold_source=source,
                site=site,
                policy=policy,
            )
        )
    return advice


__all__ = [
    "DEFAULT_EXAMPLE_POLICY",
    "NEAR_COPIES",
    "ONE_EXAMPLE",
    "PRIOR_CUT",
    "UNLIKE",
    "WEAK_REASONS",
    "ExampleAdvice",
    "ExamplePolicy",
    "SitePage",
    "advise_labels",
    "candidates",
    "mean_likeness",
    "weigh_examples",
]
