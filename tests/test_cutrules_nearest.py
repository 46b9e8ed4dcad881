"""The nearest rule's threshold for a label of one template (issue 32, item 1): the other
labels' likeness to its one example does not turn away a page its own cut keeps."""

from __future__ import annotations

import pytest

from pagesim_scrapy.core import cutrules
from pagesim_scrapy.core.cutrules import LabelOnSite


def test_one_template_the_nearest_rule_never_raises_the_own_cut() -> None:
    # one example more alike another label's example than the type's own pages are alike
    # it, and the site's own split well below them
    info = LabelOnSite(prior=0.465, cross=0.465, cut=0.149, gap=0.285, below=0.01)
    assert cutrules.threshold_of(info, coverage=0.9) == (pytest.approx(0.149), "nearest")
    assert cutrules.threshold_of(info, coverage=0.1) == (0.149, "distribution")


def test_one_template_the_nearest_rule_still_lowers_the_own_cut() -> None:
    info = LabelOnSite(prior=0.2, cross=0.2, cut=0.5, gap=0.05, below=0.45)
    assert cutrules.threshold_of(info, coverage=0.9) == (pytest.approx(0.2), "nearest")


def test_several_templates_keep_the_other_labels_bound() -> None:
    info = LabelOnSite(within=0.33, prior=0.169, cross=0.169, cut=0.06, gap=0.103, below=0.05)
    assert cutrules.threshold_of(info, coverage=0.9) == (pytest.approx(0.169), "nearest")


def test_one_template_and_a_wide_gap_stays_in_the_gap() -> None:
    info = LabelOnSite(prior=0.465, cross=0.465, cut=0.3, gap=0.5, below=0.01)
    value, source = cutrules.threshold_of(info, coverage=0.9)
    assert source == "distribution" and 0.01 < value <= 0.3
