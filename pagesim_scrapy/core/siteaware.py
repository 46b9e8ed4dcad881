"""Site-aware page-type decisions: scores weighted by the site's own pages, cuts from its own
score distribution.

For every site (a host in a crawl; the folder given to ``classify``) a :class:`SiteModel` counts
the structural features of the pages met so far, so the site's chrome weighs nothing and the
similarity of a page to a label's templates is the weighted Jaccard of what is left
(:mod:`pagesim_scrapy.core.site`). Decisions come from the same site:

* **nearest type**: a page's label is the label whose templates it is most similar to under
  the site's weights;
* **its own cut per label**, as if it were the only label: on a real site a label's scores over
  the site's pages split into the label's own pages near the top and the rest of the site
  crowded below. Once ``min_pages`` pages have been seen, the cut is the widest gap between
  consecutive scores above the distribution's upper quartile. A page must be nearest a label
  and pass that label's cut, so pages of the types nobody configured get "none of these".
  A cut that keeps only a small top group is checked against the templates' own likeness:
  a type whose scores run on without a boundary is cut at that anchor, and a type that is
  most of the site at its edge below it.
  Before then, a page must reach ``prior_weight`` times the similarity of the label's
  templates to each other (one label; lowered by the site's own early split when a third of
  the pages seen are above it, see EARLY_CUT_SHARE), or more than the other labels' templates
  reach (several).
* **the type's core**: a page the cut turns away is still given the label when it holds every
  node pair that all of the label's templates share and that weighs on the site (the label's
  core: what its examples have in common beyond the chrome), when that core is not the site's
  own (fewer than half of its pages hold it) and the page reaches the cut's floor. A free-form
  type (a wiki's template or user-talk pages) has pages that differ from its templates in
  their content, which the score counts, but not in what the templates share, which the core
  tests (see :func:`holds_the_core`).
* **re-estimated as the site is learned**: the features of the site's last ``keep_pages`` pages
  are kept; every page re-scores them while the site has fewer than 50 pages, and then whenever
  the site has grown by a quarter, so early pages do not fix the weights or the cut.

A verdict given while a site is young (its first ``keep_pages`` pages) may not last: ``holds``
says whether it clears every threshold its label has had on the site so far and its templates'
anchor, so a crawl that can look at a page again later (:mod:`~pagesim_scrapy.core.secondlook`)
holds the rest until the site is learned.

Nothing here needs labelled pages beyond the templates. Memory per site is bounded by the site
model's limits; at most ``max_sites`` sites are kept, and at most ``max_kept_pages`` kept pages
over all sites (about 1.6 KB each; least recently seen sites forgotten first).
"""

from __future__ import annotations

import math
import statistics
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from itertools import combinations, pairwise
from typing import Any

from pagesim_scrapy.core.classify import Verdict, given_thresholds
from pagesim_scrapy.core.site import (
    Features,
    SavedSite,
    SiteModel,
    jaccard_of_totals,
    structural_features,
    weighted_jaccard,
)
from pagesim_scrapy.core.summary import DEFAULT_OPTIONS, PageSummary, SummaryOptions, summarize

#: The method name of site-aware classification (``PAGESIM_METHOD = "site"``).
SITE_METHOD = "site"

#: Pages of a site re-scored on every new page until the site has this many.
EARLY_PAGES = 50

#: The widest-gap candidate of a label's own cut (see :func:`own_cut`) is looked for above this
#: percentile of the label's scores on the site's pages: when the type is a small part of the
#: site, the gaps below it are between kinds of other pages. Chosen with RAMP_PAGES,
#: leave-one-site-out, from {50, 75}; a type larger than a quarter of the site is cut by the
#: Otsu candidate instead.
CUT_FLOOR_PERCENTILE = 75

#: A label's own cut that keeps less than the top quarter of the site and sits in a gap
#: narrower than this has found no boundary: the scores run on (a type of free-form pages, such
#: as a wiki's articles or a blog's static pages, shares little beyond the site's chrome, so
#: its pages score from high to low against its templates), and the cut is placed at the
#: templates' own anchor instead, prior_weight x their similarity to each other. On
#: ../shared/data/site_page_types, distinct-template sites: batch one-class F1 0.938 -> 0.969,
#: online (mean of 3 orders) 0.900 -> 0.911, some of the types 0.929 -> 0.959, large type
#: 0.93-0.96 -> 0.95-0.97; leave-one-site-out over {0.05, 0.1, 0.15} (batch + online F1 of the
#: other sites) chose 0.1, 0.15 and 0.1 (``benchmarks/site_accuracy.py --narrow-grid``).
#: With the pooled criterion of :func:`separation`, judged by batch + online + link-order F1 as
#: ANCHOR_FLOOR is, the folds chose 0.1, 0 and 0.1: on the Q&A site and the blog every value
#: is within 0.003 of the others (they have no such type left), so the wiki's fold fell to 0 on
#: a near tie, and the wiki then loses 0.06 batch F1 (0.960 -> 0.901); the rule exists for the
#: wiki's kind of free-form type.
NARROW_GAP = 0.1

#: A label's cut is raised to this share of its templates' similarity to each other when most
#: of the pages it keeps score below that (see :func:`_above_the_floor`): a page of a type
#: resembles its templates at least about 0.6 times as much as they resemble each other. Without
#: it, a type that the site's pages so far do not contain (a crawl that follows links meets a
#: site's types in bursts, and may reach the products late) gets its own cut between other
#: types, as low as 0.03 against templates 0.75 alike. On ../shared/data/site_page_types,
#: distinct-template sites: one-class F1 with the pages in link order (a breadth-first crawl
#: from the home page, 3 orders) 0.757 -> 0.878, shuffled online (3 orders) 0.910 -> 0.923,
#: batch (0.969) and the large-type protocol unchanged; the leave-one-site-out folds chose 0.6,
#: 0.6 and 0.5 from {0, 0.3, 0.4, 0.5, 0.6, 0.7} (``benchmarks/site_accuracy.py --floor-grid``).
ANCHOR_FLOOR = 0.6

#: With several labels: when at least this share of the site's pages are nearest a label and
#: pass its own cut, the labels describe the site and the nearest label decides (above the
#: other labels' templates); below it, most pages are of types nobody configured and every
#: label keeps its own cut. On ../shared/data/site_page_types the share was 0.73-0.91 with
#: every type of a distinct-template site configured and 0.04-0.57 with two or three of them
#: (``benchmarks/site_accuracy.py`` prints it); this sits between.
COVERING_SHARE = 0.65

#: With several labels that cover the site (COVERING_SHARE), a label whose own cut sits in a
#: gap at least this wide keeps that cut instead of deciding by the nearest label: its pages
#: and the site's other pages split clearly there, and the pages below are of another type
#: even when this label is the nearest one for them (a type nobody configured whose pages
#: look like a configured one: a badge page nearest the badge list, a series page nearest the
#: category pages). The nearest-label rule stays for labels whose cut finds no clear
#: boundary. On ../shared/data/site_page_types, distinct-template sites, with every type but
#: one configured (``benchmarks/site_accuracy.py``, "all types but one"), the share of the
#: held-out types' pages given a label falls from 0.437 to 0.264 and micro F1 rises from
#: 0.961 to 0.971, with multi-type accepted accuracy unchanged (0.969). Judged by both, as a
#: batch and online, over {0.2, 0.25, 0.3, 0.35, 0.4, 0.5, off} (``--wide-grid``), 0.3-0.4
#: is a plateau (mean 0.9658-0.9660, off 0.9571); the leave-one-site-out folds chose 0.4 on
#: four sites and 0.3 on the wiki, whose four held-out figures are then within 0.001 of the
#: default's. A narrower gap (0.3) cost the wiki's online multi-type accuracy up to 0.03: the
#: cut of a type in two looks (a log filtered or not) can sit in a wide gap inside the type.
#: Only the pages at the gap's lower edge and below are turned away, not those inside it: a
#: crawl that has seen one product of a shop has a gap from the rest of the shop up to that
#: product, and the next product lands inside it (with the gap's midpoint as the threshold,
#: the demo shop lost 3 products in such an order, and 1 in half of the crawls under load).
WIDE_GAP = 0.4

#: With several labels that cover the site, a page the nearest label decides must still
#: reach this share of that label's templates' similarity to each other (labels with two or
#: more templates): a page of a type nobody configured can be nearest a label only for want
#: of its own, scoring next to nothing against it (the demo shop's cart page: 0.053 against
#: product templates 0.476 alike, over the other labels' templates' 0.039; its products score
#: 0.18 and more, 0.38 x). On ../shared/data/site_page_types (``benchmarks/site_accuracy.py
#: --nearest-floor-grid``: two templates per type, multi-type accepted accuracy and
#: all-but-one F1, batch and online) 0 to 0.5 are within 0.0007 of each other (0.9732 up to
#: 0.2, 0.9736 at 0.3, 0.9739 at 0.4); the leave-one-site-out folds chose 0.4 on four sites
#: and 0.3 on the blog. 0.4 turns one of the demo shop's 170 products away, so 0.3.
NEAREST_FLOOR = 0.3

#: Before a label has ``min_pages`` scores on a site its prior (0.85 x the templates' likeness)
#: decides alone, and a type that is a large part of the site is met many times in that wait:
#: its pages, scored while the site model is young, fall under the prior (a blog's category
#: pages at 0.67-0.79 against templates 1.0 alike: 9 of the first 14 turned away). From
#: EARLY_CUT_PAGES scores on, the site's own split lowers the prior (never under the
#: ANCHOR_FLOOR) when the pages above it are at least EARLY_CUT_GROUP and at least this share
#: of the pages seen; a small type, whose few early pages the prior costs little, waits. On
#: ../shared/data/site_page_types, distinct-template sites (``benchmarks/site_accuracy.py
#: --early-grid``), large type online F1 0.942 -> 0.958, link order 0.884 -> 0.901, shuffled
#: online about the same; the leave-one-site-out folds chose a third on four sites and a
#: quarter on the wiki (a near tie; the wiki's link order then 0.836 -> 0.814).
EARLY_CUT_SHARE = 1 / 3
EARLY_CUT_GROUP = 3
EARLY_CUT_PAGES = 5

#: Past EARLY_PAGES, the kept pages are re-scored whenever the site has grown by this factor.
REFRESH_GROWTH = 1.25

#: What a site's counts saved by an earlier crawl weigh when a crawl adopts them (see
#: :mod:`~pagesim_scrapy.core.sitefile`): a recurring crawl meets mostly the same pages again,
#: and counted in full, each page's one-off features would be on two pages and weigh. A
#: quarter drops them (a count of 1 rounds to nothing) and lets the new crawl's pages outweigh
#: a changed site's past. On ../shared/data/site_page_types (``benchmarks/site_accuracy.py``,
#: recurring crawl) one-class F1 of the second crawl on the distinct-template sites, per
#: weight 1 / 0.5 / 0.34 / 0.25 / 0.2: Q&A 0.969 / 0.976 / 0.976 / 0.975 / 0.975, wiki 0.907
#: / 0.899 / 0.904 / 0.900 / 0.900, blog 0.884 / 0.908 / 0.924 / 0.928 / 0.930 (first crawl
#: 0.889, 0.876, 0.917; measured before NARROW_GAP); leave-one-site-out chose 0.2, 0.2 and 0.34
#: (``--recurring-grid``).
SAVED_SITE_WEIGHT = 0.25

#: Logistic weights of :func:`verdict_confidence`, in the order of :func:`confidence_features`.
#: Fitted by ``benchmarks/calibrate_confidence.py`` on the 41,924 verdicts of issue 10's
#: protocols over ../shared/data/site_page_types (refitted after the pooled criterion of
#: :func:`separation`); fitted on four sites and applied to the fifth, the expected calibration
#: error is 0.020 (the script prints the whole reliability table). With WIDE_GAP it is 0.018,
#: and these weights, fitted before it, give 0.0062 on all five sites: not refitted. With the
#: label's core (:func:`holds_the_core`) it is 0.019, and these weights give 0.0061.
CONFIDENCE_WEIGHTS = (1.663, -0.319, 0.080, -6.100, 2.716, -2.380, -0.100, 1.327, -0.830)


def confidence_features(
    score: float,
    threshold: float,
    *,
    accepted: bool,
    margin: float,
    labels: int,
    source: str,
) -> tuple[float, ...]:
    """What the confidence of a verdict is computed from.

    The distance of the best score from its threshold, relative to the threshold (a page just
    over or under the cut is a coin toss, one far from it is not); for an accepted page with
    several labels, its margin over the runner-up relative to its score; whether the cut was
    still the prior (the site had too few pages for its own); and, with several labels,
    whether each label kept its own cut (the labels cover little of the site).
    """
    distance = max(-5.0, min(5.0, (score - threshold) / max(threshold, 0.05)))
    several = labels > 1
    relative_margin = margin / max(score, 1e-6) if several else 0.0
    return (
        float(accepted),
        float(not accepted),
        distance if accepted else 0.0,
        0.0 if accepted else distance,
        relative_margin if accepted else 0.0,
        float(accepted and several),
        float(source == "prior" and not several),
        float(accepted and several and source == "distribution"),
        float(not accepted and several and source == "distribution"),
    )


def verdict_confidence(features: tuple[float, ...]) -> float:
    """Probability that a verdict is right, from :func:`confidence_features` (logistic)."""
    z = math.fsum(w * x for w, x in zip(CONFIDENCE_WEIGHTS, features, strict=True))
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def widest_gap_cut(scores: list[float], floor: float, ceiling: float = 1.0) -> float | None:
    """Midpoint of the widest gap between consecutive sorted scores in [floor, ceiling]."""
    ordered = sorted(scores)
    best_width = 0.0
    best: float | None = None
    for lower, upper in pairwise(ordered):
        mid = (lower + upper) / 2
        if mid < floor or mid > ceiling:
            continue
        width = upper - lower
        if width > best_width:
            best_width, best = width, mid
    return best


def otsu_cut(scores: list[float]) -> float | None:
    """The split of the scores into two groups with the largest between-group variance (Otsu)."""
    ordered = sorted(scores)
    n = len(ordered)
    prefix = [0.0]
    for value in ordered:
        prefix.append(prefix[-1] + value)
    best_spread = -1.0
    best: float | None = None
    for k in range(1, n):
        if ordered[k] <= ordered[k - 1]:
            continue
        low_mean = prefix[k] / k
        high_mean = (prefix[n] - prefix[k]) / (n - k)
        spread = k * (n - k) * (high_mean - low_mean) ** 2
        if spread > best_spread:
            best_spread, best = spread, (ordered[k - 1] + ordered[k]) / 2
    return best


def gap_width(scores: list[float], cut: float) -> float:
    """Width of the gap between the scores either side of ``cut`` (0 with none on a side)."""
    above = [s for s in scores if s >= cut]
    below = [s for s in scores if s < cut]
    return min(above) - max(below) if above and below else 0.0


def separation(scores: list[float], cut: float) -> float:
    """Fisher's criterion of a split: squared distance of the two means over the within-group
    variance (-1 when the split leaves fewer than two pages below or none above).

    From EARLY_PAGES scores on, the within-group variance is pooled, each group's weighted by
    its share of the pages. Summed in full, a type that is most of the site counted its own
    spread as much as a group of two or three pages nearest the templates (variance near 0)
    counted theirs, and a cut splitting off those few pages won: a depth-first crawl of the
    demo shop, whose products are 64 % of it, lost 28 % of them that way. Before EARLY_PAGES
    the sum is kept: a few pages of a type that is a small part of the site are then all
    there is of it, and pooling let a looser split between other types win. On
    ../shared/data/site_page_types, distinct-template sites (``benchmarks/site_accuracy.py``),
    summed / pooled throughout / pooled from EARLY_PAGES: one-class batch F1 0.969 / 0.978 /
    0.978, online (3 orders) 0.923 / 0.914 / 0.920, link order 0.878 / 0.885 / 0.884, some of
    the types 0.959 / 0.979 / 0.979, large type (batch) 0.957 / 0.965 / 0.960.
    """
    low = [s for s in scores if s < cut]
    high = [s for s in scores if s >= cut]
    if len(low) < 2 or not high:
        return -1.0
    low_mean = math.fsum(low) / len(low)
    high_mean = math.fsum(high) / len(high)
    low_spread = statistics.pvariance(low, low_mean)
    high_spread = statistics.pvariance(high, high_mean)
    if len(scores) >= EARLY_PAGES:
        spread = (len(low) * low_spread + len(high) * high_spread) / len(scores)
    else:
        spread = low_spread + high_spread
    return (high_mean - low_mean) ** 2 / (spread + 1e-6)


def own_cut(observed: list[float]) -> float | None:
    """A label's cut from its scores on the site's kept pages, as if it were the only label.

    Two candidates: the widest gap in the top quarter of the scores, right when the label's
    type is a small part of the site (the gap between its pages and the rest is wide, and the
    other types below it would split elsewhere); and Otsu's two-group split, right when the
    type is a large part of it (a crawl of a shop is mostly products: the top quarter is then
    all of the type and its widest gap splits the type itself), moved down to a wider gap
    below it if there is one. The candidate whose two groups are better separated (Fisher's
    criterion) wins. Measured on ../shared/data/site_page_types (``benchmarks/site_accuracy.py``,
    the "large type" protocol): with the type half of the site, one-class F1 0.56 -> 0.96
    (batch) and 0.70 -> 0.95 (online); on the whole sites, where each type is at most a fifth,
    batch F1 stays 0.938.
    """
    return own_cut_and_rule(observed)[0]


#: How a label's cut was placed, in words (``describe()``'s ``cut_rule``, ``explain``).
CUT_RULES = {
    "gap": "the widest gap among its scores above their upper quartile",
    "split": "Otsu's two-group split of its scores (or a wider gap below it)",
    "anchor": (
        "its scores run on without a boundary, so the templates' anchor "
        "(prior weight x their similarity to each other)"
    ),
    "edge": (
        "its type is most of the site (half of the pages reach the templates' anchor), so "
        "the widest gap below that anchor, the type's edge"
    ),
    "floor": (
        "raised to the floor (ANCHOR_FLOOR x the templates' similarity to each other): the "
        "pages the site's own split kept were mostly below it (or, a minority of the site, "
        "mostly below the templates' anchor), of other types"
    ),
    "early": "the site's own split before the label's cut has its pages (a large type)",
}


def own_cut_and_rule(observed: list[float]) -> tuple[float | None, str]:
    """:func:`own_cut` and which of its two candidates won ("gap" or "split")."""
    floor = statistics.quantiles(observed, n=100)[CUT_FLOOR_PERCENTILE - 1]
    gap = widest_gap_cut(observed, floor)
    split = otsu_cut(observed)
    if split is not None:
        # a type in two or three looks (a shop's products with and without their optional
        # blocks) pulls Otsu's split up between them: a wider gap below it is the type's edge
        lower = widest_gap_cut(observed, 0.0, split)
        if lower is not None and gap_width(observed, lower) > gap_width(observed, split):
            split = lower
    if gap is None or split is None:
        return (gap, "gap") if split is None else (split, "split")
    if separation(observed, split) > separation(observed, gap):
        return split, "split"
    return gap, "gap"


def _a_small_top(observed: list[float], cut: float) -> bool:
    """Whether a cut keeps less than the top quarter of the site's pages."""
    above = sum(score >= cut for score in observed)
    return above < len(observed) * (1.0 - CUT_FLOOR_PERCENTILE / 100)


def _in_a_continuum(observed: list[float], cut: float) -> bool:
    """Whether a cut that keeps a small top share of the site sits in a narrow gap: then the
    scores run on without a boundary (a type of free-form pages, such as a wiki's articles
    or a blog's static pages, whose pages share little beyond the site's chrome), and the
    templates' own similarity is the better anchor."""
    return _a_small_top(observed, cut) and gap_width(observed, cut) < NARROW_GAP


#: A type is taken to be most of the site when at least this share of the site's pages reach
#: its templates' anchor (prior_weight x their similarity to each other) ...
DOMINANT_SHARE = 0.5

#: ... and its templates are at least this similar to each other (templates that share little
#: give an anchor that any site's pages reach). Then a cut that keeps only a small top group
#: splits the type itself (its pages nearest the templates from the rest of it), and the cut
#: moves down to the widest gap below the anchor: the edge of the type. Without this, a crawl
#: whose pages are 80-95 % of the configured type lost up to 90 % of them online (the demo
#: shop with products 90 % of it: 71-111 of 170 in two orders; at 95 %, up to 152) and
#: more than a quarter in a batch (50 of 170). On ../shared/data/site_page_types,
#: distinct-template sites, the type 80 % and 90 % of the site
#: (``benchmarks/site_accuracy.py``, "most of the site"): batch F1 wiki 0.916 -> 0.939, blog
#: 0.785 -> 0.902, Q&A 0.990 unchanged; every other protocol unchanged. Chosen
#: leave-one-site-out from {0.15, 0.25, 0.35, off} (``--dominant-grid``, the sum of six F1
#: figures): 0.35 loses the wiki's gain; 0.15 and 0.25 give the three distinct-template sites
#: the same figures (within 0.001), so the folds split between them on ties: on the other
#: distinct sites two folds chose 0.25 and one 0.15; with Python's docs among the four, 0.15
#: (that site alone prefers it, and loses 0.13 batch F1 with it: 0.593 -> 0.461).
DOMINANT_WITHIN = 0.25


def _edge_of_a_type_that_is_most_of_the_site(
    observed: list[float], anchor: float, within: float
) -> float | None:
    """The widest gap below the anchor when the label's type is most of the site (see
    DOMINANT_SHARE and DOMINANT_WITHIN), else None."""
    if within < DOMINANT_WITHIN:
        return None
    if sum(score >= anchor for score in observed) < DOMINANT_SHARE * len(observed):
        return None
    return widest_gap_cut(observed, 0.0, anchor)


def _own_cut_anchored(
    observed: list[float], within: float, prior_weight: float
) -> tuple[float | None, str]:
    """A label's own cut (:func:`own_cut`) checked against its templates' anchor, and the rule
    that placed it (a key of CUT_RULES): a cut that keeps only a small top group either sits
    in a continuum (the anchor is the better cut) or splits a type that is most of the site
    (its edge below the anchor is); the result never keeps mostly pages below the floor
    (:func:`_above_the_floor`)."""
    cut, rule = own_cut_and_rule(observed)
    if cut is None:
        return None, rule
    anchor = prior_weight * within
    continuum = _in_a_continuum(observed, cut)
    if continuum or (cut > within and _a_small_top(observed, cut)):
        edge = _edge_of_a_type_that_is_most_of_the_site(observed, anchor, within)
        if edge is not None:
            cut, rule = edge, "edge"
        elif continuum:
            cut, rule = anchor, "anchor"
    anchor_to_reach = anchor if rule == "split" else None
    raised = _above_the_floor(observed, cut, within, anchor_to_reach)
    return raised, ("floor" if raised != cut else rule)


def _above_the_floor(
    observed: list[float], cut: float, within: float, anchor: float | None = None
) -> float:
    """``cut``, or the floor (ANCHOR_FLOOR x the templates' similarity to each other) when the
    pages the cut keeps are mostly below that floor: they are then pages of other types, and
    the label's own type is not among the site's pages seen so far. A type that is most of the
    site keeps a cut below the floor: its pages' common structure weighs little there, so they
    score low against the templates, but the half above the cut still reaches the floor.

    With ``anchor`` (an Otsu split, :func:`own_cut`), a cut that keeps less than half of the
    site must have most of its pages reach the templates' anchor instead. Otsu's split is
    there for a type that is a large part of the site; one that keeps a minority mostly far
    from the templates splits groups of other types from each other: a wiki's content pages
    (articles, talk, user, template pages) from its special pages, which a shuffled crawl of
    the wiki met 20-90 pages into it, and which let 25 pages of other types pass as
    articles. On ../shared/data/site_page_types, distinct-template sites
    (``benchmarks/site_accuracy.py``), one-class online F1 (3 orders) wiki 0.872 -> 0.885,
    blog 0.946 -> 0.955, Q&A 0.971 unchanged; batch, most-of-the-site and the shared-template
    sites unchanged (within 0.003). No new constant: the share is DOMINANT_SHARE, the anchor
    the prior's; each leave-one-site-out fold (the sum of six one-class F1 figures on the
    other four sites, as ``--dominant-grid``) chose the rule over its absence."""
    floor = ANCHOR_FLOOR * within
    if cut >= floor:
        return cut
    kept = sorted(score for score in observed if score >= cut)
    median = kept[len(kept) // 2] if kept else 0.0
    reach = floor
    if anchor is not None and len(kept) < DOMINANT_SHARE * len(observed):
        reach = anchor
    return floor if median < reach else cut


@dataclass
class _LabelOnSite:
    within: float | None = None  # least similarity of two of the label's templates
    cross: float | None = None  # most similarity of its templates to other labels' templates
    prior: float = 0.0
    cut: float | None = None  # from the site's distribution, once there are enough pages
    rule: str = ""  # how the cut was placed: a key of CUT_RULES
    gap: float = 0.0  # width of the gap the cut sits in
    below: float = 0.0  # the highest score under the cut: the gap's lower edge
    observed: list[float] = field(default_factory=list)  # its scores on the site's kept pages
    # the highest threshold the label has had on the site since its own cut (not the prior)
    highest: float | None = None
    # the node pairs all of its templates hold that weigh on the site (two templates or more)
    core: frozenset[str] = frozenset()
    core_share: float = 0.0  # share of the site's kept pages holding every pair of the core


def _early_cut(info: _LabelOnSite) -> float | None:
    """A one-label cut before the label has ``min_pages`` scores: the site's own split when a
    large type shows above it (see EARLY_CUT_SHARE), never below the floor; otherwise none,
    and the prior decides."""
    if info.cross is not None or info.within is None or len(info.observed) < EARLY_CUT_PAGES:
        return None
    early = own_cut(info.observed)
    if early is None or early >= info.prior:
        return None
    above = sum(score >= early for score in info.observed)
    if above < EARLY_CUT_GROUP or above < EARLY_CUT_SHARE * len(info.observed):
        return None
    return max(ANCHOR_FLOOR * info.within, early)


def holds_the_core(info: _LabelOnSite, features: Features, score: float) -> bool:
    """Whether a page the label's cut turns away is still the label's: it holds the label's
    core (every node pair that all of its templates share and that weighs on the site), the
    cut is the site's own (not the prior), the core is not the site's own (fewer than
    DOMINANT_SHARE of its kept pages hold it) and the page reaches the cut's floor
    (ANCHOR_FLOOR x the templates' similarity to each other). No new constant.

    The score is a similarity to one template, and a page of a free-form type (a wiki's
    template pages, its user-talk pages) differs from both templates in its content as much
    as a page of another type does: the score runs on in one continuum, and the cut, at the
    widest gap, keeps only the few pages nearest a template. What the type's pages have in
    common is what its templates share: on the distinct-template sites of
    ../shared/data/site_page_types, every page below a one-class cut that held its label's core
    was of the type (15 pages, none of another type). The share bound turns it off where the
    templates share only the site's layout (Python's docs: a core held by 54-77 % of the
    site), the floor where a core is held by a type near the label's (the Flink site's info
    pages: 6 blog pages). One-class F1 with two templates per type
    (``benchmarks/site_accuracy.py``), distinct sites: batch 0.978 -> 0.990 (wiki 0.960 ->
    0.989), online 0.924 -> 0.932, as a tag-mode crawl that holds unsettled verdicts 0.968 ->
    0.975; every other protocol the same or better, on all five sites. A single template is
    not a core: a page holding all of one example is not of its type more often than not (on
    the one-template protocols it gained 0.003 on the distinct sites and lost 0.02 on the
    others)."""
    core = info.core
    return (
        bool(core)
        and info.cut is not None
        and info.within is not None
        and info.core_share < DOMINANT_SHARE
        and score >= ANCHOR_FLOOR * info.within
        and core <= features
    )


@dataclass
class _Site:
    model: SiteModel
    labels: dict[str, _LabelOnSite]
    refreshed_at: int = -1
    # per label: (features, weighted total) of each template under the current weights
    template_totals: dict[str, list[tuple[Features, float]]] = field(default_factory=dict)
    totals_table: list[float] | None = None  # the weight table the totals were computed with
    totals_pages: int = -1  # and the site's page count then (a refresh scores many pages)
    # share of the kept pages that are nearest a label and pass its own cut: how much of the
    # site the labels describe
    coverage: float = 0.0


class SiteAwareClassifier:
    """Labels -> template pages, decided per site; the same interface as ``TemplateClassifier``.

    ``threshold`` is ``"auto"`` (per site, see the module docstring), a number or a
    ``{label: number}`` dict (missing labels auto).
    """

    method = SITE_METHOD

    def __init__(
        self,
        templates: Mapping[str, Iterable[Any]],
        *,
        threshold: float | str | Mapping[str, float] = "auto",
        aggregate: str = "max",
        summary_options: SummaryOptions = DEFAULT_OPTIONS,
        prior_weight: float = 0.85,
        min_pages: int = 20,
        keep_pages: int = 300,
        max_sites: int = 1000,
        max_kept_pages: int = 100_000,
        max_features: int = 50_000,
    ) -> None:
        if aggregate not in ("max", "mean"):
            raise ValueError(f"aggregate must be one of ('max', 'mean'), not {aggregate!r}")
        if not 0.0 < prior_weight < 1.0:
            raise ValueError("prior_weight must be within (0, 1)")
        if min_pages < 1:
            raise ValueError("min_pages must be >= 1")
        self.aggregate = aggregate
        self.summary_options = summary_options
        self.prior_weight = prior_weight
        self.min_pages = min_pages
        self.keep_pages = keep_pages
        self.max_sites = max_sites
        self.max_kept_pages = max_kept_pages
        self._kept_total = 0
        self.max_features = max_features
        self.params: dict[str, Any] = {}
        self._lock = threading.RLock()
        self._templates: dict[str, list[Features]] = {}
        self.template_summaries: dict[str, list[PageSummary]] = {}
        for label, pages in templates.items():
            summaries = [summarize(page, summary_options) for page in pages]
            if not summaries:
                raise ValueError(f"label {label!r} has no template page")
            self.template_summaries[label] = summaries
            self._templates[label] = [structural_features(s) for s in summaries]
        if not self._templates:
            raise ValueError("no templates given")
        self._given = given_thresholds(threshold, self._templates)
        self._sites: OrderedDict[str | None, _Site] = OrderedDict()
        #: sites an earlier crawl saved, adopted at this crawl's first page of each
        self._pending: dict[str | None, SavedSite] = {}
        self._saved_weight = SAVED_SITE_WEIGHT
        #: called with (site, features) for every page counted into a site, under the
        #: classifier's lock (a crawl fleet records its deltas there: keep it cheap)
        self.learn_listener: Callable[[str | None, Features], None] | None = None

    @property
    def lock(self) -> threading.RLock:
        """The lock every read and update of the site models takes."""
        return self._lock

    @property
    def labels(self) -> list[str]:
        return list(self._templates)

    # -- sites -----------------------------------------------------------------------------

    def _site(self, site: str | None) -> _Site:
        state = self._sites.get(site)
        if state is not None:
            self._sites.move_to_end(site)
            return state
        saved = self._pending.pop(site, None)
        if saved is not None:
            past = saved.scaled(self._saved_weight)
            self.adopt_site(site, past.pages, past.df, past.kept)  # makes the state below first
            return self._sites[site]
        model = SiteModel(max_features=self.max_features, keep_pages=self.keep_pages)
        # The templates are pages of the site too: they seed the document frequencies.
        for features in self._templates.values():
            for page in features:
                model.add(page, keep=False)
        state = _Site(model, {label: _LabelOnSite() for label in self._templates})
        self._sites[site] = state
        self._evict()
        return state

    def template_features(self, label: str) -> list[Features]:
        """The structural features of ``label``'s templates (for explanations)."""
        return list(self._templates[label])

    def _evict(self) -> None:
        """Forget the least recently seen sites beyond ``max_sites``, or while all sites
        together keep more than ``max_kept_pages`` pages (the most recent site stays)."""
        while len(self._sites) > 1 and (
            len(self._sites) > self.max_sites or self._kept_total > self.max_kept_pages
        ):
            _, state = self._sites.popitem(last=False)
            self._kept_total -= len(state.model.recent)

    def _add(self, state: _Site, features: Features, site: str | None = None) -> None:
        """Count a page into its site, keeping the kept-pages total and its bound."""
        before = len(state.model.recent)
        state.model.add(features)
        if self.learn_listener is not None:
            self.learn_listener(site, features)
        self._kept_total += len(state.model.recent) - before
        if self._kept_total > self.max_kept_pages:
            self._evict()

    def adopt_site(
        self,
        site: str | None,
        pages: int,
        df: Mapping[str, int],
        kept: list[str],
        local: tuple[int, Mapping[str, int], list[str]] | None = None,
    ) -> None:
        """Replace a site's counts with what a whole crawl fleet learned (``pages``, feature
        document frequencies ``df``, the packed kept pages, oldest first) plus ``local``, this
        process's pages not pushed yet (same three parts). The templates seed the counts as
        for a new site; the labels' cuts are re-estimated as the site grows, as usual."""
        model = SiteModel(max_features=self.max_features, keep_pages=self.keep_pages)
        for features in self._templates.values():
            for page in features:
                model.add(page, keep=False)
        counts = model.df
        for feature, n in df.items():
            counts[feature] = counts.get(feature, 0) + n
        model.pages += pages
        model.recent.extend(kept)
        with self._lock:
            if local is not None:
                local_pages, local_df, local_kept = local
                model.pages += local_pages
                for feature, n in local_df.items():
                    counts[feature] = counts.get(feature, 0) + n
                model.recent.extend(local_kept)
            if len(counts) > self.max_features:
                model.forget_rare()
            state = self._sites.get(site)
            if state is None:
                state = self._site(site)
            self._kept_total += len(model.recent) - len(state.model.recent)
            state.model = model
            state.totals_table = None
            # re-estimated at the next decision when the site grew as much as a local
            # refresh would wait for (a late worker's first adoption, typically)
            if (
                model.pages < EARLY_PAGES
                or model.pages >= state.refreshed_at * REFRESH_GROWTH
                or state.refreshed_at > model.pages
            ):
                state.refreshed_at = -1
            if self._kept_total > self.max_kept_pages:
                self._evict()

    def export_sites(self) -> list[SavedSite]:
        """Every site's counts with the templates' own counts taken out, and its kept pages:
        what a later crawl adopts (:meth:`adopt_saved`) to start from what this one learned."""
        seeds: dict[str, int] = {}
        for template_pages in self._templates.values():
            for page in template_pages:
                for feature in page:
                    seeds[feature] = seeds.get(feature, 0) + 1
        seeded = sum(map(len, self._templates.values()))
        out = []
        with self._lock:
            for site, state in self._sites.items():
                model = state.model
                own_pages = model.pages - seeded
                if own_pages <= 0:
                    continue
                df: dict[str, int] = {}
                for feature, n in model.df.items():
                    own: int = n - seeds.get(feature, 0)
                    if own > 0:
                        df[feature] = min(own, own_pages)
                out.append(SavedSite(site, own_pages, df, list(model.recent)))
            out.extend(self._pending.values())
        return out

    def adopt_saved(self, sites: Iterable[SavedSite], weight: float = SAVED_SITE_WEIGHT) -> int:
        """Start each of ``sites`` from what an earlier crawl learned, at this crawl's first
        page of the site: its counts times ``weight`` (see SAVED_SITE_WEIGHT), this crawl's
        templates added, its cuts re-estimated then. Sites this crawl does not meet are
        exported again unchanged. Returns how many sites are waiting."""
        if not 0.0 < weight <= 1.0:
            raise ValueError("weight must be within (0, 1]")
        with self._lock:
            for saved in sites:
                if saved.site not in self._sites:
                    self._pending[saved.site] = saved
            self._saved_weight = weight
            return len(self._pending)

    def site_model(self, site: str | None = None) -> SiteModel:
        with self._lock:
            return self._site(site).model

    def _template_totals(self, state: _Site) -> dict[str, list[tuple[Features, float]]]:
        model = state.model
        # Recomputed with every new weight table (every page of a small site, then every 1 %
        # of growth), so the templates' totals and the page's weights come from one table;
        # only the document counts of the last few pages can differ between them.
        table = model.table()
        if table is not state.totals_table or (
            model.pages < EARLY_PAGES and model.pages != state.totals_pages
        ):
            state.template_totals = {
                label: [(page, model.total(page, table)) for page in pages]
                for label, pages in self._templates.items()
            }
            state.totals_table = table
            state.totals_pages = model.pages
        return state.template_totals

    def _per_template(self, features: Features, state: _Site) -> dict[str, list[float]]:
        """The page's similarity to each template of each label, under the site's weights."""
        model = state.model
        totals = self._template_totals(state)
        table = model.table()
        total = model.total(features, table)
        return {
            label: [
                jaccard_of_totals(model.total(features & page, table), total, t_total)
                for page, t_total in pages
            ]
            for label, pages in totals.items()
        }

    def _scores_of(self, features: Features, state: _Site) -> dict[str, float]:
        aggregate = max if self.aggregate == "max" else (lambda v: math.fsum(v) / len(v))
        return {
            label: aggregate(values)
            for label, values in self._per_template(features, state).items()
        }

    def _template_pairs(self, state: _Site) -> dict[tuple[int, int], float]:
        """Site-weighted similarity of every two templates (all labels), each pair once."""
        flat = [page for pages in self._templates.values() for page in pages]
        weights = state.model.weights(frozenset().union(*flat))
        totals = [math.fsum(weights[f] for f in page) for page in flat]
        return {
            (i, j): weighted_jaccard(
                {f: weights[f] for f in flat[i]}, totals[i], flat[j], totals[j]
            )
            for i, j in combinations(range(len(flat)), 2)
        }

    def _sample(self, state: _Site) -> Iterator[Features]:
        """The site's kept pages that the cuts are estimated from: all but the templates
        themselves. A crawl given the site's own pages as templates fetches them, and their
        score of 1.0 is not a sample of how the type's pages score (one such page at the top
        made a group of its own there). One kept page is left out per template it equals."""
        templates = Counter(page for pages in self._templates.values() for page in pages)
        for features in state.model.kept():
            if templates[features] > 0:
                templates[features] -= 1
            else:
                yield features

    def _refresh(self, state: _Site) -> None:
        """Re-estimate every label's anchors and cut from the site's kept pages."""
        labels = state.labels
        pairs = self._template_pairs(state)
        owner: list[str] = [label for label, pages in self._templates.items() for _ in pages]
        for label in self._templates:
            info = labels[label]
            within = [v for (i, j), v in pairs.items() if owner[i] == owner[j] == label]
            info.within = min(within) if within else None
            cross = [
                v
                for (i, j), v in pairs.items()
                if owner[i] != owner[j] and label in (owner[i], owner[j])
            ]
            info.cross = max(cross) if cross else None
            if info.cross is not None:
                # the nearest label decides the type; the cut only turns away pages no closer
                # to this label's templates than the other labels' templates are
                info.prior = info.cross
            else:
                anchor = info.within if info.within is not None else 1.0
                info.prior = self.prior_weight * anchor
            info.observed = []
        # Every label's cut comes from its scores over all the site's kept pages, as if it
        # were the only label: with several labels a page must be nearest a label *and* pass
        # that label's own cut. The nearest label alone let pages of every type nobody
        # configured through (precision 0.18-0.44 with two or three of a site's types given).
        sample = list(self._sample(state))
        kept = [self._scores_of(features, state) for features in sample]
        self._find_cores(state, sample)
        for scores in kept:
            for label, score in scores.items():
                labels[label].observed.append(score)
        # With several labels each label's own cut needs pages of its own type among the kept
        # ones: more labels, more pages first (until then the nearest label decides, above the
        # other labels' templates).
        needed = max(self.min_pages, math.ceil(self.min_pages * len(labels) / 2))
        for info in labels.values():
            if len(info.observed) < needed:
                info.cut = _early_cut(info)
                info.rule = "" if info.cut is None else "early"
            elif info.within is None:
                info.cut, info.rule = own_cut_and_rule(info.observed)
            else:
                info.cut, info.rule = _own_cut_anchored(
                    info.observed, info.within, self.prior_weight
                )
            info.gap = 0.0 if info.cut is None else gap_width(info.observed, info.cut)
            info.below = max((v for v in info.observed if v < (info.cut or 0.0)), default=0.0)
        passed = 0
        for scores in kept:
            nearest = max(scores, key=scores.__getitem__)
            cut = labels[nearest].cut
            passed += cut is not None and scores[nearest] >= cut
        state.coverage = passed / len(kept) if kept else 0.0
        state.refreshed_at = state.model.pages
        for label, info in labels.items():
            if label in self._given:
                continue
            value, source = self._threshold(state, label)
            if source != "prior":
                info.highest = value if info.highest is None else max(info.highest, value)

    def _find_cores(self, state: _Site, sample: list[Features]) -> None:
        """Every label's core under the site's current weights, and how much of the site
        holds it (see :func:`holds_the_core`)."""
        table = state.model.table()
        count = state.model.df.get
        for label, templates in self._templates.items():
            info = state.labels[label]
            if len(templates) < 2:
                info.core, info.core_share = frozenset(), 0.0
                continue
            shared = frozenset.intersection(*templates)
            info.core = frozenset(f for f in shared if table[count(f, 0)] > 0.0)
            holding = sum(info.core <= page for page in sample) if info.core else 0
            info.core_share = holding / len(sample) if sample else 0.0

    def _maybe_refresh(self, state: _Site) -> None:
        pages = state.model.pages
        if (
            pages < EARLY_PAGES
            or pages >= state.refreshed_at * REFRESH_GROWTH
            or state.refreshed_at < 0
        ):
            self._refresh(state)

    # -- the classifier interface ----------------------------------------------------------

    def features(self, page: Any) -> Features:
        """The page's structural features (a page's features given as they are: a batch job
        computes them where the page is read and moves only them)."""
        if isinstance(page, frozenset):
            return page
        summary = page if isinstance(page, PageSummary) else summarize(page, self.summary_options)
        return structural_features(summary)

    def scores(self, page: Any, *, site: str | None = None) -> dict[str, float]:
        """Per-label similarity of ``page`` under the site's current weights (learns nothing)."""
        features = self.features(page)
        with self._lock:
            return self._scores_of(features, self._site(site))

    def template_scores(self, page: Any, *, site: str | None = None) -> dict[str, list[float]]:
        """Per label, the page's similarity to each of its templates (learns nothing)."""
        features = self.features(page)
        with self._lock:
            return self._per_template(features, self._site(site))

    def learn(self, page: Any, *, site: str | None = None) -> None:
        """Count a page into its site's model (without deciding it)."""
        features = self.features(page)
        with self._lock:
            state = self._site(site)
            self._add(state, features, site)
            self._maybe_refresh(state)

    def threshold_info(self, label: str, site: str | None = None) -> tuple[float, str]:
        """The threshold ``label`` must reach on ``site`` and how it was set."""
        if label in self._given:
            return self._given[label], "given"
        with self._lock:
            state = self._site(site)
            if state.refreshed_at < 0:
                self._refresh(state)
            return self._threshold(state, label)

    def _threshold(self, state: _Site, label: str) -> tuple[float, str]:
        info = state.labels[label]
        if info.cut is None:
            return info.prior, "prior"
        if info.cross is not None and state.coverage >= COVERING_SHARE:
            # the labels describe most of the site: few pages are of other types, and a
            # page of the label that its own cut would turn away is better given the
            # label it is nearest (the other labels' templates still bound it from below)
            floor = NEAREST_FLOOR * info.within if info.within is not None else 0.0
            nearest = max(info.prior, floor)
            if info.gap < WIDE_GAP:
                return nearest, "nearest"
            # unless the cut sits in a wide gap, a clear boundary (see WIDE_GAP): the pages
            # that make its lower edge, and any page as low, are of another type; a page
            # inside the gap is still the nearest label's (with one page of the type seen
            # the gap runs from the rest of the site to that page)
            return max(nearest, math.nextafter(info.below, math.inf)), "distribution"
        return info.cut, "distribution"

    def is_young(self, site: str | None = None) -> bool:
        """Whether ``site`` is within its first ``keep_pages`` pages (its templates included):
        the window its cuts are first estimated from, where a verdict may not last."""
        with self._lock:
            return self._site(site).model.pages <= self.keep_pages

    def holds(self, verdict: Verdict, site: str | None = None) -> bool:
        """Whether a verdict that gives a label is settled: true once the site is past its
        young pages (``keep_pages``), or for a given threshold; while the site is young, only
        when the label has a cut of its own (not the prior) and the page reaches every
        threshold the label has had on the site and its templates' anchor (the prior).

        A young site's cut moves as its pages arrive, and a page that passes a low cut early
        may be of another type. A crawl that can look at a page again once the site is
        learned (:mod:`~pagesim_scrapy.core.secondlook`) holds a verdict that does not hold
        until then, instead of letting the page through on a cut that may not last."""
        label = verdict.label
        if label is None or label in self._given:
            return True
        with self._lock:
            if not self.is_young(site):
                return True
            info = self._site(site).labels[label]
            if info.cut is None or info.highest is None:
                return False
            return verdict.score >= max(info.highest, info.prior)

    def settled(self, verdict: Verdict, site: str | None = None) -> bool:
        """Whether a verdict, with a label or without, is the one the site's final cut would
        give: a labelled verdict when it :meth:`holds`; one without a label once the site is
        past its young pages, for a given threshold, or when its best score is under the
        lowest cut its nearest label can get on the site (:meth:`lowest_cut`).

        A crawl whose spider sees every page with its verdict (tag mode) cannot look at a
        page again once delivered; it defers the pages whose verdict is not settled to the
        second look instead, both ways."""
        if verdict.label is not None:
            return self.holds(verdict, site)
        if not verdict.scores:
            return True
        nearest = max(verdict.scores, key=verdict.scores.__getitem__)
        if nearest in self._given:
            return True
        with self._lock:
            if not self.is_young(site):
                return True
            return verdict.score < self.lowest_cut(nearest, site)

    def core(self, label: str, site: str | None = None) -> tuple[Features, float]:
        """``label``'s core on ``site`` and the share of the site's kept pages holding it (see
        :func:`holds_the_core`; empty for a label with one template)."""
        with self._lock:
            state = self._site(site)
            if state.refreshed_at < 0:
                self._refresh(state)
            info = state.labels[label]
            return info.core, info.core_share

    def catch_up(self, site: str | None = None) -> None:
        """Re-estimate ``site``'s weights, anchors and cuts from every page it has seen, when
        pages have arrived since the last re-estimate. A crawl re-estimates a site only when it
        has grown by a quarter, so its last cut can miss up to a fifth of its pages; a decision
        that waited for the site to be learned (the second look) is made on the cut the whole
        site gives, as ``classify_all`` does."""
        with self._lock:
            state = self._site(site)
            if state.refreshed_at != state.model.pages:
                self._refresh(state)

    def lowest_cut(self, label: str, site: str | None = None) -> float:
        """A bound under which no threshold of ``label`` on ``site`` is expected: the lowest
        share of its templates' similarity to each other that any rule cuts at (the nearest
        rule's NEAREST_FLOOR, under the cut's ANCHOR_FLOOR). Not the floor itself: that
        similarity is measured under the site's weights, and falls as the site's chrome is
        learned (the blog's static-page templates: 0.51 alike early, 0.41 at the end, so a
        page under the early floor passed the final one). A single template is taken as
        alike to itself (1.0); 0 would defer every page of a young site.

        On ../shared/data/site_page_types, distinct-template sites, 3 shuffled orders, tag
        mode deferring the verdicts not settled (``benchmarks/site_accuracy.py``, "as a crawl
        that can look again"): one-class F1 0.968 with 5-17 % of the pages deferred, as with
        every page turned away looked at again (drop mode); with the cut's floor as the bound
        0.966 (2-8 %); one template per type 0.889 (8-18 % deferred), against 0.885 with
        every page of a young site deferred (92-99 %)."""
        with self._lock:
            state = self._site(site)
            if state.refreshed_at < 0:
                self._refresh(state)
            within = state.labels[label].within
            return min(ANCHOR_FLOOR, NEAREST_FLOOR) * (1.0 if within is None else within)

    def decide(
        self,
        scores: Mapping[str, float],
        *,
        site: str | None = None,
        features: Features | None = None,
    ) -> Verdict:
        """The verdict for a page's ``scores`` on ``site``; with the page's ``features``, a
        page under its nearest label's cut that holds the label's core is given the label
        (see :func:`holds_the_core`)."""
        ranked = sorted(scores.items(), key=lambda item: item[1], reverse=True)
        best_label, best_score = ranked[0]
        runner_up, second = ranked[1] if len(ranked) > 1 else (None, 0.0)
        margin = best_score - second if len(ranked) > 1 else 1.0
        threshold, source = self.threshold_info(best_label, site)
        accepted = best_score >= threshold
        by_core = False
        if not accepted and features is not None and source != "given":
            with self._lock:
                info = self._site(site).labels[best_label]
                by_core = accepted = holds_the_core(info, features, best_score)
        evidence = confidence_features(
            best_score,
            threshold,
            accepted=accepted,
            margin=margin,
            labels=len(ranked),
            source=source,
        )
        return Verdict(
            label=best_label if accepted else None,
            score=best_score,
            scores=dict(scores),
            method=SITE_METHOD,
            margin=margin,
            runner_up=runner_up,
            threshold=threshold,
            threshold_source=source,
            confidence=verdict_confidence(evidence),
            core=by_core,
        )

    def classify(self, page: Any, *, site: str | None = None, learn: bool = True) -> Verdict:
        """Score ``page`` on its site and decide; ``learn`` counts it into the site first."""
        features = self.features(page)
        with self._lock:
            state = self._site(site)
            if learn:
                self._add(state, features, site)
                self._maybe_refresh(state)
            elif state.refreshed_at < 0:
                self._refresh(state)
            scores = self._scores_of(features, state)
            return self.decide(scores, site=site, features=features)

    def classify_all(self, pages: Iterable[Any], *, site: str | None = None) -> list[Verdict]:
        """Batch form: the pages given are the site; learn them all, then decide each."""
        features = [self.features(page) for page in pages]
        with self._lock:
            state = self._site(site)
            state.model.keep_at_most(max(len(features), self.keep_pages))
            for page in features:
                self._add(state, page, site)
            self._refresh(state)
            return [
                self.decide(self._scores_of(page, state), site=site, features=page)
                for page in features
            ]

    def describe(self, site: str | None = None) -> dict[str, Any]:
        """Labels, template counts and the thresholds on ``site``, for logs and reports."""
        out: dict[str, Any] = {"method": SITE_METHOD, "params": {}, "labels": {}}
        with self._lock:
            state = self._site(site)
            for label, pages in self._templates.items():
                value, source = self.threshold_info(label, site)
                info = state.labels[label]
                out["labels"][label] = {
                    "templates": len(pages),
                    "threshold": round(value, 4),
                    "threshold_source": source,
                    "within": None if info.within is None else round(info.within, 4),
                    "background": None if info.cross is None else round(info.cross, 4),
                    "pages_scored": len(info.observed),
                    "cut_rule": info.rule if info.cut is not None else "",
                    "core_pairs": len(info.core),
                    "core_share": round(info.core_share, 4),
                }
            out["site"] = {
                "name": site,
                **state.model.describe(),
                "coverage": round(state.coverage, 4),
            }
        return out

    def sites(self) -> list[str | None]:
        with self._lock:
            return list(self._sites)
