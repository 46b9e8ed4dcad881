"""The template check a crawl can make once it has met the site: weak examples the site shows.

The checks of :mod:`pagesim_scrapy.core.examples` see what the examples say about themselves
(one example, near-copies, a cut from the examples alone). Most weak pairs of examples look
fine there and only the site's pages show the problem: two page types sharing one template, or
a type whose pages fall into two layouts. On the site's scores that shows as a cut with no gap:
the scores run on through the label's cut, so the pages just kept and the pages just left out
are no different to the label. This module reads that from the site's pages and the label's cut
(no Scrapy), and can name a page of the site that, as the second example, puts a wider gap at
the cut the site's own rule would place (measured, and off unless the policy asks for it:
``CheckPolicy(propose=True)``; see :class:`CheckPolicy`).

Framework-free: the Scrapy layer logs each warning once per label and site at close.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pagesim_scrapy.core.cutrules import gap_width_sorted, own_cut
from pagesim_scrapy.core.examples import SitePage
from pagesim_scrapy.core.site import Features, SiteModel, site_similarity

#: The kinds of warning (stable codes: the stat ``pagesim/template_warnings/<kind>``).
NO_GAP = "no_gap"
TEMPLATE_WARNING_KINDS: tuple[str, ...] = (NO_GAP,)

_KIND_WORDS = {
    NO_GAP: "the site's scores run on through its cut (no gap between the pages it keeps and "
    "the rest): the examples do not tell the type from pages that share its template",
}


@dataclass(frozen=True, slots=True)
class CheckPolicy:
    """The constants of the site-based template check, in one object callers pass in (chosen
    leave-one-site-out by ``benchmarks/eval_example_warnings.py``)."""

    #: the site's pages the check needs before it speaks (fewer: the cut is not the site's yet)
    min_pages: int = 20
    #: a cut sitting in a gap narrower than this share of the span of the site's scores has
    #: no gap (a share, not a score: sites' scores spread over ranges of different widths)
    gap_below: float = 0.2
    #: pages of the site tried as the second example (the highest-scored ones)
    candidates: int = 12
    #: a candidate at least this alike (site-weighted) to the example it joins is a near-copy
    near_copy: float = 0.9
    #: a proposal must widen the gap at its cut by at least this share of the span
    better_by: float = 0.05
    #: name a page of the site as the second example: measured on the visible sites' drawn
    #: pairs, the page giving the widest gap rarely made a weak pair good and more often made
    #: it worse (a wide gap is easy to get by cutting off a few near-copies), so off for users
    propose: bool = False


DEFAULT_CHECK_POLICY = CheckPolicy()


@dataclass(frozen=True, slots=True)
class TemplateWarning:
    """One label's warning on one site, and the page proposed as its second example.

    ``keeps`` is the index of the example to keep beside the proposed page (the other is
    replaced); both None when no page of the site makes the cut clearer.
    """

    label: str
    kind: str
    gap: float
    pages: int
    site: str | None = None
    proposed: str | None = None
    keeps: int | None = None
    proposed_gap: float | None = None

    def message(self) -> str:
        """One sentence: what the site shows and what to do."""
        why = (
            f"label {self.label!r}: {_KIND_WORDS[self.kind]} (its gap is {self.gap:.3f} of the "
            f"span of the scores of {self.pages} pages)"
        )
        if self.proposed is None:
            return (
                f"{why}; check its examples are one type, and give the pages that share its "
                "template a label of their own"
            )
        return (
            f"{why}; use {self.proposed} as the second example beside example "
            f"{(self.keeps or 0) + 1} (its gap would be {self.proposed_gap:.3f})"
        )

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-able data."""
        return {
            "label": self.label,
            "site": self.site,
            "kind": self.kind,
            "gap": round(self.gap, 4),
            "pages": self.pages,
            "proposed": self.proposed,
            "keeps": self.keeps,
            "proposed_gap": None if self.proposed_gap is None else round(self.proposed_gap, 4),
            "message": self.message(),
        }


def _share_of_span(ordered: list[float], cut: float | None) -> float:
    """The width of the gap ``cut`` sits in among ``ordered`` scores, as a share of their span."""
    if cut is None or not ordered or ordered[-1] <= ordered[0]:
        return 0.0
    return gap_width_sorted(ordered, cut) / (ordered[-1] - ordered[0])


def cut_gap(scores: Sequence[float], cut: float) -> float:
    """The width of the gap the label's ``cut`` sits in among the site's ``scores``, as a share
    of their span (0 when it keeps all of them or none)."""
    return _share_of_span(sorted(scores), cut)


def own_gap(scores: Sequence[float]) -> float:
    """The gap (share of the span) at the cut the site's own rule places in ``scores``."""
    ordered = sorted(scores)
    return _share_of_span(ordered, own_cut(ordered))


def _pair_gap(kept: Sequence[float], page_to_candidate: Sequence[float], candidate: int) -> float:
    """The own-rule gap of the scores a pair would give the site's other pages: each page's
    best likeness to either example (the site method's ``max`` over templates). The candidate
    itself is left out: scoring 1.0 against itself, it would be the gap's only page above."""
    return own_gap(
        [max(a, b) for i, (a, b) in enumerate(zip(kept, page_to_candidate)) if i != candidate]
    )


def propose_example(
    examples: Sequence[Features],
    pages: Sequence[SitePage],
    model: SiteModel,
    policy: CheckPolicy = DEFAULT_CHECK_POLICY,
) -> tuple[int, int, float, float] | None:
    """The page of ``pages`` that, beside one of ``examples``, gives the widest gap at its own
    cut: (page index, kept example index, that gap, the examples' own gap), or None when no
    page beats the examples by ``policy.better_by`` and leaves a gap the check accepts."""
    if len(examples) < 1 or not pages:
        return None
    to_example = [[site_similarity(p.features, e, model) for p in pages] for e in examples]
    current = own_gap([max(column) for column in zip(*to_example)])
    ranked = sorted(range(len(pages)), key=lambda i: -pages[i].score)[: policy.candidates]
    best: tuple[float, int, int] | None = None
    for index in ranked:
        to_candidate = [site_similarity(p.features, pages[index].features, model) for p in pages]
        for keep, near in enumerate(to_example):
            if near[index] >= policy.near_copy:
                continue
            gap = _pair_gap(near, to_candidate, index)
            if best is None or gap > best[0]:
                best = (gap, index, keep)
    if best is None or best[0] < max(current + policy.better_by, policy.gap_below):
        return None
    return best[1], best[2], best[0], current


def check_label(
    label: str,
    examples: Sequence[Features],
    pages: Sequence[SitePage],
    cut: float,
    model: SiteModel,
    *,
    site: str | None = None,
    policy: CheckPolicy = DEFAULT_CHECK_POLICY,
) -> TemplateWarning | None:
    """The warning on ``label`` from the site's ``pages`` (their scores against it) and its
    ``cut``, with a better second example where a page of the site gives one; None when the
    cut sits in a gap or the site has too few pages to tell."""
    if len(pages) < policy.min_pages:
        return None
    gap = cut_gap([page.score for page in pages], cut)
    if gap >= policy.gap_below:
        return None
    found = TemplateWarning(label, NO_GAP, gap, len(pages), site)
    if not policy.propose:
        return found
    proposal = propose_example(examples, pages, model, policy)
    if proposal is None:
        return found
    index, keep, proposed_gap, _ = proposal
    return TemplateWarning(
        label, NO_GAP, gap, len(pages), site, pages[index].source, keep, proposed_gap
    )


def check_labels(
    classifier: Any,
    pages: Mapping[str, Sequence[SitePage]],
    *,
    site: str | None = None,
    policy: CheckPolicy = DEFAULT_CHECK_POLICY,
) -> list[TemplateWarning]:
    """Every label's warning on ``site`` from a site-aware classifier's public methods: its
    cuts, weights and examples (learns nothing)."""
    model = classifier.site_model(site)
    found = []
    for label in classifier.labels:
        warning = check_label(
            label,
            classifier.template_features(label),
            pages.get(label, ()),
            classifier.threshold_info(label, site)[0],
            model,
            site=site,
            policy=policy,
        )
        if warning is not None:
            found.append(warning)
    return found


__all__ = [
    "DEFAULT_CHECK_POLICY",
    "NO_GAP",
    "TEMPLATE_WARNING_KINDS",
    "CheckPolicy",
    "TemplateWarning",
    "check_label",
    "check_labels",
    "cut_gap",
    "own_gap",
    "propose_example",
]
