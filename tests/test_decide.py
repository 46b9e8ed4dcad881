"""The core's decision step (:mod:`pagesim_scrapy.core.decide`), without Scrapy."""

from __future__ import annotations

from pathlib import Path

import pytest

from pagesim_scrapy.core.classify import build_classifier
from pagesim_scrapy.core.decide import (
    DROP,
    HOLD,
    PASS,
    Decision,
    PageDecider,
    explore_selected,
    site_classifier,
)
from pagesim_scrapy.core.secondlook import SecondLook
from pagesim_scrapy.core.summary import summarize

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "stackoverflow"
TYPES = ("question", "users")
VERDICT_KEYS = [
    "label",
    "score",
    "scores",
    "method",
    "margin",
    "runner_up",
    "threshold",
    "threshold_source",
    "confidence",
    "core",
]


def summary(kind: str, number: int):  # type: ignore[no-untyped-def]
    return summarize((FIXTURES / kind / f"{number:02d}.html").read_bytes())


@pytest.fixture(scope="module")
def templates():  # type: ignore[no-untyped-def]
    return {kind: [summary(kind, 1)] for kind in TYPES}


def test_the_meta_has_the_verdict_s_keys_in_order_and_only_the_ones_set(templates):
    decider = PageDecider(build_classifier(templates, method="lcs"), targets=frozenset(TYPES))
    decision = decider.decide(summary("question", 2), site="127.0.0.1", url="http://x/q")
    meta = decision.as_meta()
    assert list(meta) == [*VERDICT_KEYS, "target"]
    assert meta["label"] == "question" and meta["target"] is True
    assert decision.action == PASS and not decision.record


def test_drop_mode_drops_or_explores_pages_of_no_target_label(templates):
    classifier = build_classifier(templates, method="lcs")
    dropping = PageDecider(classifier, targets=frozenset({"question"}), drop=True)
    dropped = dropping.decide(summary("users", 2), site="h", url="http://x/u")
    assert dropped.action == DROP and dropped.as_meta()["target"] is False
    exploring = PageDecider(classifier, targets=frozenset({"question"}), drop=True, explore=1.0)
    explored = exploring.decide(summary("users", 2), site="h", url="http://x/u")
    assert explored.action == PASS and list(explored.as_meta())[-1] == "explored"


def test_a_young_site_s_unsettled_target_page_is_held_and_recorded(templates):
    classifier = build_classifier(templates, method="site")
    sites = site_classifier(classifier)
    assert sites is classifier
    targets = frozenset({"question"})
    decider = PageDecider(
        classifier, second_look=SecondLook(sites, targets), targets=targets, drop=True, hold=True
    )
    decision = decider.decide(summary("question", 2), site="h", url="http://x/q")
    assert decision.action == HOLD and decision.held and decision.record
    assert decision.as_meta()["held"] is True and decision.as_meta()["target"] is False
    assert decision.features is not None


def test_only_the_site_aware_classifier_is_a_site_classifier(templates):
    assert site_classifier(build_classifier(templates, method="lcs")) is None
    assert site_classifier(None) is None


def test_a_decision_is_frozen():
    decision = Decision(label=None, score=0.0, scores={}, method=None)
    with pytest.raises(AttributeError):
        decision.label = "x"  # type: ignore[misc]
    assert decision.as_meta() == {
        "label": None,
        "score": 0.0,
        "scores": {},
        "method": None,
        "target": False,
    }


def test_explore_selected_is_a_function_of_the_url():
    assert explore_selected("http://x/a", 0.5) == explore_selected("http://x/a", 0.5)
    assert not explore_selected("http://x/a", 0.0) and explore_selected("http://x/a", 1.0)


def _pages():  # type: ignore[no-untyped-def]
    return [summary(kind, number) for kind in TYPES for number in (2, 3)]


@pytest.mark.parametrize("method", ["site", "lcs"])
def test_the_batch_decisions_are_the_classifier_s_batch_verdicts(templates, method):
    """``decide_all`` is ``classify_all`` behind the decision step: same verdicts, same order."""
    expected = build_classifier(templates, method=method).classify_all(_pages(), site="h")
    decider = PageDecider(build_classifier(templates, method=method), targets=frozenset(TYPES))
    decisions = decider.decide_all(_pages(), site="h")
    assert [d.verdict_meta() for d in decisions] == [v.as_meta() for v in expected]
    assert all(d.classified and d.site == "h" for d in decisions)
    assert [d.target for d in decisions] == [v.label is not None for v in expected]
    assert decider.describe("h") == decider.classifier.describe("h")  # type: ignore[union-attr]


def test_the_verdict_meta_leaves_out_the_crawl_s_keys(templates):
    decider = PageDecider(build_classifier(templates, method="lcs"))
    decision = decider.decide_all([summary("question", 2)])[0]
    assert list(decision.verdict_meta()) == VERDICT_KEYS
    assert list(decision.as_meta()) == [*VERDICT_KEYS, "target"]
    assert decision.action == PASS and decision.target is False


def test_a_decision_from_scores_computed_elsewhere_learns_nothing(templates):
    classifier = build_classifier(templates, method="site")
    decider = PageDecider(classifier, targets=frozenset({"question"}), drop=True)
    decider.decide_all(_pages(), site="h")
    before = classifier.describe("h")
    page = summary("question", 1)
    decision = decider.decide_scores(classifier.scores(page, site="h"), site="h")
    assert classifier.describe("h") == before
    assert decision.label == "question" and decision.action == PASS
    other = decider.decide_scores({"question": 0.0, "users": 0.0}, site="h")
    assert other.label is None and other.action == DROP


def test_deciding_offline_needs_a_classifier():
    with pytest.raises(ValueError, match="no classifier"):
        PageDecider(None).decide_all([])
