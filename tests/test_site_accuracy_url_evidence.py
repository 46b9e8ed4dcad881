"""The benchmark's issue-32 probes: a URL's shape as evidence for a page left with none, and
the nearest label for such pages gated by a measure of how much of the site the labels
describe. Both were measured and not kept (docs/benchmarks.md, site_accuracy.py); these tests
pin what the probes compute, so their figures mean what the benchmarks page says."""

from __future__ import annotations

from pagesim_scrapy.core.verdict import Verdict

from .test_site_accuracy_lost_pages import bench


def _none(scores: dict[str, float]) -> Verdict:
    return Verdict(None, max(scores.values()), scores, "site", 0.0, threshold=1.0)


def test_url_shape_is_depth_and_folders_with_numbers_folded() -> None:
    assert bench.url_shape("https://x.org/2015/01/21/slug/") == (4, ("#", "#", "#"))
    assert bench.url_shape("https://x.org/2016/03/02/other/") == (4, ("#", "#", "#"))
    assert bench.url_shape("https://x.org/about.html") == (1, ())


def test_url_label_modes() -> None:
    shapes = {
        "post": {bench.url_shape("https://x.org/2014/08/26/a/")},
        "info": {bench.url_shape("https://x.org/faq.html")},
    }
    near_info = _none({"post": 0.2, "info": 0.3})
    near_post = _none({"post": 0.3, "info": 0.2})
    dated = "https://x.org/2015/01/21/b/"
    assert bench.url_label(near_post, dated, shapes, "off") is None
    assert bench.url_label(near_post, dated, shapes, "unique") == "post"
    assert bench.url_label(near_info, dated, shapes, "unique") is None  # nearest disagrees
    assert bench.url_label(near_info, dated, shapes, "url") == "post"
    # at the site's root the shape is the depth alone: "folder" takes no evidence from it
    assert bench.url_label(near_info, "https://x.org/team.html", shapes, "unique") == "info"
    assert bench.url_label(near_info, "https://x.org/team.html", shapes, "folder") is None
    # a page with a label, or one label configured, is left as it is
    labelled = Verdict("info", 0.3, {"post": 0.2, "info": 0.3}, "site", 0.0, threshold=0.1)
    assert bench.url_label(labelled, dated, shapes, "url") == "info"
    assert bench.url_label(near_post, dated, {"post": shapes["post"]}, "url") is None


def test_url_patterns_keep_what_the_examples_agree_on() -> None:
    patterns = bench.url_patterns(
        ["https://x.org/help/badges", "https://x.org/help/badges?page=2", "https://x.org/one"]
    )
    assert patterns == {("help", "badges")}  # a single example of a depth says nothing
    assert not bench._matches("https://x.org/help/asking", patterns)
    dated = bench.url_patterns(["https://x.org/2014/08/26/a/", "https://x.org/2015/01/21/b/"])
    assert dated == {("#", "#", "#", None)}
    assert bench._matches("https://x.org/2016/02/02/c/", dated)


def test_gated_figures_fill_only_where_the_measure_reaches_the_value() -> None:
    every = bench.CoverInstance(
        "every", 2, {"coverage": 0.4}, [("a", None, "a", True), ("b", None, "a", True)]
    )
    some = bench.CoverInstance(
        "some", 2, {"coverage": 0.6}, [(None, None, "a", True), ("a", "a", "a", True)]
    )
    own, some_counts, _ = bench._gated_figures([every, some], "coverage", 0.5)
    assert own == 0.0  # the every-type classifier is under the value: nothing filled
    assert (some_counts.tp, some_counts.fp) == (1, 1)  # the page of no configured type filled
    own, _, _ = bench._gated_figures([every, some], "coverage", 0.3)
    assert own == 0.5
    own, some_counts, _ = bench._gated_figures([every, some], "coverage", 2.0)
    assert (own, some_counts.fp) == (0.0, 0)
