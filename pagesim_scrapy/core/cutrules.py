"""The rules that place a label's cut on a site, and the threshold a page must then reach.

Each rule is a function of a label's scores on the site's kept pages (and its templates'
likeness, ``within``) and the :class:`~pagesim_scrapy.core.sitepolicy.SitePolicy`, so it can
be read and tested alone. The rule that placed a cut is named by a key of :data:`CUT_RULES`
(``describe()``'s ``cut_rule``, ``explain``); the threshold's source ("prior", "distribution",
"nearest", "given") is the verdict's ``threshold_source``, and ``core`` says the core rule
gave the label.

The order a label's cut is found in (:func:`label_cut`):

1. too few scores for a cut of its own: :func:`early_cut` (a large type) or none (the prior);
2. :func:`own_cut_and_rule`: the widest gap high up ("gap") or Otsu's split ("split");
3. :func:`anchored_cut`: a cut that keeps only a small top is checked against the templates'
   anchor: a dominant type is cut at its edge ("edge"), a continuum at the anchor ("anchor");
4. :func:`raised_to_the_floor`: a cut keeping mostly pages far from the templates is raised
   to the floor ("floor").

Then :func:`threshold_of` turns the cut into the threshold (the nearest-label rule when the
labels cover the site), and :func:`holds_the_core` may still give a page under it the label.
"""

from __future__ import annotations

import math
import statistics
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from functools import reduce
from itertools import pairwise
from operator import add, mul

from pagesim_scrapy.core.site import Features
from pagesim_scrapy.core.sitepolicy import DEFAULT_POLICY, SitePolicy

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
        "raised to the floor (the policy's anchor_floor x the templates' similarity to each "
        "other): the pages the site's own split kept were mostly below it (or, a minority "
        "of the site, mostly below the templates' anchor), of other types"
    ),
    "early": "the site's own split before the label's cut has its pages (a large type)",
}


@dataclass
class LabelOnSite:
    """What a label has on one site: its anchors, its scores there and the cut they give."""

    within: float | None = None  # least similarity of two of the label's templates
    cross: float | None = None  # most similarity of its templates to other labels' templates
    prior: float = 0.0
    cut: float | None = None  # from the site's distribution, once there are enough pages
    rule: str = ""  # how the cut was placed: a key of CUT_RULES
    gap: float = 0.0  # width of the gap the cut sits in
    below: float = 0.0  # the highest score under the cut: the gap's lower edge
    # its scores on the site's kept pages (a re-estimate keeps them sorted; the rules sort them)
    observed: list[float] = field(default_factory=list)
    # the highest threshold the label has had on the site since its own cut (not the prior)
    highest: float | None = None
    # the node pairs all of its templates hold that weigh on the site (two templates or more)
    core: frozenset[str] = frozenset()
    core_share: float = 0.0  # share of the site's kept pages holding every pair of the core


# -- splitting a list of scores --------------------------------------------------------------
#
# A re-estimate places every label's cut from the same scores through several of these
# functions: each public one takes the scores as they come, and its ``*_sorted`` twin takes
# them sorted, so that :func:`label_cut` sorts them once and shares the list.


def percentile_sorted(ordered: list[float], percentile: int) -> float:
    """``statistics.quantiles(ordered, n=100)[percentile - 1]`` (its default method,
    "exclusive"), the same float, from scores already sorted and without the 98 other cut
    points; ``statistics`` itself for what it treats apart (fewer than two scores)."""
    size = len(ordered)
    if size < 2 or not 1 <= percentile <= 99:
        return statistics.quantiles(ordered, n=100)[percentile - 1]
    # statistics.quantiles' interpolation, for the one cut point asked (exact integer math)
    steps = size + 1
    j = min(max(percentile * steps // 100, 1), size - 1)
    delta = percentile * steps - j * 100
    return (ordered[j - 1] * (100 - delta) + ordered[j] * delta) / 100


def widest_gap_sorted(ordered: list[float], floor: float, ceiling: float = 1.0) -> float | None:
    """:func:`widest_gap_cut` of scores already sorted.

    A gap's midpoint lies between its two scores, so only the gaps whose upper score reaches
    ``floor`` and whose lower score is at most ``ceiling`` are looked at."""
    start = max(bisect_left(ordered, floor) - 1, 0)
    stop = bisect_right(ordered, ceiling) + 1
    best_width = 0.0
    best: float | None = None
    for lower, upper in pairwise(ordered[start:stop]):
        mid = (lower + upper) / 2
        if mid < floor or mid > ceiling:
            continue
        width = upper - lower
        if width > best_width:
            best_width, best = width, mid
    return best


def widest_gap_cut(scores: list[float], floor: float, ceiling: float = 1.0) -> float | None:
    """Midpoint of the widest gap between consecutive sorted scores in [floor, ceiling]."""
    return widest_gap_sorted(sorted(scores), floor, ceiling)


def otsu_sorted(ordered: list[float]) -> float | None:
    """:func:`otsu_cut` of scores already sorted: one pass with a running sum (added in the
    same order as a prefix sum, so the same floats)."""
    size = len(ordered)
    total = reduce(add, ordered, 0.0)
    low_sum = 0.0
    best_spread = -1.0
    best: float | None = None
    for k, (previous, value) in enumerate(pairwise(ordered), start=1):
        low_sum += previous
        if value <= previous:
            continue
        low_mean = low_sum / k
        high_mean = (total - low_sum) / (size - k)
        spread = k * (size - k) * (high_mean - low_mean) ** 2
        if spread > best_spread:
            best_spread, best = spread, (previous + value) / 2
    return best


def otsu_cut(scores: list[float]) -> float | None:
    """The split of the scores into two groups with the largest between-group variance (Otsu)."""
    return otsu_sorted(sorted(scores))


def gap_width_sorted(ordered: list[float], cut: float) -> float:
    """:func:`gap_width` of scores already sorted."""
    index = bisect_left(ordered, cut)
    return ordered[index] - ordered[index - 1] if 0 < index < len(ordered) else 0.0


def gap_width(scores: list[float], cut: float) -> float:
    """Width of the gap between the scores either side of ``cut`` (0 with none on a side)."""
    above = [s for s in scores if s >= cut]
    below = [s for s in scores if s < cut]
    return min(above) - max(below) if above and below else 0.0


def gap_and_below_sorted(ordered: list[float], cut: float | None) -> tuple[float, float]:
    """The width of the gap ``cut`` sits in (:func:`gap_width`; 0 with no cut) and the highest
    score under it (0 with none), from scores already sorted: the scores next to the cut."""
    index = bisect_left(ordered, 0.0 if cut is None else cut)
    below = ordered[index - 1] if index else 0.0
    return (0.0 if cut is None else gap_width_sorted(ordered, cut)), below


def count_from(ordered: list[float], cut: float) -> int:
    """How many of the sorted scores reach ``cut``."""
    return len(ordered) - bisect_left(ordered, cut)


def pvariance(values: list[float], mean: float) -> float:
    """``statistics.pvariance(values, mean)``, the same float, without its exact sum in
    fractions (each cut is placed from two of them per label at every re-estimate).

    Both sum the rounded squares of the deviations exactly and round their mean once. Here
    the exact sum is held as two floats (checked: ``fsum`` of the rest is zero) and divided
    in integers, which Python rounds correctly; a sum that does not fit in two floats falls
    back to ``statistics``."""
    deviations = [value - mean for value in values]
    squares = list(map(mul, deviations, deviations))
    high = math.fsum(squares)
    squares.append(-high)
    low = math.fsum(squares)
    squares.append(-low)
    if math.fsum(squares) != 0.0:
        return statistics.pvariance(values, mean)
    (high_num, high_den), (low_num, low_den) = high.as_integer_ratio(), low.as_integer_ratio()
    common = max(high_den, low_den)  # powers of two: each divides the larger
    total = high_num * (common // high_den) + low_num * (common // low_den)
    return total / (len(values) * common)


def separation_sorted(
    ordered: list[float], cut: float, policy: SitePolicy = DEFAULT_POLICY
) -> float:
    """:func:`separation` of scores already sorted: the two groups are slices (the sums and
    variances are exactly rounded, so the order of the scores does not change them)."""
    index = bisect_left(ordered, cut)
    low, high = ordered[:index], ordered[index:]
    if len(low) < 2 or not high:
        return -1.0
    low_mean = math.fsum(low) / len(low)
    high_mean = math.fsum(high) / len(high)
    low_spread = pvariance(low, low_mean)
    high_spread = pvariance(high, high_mean)
    if len(ordered) >= policy.early_pages:
        spread = (len(low) * low_spread + len(high) * high_spread) / len(ordered)
    else:
        spread = low_spread + high_spread
    return (high_mean - low_mean) ** 2 / (spread + 1e-6)


def separation(scores: list[float], cut: float, policy: SitePolicy = DEFAULT_POLICY) -> float:
    """Fisher's criterion of a split: squared distance of the two means over the within-group
    variance (-1 when the split leaves fewer than two pages below or none above).

    From ``policy.early_pages`` scores on, the within-group variance is pooled, each group's
    weighted by its share of the pages: summed in full, a type that is most of the site counted
    its own spread as much as a tight group of two or three pages nearest the templates, and a
    cut splitting off those few pages won. Before then the sum is kept: a few pages of a small
    type are then all there is of it, and pooling let a looser split between other types win.
    """
    return separation_sorted(sorted(scores), cut, policy)


# -- the cut rules ---------------------------------------------------------------------------
#
# Each rule takes the scores as they come; its ``*_sorted`` twin takes them sorted (what
# label_cut passes down, having sorted them once).


def own_cut(observed: list[float], policy: SitePolicy = DEFAULT_POLICY) -> float | None:
    """A label's cut from its scores on the site's kept pages, as if it were the only label.

    Two candidates: the widest gap in the top quarter of the scores, right when the label's
    type is a small part of the site (the gap between its pages and the rest is wide, and the
    other types below it would split elsewhere); and Otsu's two-group split, right when the
    type is a large part of it (the top quarter is then all of the type and its widest gap
    splits the type itself), moved down to a wider gap below it if there is one. The candidate
    whose two groups are better separated (Fisher's criterion) wins.
    """
    return own_cut_and_rule_sorted(sorted(observed), policy)[0]


def own_cut_and_rule(
    observed: list[float], policy: SitePolicy = DEFAULT_POLICY
) -> tuple[float | None, str]:
    """:func:`own_cut` and which of its two candidates won ("gap" or "split")."""
    return own_cut_and_rule_sorted(sorted(observed), policy)


def own_cut_and_rule_sorted(
    ordered: list[float], policy: SitePolicy = DEFAULT_POLICY
) -> tuple[float | None, str]:
    """:func:`own_cut_and_rule` of scores already sorted."""
    floor = percentile_sorted(ordered, policy.cut_floor_percentile)
    gap = widest_gap_sorted(ordered, floor)
    split = otsu_sorted(ordered)
    if split is not None:
        # a type in two or three looks (a shop's products with and without their optional
        # blocks) pulls Otsu's split up between them: a wider gap below it is the type's edge
        lower = widest_gap_sorted(ordered, 0.0, split)
        if lower is not None and gap_width_sorted(ordered, lower) > gap_width_sorted(
            ordered, split
        ):
            split = lower
    if gap is None or split is None:
        return (gap, "gap") if split is None else (split, "split")
    if separation_sorted(ordered, split, policy) > separation_sorted(ordered, gap, policy):
        return split, "split"
    return gap, "gap"


def keeps_a_small_top(
    observed: list[float], cut: float, policy: SitePolicy = DEFAULT_POLICY
) -> bool:
    """Whether a cut keeps fewer of the site's pages than the share above the cut floor's
    percentile (the top quarter): such a cut may have split a type rather than bound it."""
    return keeps_a_small_top_sorted(sorted(observed), cut, policy)


def keeps_a_small_top_sorted(
    ordered: list[float], cut: float, policy: SitePolicy = DEFAULT_POLICY
) -> bool:
    """:func:`keeps_a_small_top` of scores already sorted."""
    return count_from(ordered, cut) < len(ordered) * (1.0 - policy.cut_floor_percentile / 100)


def sits_in_a_continuum(
    observed: list[float], cut: float, policy: SitePolicy = DEFAULT_POLICY
) -> bool:
    """Whether a cut that keeps a small top sits in a narrow gap: then the scores run on
    without a boundary (a free-form type, whose pages share little beyond the site's chrome),
    and the templates' own similarity is the better anchor."""
    return sits_in_a_continuum_sorted(sorted(observed), cut, policy)


def sits_in_a_continuum_sorted(
    ordered: list[float], cut: float, policy: SitePolicy = DEFAULT_POLICY
) -> bool:
    """:func:`sits_in_a_continuum` of scores already sorted."""
    return (
        keeps_a_small_top_sorted(ordered, cut, policy)
        and gap_width_sorted(ordered, cut) < policy.narrow_gap
    )


def edge_of_a_dominant_type(
    observed: list[float], anchor: float, within: float, policy: SitePolicy = DEFAULT_POLICY
) -> float | None:
    """The widest gap below the anchor when the label's type is most of the site (its
    templates at least ``dominant_within`` alike and ``dominant_share`` of the pages reaching
    the anchor), else None: a small top cut there splits the type itself."""
    return edge_of_a_dominant_type_sorted(sorted(observed), anchor, within, policy)


def edge_of_a_dominant_type_sorted(
    ordered: list[float], anchor: float, within: float, policy: SitePolicy = DEFAULT_POLICY
) -> float | None:
    """:func:`edge_of_a_dominant_type` of scores already sorted."""
    if within < policy.dominant_within:
        return None
    if count_from(ordered, anchor) < policy.dominant_share * len(ordered):
        return None
    return widest_gap_sorted(ordered, 0.0, anchor)


def raised_to_the_floor(
    observed: list[float],
    cut: float,
    within: float,
    policy: SitePolicy = DEFAULT_POLICY,
    anchor: float | None = None,
) -> float:
    """``cut``, or the floor (``anchor_floor`` x the templates' likeness) when the pages the
    cut keeps are mostly below that floor: they are then of other types, and the label's own
    type is not among the site's pages seen so far. A type that is most of the site keeps a
    cut below the floor: the half above the cut still reaches it.

    With ``anchor`` (an Otsu split), a cut that keeps less than ``dominant_share`` of the site
    must have most of its pages reach the templates' anchor instead: Otsu's split is there for
    a type that is a large part of the site, and one that keeps a minority far from the
    templates splits groups of other types from each other.
    """
    return raised_to_the_floor_sorted(sorted(observed), cut, within, policy, anchor)


def raised_to_the_floor_sorted(
    ordered: list[float],
    cut: float,
    within: float,
    policy: SitePolicy = DEFAULT_POLICY,
    anchor: float | None = None,
) -> float:
    """:func:`raised_to_the_floor` of scores already sorted."""
    floor = policy.anchor_floor * within
    if cut >= floor:
        return cut
    kept = ordered[bisect_left(ordered, cut) :]
    median = kept[len(kept) // 2] if kept else 0.0
    reach = floor
    if anchor is not None and len(kept) < policy.dominant_share * len(ordered):
        reach = anchor
    return floor if median < reach else cut


def anchored_cut(
    observed: list[float], within: float, policy: SitePolicy = DEFAULT_POLICY
) -> tuple[float | None, str]:
    """A label's own cut checked against its templates' anchor (``prior_weight`` x their
    likeness), and the rule that placed it (a key of :data:`CUT_RULES`): a cut that keeps only
    a small top either sits in a continuum (the anchor is the better cut) or splits a type that
    is most of the site (its edge below the anchor is); the result never keeps mostly pages
    below the floor (:func:`raised_to_the_floor`)."""
    return anchored_cut_sorted(sorted(observed), within, policy)


def anchored_cut_sorted(
    ordered: list[float], within: float, policy: SitePolicy = DEFAULT_POLICY
) -> tuple[float | None, str]:
    """:func:`anchored_cut` of scores already sorted."""
    cut, rule = own_cut_and_rule_sorted(ordered, policy)
    if cut is None:
        return None, rule
    anchor = policy.prior_weight * within
    continuum = sits_in_a_continuum_sorted(ordered, cut, policy)
    if continuum or (cut > within and keeps_a_small_top_sorted(ordered, cut, policy)):
        edge = edge_of_a_dominant_type_sorted(ordered, anchor, within, policy)
        if edge is not None:
            cut, rule = edge, "edge"
        elif continuum:
            cut, rule = anchor, "anchor"
    anchor_to_reach = anchor if rule == "split" else None
    raised = raised_to_the_floor_sorted(ordered, cut, within, policy, anchor_to_reach)
    return raised, ("floor" if raised != cut else rule)


def early_cut(info: LabelOnSite, policy: SitePolicy = DEFAULT_POLICY) -> float | None:
    """A one-label cut before the label has the scores its own cut needs: the site's own
    split when a large type shows above it (at least ``early_cut_group`` pages and
    ``early_cut_share`` of those seen), never below the floor; otherwise none, and the prior
    decides. A large type is met many times while the prior waits, and a young site model
    scores its pages under the prior; a small type's few early pages cost little."""
    if info.cross is not None or info.within is None or len(info.observed) < policy.early_cut_pages:
        return None
    ordered = sorted(info.observed)
    early = own_cut_and_rule_sorted(ordered, policy)[0]
    if early is None or early >= info.prior:
        return None
    above = count_from(ordered, early)
    if above < policy.early_cut_group or above < policy.early_cut_share * len(ordered):
        return None
    return max(policy.anchor_floor * info.within, early)


def pages_needed(labels: int, policy: SitePolicy = DEFAULT_POLICY) -> int:
    """Scores each label needs on a site for a cut of its own: ``min_pages``, more with
    several labels (each label's own pages must be among the kept ones)."""
    return max(policy.min_pages, math.ceil(policy.min_pages * labels / 2))


def reads_the_scores(
    info: LabelOnSite, scores: int, needed: int, policy: SitePolicy = DEFAULT_POLICY
) -> bool:
    """Whether :func:`label_cut` would read the label's ``scores`` scores or only count them:
    before ``needed`` scores a label that has other labels (or one template) gets no early
    cut, nor one before ``early_cut_pages`` scores, whatever they are. Until then a site's
    re-estimate need not re-score its kept pages."""
    if scores >= needed:
        return True
    return info.cross is None and info.within is not None and scores >= policy.early_cut_pages


def label_cut(
    info: LabelOnSite, needed: int, policy: SitePolicy = DEFAULT_POLICY
) -> tuple[float | None, str]:
    """The label's cut on the site and the rule that placed it ("" for none): the early cut
    before ``needed`` scores, then its own cut (checked against the anchor when it has one).
    The scores are sorted once here and the sorted list is shared by every rule."""
    if len(info.observed) < needed:
        cut = early_cut(info, policy)
        return cut, "" if cut is None else "early"
    ordered = sorted(info.observed)
    if info.within is None:
        return own_cut_and_rule_sorted(ordered, policy)
    return anchored_cut_sorted(ordered, info.within, policy)


# -- from the cut to the threshold -----------------------------------------------------------


def threshold_of(
    info: LabelOnSite, coverage: float, policy: SitePolicy = DEFAULT_POLICY
) -> tuple[float, str]:
    """The threshold a page nearest the label must reach on the site, and its source.

    "prior" until the label has a cut; with several labels that cover the site (at least
    ``covering_share`` of its pages pass their nearest label's cut), "nearest": a page of the
    label that its own cut would turn away is better given the label it is nearest, above
    the other labels' templates and ``nearest_floor`` x its templates' likeness (for a label
    of one template, never above its own cut); unless the cut sits in a gap at least
    ``wide_gap`` wide, a clear boundary: the pages at its lower edge and below are of another
    type ("distribution"); else the cut ("distribution").
    """
    if info.cut is None:
        return info.prior, "prior"
    if info.cross is not None and coverage >= policy.covering_share:
        floor = policy.nearest_floor * info.within if info.within is not None else 0.0
        nearest = max(info.prior, floor)
        if info.within is None:
            # one template: the other labels' likeness to one page is no bound of its type
            # (its pages may all be further from it); the label's own cut keeps what it keeps
            nearest = min(nearest, info.cut)
        if info.gap < policy.wide_gap:
            return nearest, "nearest"
        # a page inside the gap is still the nearest label's (with one page of the type seen,
        # the gap runs from the rest of the site up to that page)
        return max(nearest, math.nextafter(info.below, math.inf)), "distribution"
    return info.cut, "distribution"


def holds_the_core(
    info: LabelOnSite, features: Features, score: float, policy: SitePolicy = DEFAULT_POLICY
) -> bool:
    """Whether a page the label's cut turns away is still the label's: it holds the label's
    core (every node pair that all of its templates share and that weighs on the site), the
    cut is the site's own (not the prior), the core is not the site's own (fewer than
    ``dominant_share`` of its kept pages hold it) and the page reaches the cut's floor
    (``anchor_floor`` x the templates' likeness).

    A free-form type (a wiki's template or user-talk pages) differs from its templates in its
    content as much as a page of another type does, so its scores run on in one continuum;
    what its pages have in common is what its templates share. The share bound turns the
    rule off where the templates share only the site's layout, the floor where a type near
    the label's holds the core too. A single template is not a core: a page holding all of
    one example is not of its type more often than not.
    """
    core = info.core
    return (
        bool(core)
        and info.cut is not None
        and info.within is not None
        and info.core_share < policy.dominant_share
        and score >= policy.anchor_floor * info.within
        and core <= features
    )


def reaches_every_threshold(info: LabelOnSite, score: float) -> bool:
    """Whether a labelled page of a young site holds: the label has a cut of its own and the
    score reaches every threshold the label has had on the site and its templates' anchor
    (the prior). A young site's cut moves as its pages arrive, and a page that passes a low
    cut early may be of another type."""
    if info.cut is None or info.highest is None:
        return False
    return score >= max(info.highest, info.prior)


def lowest_cut(info: LabelOnSite, policy: SitePolicy = DEFAULT_POLICY) -> float:
    """A bound under which no threshold of the label is expected: the lowest share of its
    templates' likeness that any rule cuts at (the nearest rule's floor, under the cut's).
    Not the floor itself: that likeness falls as the site's chrome is learned. A single
    template is taken as alike to itself (1.0); 0 would defer every page of a young site."""
    within = info.within
    return min(policy.anchor_floor, policy.nearest_floor) * (1.0 if within is None else within)
