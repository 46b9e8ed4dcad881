"""The site policy declared once (``core.sitepolicy``), the cut rules one function each
(``core.cutrules``) and the classifiers' common contract (``core.protocols``)."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

import pytest

from pagesim_scrapy.core import cutrules, siteaware
from pagesim_scrapy.core.classify import (
    CLASSIFIER_BUILDERS,
    TemplateClassifier,
    build_classifier,
)
from pagesim_scrapy.core.cutrules import LabelOnSite
from pagesim_scrapy.core.protocols import PageClassifier
from pagesim_scrapy.core.siteaware import SiteAwareClassifier
from pagesim_scrapy.core.sitepolicy import DEFAULT_POLICY, SITE_METHOD, SitePolicy
from pagesim_scrapy.core.verdict import Verdict
from pagesim_scrapy.settings import PageSimConfig, PageSimConfigError

PAGE = "<html><body><div class='a'><p>x</p><ul><li>1</li><li>2</li></ul></div></body></html>"
OTHER = "<html><body><table><tr><td>y</td></tr></table><form><input></form></body></html>"


def test_the_aliases_are_the_shipped_policy():
    assert DEFAULT_POLICY.anchor_floor == siteaware.ANCHOR_FLOOR
    assert DEFAULT_POLICY.early_pages == siteaware.EARLY_PAGES
    assert DEFAULT_POLICY.saved_site_weight == siteaware.SAVED_SITE_WEIGHT
    assert DEFAULT_POLICY.confidence_weights == siteaware.CONFIDENCE_WEIGHTS


def test_from_mapping_checks_names_types_and_ranges():
    policy = SitePolicy.from_mapping({"anchor_floor": 0.5, "min_pages": 10})
    assert (policy.anchor_floor, policy.min_pages) == (0.5, 10)
    assert SitePolicy.from_mapping({}) == SitePolicy()
    weights = SitePolicy.from_mapping({"confidence_weights": [1, 2, 3, 4, 5, 6, 7, 8, 9]})
    assert weights.confidence_weights == (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0)
    for bad, key in (
        ({"anchor_flor": 0.5}, "anchor_flor"),
        ({"anchor_floor": "high"}, "anchor_floor"),
        ({"min_pages": 2.5}, "min_pages"),
        ({"min_pages": True}, "min_pages"),
        ({"wide_gap": 3}, "wide_gap"),
        ({"prior_weight": 1.0}, "prior_weight"),
        ({"confidence_weights": [1, 2]}, "confidence_weights"),
    ):
        with pytest.raises(ValueError, match=key):
            SitePolicy.from_mapping(bad)


def test_the_setting_reaches_the_config():
    from scrapy.settings import Settings

    config = PageSimConfig.from_settings(Settings({"PAGESIM_SITE_POLICY": {"wide_gap": 0.3}}))
    assert config.site_policy == replace(SitePolicy(), wide_gap=0.3)
    assert PageSimConfig.from_settings(Settings()).site_policy == SitePolicy()
    with pytest.raises(PageSimConfigError, match="PAGESIM_SITE_POLICY: unknown key 'gap'"):
        PageSimConfig.from_settings(Settings({"PAGESIM_SITE_POLICY": {"gap": 0.3}}))


def test_build_classifier_passes_the_policy_and_both_keep_the_contract():
    policy = replace(SitePolicy(), anchor_floor=0.5, keep_pages=40)
    site = build_classifier({"a": [PAGE, PAGE]}, policy=policy)
    assert isinstance(site, SiteAwareClassifier) and site.policy == policy
    assert site.keep_pages == 40
    overridden = build_classifier({"a": [PAGE]}, policy=policy, prior_weight=0.7, min_pages=5)
    assert isinstance(overridden, SiteAwareClassifier)
    assert overridden.policy == replace(policy, prior_weight=0.7, min_pages=5)
    pairwise = build_classifier({"a": [PAGE]}, method="lcs", policy=policy)
    assert isinstance(pairwise, TemplateClassifier)
    for clf in (site, pairwise):
        assert isinstance(clf, PageClassifier)
        verdict = clf.classify(OTHER, site="s")
        assert isinstance(verdict, Verdict) and verdict.as_meta() == verdict.as_dict()
        assert clf.describe()["labels"]["a"]["templates"] >= 1
    assert SITE_METHOD in CLASSIFIER_BUILDERS
    with pytest.raises(ValueError, match="unknown parameter"):
        build_classifier({"a": [PAGE]}, params={"relation": "rsn"})
    with pytest.raises(ValueError, match="prior_weight"):
        SiteAwareClassifier({"a": [PAGE]}, prior_weight=1.5)


def test_site_method_is_defined_once():
    from pagesim_scrapy.cli import _method
    from pagesim_scrapy.core import similarity

    assert _method.SITE_METHOD is SITE_METHOD is similarity.SITE_METHOD is siteaware.SITE_METHOD


def test_siteaware_does_not_import_classify():
    code = (
        "import sys, pagesim_scrapy.core.siteaware; "
        "print('pagesim_scrapy.core.classify' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# -- the cut rules, one at a time ------------------------------------------------------------

#: A type near the top (4 pages at 0.8-0.9) and the rest of a site spread below.
SCORES = [0.05, 0.1, 0.12, 0.15, 0.2, 0.22, 0.25, 0.3, 0.31, 0.33, 0.35, 0.4, 0.8, 0.85, 0.88, 0.9]


def test_own_cut_finds_the_gap_above_the_rest():
    cut, rule = cutrules.own_cut_and_rule(SCORES)
    assert cut is not None and 0.4 < cut < 0.8 and rule in ("gap", "split")
    assert cutrules.gap_width(SCORES, cut) == pytest.approx(0.4)


def test_small_top_and_continuum():
    assert cutrules.keeps_a_small_top(SCORES, 0.86)  # 2 of 16: under a quarter
    assert not cutrules.keeps_a_small_top(SCORES, 0.6)  # 4 of 16: a quarter
    assert cutrules.sits_in_a_continuum(SCORES, 0.865)  # a gap of 0.03
    wider = replace(SitePolicy(), narrow_gap=0.01)
    assert not cutrules.sits_in_a_continuum(SCORES, 0.865, wider)


def test_edge_of_a_dominant_type():
    most = [0.1, 0.12, 0.6, 0.62, 0.65, 0.7, 0.72, 0.75, 0.9, 0.95]
    edge = cutrules.edge_of_a_dominant_type(most, anchor=0.7, within=0.8)
    assert edge == pytest.approx((0.12 + 0.6) / 2)
    assert cutrules.edge_of_a_dominant_type(most, anchor=0.7, within=0.2) is None
    assert cutrules.edge_of_a_dominant_type(SCORES, anchor=0.7, within=0.8) is None


def test_raised_to_the_floor():
    # the pages above a cut of 0.2 are mostly under 0.6 x 0.9: raised to that floor
    assert cutrules.raised_to_the_floor(SCORES, 0.2, 0.9) == pytest.approx(0.54)
    assert cutrules.raised_to_the_floor(SCORES, 0.6, 0.9) == 0.6  # above the floor already
    lower = replace(SitePolicy(), anchor_floor=0.2)
    assert cutrules.raised_to_the_floor(SCORES, 0.2, 0.9, lower) == 0.2


def test_early_cut_and_label_cut():
    info = LabelOnSite(within=0.9, prior=0.85 * 0.9, observed=[0.1, 0.15, 0.7, 0.72, 0.75, 0.8])
    early = cutrules.early_cut(info)
    assert early is not None and 0.54 <= early < info.prior
    assert cutrules.label_cut(info, needed=20) == (early, "early")
    assert cutrules.early_cut(info, replace(SitePolicy(), early_cut_pages=10)) is None
    info.cross = 0.3  # several labels: no early cut, the prior decides
    assert cutrules.label_cut(info, needed=20) == (None, "")
    assert cutrules.pages_needed(1) == 20 and cutrules.pages_needed(4) == 40


def test_threshold_sources():
    info = LabelOnSite(within=0.8, prior=0.3, cross=0.3)
    assert cutrules.threshold_of(info, coverage=0.9) == (0.3, "prior")
    info.cut, info.gap, info.below = 0.6, 0.1, 0.5
    assert cutrules.threshold_of(info, coverage=0.1) == (0.6, "distribution")
    assert cutrules.threshold_of(info, coverage=0.9) == (pytest.approx(0.3), "nearest")
    info.gap = 0.5
    value, source = cutrules.threshold_of(info, coverage=0.9)
    assert source == "distribution" and 0.5 < value < 0.5001


def test_core_rule_and_hold_checks():
    info = LabelOnSite(within=0.8, prior=0.7, cut=0.6, core=frozenset({"ab"}), core_share=0.2)
    assert cutrules.holds_the_core(info, frozenset({"ab", "cd"}), 0.5)
    assert not cutrules.holds_the_core(info, frozenset({"cd"}), 0.5)
    assert not cutrules.holds_the_core(info, frozenset({"ab"}), 0.4)  # under 0.6 x 0.8
    assert not cutrules.holds_the_core(
        info, frozenset({"ab"}), 0.5, replace(SitePolicy(), dominant_share=0.1)
    )
    assert not cutrules.reaches_every_threshold(info, 0.9)  # no threshold of its own yet
    info.highest = 0.75
    assert cutrules.reaches_every_threshold(info, 0.75) and not cutrules.reaches_every_threshold(
        info, 0.72
    )
    assert cutrules.lowest_cut(info) == pytest.approx(0.3 * 0.8)
