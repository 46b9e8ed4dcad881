"""The cut rules on scores sorted once give the very floats of the rules that sorted (and
filtered) the scores in every call: checked against the earlier code, kept here alone as the
reference, on random score lists and on the lists real sites' re-estimates place cuts from."""

from __future__ import annotations

import csv
import math
import random
import statistics
from collections.abc import Callable
from itertools import pairwise

import pytest

from pagesim_scrapy.core import cutrules, siteaware
from pagesim_scrapy.core.classify import build_classifier
from pagesim_scrapy.core.cutrules import LabelOnSite, pvariance
from pagesim_scrapy.core.sitepolicy import DEFAULT_POLICY, SitePolicy
from pagesim_scrapy.core.summary import SummaryOptions, summarize
from tests.conftest import shared_data, without_body_class

# -- the reference: the rules as they were, sorting or filtering the scores in each call ------


def ref_widest_gap_cut(scores: list[float], floor: float, ceiling: float = 1.0) -> float | None:
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


def ref_otsu_cut(scores: list[float]) -> float | None:
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


def ref_gap_width(scores: list[float], cut: float) -> float:
    above = [s for s in scores if s >= cut]
    below = [s for s in scores if s < cut]
    return min(above) - max(below) if above and below else 0.0


def ref_separation(scores: list[float], cut: float, policy: SitePolicy = DEFAULT_POLICY) -> float:
    low = [s for s in scores if s < cut]
    high = [s for s in scores if s >= cut]
    if len(low) < 2 or not high:
        return -1.0
    low_mean = math.fsum(low) / len(low)
    high_mean = math.fsum(high) / len(high)
    low_spread = pvariance(low, low_mean)
    high_spread = pvariance(high, high_mean)
    if len(scores) >= policy.early_pages:
        spread = (len(low) * low_spread + len(high) * high_spread) / len(scores)
    else:
        spread = low_spread + high_spread
    return (high_mean - low_mean) ** 2 / (spread + 1e-6)


def ref_own_cut_and_rule(
    observed: list[float], policy: SitePolicy = DEFAULT_POLICY
) -> tuple[float | None, str]:
    floor = statistics.quantiles(observed, n=100)[policy.cut_floor_percentile - 1]
    gap = ref_widest_gap_cut(observed, floor)
    split = ref_otsu_cut(observed)
    if split is not None:
        lower = ref_widest_gap_cut(observed, 0.0, split)
        if lower is not None and ref_gap_width(observed, lower) > ref_gap_width(observed, split):
            split = lower
    if gap is None or split is None:
        return (gap, "gap") if split is None else (split, "split")
    if ref_separation(observed, split, policy) > ref_separation(observed, gap, policy):
        return split, "split"
    return gap, "gap"


def ref_keeps_a_small_top(observed: list[float], cut: float, policy: SitePolicy) -> bool:
    above = sum(score >= cut for score in observed)
    return above < len(observed) * (1.0 - policy.cut_floor_percentile / 100)


def ref_anchored_cut(
    observed: list[float], within: float, policy: SitePolicy = DEFAULT_POLICY
) -> tuple[float | None, str]:
    cut, rule = ref_own_cut_and_rule(observed, policy)
    if cut is None:
        return None, rule
    anchor = policy.prior_weight * within
    continuum = (
        ref_keeps_a_small_top(observed, cut, policy)
        and ref_gap_width(observed, cut) < policy.narrow_gap
    )
    if continuum or (cut > within and ref_keeps_a_small_top(observed, cut, policy)):
        edge = None
        if within >= policy.dominant_within and sum(
            score >= anchor for score in observed
        ) >= policy.dominant_share * len(observed):
            edge = ref_widest_gap_cut(observed, 0.0, anchor)
        if edge is not None:
            cut, rule = edge, "edge"
        elif continuum:
            cut, rule = anchor, "anchor"
    reach_anchor = anchor if rule == "split" else None
    floor = policy.anchor_floor * within
    raised = cut
    if cut < floor:
        kept = sorted(score for score in observed if score >= cut)
        median = kept[len(kept) // 2] if kept else 0.0
        reach = floor
        if reach_anchor is not None and len(kept) < policy.dominant_share * len(observed):
            reach = reach_anchor
        raised = floor if median < reach else cut
    return raised, ("floor" if raised != cut else rule)


def ref_early_cut(info: LabelOnSite, policy: SitePolicy = DEFAULT_POLICY) -> float | None:
    if info.cross is not None or info.within is None or len(info.observed) < policy.early_cut_pages:
        return None
    early = ref_own_cut_and_rule(info.observed, policy)[0]
    if early is None or early >= info.prior:
        return None
    above = sum(score >= early for score in info.observed)
    if above < policy.early_cut_group or above < policy.early_cut_share * len(info.observed):
        return None
    return max(policy.anchor_floor * info.within, early)


def ref_label_cut(
    info: LabelOnSite, needed: int, policy: SitePolicy = DEFAULT_POLICY
) -> tuple[float | None, str]:
    if len(info.observed) < needed:
        cut = ref_early_cut(info, policy)
        return cut, "" if cut is None else "early"
    if info.within is None:
        return ref_own_cut_and_rule(info.observed, policy)
    return ref_anchored_cut(info.observed, info.within, policy)


# -- the comparison ---------------------------------------------------------------------------


def _same(new: object, old: object) -> bool:
    """Equal, and the very floats (the sign of a zero too)."""
    return repr(new) == repr(old)


def _outcome(rule: Callable[..., object], *args: object) -> str:
    """What a rule returns, or the error it raises (one score: ``statistics``' error)."""
    try:
        return repr(rule(*args))
    except statistics.StatisticsError as error:
        return f"raises {error}"


def _check(scores: list[float], within: float | None, policy: SitePolicy) -> None:
    ordered = sorted(scores)
    if len(scores) >= 2:
        for percentile in (1, 25, 50, 75, 99):
            expected = statistics.quantiles(scores, n=100)[percentile - 1]
            assert _same(cutrules.percentile_sorted(ordered, percentile), expected)
        expected_cut = ref_own_cut_and_rule(scores, policy)
        assert _same(cutrules.own_cut_and_rule(scores, policy), expected_cut)
    assert _same(cutrules.otsu_cut(scores), ref_otsu_cut(scores))
    probes = [0.0, 0.5, 1.0, *scores[:5], *((a + b) / 2 for a, b in pairwise(ordered[:6]))]
    for cut in probes:
        assert _same(cutrules.gap_width(scores, cut), ref_gap_width(scores, cut))
        assert _same(cutrules.gap_width_sorted(ordered, cut), ref_gap_width(scores, cut))
        assert _same(cutrules.separation(scores, cut, policy), ref_separation(scores, cut, policy))
        for ceiling in (1.0, cut):
            expected_gap = ref_widest_gap_cut(scores, cut, ceiling)
            assert _same(cutrules.widest_gap_cut(scores, cut, ceiling), expected_gap)
            expected_gap = ref_widest_gap_cut(scores, 0.0, cut)
            assert _same(cutrules.widest_gap_cut(scores, 0.0, cut), expected_gap)
    for needed in (1, 5, 12, len(scores) + 1):
        for cross in (None, 0.3):
            info = LabelOnSite(within=within, cross=cross, prior=0.6, observed=list(scores))
            new = _outcome(cutrules.label_cut, info, needed, policy)
            assert new == _outcome(ref_label_cut, info, needed, policy)


def _random_scores(rng: random.Random) -> list[float]:
    size = rng.choice([1, 2, 3, 4, 5, 8, 13, 30, 100, 300])
    kind = rng.random()
    if kind < 0.3:  # two or three groups, as a site's types give
        centres = [rng.random() for _ in range(rng.choice([2, 3]))]
        return [min(1.0, max(0.0, rng.gauss(rng.choice(centres), 0.05))) for _ in range(size)]
    if kind < 0.6:  # many ties (kept pages of one layout score alike)
        values = [round(rng.random(), rng.choice([1, 2])) for _ in range(4)]
        return [rng.choice(values) for _ in range(size)]
    return [rng.random() for _ in range(size)]


POLICIES = [
    DEFAULT_POLICY,
    SitePolicy(cut_floor_percentile=50, early_pages=4, early_cut_pages=3, early_cut_group=2),
]


@pytest.mark.parametrize("policy", POLICIES)
def test_sorted_rules_equal_the_reference_on_random_scores(policy: SitePolicy) -> None:
    rng = random.Random(21)
    for _ in range(1500):
        within = rng.choice([None, 0.3, 0.7, 0.95])
        _check(_random_scores(rng), within, policy)


def test_one_score_raises_as_statistics_does() -> None:
    with pytest.raises(statistics.StatisticsError):
        cutrules.own_cut_and_rule([0.5])
    with pytest.raises(statistics.StatisticsError):
        ref_own_cut_and_rule([0.5])


def _real_observed(name: str, monkeypatch: pytest.MonkeyPatch) -> list[LabelOnSite]:
    """Every label's scores at every cut a real site's re-estimates placed, every type
    configured with two templates."""
    folder = shared_data("site_page_types", name)
    with open(folder / "labels.csv", newline="", encoding="utf-8") as handle:
        rows = sorted(csv.DictReader(handle), key=lambda row: row["path"])
    options = SummaryOptions(max_nodes=300)
    pages = []
    for row in rows:
        data = (folder / row["path"]).read_bytes()
        if name == "awesomewm_wiki":
            data = without_body_class(data)
        pages.append((row["page_type"], summarize(data, options)))
    templates: dict[str, list] = {}
    for kind, summary in pages:
        if len(templates.setdefault(kind, [])) < 2:
            templates[kind].append(summary)
    rest = [s for _, s in pages if not any(s is t for ts in templates.values() for t in ts)]
    seen: list[LabelOnSite] = []
    real_cut = siteaware.label_cut

    def recorded(info: LabelOnSite, needed: int, policy: SitePolicy) -> tuple[float | None, str]:
        seen.append(LabelOnSite(info.within, info.cross, info.prior, observed=list(info.observed)))
        return real_cut(info, needed, policy)

    monkeypatch.setattr(siteaware, "label_cut", recorded)
    clf = build_classifier(templates, summary_options=options)
    clf.classify_all(rest, site=name)
    return seen


@pytest.mark.parametrize("name", ["android_stackexchange", "awesomewm_wiki", "cc_opensource_blog"])
def test_sorted_rules_equal_the_reference_on_real_sites(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = _real_observed(name, monkeypatch)
    assert len(seen) >= 5
    for info in seen[:: max(1, len(seen) // 60)]:
        _check(info.observed, info.within, DEFAULT_POLICY)
        for needed in (1, 10):
            assert _same(
                cutrules.label_cut(info, needed, DEFAULT_POLICY),
                ref_label_cut(info, needed, DEFAULT_POLICY),
            )
